#include "conformance/random_commands.h"

#include <algorithm>
#include <functional>

#include "engine/command_table.h"

namespace kvlab::conformance {
namespace {

using Argv = std::vector<std::string>;
using Gen = RandomCommandGenerator;
using Words = std::vector<std::string>;

// The alphabets. Small on purpose: collisions are the point.
const Words kHashKeys = {"h1", "h2"};
const Words kZsetKeys = {"z1", "z2"};
const Words kStringKeys = {"s1", "s2"};
const Words kSetKeys = {"t1", "t2"};
const Words kAllKeys = {"h1", "h2",    "z1", "z2", "l1", "s1", "s2",
                        "x",  "nokey", "zw", "hw", "",   "t1"};
// The 521-byte words share their first 520 bytes: past LMDB's 511-byte key limit, their records
// land in one LongKeyStore bucket (backends/long_key_store.h).
const Words kFields = {"f1",
                       "f2",
                       "f3",
                       "",
                       std::string("f\0", 2),
                       "a-long-field-name-20",
                       std::string(520, 'F') + "1",
                       std::string(520, 'F') + "2"};
const Words kValues = {"v",
                       "1",
                       "-3",
                       "2.5",
                       "abc",
                       "",
                       "1e2",
                       " 1",
                       "0x10",
                       "9223372036854775807",
                       "-9223372036854775808"};
// "long-member-of-20-b" is long enough for the Redis-tier zset versions' long-member path.
const Words kMembers = {"a",
                        "b",
                        "c",
                        "d",
                        "aa",
                        "",
                        "m\xff",
                        std::string("b\0", 2),
                        "long-member-of-20-b",
                        std::string(520, 'M') + "a",
                        std::string(520, 'M') + "b"};
const Words kScores = {"0",
                       "1",
                       "2",
                       "-1",
                       "2.5",
                       "1e3",
                       "-inf",
                       "+inf",
                       "inf",
                       "0.1",
                       "3",
                       "-2.5",
                       "-0",
                       "1e-320",
                       "123456789012345678",
                       "1.7976931348623157e308",
                       "0.2"};
const Words kBadNumbers = {"abc", "nan", "1.5.5", "", " 1", "1e", "0x1", "1e400", "-1e-400", "1 "};
const Words kScoreBounds = {"-inf", "+inf", "0",     "1",     "(1", "2",
                            "(2.5", "3",    "(-inf", "(+inf", "-1"};
const Words kBadScoreBounds = {"abc", "(", "nan", "[1", "(abc"};
const Words kLexBounds = {"-", "+", "[a", "(a", "[b", "(c", "[aa", "[", "(", "[d", "(\xff"};
const Words kBadLexBounds = {"a", "", "--", "++", "{a"};
const Words kRanks = {"0", "1", "-1", "2", "-2", "10", "-100", "100", "3"};
const Words kHashIncrements = {
    "1", "-1", "0", "100", "9223372036854775807", "-9223372036854775808"};
const Words kFloatIncrements = {
    "1.5",   "-0.1", "0",   "1e3",   "inf",  "-inf", "3",    "-1.5e-3",
    "5.0e3", "0.1",  "0.2", "1e308", "1e-5", "-0",   "1e17", "123456789012345678",
    "1e-320"};
const Words kRelSeconds = {"100", "1000", "5000"};
const Words kRelMillis = {"100000", "500000", "2500000"};
const Words kBadTtls = {"0", "-1", "abc", "9223372036854775807", "-9223372036854775808", ""};
// Far in the future (2100 and later), so that GT/LT compare deterministically.
const Words kAbsSeconds = {"4102444800", "4102444900", "4102445000"};
const Words kAbsMillis = {"4102444800000", "4102444850000", "4102445000000"};
const Words kPastSeconds = {"1", "1000000000"};
const Words kPastMillis = {"1", "1000000000000"};
const Words kCounts = {"1", "2", "0", "-1", "10", "abc", "-5"};
const Words kPatterns = {"*",  "h*",  "?1", "[hz]*", "x",    "*1",    "[^h]*", "no*",
                         "**", "[a-", "?",  "",      "*\\*", "[!h]*", "\\",    "[z-a]*"};

std::string Key(Gen& g, const Words& own) {
  const uint64_t r = g.Below(100);
  if (r < 75) return g.Pick(own);
  if (r < 85) return "x";
  return g.Pick(kAllKeys);
}
// Lex commands run on these keys only, and every zset write to them uses score 0, so that
// their members always have equal scores. "l1" is the zset; the others are mostly not zsets.
const Words kLexKeys = {"l1", "s1", "h1", "nokey"};
std::string LexKey(Gen& g) { return g.Chance(80) ? "l1" : g.Pick(kLexKeys); }
std::string Number(Gen& g, const Words& good) {
  return g.Chance(92) ? g.Pick(good) : g.Pick(kBadNumbers);
}
std::string ScoreBound(Gen& g) {
  return g.Chance(94) ? g.Pick(kScoreBounds) : g.Pick(kBadScoreBounds);
}
std::string LexBound(Gen& g) { return g.Chance(94) ? g.Pick(kLexBounds) : g.Pick(kBadLexBounds); }
std::string Rank(Gen& g) { return Number(g, kRanks); }

void AddLimit(Gen& g, Argv* a) {
  if (!g.Chance(35)) return;
  a->insert(a->end(), {"LIMIT", Number(g, Words{"0", "1", "2", "-1", "100"}),
                       Number(g, Words{"1", "2", "-1", "0", "-5", "100"})});
}
void MaybeWithScores(Gen& g, Argv* a) {
  if (g.Chance(40)) a->push_back("WITHSCORES");
}

// Keyspace.
Argv Keys1(Gen& g, const char* cmd) {
  Argv a = {cmd, g.Pick(kAllKeys)};
  for (uint64_t n = g.Below(3); n > 0; --n) a.push_back(g.Pick(kAllKeys));
  return a;
}
Argv ExpireFlags(Gen& g, Argv a, bool absolute) {
  // GT and LT only with absolute times; see the header.
  const Words flags =
      absolute ? Words{"NX", "XX", "GT", "LT", "gt", "FOO"} : Words{"NX", "XX", "xx"};
  for (uint64_t n = g.Chance(50) ? 1 + g.Below(2) : 0; n > 0; --n) a.push_back(g.Pick(flags));
  return a;
}
Argv ExpireRelative(Gen& g, bool millis) {
  const std::string t = g.Chance(88) ? g.Pick(millis ? kRelMillis : kRelSeconds) : g.Pick(kBadTtls);
  return ExpireFlags(g, {millis ? "PEXPIRE" : "EXPIRE", g.Pick(kAllKeys), t}, false);
}
Argv ExpireAbsolute(Gen& g, bool millis) {
  std::string t;
  const uint64_t r = g.Below(100);
  if (r < 75) {
    t = g.Pick(millis ? kAbsMillis : kAbsSeconds);
  } else if (r < 90) {
    t = g.Pick(millis ? kPastMillis : kPastSeconds);  // in the past: the key goes
  } else {
    t = g.Pick(kBadTtls);
  }
  return ExpireFlags(g, {millis ? "PEXPIREAT" : "EXPIREAT", g.Pick(kAllKeys), t}, true);
}
Argv Scan(Gen& g) {
  Argv a = {"SCAN", g.Chance(95) ? "0" : g.Pick(Words{"abc", "-1", "18446744073709551616"})};
  if (g.Chance(40)) a.insert(a.end(), {"MATCH", g.Pick(kPatterns)});
  if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"1", "2", "10"})});
  if (g.Chance(30)) {
    a.insert(a.end(), {"TYPE", g.Pick(Words{"string", "hash", "zset", "list", "set", "nosuch"})});
  }
  return a;
}

