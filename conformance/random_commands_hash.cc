#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

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
// HRANDFIELD: no count, or a count of either sign (the reply is checked, not compared:
// differential.cc), with WITHVALUES or now and then a wrong option.
Argv Hrandfield(Gen& g) {
  Argv a = {"HRANDFIELD", Key(g, kHashKeys)};
  if (g.Chance(80)) a.push_back(Number(g, Words{"1", "2", "3", "0", "-1", "-5", "20", "-20"}));
  if (a.size() == 3 && g.Chance(45)) a.push_back(g.Chance(95) ? "WITHVALUES" : "WITHSCORES");
  return a;
}

}  // namespace

std::vector<Entry> HashEntries() {
  return {
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
      {"hrandfield", 2, Hrandfield},
      {"hincrby", 3,
       [](Gen& g) {
         return Argv{"HINCRBY", Key(g, kHashKeys), g.Pick(kFields), Number(g, kHashIncrements)};
       }},
      {"hincrbyfloat", 3,
       [](Gen& g) {
         return Argv{"HINCRBYFLOAT", Key(g, kHashKeys), g.Pick(kFields),
                     Number(g, kFloatIncrements)};
       }},
  };
}

}  // namespace kvlab::conformance::random_internal
