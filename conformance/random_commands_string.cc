#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

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

}  // namespace

std::vector<Entry> StringEntries() {
  return {
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
  };
}

}  // namespace kvlab::conformance::random_internal