// Strings.
// Appends at most one expiry option of SET or GETEX: EX/PX with a relative time (15% of them
// invalid), EXAT/PXAT with an absolute one (30% of them past), or `keep` (KEEPTTL, PERSIST); one
// draw in `choices` picks it, so choices - 5 of them append nothing.
// REQUIRES: choices >= 5.
void AppendExpiry(Gen& g, uint64_t choices, const char* keep, Argv* a) {
  switch (g.Below(choices)) {
    case 0:
      a->insert(a->end(), {"EX", g.Chance(85) ? g.Pick(kRelSeconds) : g.Pick(kBadTtls)});
      break;
    case 1:
      a->insert(a->end(), {"PX", g.Chance(85) ? g.Pick(kRelMillis) : g.Pick(kBadTtls)});
      break;
    case 2:
      a->insert(a->end(), {"EXAT", g.Pick(g.Chance(70) ? kAbsSeconds : kPastSeconds)});
      break;
    case 3:
      a->insert(a->end(), {"PXAT", g.Pick(g.Chance(70) ? kAbsMillis : kPastMillis)});
      break;
    case 4:
      a->push_back(keep);
      break;
    default:
      break;
  }
}
Argv Set(Gen& g) {
  Argv a = {"SET", Key(g, kStringKeys), g.Pick(kValues)};
  if (g.Chance(30)) a.push_back(g.Pick(Words{"NX", "XX"}));
  if (g.Chance(20)) a.push_back("GET");
  AppendExpiry(g, 8, "KEEPTTL", &a);
  if (g.Chance(4)) a.push_back(g.Pick(Words{"NX", "EX", "KEEPTTL", "FOO"}));  // conflicts
  return a;
}
Argv Mset(Gen& g) {
  Argv a = {"MSET"};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) {
    a.push_back(Key(g, kStringKeys));
    a.push_back(g.Pick(kValues));
  }
  return a;
}

