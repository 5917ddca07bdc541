// kvlab: one binary, one subcommand per job. Each subcommand lives with the code it drives
// (server/, workloads/, conformance/) and adds itself to the app here, explicitly.
//
// Exit status: one convention for every subcommand (flags/conventions.h). A parse error, or a
// UsageError thrown by a subcommand before it runs anything, exits 2 with the nearest option or
// subcommand to any unknown argument.
#include <CLI/CLI.hpp>

#include "base/version.h"
#include "cli/parse_error.h"
#include "cli/subcommands.h"
#include "test_support/test_hooks.h"

int main(int argc, char** argv) {
  CLI::App app{"kvlab: Redis data types on ordered KV stores, measured and checked against Redis."};
  app.name("kvlab");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kvlab ") + kvlab::kKvlabVersion);
  app.footer(
      "Exit status (every subcommand): 0 done; 1 a failure found (failed cell, conformance "
      "failure); 2 bad arguments, nothing run; 3 cannot run here (build, missing redis-server); "
      "4 inconclusive (gate: timings the data cannot judge); 130 interrupted.");
  int exit_code = 0;
  // The hidden test-only switches get their decorators here, from the test-support library
  // that only this binary links (test_support/test_hooks.h).
  const kvlab::flags::TestHooks hooks = kvlab::test_support::TestHooks();
  for (const kvlab::cli::SubcommandFactory& add : kvlab::cli::Subcommands(hooks)) {
    add(app, &exit_code);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return kvlab::cli::ReportParseError(app, e);
  }
  return exit_code;
}
