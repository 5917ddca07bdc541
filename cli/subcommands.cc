#include "cli/subcommands.h"

#include "cli/gc_command.h"
#include "cli/verify_command.h"
#include "conformance/conform_command.h"
#include "gate/gate_command.h"
#include "server/serve_command.h"
#include "study/study_command.h"
#include "traces/trace_command.h"
#include "workloads/bench_command.h"
#include "workloads/profile_command.h"

namespace kvlab::cli {

using conformance::AddConformCommand;
using server::AddServeCommand;
using workloads::AddBenchCommand;

std::vector<SubcommandFactory> Subcommands(const flags::TestHooks& hooks) {
  // The subcommands that run an engine take the test hooks too.
  auto with_hooks = [&hooks](void (*add)(CLI::App&, const flags::TestHooks&, int*)) {
    return SubcommandFactory([&hooks, add](CLI::App& app, int* code) { add(app, hooks, code); });
  };
  return {
      with_hooks(&AddServeCommand),
      with_hooks(&AddBenchCommand),
      &AddConformCommand,
      &gate::AddGateCommand,
      with_hooks(&study::AddStudyCommand),
      &study::AddReportCommand,
      with_hooks(&AddGcCommand),
      with_hooks(&AddVerifyCommand),
      &workloads::AddProfileCommand,
      &traces::AddTraceCommand,
  };
}

}  // namespace kvlab::cli
