// The command table's rows of the connection commands kept out of command_table.cc: RESET
// (connection_commands.cc). Arity, flags and ACL categories are Redis 7.0.15's (COMMAND INFO;
// key_specs_test compares).
#include "engine/command_table.h"
#include "engine/handlers.h"

namespace kvlab::engine {

void AppendConnectionCommandRows(std::vector<CommandSpec>* rows) {
  // Runs before authentication (it de-authenticates), and between MULTI and EXEC it is not
  // queued: it ends the transaction (Engine::Execute).
  rows->push_back({"reset", 1, kCmdFast | kCmdConnection | kCmdNoKeys | kCmdNoAuth, 0, 0, 0,
                   &ResetCommand, "connection", "Reset the connection", "6.2.0"});
}

}  // namespace kvlab::engine
