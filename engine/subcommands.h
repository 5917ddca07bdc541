// Redis's replies for container commands (CLIENT, COMMAND): the subcommand errors and HELP.
// Redis 7.0 words them from the command as the client typed it; these helpers do the same.
#pragma once

#include <cctype>
#include <initializer_list>
#include <string>
#include <string_view>

#include "engine/command_context.h"

namespace kvlab::engine {

// "ERR unknown subcommand 'foo'. Try CLIENT HELP." (rejectCommandFormat: at most 128 bytes of
// the subcommand, CR and LF turned into spaces).
inline void ReplyUnknownSubcommand(CommandContext& ctx) {
  std::string container = ctx.arg(0);
  for (char& c : container) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string text =
      "ERR unknown subcommand '" + ctx.arg(1).substr(0, 128) + "'. Try " + container + " HELP.";
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  ctx.ReplyError(std::move(text));
}

// "ERR wrong number of arguments for 'client|setname' command".
inline void ReplySubcommandArity(CommandContext& ctx, std::string_view full_name) {
  ctx.ReplyError("ERR wrong number of arguments for '" + std::string(full_name) + "' command");
}

// addReplyHelp: a header naming the container, the given lines, and HELP's own entry, each a
// status reply.
inline void ReplyHelp(CommandContext& ctx, std::initializer_list<const char*> lines) {
  std::string container = ctx.arg(0);
  for (char& c : container) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<resp::Reply> out;
  out.push_back(
      resp::Reply::Status(container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  for (const char* line : lines) out.push_back(resp::Reply::Status(line));
  out.push_back(resp::Reply::Status("HELP"));
  out.push_back(resp::Reply::Status("    Prints this help."));
  ctx.reply = resp::Reply::Array(std::move(out));
}

}  // namespace kvlab::engine
