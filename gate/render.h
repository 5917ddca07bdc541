// The gate's outputs: a Markdown report fit for a CI log and a job summary, and JUnit XML for
// GitLab, Jenkins and the like.
#pragma once

#include <string>

#include "gate/compare.h"

namespace kvlab::gate {

struct RenderOptions {
  // Rows of unchanged counters and timings are summarised by their count unless `all`;
  // worse, better and inconclusive rows are always listed.
  bool all = false;
  // Shown under improvements: the command that refreshes the baseline.
  std::string update_command;
  // Shown under an inconclusive verdict: what would make the result conclusive (Markdown, the
  // command in backticks).
  std::string conclusive_command;
};

// The verdict first, then the regressions named one per line, then tables of counters,
// timings, conformance and unmatched cells, then notes.
std::string RenderMarkdown(const GateReport& report, const RenderOptions& options);

// One <testsuite> per section (counters, timings, conformance, cells); a regression is a
// <failure>, an inconclusive timing a <skipped>, an ungated worse timing a passing case with the
// numbers in <system-out>.
std::string RenderJUnit(const GateReport& report);

}  // namespace kvlab::gate
