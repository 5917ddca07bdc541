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

std::vector<SubcommandFactory> Subcommands() {
  return {
      &AddServeCommand,
      &AddBenchCommand,
      &AddConformCommand,
      &gate::AddGateCommand,
      &study::AddStudyCommand,
      &study::AddReportCommand,
      &AddGcCommand,
      &AddVerifyCommand,
      &workloads::AddProfileCommand,
      &traces::AddTraceCommand,
  };
}

}  // namespace kvlab::cli
