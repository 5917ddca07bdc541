#include "cli/subcommands.h"

#include "conformance/conform_command.h"

namespace kvlab {

std::vector<SubcommandFactory> Subcommands() {
  return {
      &AddConformCommand,
  };
}

}  // namespace kvlab
