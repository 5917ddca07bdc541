// MIGRATE's row of the command table (engine/migrate_command.cc): Redis 7.0's arity, flags,
// legacy key range and key specs (migrate.json), so that clients see the same. The keys of the
// KEYS form are an incomplete key spec (the key argument must then be empty); find_keys finds
// them as Redis's migrateGetKeys.
#include "engine/command_table.h"
#include "engine/dump_commands.h"

namespace kvlab::engine {

void AppendMigrateCommandRows(std::vector<CommandSpec>* rows) {
  KeySpec keys;
  keys.keyword = "KEYS";
  keys.startfrom = -2;
  keys.lastkey = -1;
  keys.keystep = 1;
  keys.flags = {"RW", "access", "delete", "incomplete"};
  CommandSpec migrate{"migrate",
                      -6,
                      kCmdWrite | kCmdAclDangerous | kCmdRemote,
                      3,
                      3,
                      1,
                      &MigrateCommand,
                      "generic",
                      "Atomically transfer a key from a Redis instance to another one.",
                      "2.6.0",
                      {KeySpec::Range(3, 0, 1, {"RW", "access", "delete"}), keys}};
  migrate.find_keys = &MigrateFindKeys;
  rows->push_back(std::move(migrate));
}

}  // namespace kvlab::engine
