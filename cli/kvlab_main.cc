// kvlab: one binary, one subcommand per job. Each subcommand lives with the code it drives
// (server/, workloads/, conformance/) and adds itself to the app here, explicitly.
#include <CLI/CLI.hpp>

#include "base/version.h"
#include "cli/subcommands.h"

int main(int argc, char** argv) {
  CLI::App app{"kvlab: Redis data types on ordered KV stores, measured and checked against Redis."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kvlab ") + kvlab::kKvlabVersion);
  int exit_code = 0;
  for (const kvlab::cli::SubcommandFactory add : kvlab::cli::Subcommands()) add(app, &exit_code);
  CLI11_PARSE(app, argc, argv);
  return exit_code;
}
