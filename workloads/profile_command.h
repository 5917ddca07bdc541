// `kvlab profile HOST:PORT`: profiles a live Redis (profile.h) and writes the profile JSON and a
// workload file made from it (docs/workloads.md, "Profiling a live Redis").
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::workloads {

void AddProfileCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::workloads
