// Commands about the connection and the server process: HELLO, AUTH, QUIT, RESET, CLIENT and
// SHUTDOWN. The session's state (name, id) is the engine's; what only the server knows (the
// other clients, closing the connection, stopping the process) goes through Session::host.
#include <strings.h>

#include "engine/command_context.h"
#include "engine/command_table.h"
#include "engine/handlers.h"
#include "engine/session_host.h"
#include "engine/subcommands.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using resp::ParseInt64;
using resp::Reply;

namespace {

constexpr const char* kWrongPass = "WRONGPASS invalid username-password pair or user is disabled.";

// The error of a command that needs a server when the engine runs in-process.
void ReplyNeedsServer(CommandContext& ctx, const char* what) {
  ctx.ReplyError(std::string("ERR ") + what +
                 " needs a server connection; this engine runs in-process");
}

// clientSetNameOrReply: an empty name removes the name; otherwise only printable ASCII without
// spaces, so that CLIENT LIST stays splittable on spaces.
bool SetClientName(CommandContext& ctx, const std::string& name) {
  for (unsigned char c : name) {
    if (c < '!' || c > '~') {
      ctx.ReplyError("ERR Client names cannot contain spaces, newlines or special characters.");
      return false;
    }
  }
  ctx.session().name = name;
  return true;
}

// kvlab has one user, "default", as a Redis without ACL users: without requirepass it accepts
// any password; with one, only that password. Other user names are refused with Redis's text.
// A success authenticates the session; a failure leaves it as it was (Redis 7 does not
// de-authenticate a client on a failed AUTH).
bool Authenticate(CommandContext& ctx, const std::string& user, const std::string& password) {
  if (user != "default") return false;
  if (ctx.engine().AuthRequired() && !ctx.engine().CheckPassword(password)) return false;
  ctx.session().authenticated = true;
  return true;
}

void ClientList(CommandContext& ctx) {
  std::vector<uint64_t> ids;
  bool by_id = false;
  if (ctx.argc() == 4 && !strcasecmp(ctx.arg(2).c_str(), "type")) {
    const char* type = ctx.arg(3).c_str();
    if (!strcasecmp(type, "normal")) {
      // Every kvlab client is a normal client.
    } else if (!strcasecmp(type, "master") || !strcasecmp(type, "replica") ||
               !strcasecmp(type, "slave") || !strcasecmp(type, "pubsub")) {
      ctx.reply = Reply::Bulk("");
      return;
    } else {
      return ctx.ReplyError("ERR Unknown client type '" + ctx.arg(3) + "'");
    }
  } else if (ctx.argc() > 3 && !strcasecmp(ctx.arg(2).c_str(), "id")) {
    by_id = true;
    for (size_t i = 3; i < ctx.argc(); ++i) {
      int64_t id = 0;
      if (!ParseInt64(ctx.arg(i), &id)) return ctx.ReplyError("ERR Invalid client ID");
      ids.push_back(static_cast<uint64_t>(id));
    }
  } else if (ctx.argc() != 2) {
    return ctx.ReplyError(errors::kSyntax);
  }
  if (ctx.session().host == nullptr) return ReplyNeedsServer(ctx, "CLIENT LIST");
  ctx.reply = Reply::Verbatim(ctx.session().host->ListClients(by_id ? &ids : nullptr));
}

}  // namespace

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void HelloCommand(CommandContext& ctx) {
  size_t next = 1;
  int64_t version = 0;  // 0: keep the connection's protocol
  if (ctx.argc() >= 2) {
    if (!ParseInt64(ctx.arg(next++), &version)) {
      return ctx.ReplyError("ERR Protocol version is not an integer or out of range");
    }
    if (version < 2 || version > 3) return ctx.ReplyError("NOPROTO unsupported protocol version");
  }
  for (size_t j = next; j < ctx.argc(); ++j) {
    const size_t more = ctx.argc() - 1 - j;
    const char* option = ctx.arg(j).c_str();
    if (!strcasecmp(option, "auth") && more >= 2) {
      if (!Authenticate(ctx, ctx.arg(j + 1), ctx.arg(j + 2))) return ctx.ReplyError(kWrongPass);
      j += 2;
    } else if (!strcasecmp(option, "setname") && more >= 1) {
      if (!SetClientName(ctx, ctx.arg(j + 1))) return;
      j += 1;
    } else {
      return ctx.ReplyError("ERR Syntax error in HELLO option '" + ctx.arg(j) + "'");
    }
  }
  // Options run in order (an AUTH, then a bad SETNAME, authenticates and fails), as in Redis 7.0.
  if (!ctx.session().authenticated) {
    return ctx.ReplyError(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
        "AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
        "protocol version at the same time");
  }
  // The protocol switches with this reply: HELLO 3 gets its map in RESP3.
  if (version != 0) ctx.session().resp = static_cast<int>(version);
  ctx.reply = Reply::Map({
      Reply::Bulk("server"),
      Reply::Bulk("redis"),
      Reply::Bulk("version"),
      Reply::Bulk(kRedisVersion),
      Reply::Bulk("proto"),
      Reply::Integer(ctx.session().resp),
      Reply::Bulk("id"),
      Reply::Integer(static_cast<int64_t>(ctx.session().id)),
      Reply::Bulk("mode"),
      Reply::Bulk("standalone"),
      Reply::Bulk("role"),
      Reply::Bulk("master"),
      Reply::Bulk("modules"),
      Reply::Array(),
  });
}

