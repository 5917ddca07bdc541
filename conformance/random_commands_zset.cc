#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

const Words kScoreBounds = {"-inf", "+inf", "0",     "1",     "(1", "2",
                            "(2.5", "3",    "(-inf", "(+inf", "-1"};
const Words kBadScoreBounds = {"abc", "(", "nan", "[1", "(abc"};
const Words kLexBounds = {"-", "+", "[a", "(a", "[b", "(c", "[aa", "[", "(", "[d", "(\xff"};
const Words kBadLexBounds = {"a", "", "--", "++", "{a"};
// Lex commands run on these keys only, and every zset write to them uses score 0, so that
// their members always have equal scores. "l1" is the zset; the others are mostly not zsets.
const Words kLexKeys = {"l1", "s1", "h1", "nokey"};
std::string LexKey(Gen& g) { return g.Chance(80) ? "l1" : g.Pick(kLexKeys); }
std::string ScoreBound(Gen& g) {
  return g.Chance(94) ? g.Pick(kScoreBounds) : g.Pick(kBadScoreBounds);
}
std::string LexBound(Gen& g) { return g.Chance(94) ? g.Pick(kLexBounds) : g.Pick(kBadLexBounds); }

void AddLimit(Gen& g, Argv* a) {
  if (!g.Chance(35)) return;
  a->insert(a->end(), {"LIMIT", Number(g, Words{"0", "1", "2", "-1", "100"}),
                       Number(g, Words{"1", "2", "-1", "0", "-5", "100"})});
}
void MaybeWithScores(Gen& g, Argv* a) {
  if (g.Chance(40)) a->push_back("WITHSCORES");
}

// Zsets. A write to a lex key keeps every score at 0, so that lex ranges stay defined.
std::string ZsetKey(Gen& g) { return g.Chance(12) ? "l1" : Key(g, kZsetKeys); }
std::string ScoreFor(Gen& g, const std::string& key) {
  const bool lex = std::find(kLexKeys.begin(), kLexKeys.end(), key) != kLexKeys.end();
  return lex ? "0" : Number(g, kScores);
}
Argv Zadd(Gen& g) {
  const std::string key = ZsetKey(g);
  Argv a = {"ZADD", key};
  for (const char* flag : {"NX", "XX", "GT", "LT", "CH"}) {
    if (g.Chance(12)) a.push_back(flag);
  }
  const bool incr = g.Chance(12);
  if (incr) a.push_back("INCR");
  for (uint64_t n = incr && g.Chance(90) ? 1 : 1 + g.Below(3); n > 0; --n) {
    a.push_back(ScoreFor(g, key));
    a.push_back(g.Pick(kMembers));
  }
  return a;
}
Argv Zincrby(Gen& g) {
  const std::string key = ZsetKey(g);
  return {"ZINCRBY", key, ScoreFor(g, key), g.Pick(kMembers)};
}
Argv ZsetKeyOnly(Gen& g, const char* cmd) { return {cmd, ZsetKey(g)}; }
Argv ZsetMember(Gen& g, const char* cmd) { return {cmd, ZsetKey(g), g.Pick(kMembers)}; }
Argv ZsetMembers(Gen& g, const char* cmd) {
  Argv a = {cmd, ZsetKey(g)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(g.Pick(kMembers));
  return a;
}
Argv ScoreRange(Gen& g, const char* cmd, bool reverse, bool options) {
  std::string lo = ScoreBound(g), hi = ScoreBound(g);
  if (reverse) std::swap(lo, hi);
  Argv a = {cmd, Key(g, kZsetKeys), lo, hi};
  if (options) {
    MaybeWithScores(g, &a);
    AddLimit(g, &a);
  }
  return a;
}
Argv LexRange(Gen& g, const char* cmd, bool options) {
  Argv a = {cmd, LexKey(g), LexBound(g), LexBound(g)};
  if (options) {
    AddLimit(g, &a);
    if (g.Chance(5)) a.push_back("WITHSCORES");  // a syntax error for the BYLEX commands
  }
  return a;
}
Argv RankRange(Gen& g, const char* cmd, bool scores) {
  Argv a = {cmd, ZsetKey(g), Rank(g), Rank(g)};
  if (scores) MaybeWithScores(g, &a);
  return a;
}
Argv Zrange(Gen& g) {
  const uint64_t by = g.Below(3);  // rank, BYSCORE, BYLEX
  const bool rev = g.Chance(35);
  Argv a = {"ZRANGE"};
  if (by == 0) {
    a.insert(a.end(), {ZsetKey(g), Rank(g), Rank(g)});
  } else if (by == 1) {
    a.insert(a.end(), {Key(g, kZsetKeys), ScoreBound(g), ScoreBound(g), "BYSCORE"});
  } else {
    a.insert(a.end(), {LexKey(g), LexBound(g), LexBound(g), "BYLEX"});
  }
  if (rev) a.push_back("REV");
  if (by != 0 || g.Chance(5)) AddLimit(g, &a);  // LIMIT without BY* is an error
  if (by != 2 || g.Chance(5)) MaybeWithScores(g, &a);
  return a;
}
Argv Zpop(Gen& g, const char* cmd) {
  Argv a = {cmd, ZsetKey(g)};
  if (g.Chance(50)) a.push_back(g.Pick(kCounts));
  return a;
}
// ZMPOP over one or two zset keys (a lex key keeps equal scores: popping removes members). The
// blocking forms get only a timeout they refuse (kBadTimeouts), so they never block; BZMPOP
// parses its other arguments first, so their errors come out too.
Argv Zmpop(Gen& g, bool blocking) {
  Argv a = {blocking ? "BZMPOP" : "ZMPOP"};
  if (blocking) a.push_back(g.Pick(kBadTimeouts));
  const uint64_t n = 1 + g.Below(2);
  a.push_back(g.Chance(95) ? std::to_string(n) : g.Pick(Words{"0", "-1", "abc", "5"}));
  for (uint64_t i = 0; i < n; ++i) a.push_back(ZsetKey(g));
  a.push_back(g.Chance(95) ? g.Pick(Words{"MIN", "MAX", "min", "Max"}) : "MIDDLE");
  if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"1", "2", "5", "0", "-1"})});
  return a;
}
Argv BlockingZpop(Gen& g, const char* cmd) {
  Argv a = {cmd, ZsetKey(g)};
  if (g.Chance(40)) a.push_back(ZsetKey(g));
  a.push_back(g.Pick(kBadTimeouts));
  return a;
}

