// Turning a failing random sequence into a minimal case file.
//
// The sequence is shrunk with ddmin (shrink.h): a candidate still fails when, replayed on a
// fresh keyspace on both sides, some command of the same name as the original failure gets a
// failing verdict. The result is written as a case file whose comments give the seed, the
// subject and profile, the replay command and both replies; it is read back and replayed once
// more, so that a reproducer that does not reproduce is flagged as such.
#pragma once

#include <optional>
#include <string>

#include "conformance/case_file.h"
#include "conformance/differential.h"

namespace kvlab::conformance {

// Shrinks `sequence`, whose step `failure` failed, to a minimal case that still fails.
// `tests_run` (optional) receives how many replays the search took.
CaseFile ShrinkFailingCase(const CaseFile& sequence, const StepOutcome& failure,
                           ReplyTarget& reference, ReplyTarget& subject, const RunContext& context,
                           size_t max_tests, size_t* tests_run = nullptr);

struct ReproducerHeader {
  std::string subject;
  std::string profile;
  std::string replay;  // the command line that replays the whole run
  std::string origin;  // e.g. "seed 42, sequence 3 of 4, 250 steps"
};

// The case file text of `shrunk`, with comments on where it came from and how it failed.
std::string ReproducerText(const CaseFile& shrunk, const StepOutcome& failure,
                           const ReproducerHeader& header);

// Replays `shrunk` and returns its first failure on `command` (replies as the shrunk case
// gives them, which may differ from the long sequence's), or nullopt when it no longer fails
// (a failure that depends on timing may not).
std::optional<StepOutcome> ReplayFailure(const CaseFile& shrunk, const std::string& command,
                                         ReplyTarget& reference, ReplyTarget& subject,
                                         const RunContext& context);

// Writes `text` to dir/name.txt (creating dir), reads it back and replays it: *reproduces
// says whether it still fails on `command`. The path is in *path. An error only when the file
// cannot be written or read back.
Status WriteVerifiedReproducer(const std::string& dir, const std::string& name,
                               const std::string& text, const std::string& command,
                               ReplyTarget& reference, ReplyTarget& subject,
                               const RunContext& context, std::string* path, bool* reproduces);

}  // namespace kvlab::conformance
