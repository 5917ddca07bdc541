// COMMAND [COUNT | INFO name... | DOCS name... | LIST [FILTERBY ...] | GETKEYS cmd... | HELP]:
// what redis-cli and client libraries ask at startup, answered from the command table.
//
// The reply shapes are Redis 7.0's. The table keeps Redis's arity, its flags write, readonly,
// denyoom, admin, blocking, fast, no_auth and no_multi, and key positions; the rest is derived from
// them: ACL categories from the group and flags, one range key-spec from the key positions ("RW
// update" for writes, "RO access" for reads). Redis's finer detail (per-key-spec flags, tips,
// argument docs, subcommands) is not in the table, so those parts are shorter than Redis's
// (docs/server.md).
#include <strings.h>

#include "engine/command_context.h"
#include "engine/command_info.h"
#include "engine/command_table.h"
#include "engine/glob.h"
#include "engine/handlers.h"
#include "engine/subcommands.h"

namespace kvlab::engine {

using resp::Reply;

namespace {

bool IsKeyspace(const CommandSpec& spec) {
  return spec.group == "generic" ||
         (spec.group == "server" && (spec.flags & (kCmdWrite | kCmdReadonly)) != 0);
}

// Redis's flag names, in the order addReplyFlagsForCommand prints them.
std::vector<std::string> FlagNames(const CommandSpec& spec) {
  std::vector<std::string> out;
  if (spec.flags & kCmdContainer) return out;
  if (spec.flags & kCmdWrite) out.push_back("write");
  if (spec.flags & kCmdReadonly) out.push_back("readonly");
  if (spec.flags & kCmdDenyOom) out.push_back("denyoom");
  if (spec.flags & kCmdAdmin) out.push_back("admin");
  if (spec.flags & kCmdBlocking) out.push_back("blocking");
  if (spec.flags & kCmdFast) out.push_back("fast");
  if (spec.flags & kCmdNoAuth) out.push_back("no_auth");
  if (spec.flags & kCmdNoMulti) out.push_back("no_multi");
  for (const KeySpec& k : spec.key_specs) {
    if (k.movable()) {
      out.push_back("movablekeys");
      break;
    }
  }
  return out;
}

// ACL categories, in the order of Redis's ACLCommandCategories table.
std::vector<std::string> Categories(const CommandSpec& spec) {
  std::vector<std::string> out;
  if (spec.flags & kCmdContainer) return {"slow"};
  // SORT and SORT_RO: a generic command in the categories of the types it sorts, and dangerous
  // (its patterns reach any key), not keyspace (sort.json, sort_ro.json).
  if (spec.name == "sort" || spec.name == "sort_ro") {
    return {
        spec.name == "sort" ? "write" : "read", "set", "sortedset", "list", "slow", "dangerous"};
  }
  if (IsKeyspace(spec)) out.push_back("keyspace");
  if (spec.flags & kCmdReadonly) out.push_back("read");
  if (spec.flags & kCmdWrite) out.push_back("write");
  if (spec.group == "set") out.push_back("set");
  if (spec.group == "sorted-set") out.push_back("sortedset");
  if (spec.group == "list") out.push_back("list");
  if (spec.group == "hash") out.push_back("hash");
  if (spec.group == "string") out.push_back("string");
  if (spec.group == "bitmap") out.push_back("bitmap");
  if (spec.group == "hyperloglog") out.push_back("hyperloglog");
  if (spec.group == "geo") out.push_back("geo");
  if (spec.flags & (kCmdAdmin | kCmdAclAdmin)) out.push_back("admin");
  out.push_back((spec.flags & kCmdFast) ? "fast" : "slow");
  if (spec.flags & kCmdBlocking) out.push_back("blocking");
  if (spec.flags & (kCmdAdmin | kCmdAclAdmin | kCmdAclDangerous | kCmdKeyspaceExclusive)) {
    out.push_back("dangerous");
  }
  if (spec.group == "connection") out.push_back("connection");
  if (spec.group == "transactions") out.push_back("transaction");
  return out;
}

// A set in RESP3 (flags, ACL categories), an array in RESP2.
Reply StatusSet(const std::vector<std::string>& items, const char* prefix = "") {
  std::vector<Reply> out;
  for (const std::string& s : items) out.push_back(Reply::Status(prefix + s));
  return Reply::Set(std::move(out));
}

// One key spec as COMMAND INFO shows it (addReplyCommandKeySpecs: maps, flags as a set).
Reply KeySpecReply(const CommandSpec& command, const KeySpec& spec) {
  std::vector<Reply> flags;
  if (spec.flags.empty()) {
    const bool write = (command.flags & kCmdWrite) != 0;
    flags = {Reply::Status(write ? "RW" : "RO"), Reply::Status(write ? "update" : "access")};
  } else {
    for (std::string_view f : spec.flags) flags.push_back(Reply::Status(std::string(f)));
  }
  // addReplyCommandKeySpecs: an unknown search is {type: unknown, spec: {}}.
  const auto unknown = [] {
    return Reply::Map(
        {Reply::Bulk("type"), Reply::Bulk("unknown"), Reply::Bulk("spec"), Reply::Map({})});
  };
  Reply begin =
      spec.unknown ? unknown()
      : spec.keyword.empty()
          ? Reply::Map({Reply::Bulk("type"), Reply::Bulk("index"), Reply::Bulk("spec"),
                        Reply::Map({Reply::Bulk("index"), Reply::Integer(spec.index)})})
          : Reply::Map({Reply::Bulk("type"), Reply::Bulk("keyword"), Reply::Bulk("spec"),
                        Reply::Map({Reply::Bulk("keyword"), Reply::Bulk(std::string(spec.keyword)),
                                    Reply::Bulk("startfrom"), Reply::Integer(spec.startfrom)})});
  Reply find =
      spec.unknown ? unknown()
      : spec.find == KeySpec::Find::kRange
          ? Reply::Map({Reply::Bulk("type"), Reply::Bulk("range"), Reply::Bulk("spec"),
                        Reply::Map({Reply::Bulk("lastkey"), Reply::Integer(spec.lastkey),
                                    Reply::Bulk("keystep"), Reply::Integer(spec.keystep),
                                    Reply::Bulk("limit"), Reply::Integer(spec.limit)})})
          : Reply::Map({Reply::Bulk("type"), Reply::Bulk("keynum"), Reply::Bulk("spec"),
                        Reply::Map({Reply::Bulk("keynumidx"), Reply::Integer(spec.keynumidx),
                                    Reply::Bulk("firstkey"), Reply::Integer(spec.firstkey),
                                    Reply::Bulk("keystep"), Reply::Integer(spec.keystep)})});
  // addReplyCommandKeySpecs: the notes, when the spec has any, come first.
  std::vector<Reply> fields;
  if (!spec.notes.empty()) {
    fields.push_back(Reply::Bulk("notes"));
    fields.push_back(Reply::Bulk(std::string(spec.notes)));
  }
  fields.push_back(Reply::Bulk("flags"));
  fields.push_back(Reply::Set(std::move(flags)));
  fields.push_back(Reply::Bulk("begin_search"));
  fields.push_back(std::move(begin));
  fields.push_back(Reply::Bulk("find_keys"));
  fields.push_back(std::move(find));
  return Reply::Map(std::move(fields));
}

// The key-specs: the command's (CommandTable::KeySpecsOf).
Reply KeySpecs(const CommandSpec& spec) {
  std::vector<Reply> out;
  for (const KeySpec& k : CommandTable::KeySpecsOf(spec)) out.push_back(KeySpecReply(spec, k));
  return Reply::Set(std::move(out));
}

}  // namespace

// addReplyCommandInfo: name, arity, flags, first key, last key, key step, ACL categories,
// tips, key-specs, subcommands.
Reply CommandInfo(const CommandSpec& spec) {
  return Reply::Array({
      Reply::Bulk(std::string(spec.name)),
      Reply::Integer(spec.arity),
      StatusSet(FlagNames(spec)),
      Reply::Integer(spec.first_key),
      Reply::Integer(spec.last_key),
      Reply::Integer(spec.key_step),
      StatusSet(Categories(spec), "@"),
      Reply::Set(),
      KeySpecs(spec),
      Reply::Set(),
  });
}

namespace {

// addReplyCommandDocs: a map (a flat array in RESP2) of the documentation kvlab has.
Reply CommandDocs(const CommandSpec& spec) {
  return Reply::Map({
      Reply::Bulk("summary"),
      Reply::Bulk(std::string(spec.summary)),
      Reply::Bulk("since"),
      Reply::Bulk(std::string(spec.since)),
      Reply::Bulk("group"),
      Reply::Bulk(std::string(spec.group)),
  });
}

void CommandList(CommandContext& ctx) {
  const CommandTable& table = ctx.engine().commands();
  enum class Filter { kNone, kModule, kAclCategory, kPattern } filter = Filter::kNone;
  std::string filter_arg;
  for (size_t i = 2; i < ctx.argc(); ++i) {
    const size_t more = ctx.argc() - 1 - i;
    if (strcasecmp(ctx.arg(i).c_str(), "filterby") != 0 || more != 2) {
      return ctx.ReplyError(errors::kSyntax);
    }
    const char* type = ctx.arg(i + 1).c_str();
    if (!strcasecmp(type, "module")) {
      filter = Filter::kModule;
    } else if (!strcasecmp(type, "aclcat")) {
      filter = Filter::kAclCategory;
    } else if (!strcasecmp(type, "pattern")) {
      filter = Filter::kPattern;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
    filter_arg = ctx.arg(i + 2);
    i += 2;
  }
  std::vector<Reply> out;
  for (const CommandSpec& spec : table.all()) {
    bool keep = true;
    if (filter == Filter::kModule) {
      keep = false;  // kvlab loads no modules
    } else if (filter == Filter::kAclCategory) {
      keep = false;
      for (const std::string& c : Categories(spec))
        keep |= !strcasecmp(c.c_str(), filter_arg.c_str());
    } else if (filter == Filter::kPattern) {
      keep = GlobMatch(filter_arg, spec.name, /*nocase=*/true);
    }
    if (keep) out.push_back(Reply::Bulk(std::string(spec.name)));
  }
  ctx.reply = Reply::Array(std::move(out));
}

void CommandGetKeys(CommandContext& ctx) {
  const CommandSpec* spec = ctx.engine().commands().Find(ctx.arg(2));
  const size_t argc = ctx.argc() - 2;
  if (spec == nullptr) return ctx.ReplyError("ERR Invalid command specified");
  if (!CommandTable::HasKeys(*spec)) {
    return ctx.ReplyError("ERR The command has no key arguments");
  }
  if ((spec->arity > 0 && static_cast<size_t>(spec->arity) != argc) ||
      static_cast<int64_t>(argc) < -spec->arity) {
    return ctx.ReplyError("ERR Invalid number of arguments specified for command");
  }
  const std::vector<std::string> argv(ctx.argv().begin() + 2, ctx.argv().end());
  std::vector<size_t> positions;
  if (!CommandTable::KeyPositions(*spec, argv, &positions) || positions.empty()) {
    return ctx.ReplyError("ERR Invalid arguments specified for command");
  }
  std::vector<Reply> keys;
  for (size_t pos : positions) keys.push_back(Reply::Bulk(argv[pos]));
  ctx.reply = Reply::Array(std::move(keys));
}

}  // namespace

void CommandCommand(CommandContext& ctx) {
  const CommandTable& table = ctx.engine().commands();
  if (ctx.argc() == 1) {
    std::vector<Reply> out;
    for (const CommandSpec& spec : table.all()) out.push_back(CommandInfo(spec));
    ctx.reply = Reply::Array(std::move(out));
    return;
  }
  const char* sub = ctx.arg(1).c_str();
  if (!strcasecmp(sub, "count")) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "command|count");
    ctx.reply = Reply::Integer(static_cast<int64_t>(table.all().size()));
  } else if (!strcasecmp(sub, "info")) {
    std::vector<Reply> out;
    if (ctx.argc() == 2) {
      for (const CommandSpec& spec : table.all()) out.push_back(CommandInfo(spec));
    }
    for (size_t i = 2; i < ctx.argc(); ++i) {
      const CommandSpec* spec = table.Find(ctx.arg(i));
      out.push_back(spec != nullptr ? CommandInfo(*spec) : Reply::Nil());
    }
    ctx.reply = Reply::Array(std::move(out));
  } else if (!strcasecmp(sub, "docs")) {
    // A map from command name to its docs; names kvlab does not know are left out.
    std::vector<Reply> out;
    auto add = [&out](const CommandSpec& spec) {
      out.push_back(Reply::Bulk(std::string(spec.name)));
      out.push_back(CommandDocs(spec));
    };
    if (ctx.argc() == 2) {
      for (const CommandSpec& spec : table.all()) add(spec);
    }
    for (size_t i = 2; i < ctx.argc(); ++i) {
      if (const CommandSpec* spec = table.Find(ctx.arg(i))) add(*spec);
    }
    ctx.reply = Reply::Map(std::move(out));
  } else if (!strcasecmp(sub, "list")) {
    CommandList(ctx);
  } else if (!strcasecmp(sub, "getkeys")) {
    if (ctx.argc() < 4) return ReplySubcommandArity(ctx, "command|getkeys");
    CommandGetKeys(ctx);
  } else if (!strcasecmp(sub, "help")) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "command|help");
    ReplyHelp(ctx, {
                       "(no subcommand)",
                       "    Return details about all Redis commands.",
                       "COUNT",
                       "    Return the total number of commands in this Redis server.",
                       "LIST",
                       "    Return a list of all commands in this Redis server.",
                       "INFO [<command-name> ...]",
                       "    Return details about multiple Redis commands.",
                       "    If no command names are given, documentation details for all",
                       "    commands are returned.",
                       "DOCS [<command-name> ...]",
                       "    Return documentation details about multiple Redis commands.",
                       "    If no command names are given, documentation details for all",
                       "    commands are returned.",
                       "GETKEYS <full-command>",
                       "    Return the keys from a full Redis command.",
                   });
  } else {
    ReplyUnknownSubcommand(ctx);
  }
}

}  // namespace kvlab::engine
