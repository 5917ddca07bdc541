// The random generator's segment of SORT and SORT_RO (random_commands_internal.h), with an entry
// that writes the keys their patterns reach: strings w_<element> and hashes h_<element> (fields
// f and g), over the members the list, set and zset generators write.
//
// Redis's order of elements that tie depends on its in-memory set and zset (sort_commands.cc):
// two members of a set or zset tie in ALPHA mode when their BY values are missing or equal, or
// when their texts are equal as C strings ("b" and "b\0") in a reply. So only the list keys get
// every form; any other key is sorted numerically (ties break by the element's bytes), with
// ALPHA only when it STOREs (which compares bytes) and never with BY, and by a constant (no
// sort: the key's own order) only with STORE or on a zset.
#include "conformance/random_commands_internal.h"

namespace kvlab::conformance::random_internal {
namespace {

const Words kSortListKeys = {"q1", "q2"};
const Words kSortOtherKeys = {"t1", "t2", "z1", "z2", "x", "s1", "h1", "nokey"};
const Words kByPatterns = {"w_*", "w_*",    "h_*->f", "h_*->g", "*",
                           "s*",  "h*->f1", "w_*->f", "h_*->"};
const Words kGetPatterns = {"#", "w_*", "h_*->f", "h_*->g", "*", "nostar", "h_*->", "s*"};
const Words kSortLimits = {"0", "1", "2", "-1", "5", "100", "-5"};

Argv Sort(Gen& g, bool readonly) {
  const bool list_key = g.Chance(60);
  const std::string key = g.Pick(list_key ? kSortListKeys : kSortOtherKeys);
  const bool zset_key = key == "z1" || key == "z2";
  Argv a = {readonly ? "SORT_RO" : "SORT", key};
  const bool store = !readonly && g.Chance(25);
  const bool alpha = g.Chance(40) && (list_key || store);
  const uint64_t by = g.Below(100);
  if (by < 35 && (list_key || !alpha)) {
    a.insert(a.end(), {"BY", g.Pick(kByPatterns)});
  } else if (by < 50 && (list_key || zset_key || store)) {
    a.insert(a.end(), {"BY", g.Pick(Words{"nosort", "nokey", "w_1"})});
  }
  if (g.Chance(35)) {
    a.insert(a.end(), {"LIMIT", Number(g, kSortLimits), Number(g, kSortLimits)});
  }
  for (uint64_t n = g.Chance(40) ? 1 + g.Below(3) : 0; n > 0; --n) {
    a.insert(a.end(), {"GET", g.Pick(kGetPatterns)});
  }
  if (g.Chance(40)) a.push_back(g.Pick(Words{"ASC", "DESC", "desc"}));
  if (alpha) a.push_back("ALPHA");
  if (store) a.insert(a.end(), {"STORE", g.Pick(Words{"q1", "q2", "sd", "x", "t1"})});
  if (g.Chance(3)) a.push_back(g.Pick(Words{"FOO", "LIMIT", "STORE", "BY", "GET"}));
  return a;
}

// A weight or a hash of the patterns, named after an element the generators write.
Argv SortWeight(Gen& g) {
  const std::string element = g.Chance(80) ? g.Pick(kMembers) : g.Pick(kValues);
  if (g.Chance(60)) {
    return Argv{"SET", "w_" + element, g.Chance(70) ? g.Pick(kScores) : g.Pick(kValues)};
  }
  Argv a = {"HSET", "h_" + element, "f", g.Pick(kScores)};
  if (g.Chance(50)) a.insert(a.end(), {"g", g.Pick(kValues)});
  return a;
}

}  // namespace

std::vector<Entry> SortEntries() {
  return {
      {"sort", 2, [](Gen& g) { return Sort(g, false); }},
      {"sort_ro", 1, [](Gen& g) { return Sort(g, true); }},
      {"set", 1, SortWeight},
  };
}

}  // namespace kvlab::conformance::random_internal
