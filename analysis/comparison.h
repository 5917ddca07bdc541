// The verdict on one timing metric of one cell, baseline against current, as the CI gate and
// the reports give it: worse, better, unchanged, or inconclusive.
//
// A change is flagged only when it is both significant (Mann-Whitney p <= alpha) and larger
// than a threshold (|median(current) / median(baseline) - 1| > threshold). Significance alone
// flags trivial but consistent shifts; size alone flags noise. Sample sizes that cannot reach
// p <= alpha at all give "inconclusive", never "unchanged": absence of evidence is not evidence
// of no change.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "analysis/mann_whitney.h"
#include "analysis/summary.h"

namespace kvlab::analysis {

enum class Direction {
  kLowerIsBetter,   // latency, KV operations, bytes
  kHigherIsBetter,  // throughput
};

enum class Verdict { kUnchanged, kWorse, kBetter, kInconclusive };

// "unchanged", "worse", "better", "inconclusive".
std::string_view VerdictName(Verdict v);

struct ComparisonOptions {
  // Relative change of the medians that counts: 0.10 = 10%. REQUIRES: >= 0.
  double threshold = 0.10;
  // Significance level of the two-sided Mann-Whitney test. REQUIRES: 0 < alpha < 1.
  double alpha = 0.01;
  Direction direction = Direction::kLowerIsBetter;
  // Confidence of the reported ratio interval (RatioOfMedians). REQUIRES: 0 < confidence < 1.
  double confidence = 0.90;
};

struct Comparison {
  Summary baseline;
  Summary current;
  // median(current) / median(baseline); +infinity when only the baseline's median is 0, 1
  // when both are.
  double ratio = 1;
  MannWhitneyResult test;  // x = current, y = baseline
  double minimum_p = 1;    // MinimumPValue(current.n, baseline.n)
  // Present when every value of both samples is > 0 (otherwise the interval has no meaning and
  // has_interval is false).
  bool has_interval = false;
  RatioInterval interval;
  Verdict verdict = Verdict::kUnchanged;
  // Why, in words: "p = 0.00018 <= 0.01 and +31.2% > 10%", "n = 2 vs 2 can reach p = 0.33 at
  // best, more than alpha 0.01: need 5 repetitions".
  std::string reason;
};

// Compares `current` with `baseline`:
//   inconclusive  when MinimumPValue(n_current, n_baseline) > alpha;
//   worse/better  when p <= alpha and |ratio - 1| > threshold, by `direction`;
//   unchanged     otherwise.
// REQUIRES: both samples non-empty and finite; options as documented (std::invalid_argument
// otherwise).
Comparison CompareSamples(std::span<const double> baseline, std::span<const double> current,
                          const ComparisonOptions& options);

}  // namespace kvlab::analysis
