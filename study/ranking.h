// Ranking encode-versions for one workload: the heart of `kvlab study`.
//
// Input is a bench result (docs/results-schema.md; any schema version, read through
// workloads::NormalizeResult) whose cells vary one type's version at a time (the others at a
// fixed baseline), over backends and repetitions. For each (workload, backend, type) the versions
// of the type are ranked on the criteria of criteria.h.
//
// Costs. A criterion's value is the median over repetitions (timed) or the exact count. The
// best version on a criterion sets its reference; another version's cost is
//     weight * |log2((value + floor) / (best + floor))|
// (0 for a counted value within `materiality` of the best). Exactness costs weight * (deviations
// beyond the fewest any version has); needs cost weight * (1 per cache Redis, 2 per store Redis).
// The score is the sum of the costs: 0 is best, 1 is "twice as costly on one criterion of
// weight 1".
//
// Noise. A timed criterion's noise in one ranking is the square of its spread (the median over
// the versions of their largest over their smallest repetition): two medians can each be off by
// the spread. A timed cost counts only when the ratio to the best is significant at
// `confidence` (Hodges-Lehmann with Mann-Whitney bounds) and beyond the noise; otherwise it is 0
// (`inside_noise`). A version's score range (`score_low`, `score_high`) is its score with each
// repetition's weighted timed part (the sum over the timed criteria of weight * log2(value),
// negated for throughput) in place of the median's.
//
// Ties. Version a *beats* version b when b's cost exceeds a's by more than `tie_margin`, compared
// pair by pair: the counted parts differ exactly; each timed criterion adds weight * log2 of the
// two versions' ratio only when that ratio is significant and beyond the noise. A difference
// inside the noise is none, so that the same study repeated names the same ties
// (docs/study.md, "Reproducibility"). A version's rank is 1 + the number of versions that beat
// it. "Beats" need not be transitive; the versions ranked first (rank 1, `first`) are those of
// the top cycles (the Schwartz set), which are the unbeaten versions when there is no cycle: they
// are tied for first when more than one, and the verdict names them together.
//
// A timed criterion whose repetitions of the same cell spread more than 2x (the median over the
// versions of their largest over their smallest repetition) measures the machine's load, not the
// encoding (a p99 or a throughput caught by the scheduler on a busy machine): it counts for
// nothing in that ranking, which says so (`timed_criteria`, `warnings`).
//
// When the repetitions cannot reach `confidence` (fewer than 3 per version at 0.90), the timed
// criteria count for nothing and the ranking says so (`timings_count` false, with the
// --repetitions that would let them count).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "conformance/deviations.h"
#include "study/criteria.h"

namespace kvlab::study {

struct RankOptions {
  Weights weights = DefaultWeights();
  // Types whose versions are ranked; empty: every type the result varies.
  std::vector<std::string> types;
  // The deviations catalogue (docs/deviations.json), joined with the registry.
  std::vector<conformance::Deviation> deviations;
  double confidence = 0.90;   // of the ratio intervals (3 vs 3 repetitions attain 0.90)
  double materiality = 0.01;  // relative difference below which counted values tie
  // Score difference below which two versions are not told apart, beyond the noise: 0.1 is a
  // 7% difference on one criterion of weight 1, or 3.5% on p50 (weight 2).
  double tie_margin = 0.1;
};

// Ranks every (workload, backend, type) of `bench_result`. Appends one entry per ranking to
// *rankings (the `rankings` array of study.json, documented in docs/study.md), each with its
// break-even analysis (break_even.h). Fails when the result has no cell that varies a type, or
// is not a bench result.
Status RankResult(const nlohmann::json& bench_result, const RankOptions& options,
                  nlohmann::json* rankings);

// The cost of `value` on criterion `c` against the best value, weight 1 (see above; no
// materiality).
double CostOf(const Criterion& c, double value, double best);
// Whether a counted value differs from the best by more than `materiality`.
bool Material(double value, double best, double materiality);

}  // namespace kvlab::study
