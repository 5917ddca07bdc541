// `kvlab report`'s C++ half: reads results (bench, conform, study), computes every statistic the
// page shows with the analysis library (medians and spreads over repetitions; comparisons of two
// or more results with the CI gate's statistics), and hands one JSON document, the
// report input, to reports/kvlab_report.py, which lays out the HTML page, the Markdown and the
// plots. Python computes no statistic: it formats what this file computed.
//
// The report input (schema "kvlab-report-input", version 1):
//   {"schema", "schema_version", "title", "generated": UTC time,
//    "versions": the version legend (version_legend.h),
//    "documents": [{"kind": "bench"|"conform"|"study", "path", "name", "data": the file as read,
//                   "summary": per-cell statistics (bench and study)}],
//    "comparison": null or {"baseline": document index, "others": [...], "rows": [...],
//                           "warnings": [...]}}
// docs/study.md describes each member.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::study {

// "bench" (kvlab-bench-result), "conform" (kvlab conform's conform.json) or "study"
// (kvlab-study); InvalidArgument naming what the file is otherwise.
Status DetectKind(const nlohmann::json& doc, std::string* kind);

// Reads a result file of any kind. A study's bench result (its `bench_result` member, relative to
// the study's directory) is read too and returned in *bench (null for other kinds).
Status ReadAnyResult(const std::string& path, nlohmann::json* doc, std::string* kind,
                     nlohmann::json* bench);

// Per workload, cell and command of a bench result: the repetitions' p50, p99 and throughput
// summarized (n, median, min, max, q1, q3), the exact KV operations per call, errors.
nlohmann::json SummarizeBench(const nlohmann::json& bench_result);

// Compares `other` with `baseline` (two bench results, or the bench results of two studies) with
// the CI gate's own comparison (gate::Compare, timings reported, never gated; docs/gate.md): per
// workload, cell and command, each KV counter per call (exact), p50 and p99; per phase (command
// "*"), its throughput. A timing is better or worse only when Holm's adjusted p over every
// timing row <= alpha (0.01) and the change is beyond 10%; a machine-wide shift, a loaded
// machine or too few repetitions make it inconclusive, never better or worse. Each timing
// carries its summaries, ratio and interval, raw and adjusted p, verdict and reason. Cells
// present on one side only are listed as such. Differences of machine or build between the two
// are named in `warnings`.
nlohmann::json CompareBench(const nlohmann::json& baseline, const nlohmann::json& other,
                            const std::string& baseline_name, const std::string& other_name);

struct ReportFiles {
  std::string html;      // DIR/index.html
  std::string markdown;  // DIR/<markdown_name>
};

// Writes DIR/report-input.json and runs the renderer on it, producing DIR/index.html,
// DIR/<markdown_name> and the plots (DIR/*.png). `inputs` are paths to result files.
Status WriteReport(const std::vector<std::string>& inputs, const std::string& dir,
                   const std::string& markdown_name, ReportFiles* files);
// The same for documents already in memory (kvlab study's own study.json and bench result).
Status WriteReportFor(const std::vector<nlohmann::json>& documents, const std::string& dir,
                      const std::string& markdown_name, ReportFiles* files);

// The renderer script: $KVLAB_REPORT_SCRIPT, else next to the binary
// (<dir of kvlab>/share/kvlab/reports/kvlab_report.py, where the build copies it), else in an
// install prefix (<dir of kvlab>/../share/kvlab/reports/kvlab_report.py).
std::string ReportScriptPath();

}  // namespace kvlab::study
