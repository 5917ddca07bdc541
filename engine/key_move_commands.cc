// RENAME, RENAMENX and COPY. Parsing, the order of checks and the replies follow Redis 7.0's
// renameGenericCommand and copyCommand (db.c).
//
// A collection's sub-keys carry its key name and key-version (docs/encodings.md), so a renamed or
// copied collection is rewritten: its encoding copies it as a new key with a fresh key-version,
// the same encode-version and expiry, in the command's one batch (TypeEncoding::Copy). The old
// name of a RENAME is then deleted in O(1) (its meta). The Redis tier follows by the hooks of any
// new or deleted key: caches are per key-version, so nothing stale is reachable; zset v3 writes
// the new zset to its store and drops the old one after the commit. The cost grows with the
// collection's size (docs/amplification.md); a string is its meta alone.
#include <strings.h>

#include <climits>

#include "encodings/type_encoding.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using resp::ParseInt64;
using resp::Reply;

namespace {

// Writes a copy of the live key `from` under `dst`. REQUIRES: dst was prepared for overwrite
// (CommandContext::PrepareOverwrite) and from.key != dst. Returns false after an error reply.
bool CopyKey(CommandContext& ctx, const KeyHandle& from, std::string_view dst) {
  KeyHandle to;
  to.key = dst;
  to.meta = from.meta;
  to.meta.key_version = ctx.txn().NewMeta(from.meta.type, from.meta.encode_version).key_version;
  to.is_new = true;
  if (from.meta.type == KeyType::kString) {
    ctx.txn().PutMeta(&to);  // a string is its key-meta: the value is in it
    return true;
  }
  if (!ctx.Check(ctx.Encoding(from.meta).Copy(ctx.txn(), from, &to))) return false;
  // Clients blocked on dst (BLPOP) are served if it now holds what they wait for.
  ctx.KeyReady(dst);
  return true;
}

// Reads the metas of src and dst in one multiget, and loads src as LoadAny does. Returns false
// after an error reply.
bool LoadSourceAndDestination(CommandContext& ctx, std::string_view src, std::string_view dst,
                              KeyHandle* from, bool* exists, std::optional<KeyMeta>* dst_meta) {
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas({src, dst}, &metas))) return false;
  *dst_meta = metas[1];
  return ctx.LoadAny(src, from, exists, &metas[0]);
}

// renameGenericCommand.
void RenameGeneric(CommandContext& ctx, bool nx) {
  const std::string& src = ctx.arg(1);
  const std::string& dst = ctx.arg(2);
  KeyHandle from;
  bool exists = false;
  std::optional<KeyMeta> dst_loaded;
  if (!LoadSourceAndDestination(ctx, src, dst, &from, &exists, &dst_loaded)) return;
  if (!exists) return ctx.ReplyError("ERR no such key");
  if (src == dst) {
    ctx.reply = nx ? Reply::Integer(0) : Reply::Ok();
    return;
  }
  if (dst_loaded.has_value() && nx) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  bool existed = false;
  if (!ctx.PrepareOverwrite(dst, &existed, &dst_loaded)) return;
  if (!CopyKey(ctx, from, dst)) return;
  const std::optional<KeyMeta> src_loaded(from.meta);
  bool src_existed = false;
  if (!ctx.PrepareOverwrite(src, &src_existed, &src_loaded)) return;
  ctx.txn().DeleteMeta(src);
  ctx.reply = nx ? Reply::Integer(1) : Reply::Ok();
}

}  // namespace

void RenameCommand(CommandContext& ctx) { RenameGeneric(ctx, false); }
void RenamenxCommand(CommandContext& ctx) { RenameGeneric(ctx, true); }

// copyCommand. kvlab runs a command in one database: COPY ... DB n accepts the session's own
// database, and refuses another with an error that says so (Redis would copy across).
void CopyCommand(CommandContext& ctx) {
  bool replace = false;
  int64_t db = ctx.session().db;
  for (size_t j = 3; j < ctx.argc(); ++j) {
    const char* opt = ctx.arg(j).c_str();
    const bool additional = j + 1 < ctx.argc();
    if (!strcasecmp(opt, "replace")) {
      replace = true;
    } else if (!strcasecmp(opt, "db") && additional) {
      // getIntFromObjectOrReply, then selectDb.
      if (!ParseInt64(ctx.arg(j + 1), &db)) return ctx.ReplyError(errors::kNotInteger);
      if (db < INT_MIN || db > INT_MAX) {
        return ctx.ReplyError(
            "ERR value is out of range, value must between -2147483648 and 2147483647");
      }
      if (db < 0 || db >= ctx.engine().databases()) {
        return ctx.ReplyError("ERR DB index is out of range");
      }
      ++j;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  const std::string& src = ctx.arg(1);
  const std::string& dst = ctx.arg(2);
  if (db == ctx.session().db && src == dst) {
    return ctx.ReplyError("ERR source and destination objects are the same");
  }
  if (db != ctx.session().db) {
    return ctx.ReplyError("ERR kvlab copies within the selected database only (COPY ... DB " +
                          std::to_string(db) + " from database " +
                          std::to_string(ctx.session().db) + ")");
  }
  KeyHandle from;
  bool exists = false;
  std::optional<KeyMeta> dst_loaded;
  if (!LoadSourceAndDestination(ctx, src, dst, &from, &exists, &dst_loaded)) return;
  if (!exists) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  if (dst_loaded.has_value() && !replace) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  bool existed = false;
  if (!ctx.PrepareOverwrite(dst, &existed, &dst_loaded)) return;
  if (!CopyKey(ctx, from, dst)) return;
  ctx.reply = Reply::Integer(1);
}

}  // namespace kvlab::engine
