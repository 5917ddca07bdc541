#include "cli/subcommands.h"

#include "server/serve_command.h"

namespace kvlab {

std::vector<SubcommandFactory> Subcommands() {
  return {
      &AddServeCommand,
  };
}

}  // namespace kvlab
