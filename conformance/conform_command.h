// `kvlab conform`, the conformance harness's subcommand (listed in cli/subcommands.cc).
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::conformance {

// Adds `conform` to the app; its callback sets *exit_code (0 pass, 1 failures, 2 could not
// run).
void AddConformCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::conformance
