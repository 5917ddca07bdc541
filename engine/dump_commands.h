// DUMP and RESTORE in Redis 7.0's serialization (dump_commands.cc over rdb_value.h), and their
// rows of the command table (command_rows_dump.cc); MIGRATE (migrate_command.cc, its row in
// command_rows_migrate.cc), which moves keys to another server as DUMP and RESTORE.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "encodings/type_encoding.h"
#include "engine/command_table.h"

namespace kvlab::engine {

class CommandContext;

void DumpCommand(CommandContext& ctx);
void RestoreCommand(CommandContext& ctx);
void MigrateCommand(CommandContext& ctx);

// DUMP's payload of the live key `h` (read through its encoding, in the form Redis 7.0 would
// hold the value). Returns false after an error reply (a storage error).
bool DumpKey(CommandContext& ctx, const encodings::KeyHandle& h, std::string* payload);

// MIGRATE's keys as Redis 7.0 finds them (its key specs, then migrateGetKeys): the key at 3, or,
// with KEYS after an empty key argument, every argument after KEYS; each written (deleted).
void MigrateFindKeys(const std::vector<std::string>& argv,
                     std::vector<std::pair<size_t, bool>>* keys);

// Appends the commands' rows; CommandTable's constructor calls it.
void AppendDumpCommandRows(std::vector<CommandSpec>* rows);

}  // namespace kvlab::engine