// The zset algebra: sources from the zsets (the lex key too: a source is only read), a set, a
// string and absent keys; destinations never a lex key (kLexKeys: their scores must stay equal) nor
// the wide zset, so the zsets and "x" (any type).
std::string AlgebraSource(Gen& g) {
  return g.Chance(80) ? ZsetKey(g) : g.Pick(Words{"s1", "nokey", "zw", "t1"});
}
std::string AlgebraDestination(Gen& g) { return g.Chance(85) ? g.Pick(kZsetKeys) : "x"; }
// numkeys and the keys, then the options: WEIGHTS, AGGREGATE, WITHSCORES (ZINTERCARD: LIMIT).
Argv Zalgebra(Gen& g, const char* cmd, bool store, bool weights, bool card) {
  Argv a = {cmd};
  if (store) a.push_back(AlgebraDestination(g));
  const uint64_t n = 1 + g.Below(3);
  a.push_back(g.Chance(95) ? std::to_string(n) : g.Pick(Words{"0", "-1", "x", "9"}));
  for (uint64_t i = 0; i < n; ++i) a.push_back(AlgebraSource(g));
  if (weights && g.Chance(35)) {
    a.push_back("WEIGHTS");
    for (uint64_t i = 0; i < n; ++i) {
      a.push_back(g.Pick(Words{"1", "2", "0", "-1", "0.5", "inf", "-inf"}));
    }
  }
  if (weights && g.Chance(30)) {
    a.insert(a.end(), {"AGGREGATE", g.Pick(Words{"SUM", "MIN", "MAX", "max", "avg"})});
  }
  if (card && g.Chance(40)) a.insert(a.end(), {"LIMIT", g.Pick(Words{"0", "1", "2", "-1"})});
  if (!store && !card && g.Chance(60)) a.push_back("WITHSCORES");
  return a;
}
Argv Zrangestore(Gen& g) {
  Argv a = Zrange(g);
  a[0] = "ZRANGESTORE";
  a.insert(a.begin() + 1, AlgebraDestination(g));
  // WITHSCORES is a syntax error for ZRANGESTORE: keep it rare.
  if (a.back() == "WITHSCORES" && g.Chance(80)) a.pop_back();
  return a;
}
// ZRANDMEMBER: no count, or a count of either sign (the reply is checked, not compared:
// differential.cc), with WITHSCORES or now and then a wrong option.
Argv Zrandmember(Gen& g, const std::string& key) {
  Argv a = {"ZRANDMEMBER", key};
  if (g.Chance(80)) a.push_back(Number(g, Words{"1", "2", "3", "0", "-1", "-5", "20", "-20"}));
  if (a.size() == 3 && g.Chance(45)) a.push_back(g.Chance(95) ? "WITHSCORES" : "WITHVALUES");
  return a;
}

