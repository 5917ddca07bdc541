// Connection and server commands the engine can answer on its own: PING, ECHO, SELECT, TIME
// and CONFIG. (HELLO, AUTH, QUIT, CLIENT and SHUTDOWN are in connection_commands.cc, COMMAND
// in command_command.cc, INFO in info_command.cc; they reach the server via Session::host.)
#include <strings.h>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using resp::ParseInt64;
using resp::Reply;

void PingCommand(CommandContext& ctx) {
  if (ctx.argc() > 2) return ctx.ReplyError("ERR wrong number of arguments for 'ping' command");
  ctx.reply = ctx.argc() == 1 ? Reply::Status("PONG") : Reply::Bulk(ctx.arg(1));
}

void EchoCommand(CommandContext& ctx) { ctx.reply = Reply::Bulk(ctx.arg(1)); }

void SelectCommand(CommandContext& ctx) {
  int64_t db = 0;
  if (!ParseInt64(ctx.arg(1), &db)) return ctx.ReplyError(errors::kNotInteger);
  // getIntFromObjectOrReply: an integer that fits in 64 bits but not in an int has its own text.
  if (db < INT32_MIN || db > INT32_MAX) {
    return ctx.ReplyError(
        "ERR value is out of range, value must between -2147483648 and 2147483647");
  }
  if (db < 0 || db >= ctx.engine().databases()) {
    return ctx.ReplyError("ERR DB index is out of range");
  }
  ctx.session().db = static_cast<uint8_t>(db);
  ctx.reply = Reply::Ok();
}

void TimeCommand(CommandContext& ctx) {
  const int64_t us = ctx.engine().clock().NowMicros();
  ctx.reply = Reply::Array(
      {Reply::Bulk(std::to_string(us / 1000000)), Reply::Bulk(std::to_string(us % 1000000))});
}

void ConfigCommand(CommandContext& ctx) {
  const char* sub = ctx.arg(1).c_str();
  if (!strcasecmp(sub, "get")) {
    if (ctx.argc() < 3) {
      return ctx.ReplyError("ERR wrong number of arguments for 'config|get' command");
    }
    std::vector<Reply> out;
    std::vector<std::string> seen;
    for (size_t i = 2; i < ctx.argc(); ++i) {
      for (auto& [name, value] : ctx.engine().config().Get(ctx.arg(i))) {
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
        seen.push_back(name);
        out.push_back(Reply::Bulk(name));
        out.push_back(Reply::Bulk(value));
      }
    }
    ctx.reply = Reply::Map(std::move(out));
  } else if (!strcasecmp(sub, "set")) {
    if (ctx.argc() < 4) {
      return ctx.ReplyError("ERR wrong number of arguments for 'config|set' command");
    }
    if (ctx.argc() % 2 != 0) return ctx.ReplyError(errors::kSyntax);
    std::vector<std::pair<std::string, std::string>> pairs;
    for (size_t i = 2; i < ctx.argc(); i += 2) pairs.emplace_back(ctx.arg(i), ctx.arg(i + 1));
    Status s = ctx.engine().config().Set(pairs);
    if (!s.ok()) return ctx.ReplyError("ERR " + s.message());
    ctx.reply = Reply::Ok();
  } else if (!strcasecmp(sub, "resetstat")) {
    if (ctx.argc() != 2) {
      return ctx.ReplyError("ERR wrong number of arguments for 'config|resetstat' command");
    }
    ctx.engine().ResetStats();
    ctx.reply = Reply::Ok();
  } else {
    ctx.ReplyError("ERR unknown subcommand '" +
                   std::string(errors::ClientText(ctx.arg(1)).substr(0, 128)) +
                   "'. Try CONFIG HELP.");
  }
}

}  // namespace kvlab::engine
