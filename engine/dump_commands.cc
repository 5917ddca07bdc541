// DUMP and RESTORE, as Redis 7.0.15's cluster.c runs them (dumpCommand, restoreCommand), over
// the RDB codec of rdb_value.h.
//
// DUMP reads the whole value through its encoding (every version of every type reads the same
// value) and serializes it in the form Redis 7.0 would hold it in, by the thresholds CONFIG
// sets (hash-max-listpack-entries and the like; Redis's defaults otherwise).
//
// RESTORE writes the value as a new key of the type's configured encode-version through that
// encoding's ordinary writes (HSET's, ZADD's, SADD's, RPUSH's), in the command's one batch: the
// old key (REPLACE) goes as DEL takes it, the new one comes with its expiry in its meta, so the
// key is replaced atomically and the accounting is the writes' own. IDLETIME and FREQ are
// checked as Redis checks them; kvlab keeps no LRU clock or LFU counter to set (OBJECT IDLETIME
// and FREQ: docs/deviations.json). docs/dump.md.
#include "engine/dump_commands.h"

#include <strings.h>

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "encodings/hash_encoding.h"
#include "encodings/set_encoding.h"
#include "encodings/zset_encoding.h"
#include "engine/command_context.h"
#include "engine/rdb_value.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using resp::ParseInt64;
using resp::Reply;

namespace {

// A CONFIG parameter's integer value, or `fallback` when the engine has no such parameter.
int64_t ParamValue(CommandContext& ctx, std::string_view name, int64_t fallback) {
  for (const EngineConfig::Param& p : ctx.engine().config().params()) {
    if (p.name != name) continue;
    int64_t v = 0;
    return ParseInt64(p.get(), &v) ? v : fallback;
  }
  return fallback;
}

rdb::DumpOptions OptionsOf(CommandContext& ctx) {
  rdb::DumpOptions o;
  o.hash_max_listpack_entries =
      ParamValue(ctx, "hash-max-listpack-entries", o.hash_max_listpack_entries);
  o.hash_max_listpack_value = ParamValue(ctx, "hash-max-listpack-value", o.hash_max_listpack_value);
  o.zset_max_listpack_entries =
      ParamValue(ctx, "zset-max-listpack-entries", o.zset_max_listpack_entries);
  o.zset_max_listpack_value = ParamValue(ctx, "zset-max-listpack-value", o.zset_max_listpack_value);
  o.set_max_intset_entries = ParamValue(ctx, "set-max-intset-entries", o.set_max_intset_entries);
  o.list_max_listpack_size = ParamValue(ctx, "list-max-listpack-size", o.list_max_listpack_size);
  return o;
}

// Reads the whole value of the live key `h`. Returns false after an error reply.
bool ReadValue(CommandContext& ctx, const KeyHandle& h, rdb::Value* v) {
  v->type = h.meta.type;
  encodings::KvTxn& txn = ctx.txn();
  switch (h.meta.type) {
    case KeyType::kString:
      v->str = h.meta.value;
      return true;
    case KeyType::kHash: {
      std::vector<encodings::FieldValue> pairs;
      if (!ctx.Check(ctx.Hash(h.meta).GetAll(txn, h, encodings::HashGetAllPart::kBoth, &pairs))) {
        return false;
      }
      v->pairs = std::move(pairs);
      // In field order whatever order the version reads them in (a cache's is Redis's hash
      // order), so that a value dumps to the same bytes in every version.
      std::sort(v->pairs.begin(), v->pairs.end());
      return true;
    }
    case KeyType::kZset: {
      std::vector<encodings::ScoredMember> all;
      if (!ctx.Check(ctx.Zset(h.meta).RangeByRank(txn, h, 0, -1, false, &all))) return false;
      for (encodings::ScoredMember& m : all) v->scored.emplace_back(std::move(m.member), m.score);
      return true;
    }
    case KeyType::kSet:
      if (!ctx.Check(ctx.Set(h.meta).Members(txn, h, &v->elements))) return false;
      std::sort(v->elements.begin(), v->elements.end());
      return true;
    case KeyType::kList:
      if (h.meta.count == 0) return true;
      return ctx.Check(ctx.List(h.meta).Range(txn, h, 0, h.meta.count - 1, &v->elements));
  }
  return true;
}

// Writes `v` as the new key `key` of its type's configured encode-version, expiring at
// `expire_ms` (KeyMeta::kNoExpire: never). REQUIRES: the key is absent or was deleted in this
// command. Returns false after an error reply.
bool WriteValue(CommandContext& ctx, const std::string& key, rdb::Value* v, int64_t expire_ms) {
  encodings::KvTxn& txn = ctx.txn();
  KeyHandle h;
  h.key = key;
  h.meta = txn.NewMeta(v->type, ctx.engine().new_key_version(v->type));
  h.meta.expire_ms = expire_ms;
  h.is_new = true;
  switch (v->type) {
    case KeyType::kString:
      h.meta.value = std::move(v->str);
      txn.PutMeta(&h);
      return true;  // a string is its meta: nothing keeps data elsewhere
    case KeyType::kHash: {
      std::vector<std::pair<std::string_view, std::string_view>> pairs;
      for (const auto& [f, val] : v->pairs) pairs.emplace_back(f, val);
      int64_t ignored = 0;
      if (!ctx.Check(ctx.Hash(h.meta).Set(txn, &h, pairs, &ignored))) return false;
      break;
    }
    case KeyType::kZset: {
      std::vector<encodings::ScoredMember> elems;
      // The engine's scores are never -0 (zset_encoding.h): ZADD normalises it, so does RESTORE.
      for (auto& [m, s] : v->scored) elems.push_back({std::move(m), s == 0 ? 0.0 : s});
      encodings::ZAddResult ignored;
      if (!ctx.Check(ctx.Zset(h.meta).Add(txn, &h, encodings::ZAddFlags{}, elems, &ignored))) {
        return false;
      }
      ctx.KeyReady(key);
      break;
    }
    case KeyType::kSet: {
      std::vector<std::string_view> members(v->elements.begin(), v->elements.end());
      int64_t ignored = 0;
      if (!ctx.Check(ctx.Set(h.meta).Add(txn, &h, members, &ignored))) return false;
      break;
    }
    case KeyType::kList: {
      std::vector<std::string_view> elements(v->elements.begin(), v->elements.end());
      if (!ctx.Check(ctx.List(h.meta).Push(txn, &h, encodings::ListEnd::kRight, elements))) {
        return false;
      }
      ctx.KeyReady(key);
      break;
    }
  }
  // What a version keeps outside KV follows the expiry (zset v3's store), as for COPY.
  if (h.meta.has_expire()) {
    return ctx.Check(ctx.Encoding(h.meta).OnExpire(txn, h, KeyMeta::kNoExpire));
  }
  return true;
}

}  // namespace