// Wide collections: one hash ("hw") and one zset ("zw") drawing from hundreds of fields and
// members, so that ranges skip, ranks go deep and scans page. Never lex-ranged ("zw" has
// unequal scores).
std::string WideName(Gen& g, char prefix) { return prefix + std::to_string(g.Below(300)); }
std::string WideScore(Gen& g) { return std::to_string(static_cast<int64_t>(g.Below(60)) - 10); }
std::string WideRank(Gen& g) { return std::to_string(static_cast<int64_t>(g.Below(800)) - 400); }
Argv WideZadd(Gen& g) {
  Argv a = {"ZADD", "zw"};
  for (uint64_t n = 1 + g.Below(30); n > 0; --n) {
    a.push_back(WideScore(g));
    a.push_back(WideName(g, 'm'));
  }
  return a;
}
Argv WideHset(Gen& g) {
  Argv a = {"HSET", "hw"};
  for (uint64_t n = 1 + g.Below(30); n > 0; --n) {
    a.push_back(WideName(g, 'f'));
    a.push_back(WideName(g, 'v'));
  }
  return a;
}
Argv WideRead(Gen& g) {
  switch (g.Below(14)) {
    case 0:
      return {"ZRANGE", "zw", WideRank(g), WideRank(g), "WITHSCORES"};
    case 1:
      return {"ZREVRANGE", "zw", WideRank(g), WideRank(g)};
    case 2:
      return {"ZRANGEBYSCORE",
              "zw",
              WideScore(g),
              "(" + WideScore(g),
              "LIMIT",
              std::to_string(g.Below(300)),
              std::to_string(static_cast<int64_t>(g.Below(40)) - 5)};
    case 3:
      return {"ZREVRANGEBYSCORE",
              "zw",
              WideScore(g),
              WideScore(g),
              "WITHSCORES",
              "LIMIT",
              std::to_string(g.Below(100)),
              std::to_string(g.Below(40))};
    case 4:
      return {"ZRANK", "zw", WideName(g, 'm')};
    case 5:
      return {"ZREVRANK", "zw", WideName(g, 'm')};
    case 6:
      return {"ZCOUNT", "zw", "(" + WideScore(g), WideScore(g)};
    case 7:
      return {"ZSCAN", "zw", "0", "COUNT", std::to_string(1 + g.Below(20))};
    case 8:
      return {"HSCAN", "hw", "0", "COUNT", std::to_string(1 + g.Below(20))};
    case 9:
      return {"HGETALL", "hw"};
    case 10:
      return {"HLEN", "hw"};
    case 11:
      return Zrandmember(g, "zw");
    case 12:
      return {"HRANDFIELD", "hw", std::to_string(static_cast<int64_t>(g.Below(400)) - 200),
              "WITHVALUES"};
    default:
      return {"ZCARD", "zw"};
  }
}
Argv WideRemove(Gen& g) {
  switch (g.Below(5)) {
    case 0:
      return {"ZREM", "zw", WideName(g, 'm'), WideName(g, 'm'), WideName(g, 'm')};
    case 1:
      return {"ZREMRANGEBYRANK", "zw", WideRank(g), WideRank(g)};
    case 2:
      return {"ZREMRANGEBYSCORE", "zw", WideScore(g), "(" + WideScore(g)};
    case 3:
      return {g.Chance(50) ? "ZPOPMIN" : "ZPOPMAX", "zw", std::to_string(1 + g.Below(10))};
    default:
      return {"HDEL", "hw", WideName(g, 'f'), WideName(g, 'f'), WideName(g, 'f')};
  }
}

}  // namespace

