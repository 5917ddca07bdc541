// The HyperLogLog commands (hll_commands.cc, over hyperloglog.h), their rows of the command table
// (command_rows_hyperloglog.cc) and their CONFIG parameter.
#pragma once

#include <vector>

#include "engine/command_table.h"
#include "engine/config.h"

namespace kvlab::engine {

class CommandContext;

void PfaddCommand(CommandContext& ctx);
void PfcountCommand(CommandContext& ctx);
void PfmergeCommand(CommandContext& ctx);
void PfdebugCommand(CommandContext& ctx);
void PfselftestCommand(CommandContext& ctx);

// Appends the commands' rows; CommandTable's constructor calls it.
void AppendHyperloglogCommandRows(std::vector<CommandSpec>* rows);

// Adds Redis 7.0's hll-sparse-max-bytes (a memory value in [0, LONG_MAX], 3000 by default: the
// largest sparse HLL before it becomes dense) to `config`. Its value lives in the parameter;
// the commands read it through the engine's config.
void AddHllParams(EngineConfig* config);

}  // namespace kvlab::engine
