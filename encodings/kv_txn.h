// KvTxn: one command's access to the keyspace.
//
// Reads go straight to the store the engine hands in (a counting view, so every read is
// accounted to the command). Writes collect in one WriteBatch that the engine commits
// atomically when the command ends: one command = one atomic batch. Key-metas written during
// the command are remembered, so that a later read in the same command (DEL k k, MSET k 1 k 2)
// sees them before the batch is committed.
//
// KvTxn knows nothing of the Redis tier: the KV-only encodings (whose registry row has
// TierUse::kNone) see only this. The encodings that use the tier were given it when they were
// built (registry.h, EncodingDeps); per command they open a TierSession (tier_ops.h) over this
// transaction, which counts their round trips in tier_counts() and queues their post-commit
// steps with AfterCommit. The optional key-meta cache plugs in as a KeyMetaCache
// (meta_cache.h implements it over the tier).
//
// The engine's per-key locks guarantee that no other command writes the keys of this command
// between its reads and its commit.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/kv_store.h"
#include "encodings/key_codec.h"
#include "encodings/key_meta.h"
#include "encodings/key_version.h"
#include "encodings/shadow_store.h"
#include "redis/tier_counts.h"

namespace kvlab::encodings {

class EncodingRegistry;
class KvTxn;

// A Redis key as one command sees it: its name, its key-meta, and whether that meta is only in
// memory so far (a key this command creates). A new key has a fresh key-version, so it has no
// sub-keys yet and the encodings skip their existence checks.
struct KeyHandle {
  std::string_view key;
  KeyMeta meta;
  bool is_new = false;
  // This command created the incarnation (a fresh key-version: a new key, a copy, a migration),
  // so KV holds none of it until the command commits. Set by KvTxn::PutMeta(KeyHandle*) when it
  // stores a new key's meta; false for a key loaded from KV.
  bool created = false;
};

// A cache of key-metas in front of KV (kv.key.meta.cache.enable). A KvTxn given one consults it
// on every meta read of the command and tells it every meta write. The entries hold the meta's
// encoded bytes (KeyMeta::Encode).
class KeyMetaCache {
 public:
  virtual ~KeyMetaCache() = default;
  // Reads the cached metas of keys[which[j]] into values->at(j), left empty on a miss. Returns
  // false when the cache cannot be used: KvTxn then reads KV and does not refill.
  // REQUIRES: values->size() == which.size().
  virtual bool Read(KvTxn& txn, const std::vector<std::string_view>& keys,
                    const std::vector<size_t>& which,
                    std::vector<std::optional<std::string>>* values) = 0;
  // After a Read that returned true: the metas of keys[which[j]] for each j in `misses`, as
  // read from KV (values[j]; empty when the key is absent).
  virtual void Refill(KvTxn& txn, const std::vector<std::string_view>& keys,
                      const std::vector<size_t>& which, const std::vector<size_t>& misses,
                      const std::vector<std::optional<std::string>>& values) = 0;
  // The command writes the meta of `key` (`bytes`), or deletes it (nullptr).
  virtual void Written(KvTxn& txn, std::string_view key, const std::string* bytes) = 0;
  // The meta of `key` in KV may differ from the cached one (it was written outside the batch,
  // and the command failed): the entry must not be read again.
  virtual void Stale(KvTxn& txn, std::string_view key) = 0;
};

class KvTxn {
 public:
  // REQUIRES: every pointer outlives the transaction. `meta_cache` is null when the key-meta
  // cache is off.
  KvTxn(backends::KvStore* kv, const KeyCodec* codec, const EncodingRegistry* registry,
        KeyVersionGenerator* versions, uint8_t db, int64_t now_ms,
        KeyMetaCache* meta_cache = nullptr)
      : kv_(kv),
        caps_(kv->capabilities()),
        codec_(codec),
        registry_(registry),
        versions_(versions),
        db_(db),
        now_ms_(now_ms),
        meta_cache_(meta_cache),
        writes_(&own_writes_) {}
  KvTxn(const KvTxn&) = delete;
  KvTxn& operator=(const KvTxn&) = delete;

