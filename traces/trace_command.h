// `kvlab trace`: import `redis-cli MONITOR` output into a trace, and summarise a trace
// (docs/traces.md).
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::traces {

void AddTraceCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::traces
