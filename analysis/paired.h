// Comparing two builds measured in pairs: repetition i of the baseline and repetition i of the
// current build ran back to back on the same machine, with the same seed, so whatever slowed the
// machine at that moment (a compile next door, a frequency step, a noisy neighbour) slowed both.
// The comparison is on the per-pair log ratios d_i = log(current_i / baseline_i): machine drift
// and load cancel in each d_i, and what is left is the builds' difference plus the noise of two
// adjacent runs.
//
// The test is Wilcoxon's signed-rank test on the d_i; the estimate of the ratio is the
// Hodges-Lehmann estimate (the median of the Walsh averages (d_i + d_j) / 2, exponentiated) and
// its interval the distribution-free one that inverts the same test (Hollander, Wolfe and
// Chicken, "Nonparametric Statistical Methods", 3rd ed., sections 3.1-3.3; R's
// wilcox.test(paired = TRUE, conf.int = TRUE)). Why a rank test rather than a paired t-test:
// one pair that ran while someone else's link step took both CPUs must neither fake nor hide a
// change; ranks bound its weight. Why log ratios rather than differences: a change of build is a
// factor (+15% on every command), and on the log scale a 2 µs command and a 2 ms command carry
// the same change.
//
// The signed-rank test is the sign-flip permutation test of the ranks: under the null
// hypothesis (the builds are the same) each d_i is as likely to be positive as negative, so all
// 2^n sign patterns of the ranks are equally likely. The p-value here is exact over that
// distribution (with tied |d_i| given their mid-ranks: the conditional distribution given the
// tie pattern) up to kSignedRankExactLimit non-zero pairs, and the normal approximation with the
// tie correction beyond. Zero differences carry no sign and are dropped (Wilcoxon's convention,
// R's default): identical timings, which histogram percentiles produce, are neither evidence
// for a change nor against it.
//
// All functions are pure and thread-safe. Violated preconditions throw std::invalid_argument
// naming the problem.
#pragma once

#include <cstddef>
#include <span>

namespace kvlab::analysis {

// Up to this many non-zero pairs the signed-rank distribution is enumerated exactly (a subset-sum
// count over doubled mid-ranks, O(n^3) small steps: well under a millisecond at 60); beyond, the
// normal approximation, accurate there to ~1e-3.
inline constexpr std::size_t kSignedRankExactLimit = 60;

struct SignedRankResult {
  std::size_t n = 0;        // pairs
  std::size_t nonzero = 0;  // pairs with d_i != 0, the ones ranked
  // The sum of the (mid-)ranks of |d_i| over the pairs with d_i > 0. n' (n' + 1) / 4 under the
  // null hypothesis, n' = nonzero.
  double w_plus = 0;
  // Two-sided p-value of "the d_i are symmetric around 0" against "they lean one way": the
  // probability under the sign flips of a rank sum at least as far from its mean as observed.
  double p_value = 1;
  bool exact = true;
  bool ties = false;  // some |d_i| occur more than once
};

// Wilcoxon's signed-rank test of `differences` (the d_i) against symmetry around 0.
// REQUIRES: differences non-empty and finite. When every d_i is 0, p_value = 1.
SignedRankResult WilcoxonSignedRank(std::span<const double> differences);

// The smallest two-sided p-value the signed-rank test can give with n non-zero pairs, whatever
// the data: 2 / 2^n (every pair the same way), capped at 1. 1 when n = 0. Examples: 5 pairs ->
// 0.0625, 8 -> 0.0078, 10 -> 0.00195, 14 -> 1.2e-4, 20 -> 1.9e-6.
double MinimumSignedRankP(std::size_t n);

// The smallest n such that n pairs can reach p <= alpha. REQUIRES: 0 < alpha < 1.
std::size_t PairsNeeded(double alpha);

// The ratio current / baseline of two paired samples, from their log ratios.
struct PairedRatio {
  std::size_t pairs = 0;
  // exp(Hodges-Lehmann estimate of the log ratios): the median of the Walsh averages.
  double estimate = 1;
  double median_ratio = 1;  // the plain median of current_i / baseline_i, for reference
  // The interval [exp(W(k)), exp(W(M + 1 - k))] over the M = n (n + 1) / 2 sorted Walsh
  // averages W, with the largest k whose exact coverage 1 - 2 P(T+ <= k - 1) (T+ the
  // signed-rank statistic without ties) is >= the requested confidence; [min, max] when the
  // confidence cannot be reached (then attainable is false).
  double low = 0, high = 0;
  double confidence = 0;  // the interval's coverage
  bool attainable = false;
  SignedRankResult test;
};

// REQUIRES: baseline and current of equal, non-zero size, every value finite and > 0;
// 0 < confidence < 1.
PairedRatio ComparePaired(std::span<const double> baseline, std::span<const double> current,
                          double confidence = 0.90);

}  // namespace kvlab::analysis
