// `kvlab gate --history DIR`: change points over a series of results, one per commit (as
// `kvlab gate --update --history DIR` on the main branch accumulates them), rather than one
// pair of results.
//
// Every cell and metric becomes a series over the runs (a run's value: the median of its
// repetitions), runs ordered by the date in each result, then by file name. Counters are exact:
// a level change is any run whose value differs from the run before. Timings are searched with
// E-divisive means (analysis/change_point.h: permutation test, each side of a change at least
// min_segment runs), at the per-series level alpha / (timing series) - Bonferroni over the
// series, so that noise names a change in some series of the history with probability at most
// alpha. Each change names the run where the new level began, its size (the ratio of the
// medians of the segments on either side) and its confidence (1 - its permutation p).
//
// As a gate: a worsening change (a counter that grew; a timing beyond the threshold in the worse
// direction) that began in the newest `recent` runs is a regression; older changes are reported,
// not gated, so that an accepted change stops failing once it is history.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"
#include "gate/dataset.h"

namespace kvlab::gate {

struct HistoryOptions {
  double alpha = 0.01;
  double threshold = 0.10;
  size_t min_segment = 3;  // runs on each side of a timing change, at least
  // A worsening change that began in the newest `recent` runs gates. More than the runs a change
  // needs on its new level before the permutation test can see it (5 or 6 at the usual
  // levels), so that every change gates for a while once it is visible.
  size_t recent = 10;
  LoadOptions load;
};

struct HistoryRun {
  std::string path, name, date, commit, machine;
};

struct HistorySeries {
  std::string cell, metric, unit;
  bool counter = false;
  analysis::Direction direction = analysis::Direction::kLowerIsBetter;
  double tolerance = 1e-9;     // counters: the metric's
  std::vector<size_t> runs;    // the runs that have it, ascending
  std::vector<double> values;  // the run's median, per entry of `runs`
};

struct HistoryChange {
  size_t series = 0;             // index into HistoryReport::series
  size_t run = 0;                // the first run of the new level
  double before = 0, after = 0;  // the levels: medians of the segments on either side
  double p_value = 0;            // permutation p (timings); 0 for counters (exact)
  size_t permutations = 0;
  bool worse = false;
  bool large = false;   // beyond the threshold (timings); every counter change
  bool recent = false;  // began in the newest `recent` runs
};

struct HistoryReport {
  std::string dir;
  HistoryOptions options;
  std::vector<HistoryRun> runs;
  std::vector<HistorySeries> series;
  std::vector<HistoryChange> changes;
  size_t timing_series_tested = 0;  // with at least 2 min_segment runs
  double level = 0;                 // alpha / timing_series_tested
  size_t permutations = 0;          // at most, per candidate
  std::vector<std::string> notes;
  std::vector<std::string> regressions;
  // Timings could not be searched at all: too few runs.
  std::string inconclusive;
};

// Reads every *.json result in `dir` (bench or Google Benchmark, all of one kind) and finds the
// changes. Fails (InvalidArgument, naming the file) on an unreadable or malformed result, a
// conform result, mixed kinds, or an empty directory.
Status AnalyzeHistory(const std::string& dir, const HistoryOptions& options, HistoryReport* report);

// The report: verdict, regressions, a table of every change (run, size, confidence), the runs,
// and the plots (`plots`: image files relative to where the Markdown goes).
std::string RenderHistoryMarkdown(const HistoryReport& report,
                                  const std::vector<std::string>& plots);

// The input of reports/plot_trend.py: per cell, its series, levels and changes.
nlohmann::json HistoryPlotInput(const HistoryReport& report);

// Runs reports/plot_trend.py (found next to the binary, base/data_dir.h) under $KVLAB_PYTHON or
// /usr/bin/python3 on `input` (HistoryPlotInput, written to a file), drawing into `dir`; *files
// receives the image names. NotSupported when Python, matplotlib or the script is missing.
Status DrawTrendPlots(const std::string& input, const std::string& dir,
                      std::vector<std::string>* files);

// The file name `kvlab gate --update --history DIR` stores a new result under:
// "<date>-<commit>.json" ("20260101T000000Z-abc123.json"), from the result's own context.
std::string HistoryFileName(const Dataset& result);

}  // namespace kvlab::gate
