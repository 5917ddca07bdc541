// The subcommands of `kvlab bench` that run no workload (bench_command.h): `list` and
// `show NAME` (the built-in catalogue) and the hidden `report RESULT.json` (rewrites a bench
// result's own Markdown report; `kvlab report` is the report command).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace kvlab::workloads {

struct BenchInfoCommands {
  CLI::App* list = nullptr;
  CLI::App* show = nullptr;
  CLI::App* report = nullptr;
  std::string name;         // show
  std::string result_path;  // report
  bool no_plots = false;    // report --no-plots
};

// Adds list, show and report to `bench`. REQUIRES: *c outlives the parse.
void AddBenchInfoCommands(CLI::App* bench, BenchInfoCommands* c);

// Runs the one of them the command line named; false when it named none. Throws
// flags::UsageError for an unknown workload name or a result the report cannot read.
bool RunBenchInfoCommand(const BenchInfoCommands& c);

}  // namespace kvlab::workloads
