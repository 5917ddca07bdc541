#include "conformance/reproducer.h"

#include <filesystem>
#include <fstream>

#include "conformance/shrink.h"

namespace kvlab::conformance {
namespace {

const StepOutcome* FailureOn(const CaseOutcome& outcome, const std::string& command) {
  for (const StepOutcome& s : outcome.steps) {
    if (s.verdict == Verdict::kFail && s.command == command) return &s;
  }
  return nullptr;
}

bool FailsOn(const CaseOutcome& outcome, const std::string& command) {
  return FailureOn(outcome, command) != nullptr;
}

CaseFile Subsequence(const CaseFile& c, const std::vector<size_t>& positions) {
  CaseFile out;
  out.name = c.name;
  for (size_t p : positions) out.steps.push_back(c.steps[p]);
  return out;
}

}  // namespace

CaseFile ShrinkFailingCase(const CaseFile& sequence, const StepOutcome& failure,
                           ReplyTarget& reference, ReplyTarget& subject, const RunContext& context,
                           size_t max_tests, size_t* tests_run) {
  const ShrinkResult shrunk = ShrinkIndices(
      sequence.steps.size(),
      [&](const std::vector<size_t>& positions) {
        return FailsOn(RunCase(Subsequence(sequence, positions), reference, subject, context),
                       failure.command);
      },
      max_tests);
  if (tests_run != nullptr) *tests_run = shrunk.tests;
  CaseFile out = Subsequence(sequence, shrunk.kept);
  for (size_t i = 0; i < out.steps.size(); ++i) out.steps[i].line = static_cast<int>(i + 1);
  return out;
}

std::optional<StepOutcome> ReplayFailure(const CaseFile& shrunk, const std::string& command,
                                         ReplyTarget& reference, ReplyTarget& subject,
                                         const RunContext& context) {
  const CaseOutcome outcome = RunCase(shrunk, reference, subject, context);
  const StepOutcome* failure = FailureOn(outcome, command);
  if (failure == nullptr) return std::nullopt;
  return *failure;
}

std::string ReproducerText(const CaseFile& shrunk, const StepOutcome& failure,
                           const ReproducerHeader& header) {
  std::string text;
  text += "# Found by kvlab conform's randomized differential test and shrunk with ddmin.\n";
  text += "# Origin: " + header.origin + "\n";
  text += "# Subject: " + header.subject + ", profile " + header.profile + "\n";
  text += "# Replay the whole run: " + header.replay + "\n";
  text += "# It failed on: " + DisplayCommandLine(failure.argv) + "\n";
  text += "#   redis: " + DescribeShort(failure.redis) + "\n";
  text += "#   kvlab: " + DescribeShort(failure.subject) + "\n";
  for (const CaseStep& step : shrunk.steps) {
    text += step.argv.empty() ? "@sleep " + std::to_string(step.sleep_ms)
                              : FormatCommandLine(step.argv);
    text += "\n";
  }
  return text;
}

Status WriteVerifiedReproducer(const std::string& dir, const std::string& name,
                               const std::string& text, const std::string& command,
                               ReplyTarget& reference, ReplyTarget& subject,
                               const RunContext& context, std::string* path, bool* reproduces) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  *path = (std::filesystem::path(dir) / (name + ".txt")).string();
  {
    std::ofstream out(*path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Status::IOError("cannot write " + *path);
  }
  CaseFile reread;
  KVLAB_RETURN_IF_ERROR(LoadCaseFile(*path, &reread));
  *reproduces = FailsOn(RunCase(reread, reference, subject, context), command);
  return Status::OK();
}

}  // namespace kvlab::conformance