  // The same command's view of database `db` (MOVE's target, COPY ... DB n): its own db(), and
  // everything else shared with this transaction: the store, the clock, one batch, one list of
  // written metas (GetMeta in either view sees the other's writes), one set of tier counts and
  // post-commit steps. REQUIRES: the view outlives every step queued through it (the engine
  // keeps a command's views until its post-commit steps have run: CommandContext::TxnIn), and
  // this transaction outlives the view.
  std::unique_ptr<KvTxn> NewView(uint8_t db) {
    return std::unique_ptr<KvTxn>(new KvTxn(*this, db));
  }

  // The store the encodings read: the engine's (counting) store, seen through the ranges that
  // WriteShadowed gave read-your-writes.
  backends::KvStore& kv() { return writes_->shadow != nullptr ? *writes_->shadow : *kv_; }
  const backends::Capabilities& capabilities() const { return caps_; }
  const KeyCodec& codec() const { return *codec_; }
  const EncodingRegistry& registry() const { return *registry_; }
  uint8_t db() const { return db_; }
  // The command's time: fixed for the whole command, as Redis does.
  int64_t now_ms() const { return now_ms_; }
  backends::WriteBatch& batch() { return writes_->batch; }

  // Reads the key-meta of `key`. *found is false when the key is absent or expired.
  // Fails with Corruption when the stored meta does not decode.
  Status GetMeta(std::string_view key, KeyMeta* meta, bool* found);
  // GetMeta for several keys at once: one MultiGet for the keys this command has not written.
  // metas->at(i) is empty when keys[i] is absent or expired.
  Status GetMetas(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<KeyMeta>>* metas);
  // Queues a write of the meta, and remembers it for GetMeta.
  // With the TTL index (KeyCodecOptions::ttl_index) it also keeps the key's index entry: a put
  // of the new expiry's entry, unless the meta this command read or wrote before had the same
  // expiry, and a delete of the old expiry's entry when that meta had another. A write that
  // read no meta (a blind SET) cannot delete the old entry: it stays, stale, until the active
  // expiry cycle meets it and checks it against the meta.
  void PutMeta(std::string_view key, const KeyMeta& meta);
  // Queues a delete of the meta (O(1): the key's sub-keys become unreachable through their
  // key-version), and remembers it for GetMeta. With the TTL index, also deletes the entry of
  // the expiry the meta read before had.
  void DeleteMeta(std::string_view key);
  // Tells the transaction the meta stored for `key` (nullptr: none), read by the caller
  // without GetMeta (the collector's reap), so that PutMeta and DeleteMeta keep the TTL index
  // as if GetMeta had read it.
  void NoteStoredMeta(std::string_view key, const KeyMeta* meta);
  // A meta for a new key: a fresh key-version, no expiry, count 0 (when the version keeps one).
  KeyMeta NewMeta(KeyType type, uint8_t encode_version);

  // Queues a write of the handle's meta and marks it stored.
  void PutMeta(KeyHandle* handle) {
    PutMeta(handle->key, handle->meta);
    handle->created = handle->created || handle->is_new;
    handle->is_new = false;
  }

  // Writes `batch` to the store at once, outside the command's batch and outside a
  // transaction's or a pipeline group's pending write (the engine's durable_store): for records
  // that must be in KV before a write outside KV happens (zset v3's store-write intent and the
  // i# records its refs need). Counted as one more write of the command. Reads see it (through
  // a pending write, unless it holds a record of the same key: none of these).
  Status WriteNow(const backends::WriteBatch& batch) {
    return (durable_ != nullptr ? durable_ : kv_)->Write(batch);
  }
  // Tells the key-meta cache, if any, that its entry for `key` may be stale: the command wrote
  // the meta with WriteNow and then failed, so the commit that would rewrite the entry never
  // came.
  void MetaMayBeStale(std::string_view key) {
    if (meta_cache_ != nullptr) meta_cache_->Stale(*this, key);
  }
  // Where WriteNow writes. REQUIRES: outlives the transaction; writes the store under the one
  // the transaction reads (the same data), counted as the command's.
  void set_durable_store(backends::KvStore* store) { durable_ = store; }

