#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

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

}  // namespace

std::vector<Entry> SetEntries() {
  return {
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
  };
}

}  // namespace kvlab::conformance::random_internal