// AUTH [username] password
void AuthCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) return ctx.ReplyError(errors::kSyntax);
  if (ctx.argc() == 2 && !ctx.engine().AuthRequired()) {
    return ctx.ReplyError(
        "ERR AUTH <password> called without any password configured for the default user. Are "
        "you sure your configuration is correct?");
  }
  const std::string user = ctx.argc() == 3 ? ctx.arg(1) : "default";
  if (!Authenticate(ctx, user, ctx.argc() == 3 ? ctx.arg(2) : ctx.arg(1))) {
    return ctx.ReplyError(kWrongPass);
  }
  ctx.reply = Reply::Ok();
}

// QUIT: Redis 7.0 accepts and ignores arguments.
void QuitCommand(CommandContext& ctx) {
  if (ctx.session().host != nullptr) ctx.session().host->CloseAfterReply();
  ctx.reply = Reply::Ok();
}

// RESET: Redis 7.0's resetCommand (clearClientConnectionState). The session's state is the
// engine's: the transaction is discarded and every key unwatched, database 0 is selected, the
// protocol goes back to RESP2, the client is authenticated again only if no password is
// required (clientSetDefaultAuth), and its name is cleared. CLIENT NO-EVICT stays on: Redis
// 7.0.15 keeps it (its CLIENT INFO still shows flags=e after RESET). kvlab has no pub/sub,
// client tracking, MONITOR or CLIENT REPLY, so there is nothing of theirs to clear; and no
// replica or master connections, which Redis refuses to reset.
void ResetCommand(CommandContext& ctx) {
  Session& session = ctx.session();
  session.multi = {};
  if (session.watch != nullptr) session.watch->Clear();
  session.db = 0;
  session.resp = 2;
  session.authenticated = !ctx.engine().AuthRequired();
  session.name.clear();
  ctx.reply = Reply::Status("RESET");
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: Redis 7.0's clientCommand, its checks in its order.
void ClientUnblock(CommandContext& ctx) {
  if (ctx.argc() > 4) {
    return ctx.ReplyError("ERR unknown subcommand or wrong number of arguments for '" +
                          std::string(errors::ClientText(ctx.arg(1)).substr(0, 128)) +
                          "'. Try CLIENT HELP.");
  }
  bool with_error = false;
  if (ctx.argc() == 4) {
    if (!strcasecmp(ctx.arg(3).c_str(), "error")) {
      with_error = true;
    } else if (strcasecmp(ctx.arg(3).c_str(), "timeout") != 0) {
      return ctx.ReplyError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
    }
  }
  int64_t id = 0;
  if (!ParseInt64(ctx.arg(2), &id)) return ctx.ReplyError(errors::kNotInteger);
  SessionHost* host = ctx.session().host;
  const bool unblocked =
      host != nullptr && id > 0 && host->UnblockClient(static_cast<uint64_t>(id), with_error);
  ctx.reply = Reply::Integer(unblocked ? 1 : 0);
}

// CLIENT ID | SETNAME name | GETNAME | INFO | LIST [TYPE type | ID id ...] | NO-EVICT on|off |
// UNBLOCK id [TIMEOUT|ERROR] | HELP
void ClientCommand(CommandContext& ctx) {
  const char* sub = ctx.arg(1).c_str();
  Session& session = ctx.session();
  if (!strcasecmp(sub, "id")) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "client|id");
    ctx.reply = Reply::Integer(static_cast<int64_t>(session.id));
  } else if (!strcasecmp(sub, "setname")) {
    if (ctx.argc() != 3) return ReplySubcommandArity(ctx, "client|setname");
    if (SetClientName(ctx, ctx.arg(2))) ctx.reply = Reply::Ok();
  } else if (!strcasecmp(sub, "getname")) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "client|getname");
    ctx.reply = session.name.empty() ? Reply::Nil() : Reply::Bulk(session.name);
  } else if (!strcasecmp(sub, "info")) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "client|info");
    if (session.host == nullptr) return ReplyNeedsServer(ctx, "CLIENT INFO");
    const std::vector<uint64_t> self = {session.id};
    ctx.reply = Reply::Verbatim(session.host->ListClients(&self));
  } else if (!strcasecmp(sub, "list")) {
    ClientList(ctx);
  } else if (!strcasecmp(sub, "unblock")) {
    ClientUnblock(ctx);
  } else if (!strcasecmp(sub, "no-evict")) {
    // Exempts the client from maxmemory-clients' eviction (docs/server.md), through the host:
    // the server evicts from other threads.
    const char* mode = ctx.arg(2).c_str();
    if (!strcasecmp(mode, "on") || !strcasecmp(mode, "off")) {
      if (session.host != nullptr) session.host->SetNoEvict(!strcasecmp(mode, "on"));
      ctx.reply = Reply::Ok();
    } else {
      ctx.ReplyError(errors::kSyntax);
    }
  } else if (!strcasecmp(sub, "help")) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "client|help");
    ReplyHelp(ctx, {
                       "GETNAME",
                       "    Return the name of the current connection.",
                       "ID",
                       "    Return the ID of the current connection.",
                       "INFO",
                       "    Return information about the current client connection.",
                       "LIST [options ...]",
                       "    Return information about client connections. Options:",
                       "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
                       "      Return clients of specified type.",
                       "    * ID <client-id> [<client-id> ...]",
                       "      Return clients of specified IDs only.",
                       "SETNAME <name>",
                       "    Assign the name <name> to the current connection.",
                       "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                       "    Unblock the specified blocked client.",
                       "NO-EVICT (ON|OFF)",
                       "    Protect current client connection from eviction.",
                   });
  } else {
    ReplyUnknownSubcommand(ctx);
  }
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. kvlab writes every command through to the
// store, so there is nothing to save: SAVE and NOSAVE are accepted and change nothing.
void ShutdownCommand(CommandContext& ctx) {
  bool save = false, nosave = false, other_flag = false, abort = false;
  for (size_t i = 1; i < ctx.argc(); ++i) {
    const char* option = ctx.arg(i).c_str();
    if (!strcasecmp(option, "nosave")) {
      nosave = true;
    } else if (!strcasecmp(option, "save")) {
      save = true;
    } else if (!strcasecmp(option, "now") || !strcasecmp(option, "force")) {
      other_flag = true;
    } else if (!strcasecmp(option, "abort")) {
      abort = true;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  if ((abort && (save || nosave || other_flag)) || (save && nosave)) {
    return ctx.ReplyError(errors::kSyntax);
  }
  // kvlab's shutdown does not wait for anything that could be aborted.
  if (abort) return ctx.ReplyError("ERR No shutdown in progress.");
  if (ctx.session().host == nullptr) return ReplyNeedsServer(ctx, "SHUTDOWN");
  if (!ctx.session().host->RequestShutdown().ok()) {
    return ctx.ReplyError("ERR Errors trying to SHUTDOWN. Check logs.");
  }
  ctx.reply = Reply::Ok();
}

}  // namespace kvlab::engine
