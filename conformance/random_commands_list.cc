#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

// Lists. The blocking forms are generated only with an argument that fails before any key is
// looked at (a bad timeout, numkeys or direction): a client that blocks would stall the
// sequence on redis-server. Next() leaves them unmutated for the same reason.
const Words kListKeys = {"q1", "q2"};
const Words kListIndexes = {"0", "1", "-1", "2", "-2", "5", "-5", "100", "-100"};
const Words kListEnds = {"LEFT", "RIGHT", "left", "Right"};
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

}  // namespace

std::vector<Entry> ListEntries() {
  return {
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
  };
}

}  // namespace kvlab::conformance::random_internal