const Words kOffsets = {"0", "1", "2", "3", "7", "8", "15", "17", "100", "-1", "4294967296"};
const Words kBitRange = {"0", "1", "2", "-1", "-2", "5", "7", "8", "15", "-9", "100"};
Argv GetexOptions(Gen& g) {
  Argv a = {"GETEX", Key(g, kStringKeys)};
  AppendExpiry(g, 7, "PERSIST", &a);
  if (g.Chance(4)) a.push_back(g.Pick(Words{"EX", "PERSIST", "KEEPTTL", "NX"}));  // conflicts
  return a;
}
Argv BitRangeArgs(Gen& g, Argv a, size_t max_numbers) {
  const uint64_t n = g.Below(max_numbers + 1);
  for (uint64_t i = 0; i < n; ++i) a.push_back(Number(g, kBitRange));
  if (n == max_numbers && g.Chance(50)) a.push_back(g.Pick(Words{"BIT", "BYTE", "bit", "FOO"}));
  return a;
}
Argv Lcs(Gen& g) {
  Argv a = {"LCS", Key(g, kStringKeys), Key(g, kStringKeys)};
  if (g.Chance(30)) a.push_back("LEN");
  if (g.Chance(40)) a.push_back("IDX");
  if (g.Chance(25)) a.insert(a.end(), {"MINMATCHLEN", Number(g, Words{"0", "1", "2", "-1"})});
  if (g.Chance(25)) a.push_back("WITHMATCHLEN");
  return a;
}

// Hashes.
Argv Hset(Gen& g, const char* cmd) {
  Argv a = {cmd, Key(g, kHashKeys)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) {
    a.push_back(g.Pick(kFields));
    a.push_back(g.Pick(kValues));
  }
  return a;
}
Argv HashFields(Gen& g, const char* cmd) {
  Argv a = {cmd, Key(g, kHashKeys)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(g.Pick(kFields));
  return a;
}
Argv HashField(Gen& g, const char* cmd) { return {cmd, Key(g, kHashKeys), g.Pick(kFields)}; }
Argv HashKey(Gen& g, const char* cmd) { return {cmd, Key(g, kHashKeys)}; }
Argv Hscan(Gen& g) {
  Argv a = {"HSCAN", Key(g, kHashKeys), g.Chance(95) ? "0" : "abc"};
  if (g.Chance(40)) a.insert(a.end(), {"MATCH", g.Pick(Words{"f*", "*", "?2", ""})});
  if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"1", "2", "10"})});
  return a;
}

