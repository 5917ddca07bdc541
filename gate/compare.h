// Comparing a current result with a baseline: the gate's verdict and every row behind it.
//
//   counters     exact: any increase is a regression, any decrease an improvement;
//   timings      per row, a test over repetitions (Mann-Whitney unpaired; Wilcoxon's signed-rank
//                test on the log ratios when the two sides ran in pairs), its p-value adjusted
//                with Holm's method over every timing row of the run (analysis/family.h), so
//                that noise fails a gate run with probability at most alpha, not each row;
//                worse/better only when the adjusted p <= alpha AND the change is beyond the
//                threshold; "inconclusive" when the repetitions cannot reach Holm's first level
//                alpha / rows. Unpaired only: when most rows moved together (a machine-wide
//                shift) or a run started on a loaded machine, a timing can no longer be told
//                from the machine: rows that would be worse or better are inconclusive, and a
//                machine-wide slowdown is one inconclusive finding, not N regressions;
//   conformance  a case that fails now and did not fail in the baseline is a regression;
//   matching     cells present in only one file are listed; cells of the baseline missing from
//                the current result fail the gate unless allowed (a gate that silently loses
//                coverage is not a gate).
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/family.h"
#include "analysis/summary.h"
#include "gate/dataset.h"

namespace kvlab::gate {

enum class TimingMode {
  kAuto,    // gate timings when both results come from the same machine class and build type
            // and their timings are valid; otherwise compare counters only, and say why
  kGate,    // gate timings; results that cannot be compared (machine, build) are bad input
  kReport,  // compare and show timings, never fail on them (CI on shared or varying machines)
  kOff,     // leave timings out
};

// Pairs beyond the bare minimum PairsNeeded(alpha / rows), which a change can reach only when
// every pair goes its way: with 8 more, a few pairs that noise turned the other way still let a
// 15% change through (docs/gate.md, "Measured": detections of a 15% slowdown on a loaded 2-core
// machine).
inline constexpr size_t kPairsMargin = 8;

struct GateOptions {
  double threshold = 0.10;
  // The family-wise false-alarm rate of the timings of one gate run (Holm over its rows).
  double alpha = 0.01;
  TimingMode timings = TimingMode::kAuto;
  bool allow_missing = false;  // cells of the baseline absent from current do not fail
  // Sample i of the baseline and sample i of the current result ran back to back (kvlab gate
  // --baseline-binary): timings are compared pair by pair. Rows whose two sides have different
  // sample counts fall back to the unpaired test.
  bool paired = false;
  // Confidence of the ratio intervals shown.
  double confidence = 0.90;
};

enum class RowVerdict { kUnchanged, kWorse, kBetter, kInconclusive };
std::string RowVerdictName(RowVerdict v);

struct CounterRow {
  std::string cell;  // CellName
  CellKey key;       // the cell's key, and its profile for people ("h0 z1")
  std::string profile_label;
  std::string metric;
  std::string unit;
  double baseline = 0, current = 0;
  // Repetitions of one file disagreed (min..max shown); the medians are compared.
  bool baseline_varies = false, current_varies = false;
  double baseline_min = 0, baseline_max = 0, current_min = 0, current_max = 0;
  RowVerdict verdict = RowVerdict::kUnchanged;
};

struct TimingRow {
  std::string cell;
  CellKey key;
  std::string profile_label;
  std::string metric;
  std::string unit;  // "ns", "ops/s", or Google Benchmark's counter unit ("")
  analysis::Direction direction = analysis::Direction::kLowerIsBetter;
  analysis::Summary baseline, current;
  bool paired = false;  // the signed-rank test on pair log ratios; else Mann-Whitney
  // The estimated ratio current / baseline: Hodges-Lehmann of the pair log ratios (paired), or
  // median(current) / median(baseline) (unpaired; +infinity when only the baseline's is 0).
  double ratio = 1;
  bool has_interval = false;                 // every value > 0
  double low = 0, high = 0, confidence = 0;  // the ratio's interval and its coverage
  double p_value = 1;                        // raw, two-sided
  double p_adjusted = 1;                     // Holm over every timing row of the run
  double minimum_p = 1;                      // the smallest p these sample sizes can reach
  // Unpaired with a common shift: the ratio after dividing the shift out (how this row moved
  // compared with the rest), and its Holm-adjusted p; 1 otherwise.
  double relative_ratio = 1;
  double relative_p_adjusted = 1;
  RowVerdict verdict = RowVerdict::kUnchanged;
  // Why, in words: "adjusted p = 0.00021 <= 0.01 and +31.2% beyond 10%".
  std::string reason;
};

struct ConformRow {
  std::string what;  // a case (ConformFailure::Name) or a matrix cell
  std::string detail;
  RowVerdict verdict = RowVerdict::kWorse;
  bool is_case = true;  // a failing case (always listed), or a matrix cell's tally
};

struct CellErrorRow {
  std::string cell;
  std::string error;
  bool regression = false;  // failed now, not in the baseline
};

struct GateReport {
  std::string baseline_path, current_path;
  std::string baseline_description, current_description;
  Environment baseline_env, current_env;
  InputKind kind = InputKind::kBench;
  GateOptions options;
  // Timings: compared at all, and whether they gate.
  bool timings_compared = false;
  bool timings_gated = false;
  std::string timings_note;  // why not compared or not gated
  bool paired = false;       // some timing row was compared pair by pair
  size_t pairs = 0;          // the pairs of the paired rows
  std::string pairs_how;     // how each pair ran ("both builds at once"), for the report
  // The family: timing rows whose adjusted p-values share alpha.
  size_t timing_family = 0;
  // Unpaired: most rows moved together (analysis::FindCommonShift over the rows' oriented log
  // ratios). A slower machine-wide shift is one inconclusive finding when timings are gated.
  analysis::CommonShift common_shift;
  // Unpaired: a run started with its load average above its usable CPUs ("" when neither did):
  // rows that would be worse or better are inconclusive, never a regression, and gated timings
  // as a whole are inconclusive (the load can hide a change as well as fake one).
  std::string loaded;
  // When timings are inconclusive for want of repetitions: the repetitions per side (unpaired)
  // or the pairs (paired) that let Holm's first level be reached, with a margin; 0 otherwise.
  size_t repetitions_needed = 0;
  // Unpaired, with files of unequal repetitions: the current repetitions that suffice against
  // the baseline's as it is (0 when none up to 1000 do).
  size_t current_repetitions_needed = 0;
  std::vector<CounterRow> counters;
  std::vector<TimingRow> timings;
  std::vector<ConformRow> conformance;
  // Conform: matrix cells found in both results, and failing replies in each.
  size_t conform_cells_compared = 0;
  uint64_t baseline_failures_total = 0, current_failures_total = 0;
  std::vector<CellErrorRow> cell_errors;
  std::vector<std::string> only_in_baseline, only_in_current;
  std::vector<std::string> notes;
  // The outcome.
  std::vector<std::string> regressions;  // one line per regression, naming it
  // Gated timings the data cannot judge (too few repetitions, a loaded machine, a machine-wide
  // shift): the gate cannot pass on them, nor fail.
  std::vector<std::string> inconclusive;
  bool improved = false;  // some counter or case improved: refresh the baseline
  bool Passed() const { return regressions.empty() && inconclusive.empty(); }
};

// Compares `current` with `baseline`. Fails (InvalidArgument, naming the mismatch) when they
// cannot be compared at all: different kinds; either result untrustworthy (partial,
// incomplete, degraded); with TimingMode::kGate, different machine classes or build types or
// invalid timings. Otherwise fills *report; report->Passed() is the verdict.
Status Compare(const Dataset& baseline, const Dataset& current, const GateOptions& options,
               GateReport* report);

}  // namespace kvlab::gate
