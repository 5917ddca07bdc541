// `kvlab serve`: the RESP server over a store, as a subcommand of the kvlab binary.
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::flags {
struct TestHooks;  // flags/common_flags.h
}  // namespace kvlab::flags

namespace kvlab::server {

// Adds `serve` to the app; its callback runs the server until SHUTDOWN, SIGINT or SIGTERM and
// sets *exit_code (0 after a clean shutdown with the store closed).
// `hooks`: the test-only switches the binary supplies (flags::TestHooks); copied while adding.
void AddServeCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code);

}  // namespace kvlab::server
