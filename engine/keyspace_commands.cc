// Keyspace commands: DEL, UNLINK, EXISTS, TOUCH, TYPE, the EXPIRE and TTL families, PERSIST, and
// the whole-database ones (KEYS, SCAN, DBSIZE, FLUSHDB, FLUSHALL).
//
// Deleting or overwriting a key costs O(1) KV operations whatever its size: only the key-meta is
// removed or replaced, and the old sub-keys become unreachable through their key-version.
#include <strings.h>

#include <climits>
#include <set>

#include "encodings/coding.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/key_scan.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyCodec;
using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::KeyTypeName;
using encodings::PrefixSuccessor;
using encodings::SubKeyTag;
using redis::RedisTier;
using resp::Reply;

namespace {

std::vector<std::string_view> KeyArgs(CommandContext& ctx, size_t first) {
  return std::vector<std::string_view>(ctx.argv().begin() + static_cast<ptrdiff_t>(first),
                                       ctx.argv().end());
}

// Lets the encoding of a key that keeps data outside KV (zset v3's store) follow a deletion or
// an expiry change. Returns false after setting an error reply.
bool NotifyDelete(CommandContext& ctx, std::string_view key, const KeyMeta& meta) {
  if (meta.type == KeyType::kString) return true;
  const KeyHandle h{key, meta, false};
  return ctx.Check(ctx.Encoding(meta).OnDelete(ctx.txn(), h));
}

bool NotifyExpire(CommandContext& ctx, std::string_view key, const KeyMeta& meta,
                  int64_t old_expire_ms) {
  if (meta.type == KeyType::kString) return true;
  const KeyHandle h{key, meta, false};
  return ctx.Check(ctx.Encoding(meta).OnExpire(ctx.txn(), h, old_expire_ms));
}

void DeleteKeys(CommandContext& ctx) {
  const auto keys = KeyArgs(ctx, 1);
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return;
  std::set<std::string_view> deleted;
  int64_t n = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!metas[i] || !deleted.insert(keys[i]).second) continue;
    if (!NotifyDelete(ctx, keys[i], *metas[i])) return;
    ctx.txn().DeleteMeta(keys[i]);
    ++n;
  }
  ctx.reply = Reply::Integer(n);
}

enum class TimeUnit { kSeconds, kMillis };

std::string ExpireTimeError(const CommandContext& ctx) {
  std::string name = ctx.arg(0);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "ERR invalid expire time in '" + name + "' command";
}

// expireGenericCommand: relative (base = now) or absolute (base = 0) expiry.
void ExpireGeneric(CommandContext& ctx, int64_t base_ms, TimeUnit unit) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t j = 3; j < ctx.argc(); ++j) {
    const std::string& opt = ctx.arg(j);
    if (!strcasecmp(opt.c_str(), "nx")) {
      nx = true;
    } else if (!strcasecmp(opt.c_str(), "xx")) {
      xx = true;
    } else if (!strcasecmp(opt.c_str(), "gt")) {
      gt = true;
    } else if (!strcasecmp(opt.c_str(), "lt")) {
      lt = true;
    } else {
      return ctx.ReplyError("ERR Unsupported option " + std::string(errors::ClientText(opt)));
    }
  }
  if ((nx && xx) || (nx && gt) || (nx && lt)) {
    return ctx.ReplyError("ERR NX and XX, GT or LT options at the same time are not compatible");
  }
  if (gt && lt) return ctx.ReplyError("ERR GT and LT options at the same time are not compatible");
  int64_t when = 0;
  if (!ctx.ArgInt64(2, &when)) return;
  if (unit == TimeUnit::kSeconds) {
    if (when > LLONG_MAX / 1000 || when < LLONG_MIN / 1000) {
      return ctx.ReplyError(ExpireTimeError(ctx));
    }
    when *= 1000;
  }
  if (when > LLONG_MAX - base_ms) return ctx.ReplyError(ExpireTimeError(ctx));
  when += base_ms;

  KeyMeta meta;
  bool exists = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &exists))) return;
  if (!exists) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  const int64_t current = meta.expire_ms;
  const bool has = meta.has_expire();
  if ((nx && has) || (xx && !has) || (gt && (!has || when <= current)) ||
      (lt && has && when >= current)) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  if (when <= ctx.txn().now_ms()) {
    if (!NotifyDelete(ctx, ctx.arg(1), meta)) return;
    ctx.txn().DeleteMeta(ctx.arg(1));  // already expired: the key goes now
  } else {
    const int64_t old_expire = meta.expire_ms;
    meta.expire_ms = when;
    if (!NotifyExpire(ctx, ctx.arg(1), meta, old_expire)) return;
    ctx.txn().PutMeta(ctx.arg(1), meta);
  }
  ctx.reply = Reply::Integer(1);
}

