// The reports of a conformance run (written by `kvlab conform --out DIR`):
//   conform.json   the machine-readable result: every cell of command × version × subject with
//                  its pass / deviation / fail counts, the profiles, the failures, the
//                  deviations seen, the random seed and the corpus coverage;
//   matrix.md      the same matrix as Markdown tables, one per subject and command group;
//   summary.md     the verdict, totals, tolerances, deviations, failures and how to replay.
// The report issue draws from conform.json; its schema_version changes when a field does.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "conformance/deviations.h"
#include "conformance/matrix.h"

namespace kvlab::conformance {

struct ReportContext {
  std::string reference;     // "redis-server 7.0.15 at 127.0.0.1:40123"
  std::string command_line;  // how the run was started
  std::string started;       // UTC, ISO 8601
  const MatrixPlan* plan = nullptr;
  const DeviationCatalogue* catalogue = nullptr;
  // False while the run goes on: the reports are rewritten after every profile, and a run that
  // was killed leaves them saying "complete": false.
  bool complete = true;
};

// Commands of the engine's table that the corpus did not run (empty when no corpus ran).
std::vector<std::string> UncoveredCommands(const MatrixResult& result, const MatrixPlan& plan);

std::string MatrixJson(const MatrixResult& result, const ReportContext& context);
std::string MatrixMarkdown(const MatrixResult& result, const ReportContext& context);
std::string SummaryMarkdown(const MatrixResult& result, const ReportContext& context);

// Writes the three files into dir (created when missing); their paths go to *written.
Status WriteReports(const std::string& dir, const MatrixResult& result,
                    const ReportContext& context, std::vector<std::string>* written);

}  // namespace kvlab::conformance
