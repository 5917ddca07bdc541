// The subcommands of `kvlab`, listed explicitly in subcommands.cc. Each adds a CLI11
// subcommand to the app; its callback sets *exit_code.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

namespace kvlab::cli {

using SubcommandFactory = void (*)(CLI::App& app, int* exit_code);

std::vector<SubcommandFactory> Subcommands();

}  // namespace kvlab::cli