  // Runs `write`, which queues records under `prefixes` (in the batch, or straight into the
  // store through kv() as zset v3's index does), and then serves every later read of this
  // command under those prefixes from what it queued there (shadow_store.h): a migrated key's
  // new records, read by the write that follows the migration before the batch commits.
  // REQUIRES: the store holds nothing under `prefixes` (a key-version, or an Ardb key, that this
  // command created).
  Status WriteShadowed(const std::vector<std::string>& prefixes,
                       const std::function<Status()>& write);

  // The command's Redis-tier round trips, commands, cache hits and misses, counted by whatever
  // talks to the tier on its behalf (TierSession, the key-meta cache, the engine).
  redis::TierCounts& tier_counts() { return writes_->tier_counts; }

  // Runs `step` after the command's batch has committed (Redis-tier writes that must follow
  // the KV commit). A failing step turns the reply into its error; later steps still run.
  void AfterCommit(std::function<Status()> step) {
    writes_->after_commit.push_back(std::move(step));
  }
  std::vector<std::function<Status()>>& after_commit() { return writes_->after_commit; }
  // Runs `step` if the command's batch fails to commit after a write outside KV already
  // happened (zset v3's store), so that KV can be made to follow it later.
  void OnCommitFailure(std::function<void()> step) {
    writes_->on_failure.push_back(std::move(step));
  }
  std::vector<std::function<void()>>& on_commit_failure() { return writes_->on_failure; }

  // The prefix of the key's sub-keys of one kind, for its current incarnation. For an
  // Ardb-layout key (no key-version, key_codec.h) it is ArdbKeyPrefix, followed for kField and
  // kScore by the Ardb type of that kind of record (a hash's fields 04, a set's members 08, a
  // zset's members 0b and its score index 0a, a list's elements 06); kArdb gives every record
  // of the key.
  std::string SubKeyPrefix(SubKeyTag tag, const KeyHandle& handle) const;

 private:
  backends::KvStore* kv_;
  const backends::Capabilities caps_;
  const KeyCodec* codec_;
  const EncodingRegistry* registry_;
  KeyVersionGenerator* versions_;
  const uint8_t db_;
  const int64_t now_ms_;
  KeyMetaCache* const meta_cache_;
  backends::KvStore* durable_ = nullptr;  // WriteNow's store; null: kv_

  // What the command writes, shared by its views of other databases (NewView).
  struct Writes {
    redis::TierCounts tier_counts;
    std::vector<std::function<Status()>> after_commit;
    std::vector<std::function<void()>> on_failure;
    backends::WriteBatch batch;
    // Metas written by the command: (database, key, meta or nullopt for deleted). Usually 0-2.
    struct Meta {
      uint8_t db;
      std::string key;
      std::optional<KeyMeta> meta;
    };
    std::vector<Meta> metas;
    // With the TTL index: the expiry of each meta read from the store (kNoExpire when absent
    // or without one), which PutMeta and DeleteMeta compare with to keep the index.
    struct Stored {
      uint8_t db;
      std::string key;
      int64_t expire_ms;
    };
    std::vector<Stored> stored;
    std::unique_ptr<ShadowStore> shadow;  // set by the first WriteShadowed
  };
  Writes own_writes_;     // unused by a view (NewView)
  Writes* const writes_;  // &own_writes_, or the transaction's this is a view of

  KvTxn(KvTxn& of, uint8_t db)
      : kv_(of.kv_),
        caps_(of.caps_),
        codec_(of.codec_),
        registry_(of.registry_),
        versions_(of.versions_),
        db_(db),
        now_ms_(of.now_ms_),
        meta_cache_(of.meta_cache_),
        durable_(of.durable_),
        writes_(of.writes_) {}

  // The meta this command wrote for key in this view's database, if any: nullptr when none.
  const std::optional<KeyMeta>* Written(std::string_view key) const;
  // With the TTL index: remembers the expiry of the meta read from the store for key (bytes,
  // nullptr when absent). Undecodable bytes are not remembered.
  void RememberStored(std::string_view key, const std::string* bytes);
  // The expiry the key's meta has before this write: the command's own last write of it, else
  // the meta it read from the store. False when it knows neither (a blind write).
  bool PreviousExpiry(std::string_view key, int64_t* expire_ms) const;
  Status ReadMetasFromKv(const std::vector<std::string>& meta_keys,
                         std::vector<std::optional<std::string>>* values);
};

}  // namespace kvlab::encodings
