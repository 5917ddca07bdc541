// SWAPDB, and the persistence commands of a server with nothing to persist: SAVE, BGSAVE,
// BGREWRITEAOF, LASTSAVE.
//
// SWAPDB. Redis swaps two pointers. In kvlab the database is a byte of every record's key (the
// namespace, key_codec.h), so swapping two databases rewrites every record of both: SWAPDB
// reads each record kind's range of the two databases, range-deletes both, and puts every
// record back under the other database's byte, as one atomic batch: O(records of the two
// databases) reads and writes, and the batch holds them all (docs/amplification.md,
// docs/engine.md "SWAPDB"). It locks everything, as FLUSHDB does. The Redis tier names its
// entries by database too: the caches of both databases are dropped (a cache miss costs time,
// never data), and SWAPDB refuses, writing nothing, when either database holds a key whose
// version keeps data in the store Redis (zset v3), which it cannot rename in the same atomic
// step. Then, as Redis's dbSwapDatabases: every key present in either database touches the
// watches on it in both, and every list and zset now in either database is made ready for the
// clients blocked on it.
//
// The persistence commands. kvlab writes each command's batch to its store before the reply,
// so a snapshot or an append-only file would add nothing: SAVE and BGSAVE succeed at once
// (BGSAVE "started", or "scheduled" inside EXEC, as Redis replies there), BGREWRITEAOF likewise,
// and LASTSAVE reports the last of them (or the engine's start).
#include <strings.h>

#include <climits>

#include "encodings/coding.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using backends::IteratorOptions;
using encodings::KeyCodec;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::PrefixSuccessor;
using encodings::TierUse;
using redis::RedisTier;
using resp::ParseInt64;
using resp::Reply;

namespace {

// getIntFromObjectOrReply with a message: not an integer, or outside int, both give it.
bool ParseDbIndex(CommandContext& ctx, size_t i, const char* error, int64_t* db) {
  if (!ParseInt64(ctx.arg(i), db) || *db < INT_MIN || *db > INT_MAX) {
    ctx.ReplyError(error);
    return false;
  }
  return true;
}

// One record of a swapped database.
struct Record {
  std::string key;
  std::string value;
};

// Reads every record under `prefix` into *out. The database byte is the prefix's last byte.
Status ReadRange(backends::KvStore& kv, const std::string& prefix, std::vector<Record>* out) {
  IteratorOptions options;
  options.lower_bound = prefix;
  options.upper_bound = PrefixSuccessor(prefix);
  auto it = kv.NewIterator(options);
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    out->push_back({std::string(it->key()), std::string(it->value())});
  }
  return it->status();
}

}  // namespace

