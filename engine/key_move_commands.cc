// RENAME, RENAMENX, COPY and MOVE. Parsing, the order of checks and the replies follow Redis
// 7.0's renameGenericCommand, copyCommand and moveCommand (db.c).
//
// A collection's sub-keys carry its database, key name and key-version (docs/encodings.md), so
// a renamed, copied or moved collection is rewritten: its encoding copies it as a new key with a
// fresh key-version, the same encode-version and expiry, in the command's one batch
// (TypeEncoding::Copy), into the same database or, for COPY ... DB n and MOVE, through the
// command's view of the other one (CommandContext::TxnIn). The old name of a RENAME or MOVE is
// then deleted in O(1) (its meta). The Redis tier follows by the hooks of any new or deleted
// key: caches are per key-version, so nothing stale is reachable; zset v3 writes the new zset
// to its store and drops the old one after the commit. The cost grows with the collection's
// size (docs/amplification.md); a string is its meta alone. The engine locks the key in the
// other database too (CommandSpec::keys_elsewhere).
#include <strings.h>

#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "encodings/type_encoding.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::KvTxn;
using resp::ParseInt64;
using resp::Reply;

namespace {

// Writes a copy of the live key `from` (of the session's database) under `dst` of to_txn's
// database. REQUIRES: dst was prepared for overwrite (CommandContext::PrepareOverwrite) and is
// another key than `from`. Returns false after an error reply.
bool CopyKey(CommandContext& ctx, const KeyHandle& from, KvTxn& to_txn, std::string_view dst) {
  KeyHandle to;
  to.key = dst;
  to.meta = from.meta;
  to.meta.key_version = to_txn.NewMeta(from.meta.type, from.meta.encode_version).key_version;
  to.is_new = true;
  if (from.meta.type == KeyType::kString) {
    to_txn.PutMeta(&to);  // a string is its key-meta: the value is in it
    return true;
  }
  if (!ctx.Check(ctx.Encoding(from.meta).Copy(ctx.txn(), from, to_txn, &to))) return false;
  // Clients blocked on dst (BLPOP) are served if it now holds what they wait for.
  ctx.KeyReadyIn(to_txn.db(), dst);
  return true;
}

// Loads src as LoadAny does, and reads the meta of dst in to_txn's database: in one multiget
// when both are in the session's database; else src first, and dst only when src is live (as
// Redis looks them up). Returns false after an error reply.
bool LoadSourceAndDestination(CommandContext& ctx, std::string_view src, KvTxn& to_txn,
                              std::string_view dst, KeyHandle* from, bool* exists,
                              std::optional<KeyMeta>* dst_meta) {
  dst_meta->reset();
  if (&to_txn == &ctx.txn()) {
    std::vector<std::optional<KeyMeta>> metas;
    if (!ctx.Check(ctx.txn().GetMetas({src, dst}, &metas))) return false;
    *dst_meta = metas[1];
    return ctx.LoadAny(src, from, exists, &metas[0]);
  }
  if (!ctx.LoadAny(src, from, exists)) return false;
  if (!*exists) return true;
  KeyMeta meta;
  bool found = false;
  if (!ctx.Check(to_txn.GetMeta(dst, &meta, &found))) return false;
  if (found) *dst_meta = std::move(meta);
  return true;
}

// getIntFromObjectOrReply, then selectDb's range check (copyCommand, moveCommand). Returns
// false after an error reply.
bool ParseDb(CommandContext& ctx, const std::string& arg, int64_t* db) {
  if (!ParseInt64(arg, db)) {
    ctx.ReplyError(errors::kNotInteger);
    return false;
  }
  if (*db < INT_MIN || *db > INT_MAX) {
    ctx.ReplyError("ERR value is out of range, value must between -2147483648 and 2147483647");
    return false;
  }
  if (*db < 0 || *db >= ctx.engine().databases()) {
    ctx.ReplyError("ERR DB index is out of range");
    return false;
  }
  return true;
}

// The database an argument names, for locking; nullopt when it names none.
std::optional<uint8_t> DbArgument(const std::string& arg, int databases) {
  int64_t db = 0;
  if (!ParseInt64(arg, &db) || db < 0 || db >= databases) return std::nullopt;
  return static_cast<uint8_t>(db);
}

// renameGenericCommand.
void RenameGeneric(CommandContext& ctx, bool nx) {
  const std::string& src = ctx.arg(1);
  const std::string& dst = ctx.arg(2);
  KeyHandle from;
  bool exists = false;
  std::optional<KeyMeta> dst_loaded;
  if (!LoadSourceAndDestination(ctx, src, ctx.txn(), dst, &from, &exists, &dst_loaded)) return;
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
  if (!CopyKey(ctx, from, ctx.txn(), dst)) return;
  const std::optional<KeyMeta> src_loaded(from.meta);
  bool src_existed = false;
  if (!ctx.PrepareOverwrite(src, &src_existed, &src_loaded)) return;
  ctx.txn().DeleteMeta(src);
  ctx.reply = nx ? Reply::Integer(1) : Reply::Ok();
}

}  // namespace

