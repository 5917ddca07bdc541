#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

// HyperLogLog. Its keys are p1 and p2 mostly, the string keys now and then (so that PFADD makes
// s1 an HLL that the string commands then read and corrupt, and PFADD meets strings that are not
// HLLs), and any key sometimes (WRONGTYPE). GET of an HLL key compares its bytes with Redis's.
const Words kHllKeys = {"p1", "p2"};

std::string HllKey(Gen& g) {
  if (g.Chance(20)) return g.Pick(kStringKeys);
  return Key(g, kHllKeys);
}

// Elements: the zset members (empty, binary, long) and numbered ones; now and then a batch large
// enough (with what the key holds) to make a sparse HLL dense past hll-sparse-max-bytes.
void AppendElements(Gen& g, Argv* a) {
  if (g.Chance(4)) {
    for (uint64_t n = 300 + g.Below(900); n > 0; --n)
      a->push_back("e" + std::to_string(g.Below(5000)));
    return;
  }
  for (uint64_t n = g.Below(5); n > 0; --n) {
    a->push_back(g.Chance(50) ? g.Pick(kMembers) : std::to_string(g.Below(200)));
  }
}

Argv Pfcount(Gen& g) {
  Argv a = {"PFCOUNT", HllKey(g)};
  if (g.Chance(30)) {
    for (uint64_t n = 1 + g.Below(2); n > 0; --n) a.push_back(HllKey(g));
  }
  return a;
}

Argv Pfmerge(Gen& g) {
  Argv a = {"PFMERGE", HllKey(g)};
  for (uint64_t n = g.Below(4); n > 0; --n) a.push_back(HllKey(g));
  return a;
}

Argv Pfdebug(Gen& g) {
  // GETREG replies 16384 registers: rarer than the others.
  const std::string sub =
      g.Chance(10) ? "GETREG"
                   : g.Pick(Words{"ENCODING", "DECODE", "TODENSE", "encoding", "decode", "NOSUCH"});
  return {"PFDEBUG", sub, HllKey(g)};
}

// A byte of an HLL overwritten: the header (magic, encoding, cache) or the first opcodes.
Argv Corrupt(Gen& g) {
  if (g.Chance(20)) return {"APPEND", HllKey(g), g.Pick(Words{"hello", "\x7f", "\x80"})};
  return {"SETRANGE", HllKey(g), std::to_string(g.Below(24)),
          std::string(1, static_cast<char>(g.Below(256)))};
}

}  // namespace

std::vector<Entry> HllEntries() {
  return {
      {"pfadd", 5,
       [](Gen& g) {
         Argv a = {"PFADD", HllKey(g)};
         AppendElements(g, &a);
         return a;
       }},
      {"pfcount", 3, Pfcount},
      {"pfmerge", 2, Pfmerge},
      {"pfdebug", 2, Pfdebug},
      {"get", 2,
       [](Gen& g) {
         return Argv{"GET", HllKey(g)};
       }},
      {"setrange", 1, Corrupt},
  };
}

}  // namespace kvlab::conformance::random_internal