// Lists. The blocking forms are generated only with an argument that fails before any key is
// looked at (a bad timeout, numkeys or direction): a client that blocks would stall the
// sequence on redis-server. Next() leaves them unmutated for the same reason.
const Words kListKeys = {"q1", "q2"};
const Words kListIndexes = {"0", "1", "-1", "2", "-2", "5", "-5", "100", "-100"};
const Words kListEnds = {"LEFT", "RIGHT", "left", "Right"};
const Words kBadTimeouts = {"-1", "abc", "nan", "-0.5", "inf", "1e300", ""};
std::string ListKey(Gen& g) { return Key(g, kListKeys); }
std::string ListEnd(Gen& g) { return g.Chance(95) ? g.Pick(kListEnds) : "MIDDLE"; }
Argv ListPush(Gen& g, const char* cmd) {
  Argv a = {cmd, ListKey(g)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(g.Pick(kMembers));
  return a;
}
Argv ListPop(Gen& g, const char* cmd) {
  Argv a = {cmd, ListKey(g)};
  if (g.Chance(40)) a.push_back(Number(g, kCounts));
  return a;
}
Argv Lpos(Gen& g) {
  Argv a = {"LPOS", ListKey(g), g.Pick(kMembers)};
  if (g.Chance(40)) a.insert(a.end(), {"RANK", Number(g, Words{"1", "2", "-1", "-2", "0"})});
  if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"0", "1", "2", "-1"})});
  if (g.Chance(30)) a.insert(a.end(), {"MAXLEN", Number(g, Words{"0", "1", "3", "-1"})});
  if (g.Chance(3)) a.push_back("FOO");
  return a;
}
Argv Lmpop(Gen& g, bool blocking) {
  Argv a = {blocking ? "BLMPOP" : "LMPOP"};
  if (blocking) a.push_back(g.Pick(kBadTimeouts));
  const uint64_t n = 1 + g.Below(2);
  a.push_back(g.Chance(95) ? std::to_string(n) : g.Pick(Words{"0", "-1", "abc", "5"}));
  for (uint64_t i = 0; i < n; ++i) a.push_back(ListKey(g));
  a.push_back(ListEnd(g));
  if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"1", "2", "5", "0", "-1"})});
  return a;
}
Argv BlockingPop(Gen& g, const char* cmd) {
  Argv a = {cmd, ListKey(g)};
  if (g.Chance(40)) a.push_back(ListKey(g));
  a.push_back(g.Pick(kBadTimeouts));
  return a;
}
// Sets. Members come from the zset alphabet (empty, binary, long and LMDB-bucket members).
Argv SetMembers(Gen& g, const char* cmd) {
  Argv a = {cmd, Key(g, kSetKeys)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(g.Pick(kMembers));
  return a;
}
Argv SetKeys(Gen& g, Argv a) {
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(Key(g, kSetKeys));
  return a;
}
Argv SetCount(Gen& g, const char* cmd) {
  Argv a = {cmd, Key(g, kSetKeys)};
  if (g.Chance(60)) a.push_back(Number(g, Words{"1", "2", "0", "-1", "-5", "3", "10", "-20"}));
  return a;
}
Argv Sintercard(Gen& g) {
  const uint64_t keys = 1 + g.Below(3);
  Argv a = {"SINTERCARD", g.Chance(92) ? std::to_string(keys) : g.Pick(Words{"0", "-1", "5"})};
  for (uint64_t i = 0; i < keys; ++i) a.push_back(Key(g, kSetKeys));
  if (g.Chance(40)) a.insert(a.end(), {"LIMIT", Number(g, Words{"0", "1", "2", "-1"})});
  return a;
}
Argv Sscan(Gen& g) {
  Argv a = {"SSCAN", Key(g, kSetKeys), g.Chance(95) ? "0" : "abc"};
  if (g.Chance(40)) a.insert(a.end(), {"MATCH", g.Pick(Words{"a*", "*", "?", "[ab]"})});
  if (g.Chance(40)) a.insert(a.end(), {"COUNT", Number(g, Words{"1", "2", "10"})});
  return a;
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
  switch (g.Below(12)) {
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

Argv Config(Gen& g) { return {"CONFIG", "GET", g.Pick(Words{"databases", "nosuchparameter"})}; }

struct Entry {
  const char* name;  // lower case, as in the command table
  int weight;
  std::function<Argv(Gen&)> make;
};

const std::vector<Entry>& Table() {
  static const std::vector<Entry> kTable = {
      {"del", 3, [](Gen& g) { return Keys1(g, "DEL"); }},
      {"touch", 1, [](Gen& g) { return Keys1(g, "TOUCH"); }},
      {"unlink", 1, [](Gen& g) { return Keys1(g, "UNLINK"); }},
      {"exists", 2, [](Gen& g) { return Keys1(g, "EXISTS"); }},
      {"type", 2,
       [](Gen& g) {
         return Argv{"TYPE", g.Pick(kAllKeys)};
       }},
      {"expire", 2, [](Gen& g) { return ExpireRelative(g, false); }},
      {"pexpire", 1, [](Gen& g) { return ExpireRelative(g, true); }},
      {"expireat", 2, [](Gen& g) { return ExpireAbsolute(g, false); }},
      {"pexpireat", 2, [](Gen& g) { return ExpireAbsolute(g, true); }},
      {"ttl", 2,
       [](Gen& g) {
         return Argv{"TTL", g.Pick(kAllKeys)};
       }},
      {"pttl", 2,
       [](Gen& g) {
         return Argv{"PTTL", g.Pick(kAllKeys)};
       }},
      {"expiretime", 1,
       [](Gen& g) {
         return Argv{"EXPIRETIME", g.Pick(kAllKeys)};
       }},
      {"pexpiretime", 1,
       [](Gen& g) {
         return Argv{"PEXPIRETIME", g.Pick(kAllKeys)};
       }},
      {"persist", 2,
       [](Gen& g) {
         return Argv{"PERSIST", g.Pick(kAllKeys)};
       }},
      {"keys", 1,
       [](Gen& g) {
         return Argv{"KEYS", g.Pick(kPatterns)};
       }},
      {"scan", 1, Scan},
      {"dbsize", 1, [](Gen&) { return Argv{"DBSIZE"}; }},
      {"flushdb", 1,
       [](Gen& g) {
         // Rare: it empties the database the rest of the sequence works on.
         if (!g.Chance(25)) return Argv{"DBSIZE"};
         return g.Chance(80) ? Argv{"FLUSHDB"}
                             : Argv{"FLUSHDB", g.Pick(Words{"ASYNC", "SYNC", "X"})};
       }},
      {"flushall", 1,
       [](Gen& g) {
         if (!g.Chance(10)) return Argv{"DBSIZE"};
         return g.Chance(80) ? Argv{"FLUSHALL"} : Argv{"FLUSHALL", g.Pick(Words{"ASYNC", "Y"})};
       }},
      {"get", 3,
       [](Gen& g) {
         return Argv{"GET", Key(g, kStringKeys)};
       }},
      {"set", 4, Set},
      {"setex", 1,
       [](Gen& g) {
         return Argv{"SETEX", Key(g, kStringKeys), Number(g, kRelSeconds), g.Pick(kValues)};
       }},
      {"psetex", 1,
       [](Gen& g) {
         return Argv{"PSETEX", Key(g, kStringKeys), Number(g, kRelMillis), g.Pick(kValues)};
       }},
      {"setnx", 1,
       [](Gen& g) {
         return Argv{"SETNX", Key(g, kStringKeys), g.Pick(kValues)};
       }},
      {"mget", 1,
       [](Gen& g) {
         Argv a = {"MGET"};
         for (uint64_t n = 1 + g.Below(3); n > 0; --n) a.push_back(Key(g, kStringKeys));
         return a;
       }},
      {"mset", 1, Mset},
      {"strlen", 1,
       [](Gen& g) {
         return Argv{"STRLEN", Key(g, kStringKeys)};
       }},
      {"getex", 2, GetexOptions},
      {"getdel", 1,
       [](Gen& g) {
         return Argv{"GETDEL", Key(g, kStringKeys)};
       }},
      {"getset", 1,
       [](Gen& g) {
         return Argv{"GETSET", Key(g, kStringKeys), g.Pick(kValues)};
       }},
      {"msetnx", 1,
       [](Gen& g) {
         Argv a = Mset(g);
         a[0] = "MSETNX";
         return a;
       }},
      {"incr", 2,
       [](Gen& g) {
         return Argv{"INCR", Key(g, kStringKeys)};
       }},
      {"decr", 1,
       [](Gen& g) {
         return Argv{"DECR", Key(g, kStringKeys)};
       }},
      {"incrby", 2,
       [](Gen& g) {
         return Argv{"INCRBY", Key(g, kStringKeys), Number(g, kHashIncrements)};
       }},
      {"decrby", 1,
       [](Gen& g) {
         return Argv{"DECRBY", Key(g, kStringKeys), Number(g, kHashIncrements)};
       }},
      {"incrbyfloat", 2,
       [](Gen& g) {
         return Argv{"INCRBYFLOAT", Key(g, kStringKeys), Number(g, kFloatIncrements)};
       }},
      {"append", 2,
       [](Gen& g) {
         return Argv{"APPEND", Key(g, kStringKeys), g.Pick(kValues)};
       }},
      {"getrange", 1,
       [](Gen& g) {
         return Argv{"GETRANGE", Key(g, kStringKeys), Rank(g), Rank(g)};
       }},
      {"substr", 1,
       [](Gen& g) {
         return Argv{"SUBSTR", Key(g, kStringKeys), Rank(g), Rank(g)};
       }},
      {"setrange", 2,
       [](Gen& g) {
         return Argv{"SETRANGE", Key(g, kStringKeys), Number(g, kOffsets), g.Pick(kValues)};
       }},
      {"lcs", 1, Lcs},
      {"setbit", 2,
       [](Gen& g) {
         return Argv{"SETBIT", Key(g, kStringKeys), Number(g, kOffsets),
                     Number(g, Words{"0", "1", "1", "2", "-1"})};
       }},
      {"getbit", 1,
       [](Gen& g) {
         return Argv{"GETBIT", Key(g, kStringKeys), Number(g, kOffsets)};
       }},
      {"bitcount", 1,
       [](Gen& g) {
         return BitRangeArgs(g, {"BITCOUNT", Key(g, kStringKeys)}, 2);
       }},
      {"bitpos", 1,
       [](Gen& g) {
         return BitRangeArgs(g, {"BITPOS", Key(g, kStringKeys), Number(g, Words{"0", "1", "2"})},
                             2);
       }},
      {"hset", 6, [](Gen& g) { return Hset(g, "HSET"); }},
      {"hmset", 1, [](Gen& g) { return Hset(g, "HMSET"); }},
      {"hsetnx", 2,
       [](Gen& g) {
         return Argv{"HSETNX", Key(g, kHashKeys), g.Pick(kFields), g.Pick(kValues)};
       }},
      {"hget", 4, [](Gen& g) { return HashField(g, "HGET"); }},
      {"hmget", 2, [](Gen& g) { return HashFields(g, "HMGET"); }},
      {"hdel", 4, [](Gen& g) { return HashFields(g, "HDEL"); }},
      {"hgetall", 2, [](Gen& g) { return HashKey(g, "HGETALL"); }},
      {"hlen", 3, [](Gen& g) { return HashKey(g, "HLEN"); }},
      {"hkeys", 1, [](Gen& g) { return HashKey(g, "HKEYS"); }},
      {"hvals", 1, [](Gen& g) { return HashKey(g, "HVALS"); }},
      {"hexists", 2, [](Gen& g) { return HashField(g, "HEXISTS"); }},
      {"hstrlen", 1, [](Gen& g) { return HashField(g, "HSTRLEN"); }},
      {"hscan", 1, Hscan},
      {"hincrby", 3,
       [](Gen& g) {
         return Argv{"HINCRBY", Key(g, kHashKeys), g.Pick(kFields), Number(g, kHashIncrements)};
       }},
      {"hincrbyfloat", 3,
       [](Gen& g) {
         return Argv{"HINCRBYFLOAT", Key(g, kHashKeys), g.Pick(kFields),
                     Number(g, kFloatIncrements)};
       }},
      {"sadd", 6, [](Gen& g) { return SetMembers(g, "SADD"); }},
      {"srem", 3, [](Gen& g) { return SetMembers(g, "SREM"); }},
      {"scard", 2,
       [](Gen& g) {
         return Argv{"SCARD", Key(g, kSetKeys)};
       }},
      {"sismember", 2,
       [](Gen& g) {
         return Argv{"SISMEMBER", Key(g, kSetKeys), g.Pick(kMembers)};
       }},
      {"smismember", 1, [](Gen& g) { return SetMembers(g, "SMISMEMBER"); }},
      {"smembers", 2,
       [](Gen& g) {
         return Argv{"SMEMBERS", Key(g, kSetKeys)};
       }},
      {"srandmember", 2, [](Gen& g) { return SetCount(g, "SRANDMEMBER"); }},
      {"spop", 2, [](Gen& g) { return SetCount(g, "SPOP"); }},
      {"smove", 2,
       [](Gen& g) {
         return Argv{"SMOVE", Key(g, kSetKeys), Key(g, kSetKeys), g.Pick(kMembers)};
       }},
      {"sinter", 2, [](Gen& g) { return SetKeys(g, {"SINTER"}); }},
      {"sunion", 2, [](Gen& g) { return SetKeys(g, {"SUNION"}); }},
      {"sdiff", 2, [](Gen& g) { return SetKeys(g, {"SDIFF"}); }},
      {"sinterstore", 1,
       [](Gen& g) {
         return SetKeys(g, {"SINTERSTORE", Key(g, kSetKeys)});
       }},
      {"sunionstore", 1,
       [](Gen& g) {
         return SetKeys(g, {"SUNIONSTORE", Key(g, kSetKeys)});
       }},
      {"sdiffstore", 1,
       [](Gen& g) {
         return SetKeys(g, {"SDIFFSTORE", Key(g, kSetKeys)});
       }},
      {"sintercard", 2, Sintercard},
      {"sscan", 1, Sscan},
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
      {"lpush", 4, [](Gen& g) { return ListPush(g, "LPUSH"); }},
      {"rpush", 4, [](Gen& g) { return ListPush(g, "RPUSH"); }},
      {"lpushx", 1, [](Gen& g) { return ListPush(g, "LPUSHX"); }},
      {"rpushx", 1, [](Gen& g) { return ListPush(g, "RPUSHX"); }},
      {"lpop", 2, [](Gen& g) { return ListPop(g, "LPOP"); }},
      {"rpop", 2, [](Gen& g) { return ListPop(g, "RPOP"); }},
      {"llen", 1,
       [](Gen& g) {
         return Argv{"LLEN", ListKey(g)};
       }},
      {"lrange", 3,
       [](Gen& g) {
         return Argv{"LRANGE", ListKey(g), Number(g, kListIndexes), Number(g, kListIndexes)};
       }},
      {"lindex", 2,
       [](Gen& g) {
         return Argv{"LINDEX", ListKey(g), Number(g, kListIndexes)};
       }},
      {"lset", 2,
       [](Gen& g) {
         return Argv{"LSET", ListKey(g), Number(g, kListIndexes), g.Pick(kMembers)};
       }},
      {"linsert", 3,
       [](Gen& g) {
         return Argv{"LINSERT", ListKey(g),
                     g.Chance(95) ? g.Pick(Words{"BEFORE", "AFTER", "after"}) : "NEXT",
                     g.Pick(kMembers), g.Pick(kMembers)};
       }},
      {"lrem", 2,
       [](Gen& g) {
         return Argv{"LREM", ListKey(g), Number(g, Words{"0", "1", "-1", "2", "-2"}),
                     g.Pick(kMembers)};
       }},
      {"ltrim", 2,
       [](Gen& g) {
         return Argv{"LTRIM", ListKey(g), Number(g, kListIndexes), Number(g, kListIndexes)};
       }},
      {"lpos", 2, Lpos},
      {"lmove", 2,
       [](Gen& g) {
         return Argv{"LMOVE", ListKey(g), ListKey(g), ListEnd(g), ListEnd(g)};
       }},
      {"rpoplpush", 1,
       [](Gen& g) {
         return Argv{"RPOPLPUSH", ListKey(g), ListKey(g)};
       }},
      {"lmpop", 2, [](Gen& g) { return Lmpop(g, false); }},
      {"blpop", 1, [](Gen& g) { return BlockingPop(g, "BLPOP"); }},
      {"brpop", 1, [](Gen& g) { return BlockingPop(g, "BRPOP"); }},
      {"blmove", 1,
       [](Gen& g) {
         return Argv{"BLMOVE",   ListKey(g), ListKey(g),
                     ListEnd(g), ListEnd(g), g.Pick(kBadTimeouts)};
       }},
      {"brpoplpush", 1,
       [](Gen& g) {
         return Argv{"BRPOPLPUSH", ListKey(g), ListKey(g), g.Pick(kBadTimeouts)};
       }},
      {"blmpop", 1, [](Gen& g) { return Lmpop(g, true); }},
      {"ping", 1,
       [](Gen& g) {
         return g.Chance(50) ? Argv{"PING"} : Argv{"PING", g.Pick(kValues)};
       }},
      {"echo", 1,
       [](Gen& g) {
         return Argv{"ECHO", g.Pick(kValues)};
       }},
      {"select", 2,
       [](Gen& g) {
         return Argv{"SELECT",
                     g.Chance(95) ? g.Pick(Words{"0", "1"}) : g.Pick(Words{"16", "-1", "abc"})};
       }},
      {"time", 1, [](Gen&) { return Argv{"TIME"}; }},
      {"config", 1, Config},
      // The wide collections, under the name of the command they mostly send.
      {"zadd", 3, WideZadd},
      {"hset", 3, WideHset},
      {"zrange", 6, WideRead},
      {"zrem", 1, WideRemove},
  };
  return kTable;
}

int TotalWeight() {
  int total = 0;
  for (const Entry& e : Table()) total += e.weight;
  return total;
}

}  // namespace

std::vector<std::string> RandomCommandGenerator::Commands() {
  std::vector<std::string> out;
  for (const Entry& e : Table()) {
    if (std::find(out.begin(), out.end(), e.name) == out.end()) out.push_back(e.name);
  }
  return out;
}

std::vector<std::string> RandomCommandGenerator::Next() {
  static const int kTotal = TotalWeight();
  int pick = static_cast<int>(Below(static_cast<uint64_t>(kTotal)));
  const Entry* entry = &Table().front();
  for (const Entry& e : Table()) {
    if (pick < e.weight) {
      entry = &e;
      break;
    }
    pick -= e.weight;
  }
  Argv argv = entry->make(*this);
  // Wrong arity and stray arguments, for every command but the blocking ones (a stray "1"
  // would become their timeout).
  const engine::CommandSpec* spec = engine::CommandTable::Get().Find(argv[0]);
  if (spec != nullptr && (spec->flags & engine::kCmdBlocking)) return argv;
  if (argv.size() > 1 && Chance(3)) {
    argv.pop_back();
  } else if (Chance(2)) {
    argv.push_back(Pick(Words{"junk", "1", "", "a\r\nb", std::string("x\0y", 3)}));
  }
  return argv;
}

uint64_t SequenceSeed(uint64_t run_seed, uint64_t index) {
  uint64_t z = run_seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

CaseFile RandomSequence(uint64_t run_seed, uint64_t index, size_t steps) {
  CaseFile c;
  c.name = "random-" + std::to_string(run_seed) + "-" + std::to_string(index);
  RandomCommandGenerator gen(SequenceSeed(run_seed, index));
  for (size_t i = 0; i < steps; ++i) {
    CaseStep step;
    step.line = static_cast<int>(i + 1);
    step.argv = gen.Next();
    c.steps.push_back(std::move(step));
  }
  return c;
}

}  // namespace kvlab::conformance
