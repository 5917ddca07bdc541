// The per-type generators of the random command sequences (random_commands.h), one file per
// type: random_commands.cc (keyspace, server, the table and the sequence), and
// random_commands_string.cc, _hash.cc, _set.cc, _zset.cc (with the wide collections), _list.cc,
// _hll.cc, _geo.cc, _bits.cc and _sort.cc. Each file contributes its segment of the table;
// random_commands.cc concatenates the segments in a fixed order, so that a seed always gives the
// same sequence. Reordering entries or segments changes every sequence (and the seeds that
// reproduce past failures).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "conformance/random_commands.h"

namespace kvlab::conformance::random_internal {

using Argv = std::vector<std::string>;
using Gen = RandomCommandGenerator;
using Words = std::vector<std::string>;

// The alphabets. Small on purpose: collisions are the point.
inline const Words kHashKeys = {"h1", "h2"};
inline const Words kZsetKeys = {"z1", "z2"};
inline const Words kStringKeys = {"s1", "s2"};
inline const Words kSetKeys = {"t1", "t2"};
inline const Words kAllKeys = {"h1", "h2",    "z1", "z2", "l1", "s1", "s2",
                               "x",  "nokey", "zw", "hw", "",   "t1"};
// The 521-byte words share their first 520 bytes: past LMDB's 511-byte key limit, their records
// land in one LongKeyStore bucket (backends/long_key_store.h).
inline const Words kFields = {"f1",
                              "f2",
                              "f3",
                              "",
                              std::string("f\0", 2),
                              "a-long-field-name-20",
                              std::string(520, 'F') + "1",
                              std::string(520, 'F') + "2"};
inline const Words kValues = {"v",
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
inline const Words kMembers = {"a",
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
inline const Words kScores = {"0",
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
inline const Words kBadNumbers = {"abc", "nan", "1.5.5", "",        " 1",
                                  "1e",  "0x1", "1e400", "-1e-400", "1 "};
// Timeouts every blocking command refuses before it looks at a key: blocking forms are
// generated only with these (a client that blocks would stall the sequence on redis-server).
inline const Words kBadTimeouts = {"-1", "abc", "nan", "-0.5", "inf", "1e300", ""};
inline const Words kRanks = {"0", "1", "-1", "2", "-2", "10", "-100", "100", "3"};
inline const Words kHashIncrements = {
    "1", "-1", "0", "100", "9223372036854775807", "-9223372036854775808"};
inline const Words kFloatIncrements = {
    "1.5",   "-0.1", "0",   "1e3",   "inf",  "-inf", "3",    "-1.5e-3",
    "5.0e3", "0.1",  "0.2", "1e308", "1e-5", "-0",   "1e17", "123456789012345678",
    "1e-320"};
inline const Words kRelSeconds = {"100", "1000", "5000"};
inline const Words kRelMillis = {"100000", "500000", "2500000"};
inline const Words kBadTtls = {"0", "-1", "abc", "9223372036854775807", "-9223372036854775808", ""};
// Far in the future (2100 and later), so that GT/LT compare deterministically.
inline const Words kAbsSeconds = {"4102444800", "4102444900", "4102445000"};
inline const Words kAbsMillis = {"4102444800000", "4102444850000", "4102445000000"};
inline const Words kPastSeconds = {"1", "1000000000"};
inline const Words kPastMillis = {"1", "1000000000000"};
inline const Words kCounts = {"1", "2", "0", "-1", "10", "abc", "-5"};
inline const Words kPatterns = {"*",  "h*",  "?1", "[hz]*", "x",    "*1",    "[^h]*", "no*",
                                "**", "[a-", "?",  "",      "*\\*", "[!h]*", "\\",    "[z-a]*"};

// A key of `own` mostly; sometimes "x" or a key of any type (WRONGTYPE, missing keys).
std::string Key(Gen& g, const Words& own);
// A word of `good` mostly; sometimes a malformed number.
std::string Number(Gen& g, const Words& good);
std::string Rank(Gen& g);

// One generator: `weight` out of the table's total weight picks it.
struct Entry {
  const char* name;  // lower case, as in the command table
  int weight;
  std::function<Argv(Gen&)> make;
};

// The table's segments, in table order.
std::vector<Entry> KeyspaceEntries();     // random_commands.cc
std::vector<Entry> StringEntries();       // random_commands_string.cc
std::vector<Entry> HashEntries();         // random_commands_hash.cc
std::vector<Entry> SetEntries();          // random_commands_set.cc
std::vector<Entry> ZsetEntries();         // random_commands_zset.cc
std::vector<Entry> ListEntries();         // random_commands_list.cc
std::vector<Entry> ServerEntries();       // random_commands.cc
std::vector<Entry> WideEntries();         // random_commands_zset.cc
std::vector<Entry> TransactionEntries();  // random_commands.cc
std::vector<Entry> HllEntries();          // random_commands_hll.cc
std::vector<Entry> GeoEntries();          // random_commands_geo.cc
std::vector<Entry> BitEntries();          // random_commands_bits.cc
std::vector<Entry> SortEntries();         // random_commands_sort.cc

}  // namespace kvlab::conformance::random_internal
