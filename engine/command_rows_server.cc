// The command table's rows of SWAPDB and the persistence commands (server_admin_commands.cc).
// Arity, flags and ACL categories are Redis 7.0.15's (COMMAND INFO; key_specs_test compares).
#include "engine/command_table.h"
#include "engine/handlers.h"

namespace kvlab::engine {

void AppendServerCommandRows(std::vector<CommandSpec>* rows) {
  const std::vector<CommandSpec> server_rows = {
      // Rewrites both databases' records as one write: it runs alone, as FLUSHDB.
      {"swapdb", 3, kCmdWrite | kCmdFast | kCmdKeyspaceExclusive | kCmdNoKeys, 0, 0, 0,
       &SwapdbCommand, "server", "Swaps two Redis databases", "4.0.0"},
      {"save", 1, kCmdAdmin | kCmdNoKeys | kCmdNoMulti, 0, 0, 0, &SaveCommand, "server",
       "Synchronously save the dataset to disk", "1.0.0"},
      {"bgsave", -1, kCmdAdmin | kCmdNoKeys, 0, 0, 0, &BgsaveCommand, "server",
       "Asynchronously save the dataset to disk", "1.0.0"},
      {"bgrewriteaof", 1, kCmdAdmin | kCmdNoKeys, 0, 0, 0, &BgrewriteaofCommand, "server",
       "Asynchronously rewrite the append-only file", "1.0.0"},
      // Its reply is this server's time: nothing to compare with another server's.
      {"lastsave", 1, kCmdFast | kCmdAclAdmin | kCmdNoKeys | kCmdAboutServer, 0, 0, 0,
       &LastsaveCommand, "server", "Get the UNIX time stamp of the last successful save to disk",
       "1.0.0"},
  };
  rows->insert(rows->end(), server_rows.begin(), server_rows.end());
}

}  // namespace kvlab::engine
