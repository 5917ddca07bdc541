#include "cli/subcommands.h"

#include "workloads/bench_command.h"

namespace kvlab {

std::vector<SubcommandFactory> Subcommands() {
  return {
      &AddBenchCommand,
  };
}

}  // namespace kvlab
