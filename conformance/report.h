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

// One row of a subject's compatibility table: a Redis command group, differential against the
// real Redis. A command passes when every reply of it on the subject passed (or deviated as
// catalogued), and fails when one did not.
struct GroupCompatibility {
  std::string group;  // Redis's group ("stream"), or "other" (names Redis 7.0 does not have)
  std::vector<std::string> passing;
  std::vector<std::string> failing;
  // Redis 7.0 commands of a data group that never ran on the subject: it does not serve them
  // (their cases were skipped), the connection was lost before them, or no case uses them.
  std::vector<std::string> not_run;
  uint64_t replies_pass = 0;  // pass + deviation
  uint64_t replies_total = 0;
};

// The subject's rows, in Redis's group order; a group shows when it ran a command or is a data
// group.
std::vector<GroupCompatibility> CompatibilityTable(const MatrixResult& result,
                                                   const std::string& subject);
// The table as Markdown (also what `kvlab conform` prints).
std::string CompatibilityMarkdown(const std::vector<GroupCompatibility>& rows);

std::string MatrixJson(const MatrixResult& result, const ReportContext& context);
std::string MatrixMarkdown(const MatrixResult& result, const ReportContext& context);
std::string SummaryMarkdown(const MatrixResult& result, const ReportContext& context);

// Writes the three files into dir (created when missing); their paths go to *written.
Status WriteReports(const std::string& dir, const MatrixResult& result,
                    const ReportContext& context, std::vector<std::string>* written);

}  // namespace kvlab::conformance
