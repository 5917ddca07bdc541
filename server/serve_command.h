// `kvlab serve`: the RESP server over a store, as a subcommand of the kvlab binary.
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::server {

// Adds `serve` to the app; its callback runs the server until SHUTDOWN, SIGINT or SIGTERM and
// sets *exit_code (0 after a clean shutdown with the store closed).
void AddServeCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::server
