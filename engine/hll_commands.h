// The HyperLogLog commands (hll_commands.cc, over hyperloglog.h) and their CONFIG parameter.
// Their rows of the command table are in command_rows_hyperloglog.cc.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/config.h"

namespace kvlab::engine {

class CommandContext;

void PfaddCommand(CommandContext& ctx);
void PfcountCommand(CommandContext& ctx);
void PfmergeCommand(CommandContext& ctx);
void PfdebugCommand(CommandContext& ctx);
void PfselftestCommand(CommandContext& ctx);

// Adds Redis 7.0's hll-sparse-max-bytes (a memory value in [0, LONG_MAX], 3000 by default: the
// largest sparse HLL before it becomes dense) to `config`, kept in `value`, which the commands
// read through Engine::hll_sparse_max_bytes().
// REQUIRES: `value` outlives `config` (both are the engine's).
void AddHllParams(EngineConfig* config, std::atomic<uint64_t>* value);

}  // namespace kvlab::engine
