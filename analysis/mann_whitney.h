// Comparing two samples of repeated measurements without assuming a distribution: the
// Mann-Whitney U test (a.k.a. Wilcoxon rank-sum test), the smallest p-value it can reach for
// given sample sizes, and a confidence interval for the ratio of two cells' medians.
//
// Why rank methods: run times on a shared machine are skewed and have outliers (a repetition
// that ran while someone else compiled). A t-test assumes normal data and one outlier among
// three repetitions either hides a real change or fakes one; ranks do neither. The price is that
// tiny samples cannot reach small p-values at all: 3 against 3 repetitions reach p = 0.10 at
// best, so with alpha = 0.05 no outcome is significant. MinimumPValue() says so in advance,
// which is how callers report "inconclusive" rather than "no change".
//
// All functions are pure and thread-safe. Inputs are spans of finite doubles; violated
// preconditions throw std::invalid_argument with a message naming the problem.
#pragma once

#include <cstddef>
#include <span>

namespace kvlab::analysis {

// Samples of at most this many observations in total (n_x + n_y) are tested with the exact
// permutation distribution (its cost grows as N^3: ~1 ms at N = 20 and ~10 ms at N = 40 on a
// loaded 2-core machine); larger ones with the normal approximation, accurate there to ~1e-3.
inline constexpr std::size_t kMannWhitneyExactLimit = 40;

struct MannWhitneyResult {
  std::size_t n_x = 0;
  std::size_t n_y = 0;
  // U of x: the number of pairs (x_i, y_j) with x_i > y_j, plus half the tied pairs. Ranges
  // over [0, n_x * n_y]; n_x * n_y / 2 under the null hypothesis.
  double u_x = 0;
  // u_x / (n_x * n_y): the probability that a random x exceeds a random y (ties count half),
  // the test's own effect size. 0.5 = no tendency; 1 = every x above every y.
  double prob_x_greater = 0.5;
  // Two-sided p-value of the null hypothesis "x and y come from the same distribution" against
  // "one tends to be larger".
  double p_value = 1;
  bool exact = true;  // exact permutation distribution (else normal approximation)
  bool ties = false;  // some value occurs more than once in the pooled sample
};

// The two-sided Mann-Whitney U test of x against y.
//
// Exact (n_x + n_y <= kMannWhitneyExactLimit): the permutation distribution of the rank sum of
// x over all C(n_x + n_y, n_x) ways to split the pooled sample, with tied values given their
// mid-ranks (so ties are treated exactly, not approximated: the distribution is the
// conditional one given the observed tie pattern). The two-sided p-value is the probability of
// a rank sum at least as far from its mean as the observed one, the usual definition for
// permutation tests (it equals twice the one-sided p-value when there are no ties, where the
// distribution is symmetric).
//
// Normal approximation (larger samples): z = (|U - n_x n_y / 2| - 0.5) / sigma with the tie
// correction sigma^2 = n_x n_y / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))), t the sizes of
// the tie groups, N = n_x + n_y, and a continuity correction of 0.5 (as R's wilcox.test).
//
// When every pooled value is equal, p_value = 1.
// REQUIRES: x and y non-empty and finite.
MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y);

// The smallest two-sided p-value the Mann-Whitney test can give for samples of n_x and n_y
// observations, whatever the data: 2 / C(n_x + n_y, n_x) (both samples entirely apart, no
// ties), capped at 1. Ties only make it larger. 1 when either size is 0.
//
// A comparison whose MinimumPValue(n_x, n_y) > alpha cannot be significant at alpha: report it
// as inconclusive (too few repetitions), never as "unchanged". Examples: 2 vs 2 -> 0.333,
// 3 vs 3 -> 0.100, 4 vs 4 -> 0.029, 5 vs 5 -> 0.0079, 10 vs 10 -> 1.1e-5.
double MinimumPValue(std::size_t n_x, std::size_t n_y);

// The smallest equal size n such that n vs n repetitions can reach p <= alpha.
// REQUIRES: 0 < alpha < 1.
std::size_t RepetitionsNeeded(double alpha);

// A confidence interval for the ratio median(numerator) / median(denominator), e.g. the
// current cell's latency over the baseline's.
//
// Method: Hodges-Lehmann on logarithms with the distribution-free Mann-Whitney interval (Bauer
// 1972; R's wilcox.test(conf.int = TRUE)). Take the n_x * n_y pairwise ratios
// numerator_i / denominator_j, sorted: R(1) <= ... <= R(n_x n_y). The estimate is their median
// (the Hodges-Lehmann shift of the logs, exponentiated). The interval is [R(k), R(n_x n_y + 1 -
// k)] with the largest k whose exact coverage 1 - 2 P(U <= k - 1) is >= the requested
// confidence, U the null distribution of the Mann-Whitney statistic without ties (the normal
// approximation for n_x + n_y > kMannWhitneyExactLimit).
//
// Why this method rather than Welch's t on logarithms: it assumes only that the two cells differ
// by a factor (a shift of the logs), not that log-times are normal, so one outlying repetition
// cannot produce or hide a claim; and it agrees with MannWhitneyU, which the gate uses: for
// untied data the interval at confidence 1 - a excludes 1 exactly when the exact two-sided test
// gives p <= a. Its limit is granularity: n vs m repetitions attain only coverages 1 - 2 P(U <=
// k - 1). 3 vs 3 attain 0.90 (the interval is then [min, max] of the 9 pairwise ratios, and the
// claim "they differ" needs every repetition of one cell beyond every repetition of the other);
// 2 vs 2 attain at most 0.67, so they never support a claim. Hence the default confidence 0.90:
// the highest that the main job's 3 repetitions reach.
struct RatioInterval {
  double estimate = 1;      // Hodges-Lehmann: the median of the pairwise ratios
  double median_ratio = 1;  // plain median(numerator) / median(denominator), for reference
  double low = 0;           // the interval; [R(1), R(n_x n_y)] when the confidence is not
  double high = 0;          // attainable
  double confidence = 0;    // the interval's exact coverage (>= requested when attainable)
  // The requested confidence can be reached with these sample sizes.
  bool attainable = false;
  // attainable and the interval excludes 1: the data support "the medians differ". When false,
  // report the ratio as not significant (e.g. "≈ 1.80"), whatever the estimate.
  bool significant = false;
};

// REQUIRES: numerator and denominator non-empty, every value finite and > 0;
// 0 < confidence < 1.
RatioInterval RatioOfMedians(std::span<const double> numerator, std::span<const double> denominator,
                             double confidence = 0.90);

}  // namespace kvlab::analysis