// ttlGenericCommand.
void TtlGeneric(CommandContext& ctx, bool millis, bool absolute) {
  KeyMeta meta;
  bool exists = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &exists))) return;
  if (!exists) {
    ctx.reply = Reply::Integer(-2);
    return;
  }
  if (!meta.has_expire()) {
    ctx.reply = Reply::Integer(-1);
    return;
  }
  int64_t ttl = absolute ? meta.expire_ms : meta.expire_ms - ctx.txn().now_ms();
  if (ttl < 0) ttl = 0;
  ctx.reply = Reply::Integer(millis ? ttl : (ttl + 500) / 1000);
}

// Deletes every record of databases first_db..last_db: one range delete per record kind (the
// key-metas, every sub-key kind of the registry and the TTL index when kept), since the databases
// of a namespace prefix are adjacent in key order (the db byte follows the prefix). The ranges go
// into the command's batch, so that the flush is one atomic write: natively where the backend has
// range deletes, else its keys are visited inside that write.
//
// The Redis tier first, then KV: the store's zsets are data, and a store that fails must leave
// KV as it was (an error reply means nothing was written). Where the store failed after
// deleting some zsets, the reply says so; those keys then report their zsets lost until the
// FLUSHALL is run again.
void FlushDatabases(CommandContext& ctx, int first_db, int last_db) {
  const KeyCodec& codec = ctx.txn().codec();
  if (RedisTier* tier = ctx.engine().tier()) {
    for (int db = first_db; db <= last_db; ++db) {
      const std::string ns = "c#" + codec.Namespace(static_cast<uint8_t>(db));
      bool store_touched = false;
      Status s = tier->DropNamespace(ns, &ctx.txn().tier_counts(), &store_touched);
      if (!s.ok()) {
        return ctx.ReplyError(
            "ERR storage error: " + s.ToString() + "; nothing was deleted from KV" +
            (store_touched ? ", but the zset store may have deleted some zsets (their keys "
                             "report them lost): run the command again"
                           : ""));
      }
    }
  }
  const auto first = static_cast<uint8_t>(first_db);
  const auto last = static_cast<uint8_t>(last_db);
  std::vector<std::pair<std::string, std::string>> ranges = {
      {codec.MetaPrefix(first), PrefixSuccessor(codec.MetaPrefix(last))}};
  for (SubKeyTag tag : ctx.engine().registry().AllSubKeyTags()) {
    ranges.emplace_back(codec.SubKeyDbPrefix(tag, first),
                        PrefixSuccessor(codec.SubKeyDbPrefix(tag, last)));
  }
  if (codec.options().ttl_index) {
    ranges.emplace_back(codec.TtlIndexPrefix(first), PrefixSuccessor(codec.TtlIndexPrefix(last)));
  }
  for (const auto& [begin, end] : ranges) ctx.txn().batch().DeleteRange(begin, end);
  ctx.reply = Reply::Ok();
}