void RenameCommand(CommandContext& ctx) { RenameGeneric(ctx, false); }
void RenamenxCommand(CommandContext& ctx) { RenameGeneric(ctx, true); }

// copyCommand.
void CopyCommand(CommandContext& ctx) {
  bool replace = false;
  int64_t db = ctx.session().db;
  for (size_t j = 3; j < ctx.argc(); ++j) {
    const char* opt = ctx.arg(j).c_str();
    const bool additional = j + 1 < ctx.argc();
    if (!strcasecmp(opt, "replace")) {
      replace = true;
    } else if (!strcasecmp(opt, "db") && additional) {
      if (!ParseDb(ctx, ctx.arg(j + 1), &db)) return;
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
  KvTxn& to_txn = ctx.TxnIn(static_cast<uint8_t>(db));
  KeyHandle from;
  bool exists = false;
  std::optional<KeyMeta> dst_loaded;
  if (!LoadSourceAndDestination(ctx, src, to_txn, dst, &from, &exists, &dst_loaded)) return;
  if (!exists) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  if (dst_loaded.has_value() && !replace) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  bool existed = false;
  if (!ctx.PrepareOverwrite(dst, &existed, &dst_loaded, &to_txn)) return;
  if (!CopyKey(ctx, from, to_txn, dst)) return;
  ctx.reply = Reply::Integer(1);
}

// moveCommand: a copy into the other database, then the source deleted, as RENAME.
void MoveCommand(CommandContext& ctx) {
  int64_t db = 0;
  if (!ParseDb(ctx, ctx.arg(2), &db)) return;
  if (db == ctx.session().db) {
    return ctx.ReplyError("ERR source and destination objects are the same");
  }
  const std::string& key = ctx.arg(1);
  KvTxn& to_txn = ctx.TxnIn(static_cast<uint8_t>(db));
  KeyHandle from;
  bool exists = false;
  std::optional<KeyMeta> dst_loaded;
  if (!LoadSourceAndDestination(ctx, key, to_txn, key, &from, &exists, &dst_loaded)) return;
  if (!exists || dst_loaded.has_value()) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  if (!CopyKey(ctx, from, to_txn, key)) return;
  const std::optional<KeyMeta> src_loaded(from.meta);
  bool src_existed = false;
  if (!ctx.PrepareOverwrite(key, &src_existed, &src_loaded)) return;
  ctx.txn().DeleteMeta(key);
  ctx.reply = Reply::Integer(1);
}

void MoveKeysElsewhere(const std::vector<std::string>& argv, int databases,
                       std::vector<std::pair<uint8_t, size_t>>* out) {
  if (argv.size() != 3) return;
  if (auto db = DbArgument(argv[2], databases)) out->emplace_back(*db, 1);
}

void CopyKeysElsewhere(const std::vector<std::string>& argv, int databases,
                       std::vector<std::pair<uint8_t, size_t>>* out) {
  // Every DB option's database (Redis uses the last one): locking one more key is harmless.
  for (size_t j = 3; j + 1 < argv.size(); ++j) {
    if (strcasecmp(argv[j].c_str(), "db") != 0) continue;
    if (auto db = DbArgument(argv[j + 1], databases)) out->emplace_back(*db, 2);
    ++j;
  }
}

}  // namespace kvlab::engine
