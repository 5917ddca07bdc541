// The random generator's segment of BITOP, BITFIELD and BITFIELD_RO (random_commands_internal.h).
// Offsets stay within the first bytes, so that the strings the commands build stay small, but
// for a few out of range; field types and values run over both ends of each type.
#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

const Words kFieldTypes = {"u8",  "i8",  "u1",  "i1",  "u4",  "i5",
                           "u16", "i16", "u63", "i64", "i32", "u3"};
const Words kBadFieldTypes = {"u64", "i65", "i0", "x8", "8", ""};
const Words kFieldOffsets = {"0", "1", "3", "7", "8", "13", "#0", "#1", "#2", "40", "100"};
const Words kBadFieldOffsets = {"-1", "#-1", "4294967296", "#", "abc"};
const Words kFieldValues = {"0",
                            "1",
                            "-1",
                            "100",
                            "127",
                            "128",
                            "255",
                            "256",
                            "-128",
                            "-129",
                            "65535",
                            "9223372036854775807",
                            "-9223372036854775808"};

std::string FieldType(Gen& g) {
  return g.Chance(95) ? g.Pick(kFieldTypes) : g.Pick(kBadFieldTypes);
}
std::string FieldOffset(Gen& g) {
  return g.Chance(95) ? g.Pick(kFieldOffsets) : g.Pick(kBadFieldOffsets);
}

// One to three subcommands; with `writes` false GETs only (but for a rare SET, which
// BITFIELD_RO refuses).
Argv Bitfield(Gen& g, const char* command, bool writes) {
  Argv a = {command, Key(g, kStringKeys)};
  for (uint64_t n = 1 + g.Below(3); n > 0; --n) {
    const uint64_t r = g.Below(100);
    if (r < 40 || (!writes && r < 95)) {
      a.insert(a.end(), {"GET", FieldType(g), FieldOffset(g)});
    } else if (r < 65) {
      a.insert(a.end(), {"SET", FieldType(g), FieldOffset(g), Number(g, kFieldValues)});
    } else if (r < 85) {
      a.insert(a.end(), {"INCRBY", FieldType(g), FieldOffset(g), Number(g, kFieldValues)});
    } else if (r < 97) {
      a.insert(a.end(), {"OVERFLOW", g.Pick(Words{"WRAP", "SAT", "FAIL", "sat", "BAD"})});
    } else {
      a.push_back(g.Pick(Words{"FOO", "GET"}));
    }
  }
  return a;
}

Argv Bitop(Gen& g) {
  const std::string op = g.Pick(Words{"AND", "OR", "XOR", "NOT", "NOT", "and", "FOO"});
  Argv a = {"BITOP", op, Key(g, kStringKeys), Key(g, kStringKeys)};
  // NOT takes one source; sometimes it is given more, for its error.
  const uint64_t more = op == "NOT" ? (g.Chance(10) ? 1 : 0) : g.Below(3);
  for (uint64_t i = 0; i < more; ++i) a.push_back(Key(g, kStringKeys));
  return a;
}

}  // namespace

std::vector<Entry> BitEntries() {
  return {
      {"bitop", 2, Bitop},
      {"bitfield", 3, [](Gen& g) { return Bitfield(g, "BITFIELD", true); }},
      {"bitfield_ro", 1, [](Gen& g) { return Bitfield(g, "BITFIELD_RO", false); }},
  };
}

}  // namespace kvlab::conformance::random_internal