bool DumpKey(CommandContext& ctx, const KeyHandle& h, std::string* payload) {
  rdb::Value v;
  if (!ReadValue(ctx, h, &v)) return false;
  *payload = rdb::DumpPayload(v, OptionsOf(ctx));
  return true;
}

// dumpCommand: nil for an absent key, else the payload.
void DumpCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.LoadAny(ctx.arg(1), &h, &exists)) return;
  if (!exists) {
    ctx.reply = Reply::Nil();
    return;
  }
  std::string payload;
  if (!DumpKey(ctx, h, &payload)) return;
  ctx.reply = Reply::Bulk(std::move(payload));
}

// restoreCommand: options, then the busy key, the TTL, the payload's footer and its object, in
// Redis's order of checks.
void RestoreCommand(CommandContext& ctx) {
  bool replace = false, absttl = false;
  int64_t lfu_freq = -1, lru_idle = -1;
  for (size_t j = 4; j < ctx.argc(); ++j) {
    const char* opt = ctx.arg(j).c_str();
    const bool additional = j + 1 < ctx.argc();
    if (!strcasecmp(opt, "replace")) {
      replace = true;
    } else if (!strcasecmp(opt, "absttl")) {
      absttl = true;
    } else if (!strcasecmp(opt, "idletime") && additional && lfu_freq == -1) {
      if (!ctx.ArgInt64(j + 1, &lru_idle)) return;
      if (lru_idle < 0) return ctx.ReplyError("ERR Invalid IDLETIME value, must be >= 0");
      ++j;
    } else if (!strcasecmp(opt, "freq") && additional && lru_idle == -1) {
      if (!ctx.ArgInt64(j + 1, &lfu_freq)) return;
      if (lfu_freq < 0 || lfu_freq > 255) {
        return ctx.ReplyError("ERR Invalid FREQ value, must be >= 0 and <= 255");
      }
      ++j;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  const std::string& key = ctx.arg(1);
  std::optional<KeyMeta> loaded;
  {
    KeyMeta meta;
    bool found = false;
    if (!ctx.Check(ctx.txn().GetMeta(key, &meta, &found))) return;
    if (found) loaded = std::move(meta);
  }
  if (!replace && loaded) return ctx.ReplyError("BUSYKEY Target key name already exists.");
  int64_t ttl = 0;
  if (!ctx.ArgInt64(2, &ttl)) return;
  if (ttl < 0) return ctx.ReplyError("ERR Invalid TTL value, must be >= 0");
  rdb::Value value;
  switch (rdb::ParsePayload(ctx.arg(3), &value)) {
    case rdb::ParseResult::kVersionOrChecksum:
      return ctx.ReplyError("ERR DUMP payload version or checksum are wrong");
    case rdb::ParseResult::kBadData:
      return ctx.ReplyError("ERR Bad data format");
    case rdb::ParseResult::kOk:
      break;
  }
  if (loaded) {
    bool existed = false;
    if (!ctx.PrepareOverwrite(key, &existed, &loaded)) return;
    if (existed) ctx.txn().DeleteMeta(key);
  }
  const int64_t now = ctx.txn().now_ms();
  // Redis adds mstime() to a relative TTL; a sum past LLONG_MAX saturates here (Redis's
  // overflows into the past).
  if (ttl != 0 && !absttl) ttl = ttl > LLONG_MAX - now ? LLONG_MAX : ttl + now;
  // checkAlreadyExpired: the key is not created (a REPLACE still deleted the old one).
  if (ttl != 0 && ttl <= now) {
    ctx.reply = Reply::Ok();
    return;
  }
  if (!WriteValue(ctx, key, &value, ttl != 0 ? ttl : KeyMeta::kNoExpire)) return;
  ctx.reply = Reply::Ok();
}

}  // namespace kvlab::engine
