// DUMP's and RESTORE's rows of the command table (CommandTable's constructor appends them).
#include "engine/dump_commands.h"

namespace kvlab::engine {

void AppendDumpCommandRows(std::vector<CommandSpec>* rows) {
  // Redis 7.0's arities, flags, ACL categories and key specs (src/commands/dump.json,
  // restore.json).
  rows->push_back({"dump",
                   2,
                   kCmdReadonly,
                   1,
                   1,
                   1,
                   &DumpCommand,
                   "generic",
                   "Return a serialized version of the value stored at the specified key.",
                   "2.6.0",
                   {KeySpec::Range(1, 0, 1, {"RO", "access"})}});
  rows->push_back({"restore",
                   -4,
                   kCmdWrite | kCmdDenyOom | kCmdAclDangerous,
                   1,
                   1,
                   1,
                   &RestoreCommand,
                   "generic",
                   "Create a key using the provided serialized value, previously obtained using "
                   "DUMP.",
                   "2.6.0",
                   {KeySpec::Range(1, 0, 1, {"OW", "update"})}});
}

}  // namespace kvlab::engine
