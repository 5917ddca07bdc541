#include "conformance/random_commands.h"

#include <algorithm>

#include "conformance/compare.h"
#include "conformance/random_commands_internal.h"
#include "engine/command_table.h"
#include "engine/rdb_value.h"

namespace kvlab::conformance {
namespace random_internal {

std::string Key(Gen& g, const Words& own) {
  const uint64_t r = g.Below(100);
  if (r < 75) return g.Pick(own);
  if (r < 85) return "x";
  return g.Pick(kAllKeys);
}
std::string Number(Gen& g, const Words& good) {
  return g.Chance(92) ? g.Pick(good) : g.Pick(kBadNumbers);
}
std::string Rank(Gen& g) { return Number(g, kRanks); }

namespace {

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

// OBJECT and MEMORY: every subcommand, the key-taking ones mostly on keys that exist.
Argv ObjectIntrospection(Gen& g) {
  const std::string sub =
      g.Pick(Words{"ENCODING", "encoding", "REFCOUNT", "FREQ", "IDLETIME", "HELP", "NOSUCH"});
  if (sub == "HELP") return g.Chance(80) ? Argv{"OBJECT", "HELP"} : Argv{"OBJECT", "HELP", "x"};
  Argv a = {"OBJECT", sub};
  if (g.Chance(95)) a.push_back(g.Pick(kAllKeys));
  return a;
}
Argv MemoryUsage(Gen& g) {
  if (g.Chance(5)) return {"MEMORY", g.Pick(Words{"HELP", "NOSUCH", "PURGE"})};
  Argv a = {"MEMORY", "USAGE", g.Pick(kAllKeys)};
  if (g.Chance(30)) a.insert(a.end(), {"SAMPLES", Number(g, Words{"0", "5", "-1"})});
  return a;
}

Argv Config(Gen& g) { return {"CONFIG", "GET", g.Pick(Words{"databases", "nosuchparameter"})}; }

}  // namespace

// RENAME/COPY/MOVE: any source but the wide keys; destinations never a lex key (their scores
// must stay equal) nor a wide key. COPY ... DB and MOVE name database 0 or 1, the ones the
// sequences SELECT (now and then one that does not exist).
const Words kMoveSources = {"h1", "h2", "z1", "z2", "l1", "s1", "s2", "x", "nokey", "t1", "t2"};
const Words kMoveDestinations = {"h2", "z2", "s2", "x", "t2"};
std::string Database(Gen& g) { return g.Chance(95) ? g.Pick(Words{"0", "1"}) : "16"; }
Argv KeyMove(Gen& g, const char* cmd) {
  if (std::string_view(cmd) == "MOVE") return {cmd, g.Pick(kMoveSources), Database(g)};
  Argv a = {cmd, g.Pick(kMoveSources), g.Pick(kMoveDestinations)};
  if (std::string_view(cmd) == "COPY") {
    if (g.Chance(50)) a.push_back("REPLACE");
    if (g.Chance(40)) {
      a.push_back("DB");
      a.push_back(Database(g));
    }
  }
  return a;
}

// RESTORE of a key of any type from a payload of each type (as kvlab writes them, which Redis
// reads), now and then a corrupt one; REPLACE, ABSTTL and a TTL by chance.
Argv Restore(Gen& g) {
  engine::rdb::Value v;
  switch (g.Below(5)) {
    case 0:
      v.type = encodings::KeyType::kString;
      v.str = g.Chance(50) ? "12345" : "hello";
      break;
    case 1:
      v.type = encodings::KeyType::kHash;
      v.pairs = {{"a", "1"}, {"b", "two"}};
      break;
    case 2:
      v.type = encodings::KeyType::kList;
      v.elements = {"x", "7", "y"};
      break;
    case 3:
      v.type = encodings::KeyType::kSet;
      v.elements = {"1", "2", "300"};
      break;
    default:
      v.type = encodings::KeyType::kZset;
      v.scored = {{"m", 0}, {"n", 0}};  // equal scores: a lex key (l1) may get it
      break;
  }
  std::string payload = engine::rdb::DumpPayload(v, engine::rdb::DumpOptions());
  if (g.Chance(10)) payload[payload.size() - 1] ^= 1;  // a wrong checksum
  Argv a = {"RESTORE", g.Pick(kAllKeys), g.Chance(70) ? "0" : "100000", payload};
  if (g.Chance(50)) a.push_back("REPLACE");
  if (g.Chance(10)) a.push_back("ABSTTL");
  return a;
}

// MIGRATE only in forms that reach no target server (an in-process engine has none, and a live
// key would make both sides connect): keys no generator writes (NOKEY), and the argument errors
// Redis checks before it looks at a key. Draw leaves it unmutated: a dropped or added argument
// could turn an error form into one that connects.
Argv Migrate(Gen& g) {
  const Words absent = {"mig_absent1", "mig_absent2"};
  const Words live = {"h1", "z1", "l1", "s1", "x", "t1"};  // no "": KEYS needs an empty key
  Argv a = {"MIGRATE", "127.0.0.1", "1"};
  switch (g.Below(6)) {
    case 0:
      a.insert(a.end(), {g.Pick(absent), g.Pick(Words{"0", "3", "-1"}), "100"});
      if (g.Chance(30)) a.push_back(g.Pick(Words{"COPY", "replace"}));
      if (g.Chance(20)) a.insert(a.end(), {"AUTH", "pw"});
      return a;
    case 1:
      a.insert(a.end(), {"", "0", g.Pick(Words{"100", "0", "-5"}), "KEYS"});
      for (uint64_t n = g.Below(4); n > 0; --n) a.push_back(g.Pick(absent));
      return a;
    case 2:
      a.insert(a.end(), {g.Pick(live), "0", "100"});
      if (g.Chance(40)) a.push_back("COPY");
      a.push_back(g.Pick(Words{"FOO", "AUTH", "AUTH2", "keyz"}));
      if (a.back() == "AUTH2" && g.Chance(50)) a.push_back("user");
      return a;
    case 3:
      a.insert(a.end(), {g.Pick(live), "0", "100", "KEYS", g.Pick(live)});
      return a;
    case 4:
      a.insert(a.end(), {g.Pick(live), g.Pick(Words{"x", "0", "1.5"}),
                         g.Pick(Words{"y", "", "9999999999999999999"})});
      return a;
    default:
      a.insert(a.end(), {g.Pick(live), "0"});  // wrong arity
      return a;
  }
}

std::vector<Entry> KeyspaceEntries() {
  return {
      {"rename", 1, [](Gen& g) { return KeyMove(g, "RENAME"); }},
      {"renamenx", 1, [](Gen& g) { return KeyMove(g, "RENAMENX"); }},
      {"copy", 1, [](Gen& g) { return KeyMove(g, "COPY"); }},
      {"dump", 1,
       [](Gen& g) {
         return Argv{"DUMP", g.Pick(kAllKeys)};
       }},
      {"restore", 1, Restore},
      {"migrate", 1, Migrate},
      {"move", 1, [](Gen& g) { return KeyMove(g, "MOVE"); }},
      {"del", 3, [](Gen& g) { return Keys1(g, "DEL"); }},
      {"randomkey", 1,
       [](Gen& g) {
         return g.Chance(95) ? Argv{"RANDOMKEY"} : Argv{"RANDOMKEY", "x"};
       }},
      {"object", 1, ObjectIntrospection},
      {"memory", 1, MemoryUsage},
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
  };
}

std::vector<Entry> ServerEntries() {
  return {
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
      // SWAPDB of the sequence's databases (0 and 1) is refused on zset v3 (deviation
      // zset-store-swapdb-unsupported), after which the two sides hold different data: so only
      // swaps that move nothing the sequence uses, and the errors. cases/swapdb*.txt swap data.
      {"swapdb", 1,
       [](Gen& g) {
         if (g.Chance(50)) {
           const std::string d = g.Pick(Words{"0", "1"});
           return Argv{"SWAPDB", d, d};
         }
         if (g.Chance(30)) return Argv{"SWAPDB", "2", "3"};
         return g.Chance(80) ? Argv{"SWAPDB", g.Pick(Words{"16", "-1", "a", "1.5"}), "0"}
                             : Argv{"SWAPDB", "0"};
       }},
      // A successful BGSAVE or BGREWRITEAOF leaves a child process running in the reference
      // Redis, which changes its later replies, and SAVE then fails while it runs ("Background
      // save already in progress", whatever the case files ran before): only their errors.
      {"save", 1,
       [](Gen&) {
         return Argv{"SAVE", "x"};
       }},
      {"bgsave", 1,
       [](Gen& g) {
         return g.Chance(50) ? Argv{"BGSAVE", g.Pick(Words{"x", "now"})}
                             : Argv{"BGSAVE", "SCHEDULE", "x"};
       }},
      {"bgrewriteaof", 1,
       [](Gen&) {
         return Argv{"BGREWRITEAOF", "x"};
       }},
  };
}

// Transactions: MULTI opens one (the generator then closes it with EXEC or DISCARD after a few
// commands, Next), WATCH and UNWATCH come between, and a stray EXEC or DISCARD gets its error.
std::vector<Entry> TransactionEntries() {
  return {
      {"multi", 3, [](Gen&) { return Argv{"MULTI"}; }},
      {"exec", 1, [](Gen&) { return Argv{"EXEC"}; }},
      {"discard", 1, [](Gen&) { return Argv{"DISCARD"}; }},
      {"watch", 2,
       [](Gen& g) {
         Argv a = {"WATCH", g.Pick(kAllKeys)};
         for (uint64_t n = g.Below(3); n > 0; --n) a.push_back(g.Pick(kAllKeys));
         return a;
       }},
      {"unwatch", 1, [](Gen&) { return Argv{"UNWATCH"}; }},
      // RESET ends a transaction (Next) and selects database 0; with an argument, its arity
      // error.
      {"reset", 1,
       [](Gen& g) {
         return g.Chance(80) ? Argv{"RESET"} : Argv{"RESET", "x"};
       }},
  };
}

}  // namespace random_internal

namespace {

using random_internal::Argv;
using random_internal::Entry;
using random_internal::Words;

// The segments in a fixed order (random_commands_internal.h); the wide collections, last, are
// listed under the name of the command they mostly send.
const std::vector<Entry>& Table() {
  static const std::vector<Entry> kTable = [] {
    std::vector<Entry> all;
    for (std::vector<Entry> (*segment)() :
         {random_internal::KeyspaceEntries, random_internal::StringEntries,
          random_internal::HashEntries, random_internal::SetEntries, random_internal::ZsetEntries,
          random_internal::ListEntries, random_internal::ServerEntries,
          random_internal::WideEntries, random_internal::TransactionEntries,
          random_internal::HllEntries, random_internal::GeoEntries, random_internal::BitEntries,
          random_internal::SortEntries}) {
      for (Entry& e : segment()) all.push_back(std::move(e));
    }
    return all;
  }();
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
  Argv argv = Draw();
  // MULTI opens a transaction only when it is accepted, EXEC always ends one (an EXEC with
  // stray arguments discards it), DISCARD and RESET end one when accepted.
  const std::string command = LowerCommand(argv[0]);
  if (command == "multi" && argv.size() == 1) {
    in_multi_ = true;
  } else if (in_multi_ && (command == "exec" ||
                           ((command == "discard" || command == "reset") && argv.size() == 1))) {
    in_multi_ = false;
  }
  return argv;
}

std::vector<std::string> RandomCommandGenerator::Draw() {
  static const int kTotal = TotalWeight();
  // Inside a transaction: a few commands, then EXEC (mostly) or DISCARD.
  if (in_multi_ && Chance(20)) return {Chance(85) ? "EXEC" : "DISCARD"};
  Argv argv;
  for (int attempt = 0; attempt < 100; ++attempt) {
    int pick = static_cast<int>(Below(static_cast<uint64_t>(kTotal)));
    const Entry* entry = &Table().front();
    for (const Entry& e : Table()) {
      if (pick < e.weight) {
        entry = &e;
        break;
      }
      pick -= e.weight;
    }
    argv = entry->make(*this);
    if (!in_multi_ || QueueableInSequence(argv)) break;
  }
  // Wrong arity and stray arguments, for every command but the blocking ones (a stray "1"
  // would become their timeout), the saves and MIGRATE, which are generated only in forms that
  // must stay as they are (ServerEntries, Migrate): dropping the argument of "BGREWRITEAOF x"
  // would start a rewrite in Redis.
  const engine::CommandSpec* spec = engine::CommandTable::Get().Find(argv[0]);
  if (spec != nullptr && (spec->flags & engine::kCmdBlocking)) return argv;
  const std::string command = LowerCommand(argv[0]);
  if (command == "save" || command == "bgsave" || command == "bgrewriteaof" ||
      command == "migrate") {
    return argv;
  }
  if (argv.size() > 1 && Chance(3)) {
    argv.pop_back();
  } else if (Chance(2)) {
    argv.push_back(Pick(Words{"junk", "1", "", "a\r\nb", std::string("x\0y", 3)}));
  }
  return argv;
}

bool RandomCommandGenerator::QueueableInSequence(const std::vector<std::string>& argv) {
  // Inside MULTI the harness sends commands as they are and judges EXEC's elements: not the
  // SCAN family (run whole outside a transaction), random choices (judged against the state
  // before them), nor DBSIZE and MEMORY USAGE (which the harness prepares on Redis's side).
  const std::string command = LowerCommand(argv[0]);
  return !IsScanCommand(command) && !IsRandomReply(argv) && command != "dbsize" &&
         !IsMemoryUsage(argv);
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