void SwapdbCommand(CommandContext& ctx) {
  int64_t a = 0, b = 0;
  if (!ParseDbIndex(ctx, 1, "ERR invalid first DB index", &a)) return;
  if (!ParseDbIndex(ctx, 2, "ERR invalid second DB index", &b)) return;
  const int databases = ctx.engine().databases();
  if (a < 0 || a >= databases || b < 0 || b >= databases) {
    return ctx.ReplyError("ERR DB index is out of range");
  }
  ctx.reply = Reply::Ok();
  if (a == b) return;
  const KeyCodec& codec = ctx.txn().codec();
  const auto da = static_cast<uint8_t>(a);
  const auto db = static_cast<uint8_t>(b);

  // Each record kind's prefix in both databases: the database byte is the prefix's last.
  std::vector<std::pair<std::string, std::string>> prefixes = {
      {codec.MetaPrefix(da), codec.MetaPrefix(db)}};
  for (encodings::SubKeyTag tag : ctx.engine().registry().AllSubKeyTags()) {
    prefixes.emplace_back(codec.SubKeyDbPrefix(tag, da), codec.SubKeyDbPrefix(tag, db));
  }
  if (codec.options().ttl_index) {
    prefixes.emplace_back(codec.TtlIndexPrefix(da), codec.TtlIndexPrefix(db));
  }
  std::vector<std::vector<Record>> in_a(prefixes.size()), in_b(prefixes.size());
  for (size_t i = 0; i < prefixes.size(); ++i) {
    if (!ctx.Check(ReadRange(ctx.txn().kv(), prefixes[i].first, &in_a[i]))) return;
    if (!ctx.Check(ReadRange(ctx.txn().kv(), prefixes[i].second, &in_b[i]))) return;
  }

  // The keys of both databases (from their metas, prefixes[0]), expired ones included: Redis's
  // dictionaries hold a key until it is reclaimed, and so does the store.
  struct Key {
    std::string name;
    KeyMeta meta;
    bool ready_type;  // a list or a zset: what blocked clients wait for
  };
  std::vector<Key> keys_a, keys_b;
  bool uses_tier = false;
  for (auto [records, from, keys] : {std::tuple{&in_a[0], da, &keys_a}, {&in_b[0], db, &keys_b}}) {
    for (const Record& r : *records) {
      Key k;
      if (!codec.DecodeMetaKey(from, r.key, &k.name)) continue;
      if (!KeyMeta::Decode(r.value, ctx.txn().registry(), &k.meta).ok()) continue;
      const encodings::EncodingSpec* row =
          ctx.engine().registry().Find(k.meta.type, k.meta.encode_version);
      if (row != nullptr && row->tier == TierUse::kStore) {
        // docs/deviations.json: zset-store-swapdb-unsupported.
        return ctx.ReplyError("ERR kvlab SWAPDB cannot move key '" +
                              std::string(errors::ClientText(k.name)) + "' of database " +
                              std::to_string(from) +
                              ": its encode-version keeps its data in the store Redis, under its "
                              "database; nothing was swapped");
      }
      uses_tier |= row != nullptr && row->tier != TierUse::kNone;
      k.ready_type = k.meta.type == KeyType::kList || k.meta.type == KeyType::kZset;
      keys->push_back(std::move(k));
    }
  }
  // The caches of both databases name entries by database: they go, before KV changes (a
  // failure leaves KV as it was). Nothing to drop when neither database has a tier key: their
  // namespaces can hold only entries of dead key-versions, which no read reaches.
  if (RedisTier* tier = ctx.engine().tier(); tier != nullptr && uses_tier) {
    for (uint8_t d : {da, db}) {
      bool store_touched = false;
      Status s =
          tier->DropNamespace("c#" + codec.Namespace(d), &ctx.txn().tier_counts(), &store_touched);
      if (!s.ok()) {
        return ctx.ReplyError("ERR storage error: " + s.ToString() + "; nothing was swapped");
      }
    }
  }

  // The batch: both databases' ranges deleted, then every record put back under the other's
  // byte (records apply in order, so the puts win over the range deletes).
  auto& batch = ctx.txn().batch();
  for (const auto& [pa, pb] : prefixes) {
    batch.DeleteRange(pa, PrefixSuccessor(pa));
    batch.DeleteRange(pb, PrefixSuccessor(pb));
  }
  for (size_t i = 0; i < prefixes.size(); ++i) {
    const size_t at = prefixes[i].first.size() - 1;
    for (Record& r : in_a[i]) {
      r.key[at] = static_cast<char>(db);
      batch.Put(r.key, r.value);
    }
    for (Record& r : in_b[i]) {
      r.key[at] = static_cast<char>(da);
      batch.Put(r.key, r.value);
    }
  }

  // touchAllWatchedKeysInDb both ways: a key watched in either database that exists in either
  // one changes.
  WatchedKeys& watched = ctx.engine().watched_keys();
  if (watched.active()) {
    for (const auto* keys : {&keys_a, &keys_b}) {
      for (const Key& k : *keys) {
        watched.Touch(da, k.name);
        watched.Touch(db, k.name);
      }
    }
  }
  // scanDatabaseForReadyKeys on both: the host retries only the clients blocked on these.
  for (const Key& k : keys_a) {
    if (k.ready_type) ctx.KeyReadyIn(db, k.name);
  }
  for (const Key& k : keys_b) {
    if (k.ready_type) ctx.KeyReadyIn(da, k.name);
  }
}

void SaveCommand(CommandContext& ctx) {
  ctx.engine().set_last_save(ctx.txn().now_ms() / 1000);
  ctx.reply = Reply::Ok();
}

// BGSAVE [SCHEDULE]
void BgsaveCommand(CommandContext& ctx) {
  if (ctx.argc() > 2 || (ctx.argc() == 2 && strcasecmp(ctx.arg(1).c_str(), "schedule") != 0)) {
    return ctx.ReplyError(errors::kSyntax);
  }
  // Inside EXEC Redis schedules the save for after the transaction (server.in_exec).
  if (ctx.session().deny_blocking) {
    ctx.reply = Reply::Status("Background saving scheduled");
  } else {
    ctx.reply = Reply::Status("Background saving started");
  }
  ctx.engine().set_last_save(ctx.txn().now_ms() / 1000);
}

void BgrewriteaofCommand(CommandContext& ctx) {
  ctx.reply =
      Reply::Status(ctx.session().deny_blocking ? "Background append only file rewriting scheduled"
                                                : "Background append only file rewriting started");
}

void LastsaveCommand(CommandContext& ctx) { ctx.reply = Reply::Integer(ctx.engine().last_save()); }

}  // namespace kvlab::engine
