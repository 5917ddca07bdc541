// Running a helper process to its end, beside ChildProcess (child_process.h), which watches the
// servers kvlab starts.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab {

// A short-lived helper run to its end (a plot or report script), as opposed to a server that
// ChildProcess watches: the one place kvlab forks such a process. argv[0] is a path, not looked
// up in PATH. Its stdout and stderr both go to `output_path` (created or truncated) or, when
// that is empty, into *output. *exit_code is its exit code (127 when argv[0] could not be
// executed), or -1 when a signal ended it. An error Status only when no process could be
// started (pipe, fork, or an output file that cannot be opened).
// REQUIRES: !argv.empty(); output != nullptr when output_path is empty.
Status RunToCompletion(const std::vector<std::string>& argv, const std::string& output_path,
                       std::string* output, int* exit_code);

}  // namespace kvlab
