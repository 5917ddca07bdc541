// Comparing a current result with a baseline: the gate's verdict and every row behind it.
//
//   counters     exact: any increase is a regression, any decrease an improvement;
//   timings      Mann-Whitney over repetitions: worse/better only when significant at alpha AND
//                beyond the threshold; "inconclusive" when the repetitions cannot reach alpha;
//   conformance  a case that fails now and did not fail in the baseline is a regression;
//   matching     cells present in only one file are listed; cells of the baseline missing from
//                the current result fail the gate unless allowed (a gate that silently loses
//                coverage is not a gate).
#pragma once

#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "gate/dataset.h"

namespace kvlab::gate {

enum class TimingMode {
  kAuto,    // gate timings when both results come from the same machine class and build type
            // and their timings are valid; otherwise compare counters only, and say why
  kGate,    // gate timings; results that cannot be compared (machine, build) are bad input
  kReport,  // compare and show timings, never fail on them (CI on shared or varying machines)
  kOff,     // leave timings out
};

struct GateOptions {
  double threshold = 0.10;
  double alpha = 0.01;
  TimingMode timings = TimingMode::kAuto;
  bool allow_missing = false;  // cells of the baseline absent from current do not fail
};

enum class RowVerdict { kUnchanged, kWorse, kBetter, kInconclusive };
std::string RowVerdictName(RowVerdict v);

struct CounterRow {
  std::string cell;  // CellName
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
  std::string metric;
  std::string unit;
  analysis::Comparison comparison;
  RowVerdict verdict = RowVerdict::kUnchanged;
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
  // Gated timings that too few repetitions cannot judge: the gate cannot pass on them.
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
