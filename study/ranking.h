// Ranking encode-versions for one workload: the heart of `kvlab study`.
//
// Input is a bench result (docs/results-schema.md) whose cells vary one type's version at a time
// (the others at a fixed baseline), over backends and repetitions. For each (workload, backend,
// type) the versions are ranked on the criteria below. Each criterion's value is the median over
// repetitions; the best version on a criterion sets its reference, and every other version's
// ratio to it carries a confidence interval over repetitions (analysis::RatioOfMedians) for the
// timed criteria, or is exact for the counted ones.
//
// A version's cost on a criterion is
//     weight * |log2((value + floor) / (best + floor))|
// when the difference is significant (timed: the interval excludes 1) or material (counted:
// more than 1% apart), and 0 otherwise: a difference inside the noise costs nothing. `floor` is
// a per-criterion unit (one KV operation, one round trip, 16 bytes) so that 0 against 1 is not an
// infinite ratio. Exactness costs weight * (deviations beyond the fewest any version has);
// needs cost weight * (1 per cache Redis, 2 per store Redis). The score is the sum of the costs:
// 0 is best, 1 is "twice as costly on one criterion of weight 1". Versions are ranked by score,
// equal scores sharing a rank.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::study {

struct Criterion {
  const char* name;       // as in --weights: "latency"
  const char* title;      // table heading: "p50"
  const char* unit;       // "µs", "ops/s", "B", ...
  const char* what;       // one line: what is measured
  bool higher_is_better;  // throughput
  bool timed;             // noisy: significance from repetitions; otherwise counted (exact)
  double floor;           // added to both sides of a ratio (see above)
  double default_weight;
};

// The criteria, in table order.
const std::vector<Criterion>& Criteria();
const Criterion* FindCriterion(const std::string& name);

using Weights = std::map<std::string, double>;
Weights DefaultWeights();
// Parses "latency=2,space=1" over the defaults: named criteria get the given weights (>= 0),
// the others keep theirs. Unknown names and bad numbers are errors that list the valid names.
Status ParseWeights(const std::string& text, Weights* out);
// "latency=1, tail_latency=0.5, ...", in table order.
std::string FormatWeights(const Weights& w);

// One catalogued deviation (docs/deviations.json): enough to say which apply to a workload.
struct DeviationEntry {
  std::string id;
  std::string type;
  std::vector<int> versions;
  std::vector<std::string> commands;  // lower case
  std::string reason;
};
Status LoadDeviationEntries(const std::string& path, std::vector<DeviationEntry>* out);

struct RankOptions {
  Weights weights = DefaultWeights();
  // Types whose versions are ranked; empty: every type the result varies.
  std::vector<std::string> types;
  std::vector<DeviationEntry> deviations;
  double confidence = 0.90;   // of the ratio intervals (3 vs 3 repetitions attain 0.90)
  double materiality = 0.01;  // relative difference below which counted values tie
};

// The Redis type a command works on: its command-table group ("hash", "sorted-set" -> "zset",
// "string"), or, for generic commands (DEL, EXPIRE, ...), the workload's keyspace type.
std::string CommandType(const std::string& command, const std::string& keyspace_type);

// Ranks every (workload, backend, type) of `bench_result`. Appends one entry per ranking to
// *rankings (the `rankings` array of study.json, documented in docs/study.md). Fails when the
// result has no cell that varies a type.
Status RankResult(const nlohmann::json& bench_result, const RankOptions& options,
                  nlohmann::json* rankings);

}  // namespace kvlab::study
