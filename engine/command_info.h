// COMMAND INFO's reply for one command of the table (addReplyCommandInfo): name, arity, flags,
// legacy key range, ACL categories, tips, key specs, subcommands. command_command.cc answers
// COMMAND with it; tests compare it with redis-server's.
#pragma once

#include "engine/command_table.h"
#include "resp/reply.h"

namespace kvlab::engine {

resp::Reply CommandInfo(const CommandSpec& spec);

}  // namespace kvlab::engine