bool FlushArgsOk(CommandContext& ctx) {
  if (ctx.argc() == 1) return true;
  if (ctx.argc() == 2 &&
      (!strcasecmp(ctx.arg(1).c_str(), "sync") || !strcasecmp(ctx.arg(1).c_str(), "async"))) {
    return true;
  }
  ctx.ReplyError(errors::kSyntax);
  return false;
}

}  // namespace

void DelCommand(CommandContext& ctx) { DeleteKeys(ctx); }
void UnlinkCommand(CommandContext& ctx) { DeleteKeys(ctx); }

void ExistsCommand(CommandContext& ctx) {
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(KeyArgs(ctx, 1), &metas))) return;
  int64_t n = 0;
  for (const auto& m : metas) n += m.has_value();
  ctx.reply = Reply::Integer(n);
}

// touchCommand: the keys that exist, each occurrence counted. kvlab keeps no access time, so
// TOUCH reads the metas as EXISTS does and changes nothing.
void TouchCommand(CommandContext& ctx) { ExistsCommand(ctx); }

void TypeCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool exists = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &exists))) return;
  ctx.reply = Reply::Status(exists ? KeyTypeName(meta.type) : "none");
}

void ExpireCommand(CommandContext& ctx) {
  ExpireGeneric(ctx, ctx.txn().now_ms(), TimeUnit::kSeconds);
}
void PexpireCommand(CommandContext& ctx) {
  ExpireGeneric(ctx, ctx.txn().now_ms(), TimeUnit::kMillis);
}
void ExpireatCommand(CommandContext& ctx) { ExpireGeneric(ctx, 0, TimeUnit::kSeconds); }
void PexpireatCommand(CommandContext& ctx) { ExpireGeneric(ctx, 0, TimeUnit::kMillis); }
void TtlCommand(CommandContext& ctx) { TtlGeneric(ctx, false, false); }
void PttlCommand(CommandContext& ctx) { TtlGeneric(ctx, true, false); }
void ExpiretimeCommand(CommandContext& ctx) { TtlGeneric(ctx, false, true); }
void PexpiretimeCommand(CommandContext& ctx) { TtlGeneric(ctx, true, true); }

void PersistCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool exists = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &exists))) return;
  if (!exists || !meta.has_expire()) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  const int64_t old_expire = meta.expire_ms;
  meta.expire_ms = KeyMeta::kNoExpire;
  if (!NotifyExpire(ctx, ctx.arg(1), meta, old_expire)) return;
  ctx.txn().PutMeta(ctx.arg(1), meta);
  ctx.reply = Reply::Integer(1);
}

void KeysCommand(CommandContext& ctx) {
  std::vector<Reply> keys;
  KeyScanFilter filter;
  // Redis lists every key for "*" without matching (keysCommand's allkeys), and its matcher
  // does not match "*" against the empty key, so only this shortcut lists "".
  if (ctx.arg(1) != "*") filter.pattern = ctx.arg(1);
  if (!ctx.Check(ScanKeys(
          ctx.txn(), "", filter, UINT64_MAX,
          [&](const std::string& key, const KeyMeta&) { keys.push_back(Reply::Bulk(key)); },
          nullptr))) {
    return;
  }
  ctx.reply = Reply::Array(std::move(keys));
}

void ScanCommand(CommandContext& ctx) { KeyspaceScanCommand(ctx); }

void DbsizeCommand(CommandContext& ctx) {
  int64_t n = 0;
  if (!ctx.Check(ScanKeys(
          ctx.txn(), "", KeyScanFilter(), UINT64_MAX,
          [&](const std::string&, const KeyMeta&) { ++n; }, nullptr))) {
    return;
  }
  ctx.reply = Reply::Integer(n);
}

void FlushdbCommand(CommandContext& ctx) {
  if (!FlushArgsOk(ctx)) return;
  FlushDatabases(ctx, ctx.session().db, ctx.session().db);
}

void FlushallCommand(CommandContext& ctx) {
  if (!FlushArgsOk(ctx)) return;
  FlushDatabases(ctx, 0, ctx.engine().databases() - 1);
}

}  // namespace kvlab::engine
