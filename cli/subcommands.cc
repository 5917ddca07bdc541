#include "cli/subcommands.h"

namespace kvlab {

std::vector<SubcommandFactory> Subcommands() { return {}; }

}  // namespace kvlab
