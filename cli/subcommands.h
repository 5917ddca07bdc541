// The subcommands of `kvlab`, listed explicitly in subcommands.cc. Each adds a CLI11
// subcommand to the app; its callback sets *exit_code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

#include "flags/common_flags.h"

namespace kvlab::cli {

using SubcommandFactory = std::function<void(CLI::App& app, int* exit_code)>;

// The subcommands that run an engine get `hooks` (the test-only switches' decorators, which
// main takes from test_support/). REQUIRES: `hooks` outlives the calls of the factories.
std::vector<SubcommandFactory> Subcommands(const flags::TestHooks& hooks);

}  // namespace kvlab::cli
