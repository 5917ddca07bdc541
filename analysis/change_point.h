// Change points in a series of measurements over time (one value per commit): where did the level
// change, by how much, and how sure is that?
//
// Method: E-divisive with means (Matteson and James, "A Nonparametric Approach for Multiple
// Change Point Analysis of Multivariate Data", JASA 2014), the method of MongoDB's
// signal-processing-algorithms and of Hunter (now Apache Otava), with the exponent alpha = 1:
//
//   - For a segment x_1..x_n, a split after tau and a right end kappa (both sides at least
//     min_segment long), the energy statistic Q(tau, kappa) = (a b / (a + b)) (2/(a b)
//     sum|x_i - x_j| (between) - sum|x_i - x_k| / C(a, 2) (within the left) - sum|x_j - x_k| /
//     C(b, 2) (within the right)), the left x_1..x_tau (a = tau values), the right
//     x_tau+1..x_kappa (b = kappa - tau). It is large when the two sides are far apart compared
//     with their own spread, for any kind of distribution, and its distances are absolute
//     differences, so one outlier weighs what it is away and no more (no squares). The right
//     end is free (Q(tau) = the largest over kappa), so that a level that changes and changes
//     back stands out as clearly as one that stays.
//   - The candidate is the split with the largest Q over every segment found so far; its
//     significance is a permutation test: the segment's values are shuffled R times (a seeded
//     generator, so that the answer is reproducible) and p = (1 + #{shuffles whose largest Q >=
//     the observed one}) / (R + 1). A shuffle destroys any order, so p is the chance that a
//     level change this clear appears in values with no change at all.
//   - A significant candidate splits its segment and the search repeats; the first
//     insignificant one stops it (the hierarchical, divisive search).
//
// Hunter replaced the permutation test by a Student's t-test between the two sides to make it
// faster on long series; kvlab's series are short (tens to hundreds of runs) and the permutation
// test needs no normality, so it is kept. Shuffling stops early once the count of shuffles at or
// above the observed Q already puts p above the significance level (Besag and Clifford's
// sequential Monte Carlo test): a series without a change costs a few dozen shuffles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace kvlab::analysis {

struct ChangePointOptions {
  // Each side of a split holds at least this many values. REQUIRES: >= 2.
  std::size_t min_segment = 3;
  // A candidate is a change point when its permutation p <= significance. REQUIRES: in (0, 1).
  double significance = 0.05;
  // Shuffles per candidate, at most. The smallest p it can give is 1 / (R + 1): R must exceed
  // 1 / significance - 1 for any change point to be found. REQUIRES: >= 1.
  std::size_t permutations = 999;
  std::uint64_t seed = 1;
};

struct ChangePoint {
  // The first index of the new level: values [index, next change) differ from [previous change,
  // index).
  std::size_t index = 0;
  double p_value = 1;
  std::size_t permutations = 0;  // shuffles actually made for it
  double energy = 0;             // Q at the split
  // Medians of the segments on either side (bounded by the neighbouring change points).
  double before_median = 0, after_median = 0;
};

// The change points of `series`, in index order.
// REQUIRES: every value finite; options as documented (std::invalid_argument otherwise).
// Fewer than 2 min_segment values: no change point can be found, the result is empty.
std::vector<ChangePoint> EDivisive(std::span<const double> series,
                                   const ChangePointOptions& options);

// The energy statistic of every split of `segment`, maximised over the right end: result[tau - 1]
// = max over kappa of Q(tau, kappa), for tau = min_segment .. size - min_segment values on the
// left; the others 0. Exposed for tests.
std::vector<double> EnergyStatistics(std::span<const double> segment, std::size_t min_segment);

}  // namespace kvlab::analysis
