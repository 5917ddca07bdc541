// The human-readable report of a bench result: Markdown tables built from the result JSON alone
// (so any saved result can be reported again), and matplotlib plots drawn by
// reports/plot_bench.py under /usr/bin/python3.
//
// Times in the tables are medians across repetitions; KV operation counts are exact. Ratios
// compare cells of the same run (e.g. hash v1 against v0 on the same backend).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::workloads {

// The Markdown report of a result. `plots` are image files (relative to the report) to embed.
std::string MarkdownReport(const nlohmann::json& result, const std::string& result_path,
                           const std::vector<std::string>& plots);

// Runs reports/plot_bench.py on the result file with /usr/bin/python3, writing
// <prefix>-*.png. Returns the files it wrote. When Python or matplotlib is missing, returns
// a failed Status saying so; the report is then written without plots.
Status DrawPlots(const std::string& result_path, const std::string& prefix,
                 std::vector<std::string>* files);

// Writes <result without .json>.md next to the result (plots first, unless `plots` is false).
// *report_path receives its path; *plot_note says why plots are missing, when they are.
Status WriteReport(const std::string& result_path, bool plots, std::string* report_path,
                   std::string* plot_note);

// The short summary printed at the end of a run: throughput per workload and cell.
std::string SummaryTable(const nlohmann::json& result);

// The plot script and the interpreter (overridable with KVLAB_PLOT_SCRIPT and KVLAB_PYTHON).
std::string PlotScriptPath();
std::string PythonPath();

}  // namespace kvlab::workloads
