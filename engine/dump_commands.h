// DUMP and RESTORE in Redis 7.0's serialization (dump_commands.cc over rdb_value.h), and their
// rows of the command table (command_rows_dump.cc).
#pragma once

#include <vector>

#include "engine/command_table.h"

namespace kvlab::engine {

class CommandContext;

void DumpCommand(CommandContext& ctx);
void RestoreCommand(CommandContext& ctx);

// Appends the commands' rows; CommandTable's constructor calls it.
void AppendDumpCommandRows(std::vector<CommandSpec>* rows);

}  // namespace kvlab::engine
