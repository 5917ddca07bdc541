// Many comparisons at once: the gate and the reports compare every cell and metric of a result
// (dozens to hundreds of rows) in one go, and a row tested at alpha 0.01 on its own flags noise
// one time in a hundred, so a run of 200 rows flags something nearly every time. Two tools:
//
//   - HolmAdjust: Holm-Bonferroni adjusted p-values. A row is flagged when its adjusted p <=
//     alpha; then the probability that one or more rows of the run are flagged when nothing
//     changed (the family-wise error rate) is at most alpha, whatever the dependence between the
//     rows. Why Holm and not Benjamini-Hochberg: a gate's promise is about a run ("noise fails
//     this job at most 1% of the time"), which is the family-wise rate; Benjamini-Hochberg
//     bounds the expected fraction of false flags among the flagged rows, which lets a run with
//     one real regression carry false ones too, and needs positive dependence between the rows
//     to hold at all. Holm is uniformly more powerful than Bonferroni and as safe.
//
//   - FindCommonShift: when most rows of an unpaired comparison moved the same way by a similar
//     factor, the cause is the machine (another load, another frequency, another neighbour), or
//     a change that slows everything; either way it is one finding, not N regressions.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace kvlab::analysis {

// Holm's step-down adjusted p-values, in the order of `p`: with p sorted ascending as p(1) <=
// ... <= p(m), adjusted(i) = max over j <= i of min(1, (m - j + 1) p(j)). Rejecting the rows
// whose adjusted p <= alpha is Holm's procedure at family-wise level alpha.
// REQUIRES: every p in [0, 1] (std::invalid_argument otherwise). Empty in, empty out.
std::vector<double> HolmAdjust(std::span<const double> p);

// The per-row level the first step of Holm's procedure needs: alpha / m. A row whose smallest
// attainable p-value is above it can never be flagged in a family of m rows.
double HolmFirstLevel(double alpha, std::size_t m);

// Rows needed before a common shift is called at all: with fewer, "most rows moved" cannot be
// told from "the one or two things measured changed".
inline constexpr std::size_t kCommonShiftMinRows = 4;

struct CommonShift {
  bool present = false;
  std::size_t rows = 0;  // rows considered
  // exp(median of the rows' oriented log ratios): 1.4 = the typical row is 40% slower.
  double ratio = 1;
  // How many rows moved the same way as the median by more than the threshold.
  std::size_t beyond_threshold = 0;
  double low = 1, high = 1;  // exp of the first and third quartiles of the log ratios
};

// `log_ratios`: per row, the log of its estimated ratio current / baseline, oriented so that
// positive means slower (a throughput row's ratio inverted). A common shift is present when
// there are at least kCommonShiftMinRows rows and their median moved beyond the threshold
// (|exp(median) - 1| > threshold): then at least half of the rows moved beyond it the same way,
// which one slow command cannot do.
// REQUIRES: threshold >= 0; every value finite.
CommonShift FindCommonShift(std::span<const double> log_ratios, double threshold);

}  // namespace kvlab::analysis
