// The amplification table of docs/amplification.md, as data: per command and encoding, the KV
// operations it issues as formulas of the collection size n. amplification_test checks the
// engine against it; the workload drivers and the CI gate read it too.
//
// Table rows are markdown: | `COMMAND` | ENCODING | DATASET | KV OPERATIONS | REDIS TIER |
//   ENCODING   "string", "hash v0, v1", "zset v0", "zset v0 (no reverse scan)",
//              "hash v2, v3 (cold)", "zset v1 (warm)": the Redis-tier versions name a cache state:
//              cold = the cache is flushed just before the command; warm = the dataset's
//              warm-up reads (WarmUpCommands) ran first. "(ttl index)": the engine keeps the
//              TTL index (KeyCodecOptions::ttl_index).
//   DATASET    "empty", "string s", "hash h of n fields", "zset z of n members",
//              "zset z of n members, equal scores", "zset z of n long members",
//              "list l of n elements" (RPUSH l e1 .. en), "list l of 2n+1 elements, m in the
//              middle" (RPUSH l e1 .. en m f1 .. fn),
//              "set s of n members", "sets a of n and b of 2n members", "string s,
//              expiring" and "hash h of n fields, expiring" (the same, then PEXPIRE 100000)
//   OPERATIONS space-separated counter=expression; expressions are integers, n, + - *, and
//              min(a,b) / max(a,b). Counters not named are 0; "none" names none. KV counters are
//              OpCounts' names; the tier column's are TierCounts' names.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "encodings/registry.h"

namespace kvlab::testing {

struct AmplificationRow {
  int line = 0;
  std::string command;  // a command line, redis-cli quoting
  std::string type;     // "string", or a registry type name ("hash", "zset")
  // The names of the encode-versions the row holds for ("hash v0, v1": "0", "1"; empty for
  // strings).
  std::vector<std::string> versions;
  bool no_reverse_scan = false;
  bool ttl_index = false;
  enum class CacheState { kNone, kCold, kWarm } cache = CacheState::kNone;
  enum class Dataset {
    kEmpty,
    kString,
    kHash,
    kZset,
    kZsetEqualScores,
    kZsetLong,
    kList,
    kListMiddle,
    kListInserted,  // kList, then LINSERT l BEFORE e2 i (n+1 elements; Ardb's list is then
                    // no longer sequential)
    kSet,
    kSetPair,
    // "string s, then MULTI with GET s and SET s x queued": a session inside a transaction.
    kStringInMulti,
    kStringExpiring,  // kString, then PEXPIRE s 100000
    kHashExpiring,    // kHash, then PEXPIRE h 100000
    kHll,             // "hll p": PFADD p a b c (its cached cardinality stale)
    kHllCounted,      // "hll p, counted": kHll, then PFCOUNT p (its cache valid)
    // "list l of n elements, weights w_e and hashes o_e": kList, and for each element ei a
    // string w_ei (its weight, n+1-i) and a hash o_ei of one field (name: ni), in the
    // configured hash version (SORT's BY and GET patterns).
    kListWeighted,
  } dataset;
  std::string operations;       // KV counters, the formula text
  std::string tier_operations;  // Redis-tier counters
};

Status LoadAmplificationTable(const std::string& path, std::vector<AmplificationRow>* rows);

// Evaluates a row's formulas at collection size n: counter name -> count.
Status EvaluateOperations(const std::string& operations, int64_t n,
                          std::map<std::string, int64_t>* counts);

// The commands that build a row's dataset at size n (run before the measured command).
std::vector<std::vector<std::string>> DatasetCommands(AmplificationRow::Dataset dataset, int64_t n);
// The reads that warm the Redis tier's caches for a dataset: every field of a hash, both
// through HGETALL and HMGET; the whole zset through ZRANGE; every set through SMEMBERS.
std::vector<std::vector<std::string>> WarmUpCommands(AmplificationRow::Dataset dataset, int64_t n);
// The name of the i-th member of the long-member dataset (15 bytes or more: ref'd by md5).
std::string LongMemberName(int64_t i);

// What the table lacks or gets wrong against the registry and the command table, one line each:
// a command of the command table without a row ("no row for hget"), a version of a type without
// a row for one of the type's commands ("no row for hget on hash v4"), a version whose registry
// row uses reverse scan without any "(no reverse scan)" row, and rows naming a type or version
// the registry does not have. Empty when the table covers everything.
std::vector<std::string> AmplificationCoverageGaps(const std::vector<AmplificationRow>& rows,
                                                   const encodings::EncodingRegistry& registry);

}  // namespace kvlab::testing