std::vector<Entry> ZsetEntries() {
  return {
      {"zadd", 8, Zadd},
      {"zincrby", 3, Zincrby},
      {"zcard", 2, [](Gen& g) { return ZsetKeyOnly(g, "ZCARD"); }},
      {"zscore", 2, [](Gen& g) { return ZsetMember(g, "ZSCORE"); }},
      {"zmscore", 1, [](Gen& g) { return ZsetMembers(g, "ZMSCORE"); }},
      {"zcount", 2, [](Gen& g) { return ScoreRange(g, "ZCOUNT", false, false); }},
      {"zlexcount", 2, [](Gen& g) { return LexRange(g, "ZLEXCOUNT", false); }},
      {"zrange", 6, Zrange},
      {"zrangebyscore", 2, [](Gen& g) { return ScoreRange(g, "ZRANGEBYSCORE", false, true); }},
      {"zrevrangebyscore", 2, [](Gen& g) { return ScoreRange(g, "ZREVRANGEBYSCORE", true, true); }},
      {"zrangebylex", 2, [](Gen& g) { return LexRange(g, "ZRANGEBYLEX", true); }},
      {"zrevrangebylex", 1, [](Gen& g) { return LexRange(g, "ZREVRANGEBYLEX", true); }},
      {"zrevrange", 2, [](Gen& g) { return RankRange(g, "ZREVRANGE", true); }},
      {"zrank", 2, [](Gen& g) { return ZsetMember(g, "ZRANK"); }},
      {"zrevrank", 1, [](Gen& g) { return ZsetMember(g, "ZREVRANK"); }},
      {"zrem", 3, [](Gen& g) { return ZsetMembers(g, "ZREM"); }},
      {"zremrangebyrank", 1, [](Gen& g) { return RankRange(g, "ZREMRANGEBYRANK", false); }},
      {"zremrangebyscore", 1,
       [](Gen& g) { return ScoreRange(g, "ZREMRANGEBYSCORE", false, false); }},
      {"zremrangebylex", 1, [](Gen& g) { return LexRange(g, "ZREMRANGEBYLEX", false); }},
      {"zscan", 1,
       [](Gen& g) {
         Argv a = {"ZSCAN", ZsetKey(g), "0"};
         if (g.Chance(40)) a.insert(a.end(), {"MATCH", g.Pick(Words{"a*", "*", "?", "[ab]"})});
         if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"1", "3"})});
         return a;
       }},
      {"zpopmin", 2, [](Gen& g) { return Zpop(g, "ZPOPMIN"); }},
      {"zpopmax", 2, [](Gen& g) { return Zpop(g, "ZPOPMAX"); }},
      {"zmpop", 2, [](Gen& g) { return Zmpop(g, false); }},
      {"bzpopmin", 1, [](Gen& g) { return BlockingZpop(g, "BZPOPMIN"); }},
      {"bzpopmax", 1, [](Gen& g) { return BlockingZpop(g, "BZPOPMAX"); }},
      {"bzmpop", 1, [](Gen& g) { return Zmpop(g, true); }},
      {"zunion", 2, [](Gen& g) { return Zalgebra(g, "ZUNION", false, true, false); }},
      {"zinter", 2, [](Gen& g) { return Zalgebra(g, "ZINTER", false, true, false); }},
      {"zdiff", 1, [](Gen& g) { return Zalgebra(g, "ZDIFF", false, false, false); }},
      {"zintercard", 1, [](Gen& g) { return Zalgebra(g, "ZINTERCARD", false, false, true); }},
      {"zunionstore", 2, [](Gen& g) { return Zalgebra(g, "ZUNIONSTORE", true, true, false); }},
      {"zinterstore", 2, [](Gen& g) { return Zalgebra(g, "ZINTERSTORE", true, true, false); }},
      {"zdiffstore", 1, [](Gen& g) { return Zalgebra(g, "ZDIFFSTORE", true, false, false); }},
      {"zrangestore", 2, Zrangestore},
      {"zrandmember", 2, [](Gen& g) { return Zrandmember(g, ZsetKey(g)); }},
  };
}

std::vector<Entry> WideEntries() {
  return {
      {"zadd", 3, WideZadd},
      {"hset", 3, WideHset},
      {"zrange", 6, WideRead},
      {"zrem", 1, WideRemove},
  };
}

}  // namespace kvlab::conformance::random_internal
