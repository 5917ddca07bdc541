// `kvlab bench`: the workload drivers on the command line.
//
//   kvlab bench                      the main job: the default suite over every backend and
//                                    encoding version, a size sweep, a result and a report
//   kvlab bench run WORKLOAD...      catalogue names or workload files, over the matrix
//   kvlab bench sweep size|rtt       cost against collection size / round-trip delay
//   kvlab bench list | show NAME     the built-in catalogue
//   kvlab bench report RESULT.json   the Markdown report (and plots) of a saved result
//
// Exit status: 0 done; 1 bad arguments or a failed cell; 2 a build whose times are not valid
// (debug or sanitizer) without --allow-invalid-timing; 130 interrupted (results still written,
// marked partial).
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::flags {
struct TestHooks;  // flags/common_flags.h
}  // namespace kvlab::flags

namespace kvlab::workloads {

// `hooks`: the test-only switches the binary supplies (flags::TestHooks); copied while adding.
void AddBenchCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code);

}  // namespace kvlab::workloads
