#include "cli/subcommands.h"

#include "conformance/conform_command.h"
#include "workloads/bench_command.h"

namespace kvlab {

std::vector<SubcommandFactory> Subcommands() {
  return {
      &AddBenchCommand,
      &AddConformCommand,
  };
}

}  // namespace kvlab
