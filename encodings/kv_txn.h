// KvTxn: one command's access to the keyspace.
//
// Reads go straight to the store the engine hands in (a counting view, so every read is
// accounted to the command). Writes collect in one WriteBatch that the engine commits
// atomically when the command ends: one command = one atomic batch. Key-metas written during
// the command are remembered, so that a later read in the same command (DEL k k, MSET k 1 k 2)
// sees them before the batch is committed.
//
// The engine's per-key locks guarantee that no other command writes the keys of this command
// between its reads and its commit.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/kv_store.h"
#include "encodings/key_codec.h"
#include "encodings/key_meta.h"
#include "encodings/key_version.h"
#include "redis/tier.h"

namespace kvlab::encodings {

class EncodingRegistry;

// A Redis key as one command sees it: its name, its key-meta, and whether that meta is only in
// memory so far (a key this command creates). A new key has a fresh key-version, so it has no
// sub-keys yet and the encodings skip their existence checks.
struct KeyHandle {
  std::string_view key;
  KeyMeta meta;
  bool is_new = false;
};

class KvTxn {
 public:
  // REQUIRES: every pointer outlives the transaction.
  KvTxn(backends::KvStore* kv, const KeyCodec* codec, const EncodingRegistry* registry,
        KeyVersionGenerator* versions, uint8_t db, int64_t now_ms, redis::RedisTier* tier = nullptr)
      : kv_(kv),
        caps_(kv->capabilities()),
        codec_(codec),
        registry_(registry),
        versions_(versions),
        db_(db),
        now_ms_(now_ms),
        tier_(tier) {}

  backends::KvStore& kv() { return *kv_; }
  const backends::Capabilities& capabilities() const { return caps_; }
  const KeyCodec& codec() const { return *codec_; }
  const EncodingRegistry& registry() const { return *registry_; }
  uint8_t db() const { return db_; }
  // The command's time: fixed for the whole command, as Redis does.
  int64_t now_ms() const { return now_ms_; }
  backends::WriteBatch& batch() { return batch_; }

  // Reads the key-meta of `key`. *found is false when the key is absent or expired.
  // Fails with Corruption when the stored meta does not decode.
  Status GetMeta(std::string_view key, KeyMeta* meta, bool* found);
  // GetMeta for several keys at once: one MultiGet for the keys this command has not written.
  // metas->at(i) is empty when keys[i] is absent or expired.
  Status GetMetas(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<KeyMeta>>* metas);
  // Queues a write of the meta, and remembers it for GetMeta.
  void PutMeta(std::string_view key, const KeyMeta& meta);
  // Queues a delete of the meta (O(1): the key's sub-keys become unreachable through their
  // key-version), and remembers it for GetMeta.
  void DeleteMeta(std::string_view key);
  // A meta for a new key: a fresh key-version, no expiry, count 0 (when the version keeps one).
  KeyMeta NewMeta(KeyType type, uint8_t encode_version);

  // Queues a write of the handle's meta and marks it stored.
  void PutMeta(KeyHandle* handle) {
    PutMeta(handle->key, handle->meta);
    handle->is_new = false;
  }

  // The Redis tier, or nullptr when the engine has none. Its calls are counted in
  // tier_counts(), per command.
  redis::RedisTier* tier() const { return tier_; }
  redis::TierCounts& tier_counts() { return tier_counts_; }
  // The Redis-tier key prefix of the key's current incarnation: "c#" ns "{" key "}" version.
  std::string TierPrefix(const KeyHandle& handle) const {
    return redis::TierKeyPrefix(codec_->Namespace(db_), handle.key, handle.meta.key_version);
  }

  // Runs `step` after the command's batch has committed (Redis-tier writes that must follow
  // the KV commit). A failing step turns the reply into its error; later steps still run.
  void AfterCommit(std::function<Status()> step) { after_commit_.push_back(std::move(step)); }
  std::vector<std::function<Status()>>& after_commit() { return after_commit_; }
  // Runs `step` if the command's batch fails to commit after a write outside KV already
  // happened (zset v3's store), so that KV can be made to follow it later.
  void OnCommitFailure(std::function<void()> step) { on_failure_.push_back(std::move(step)); }
  std::vector<std::function<void()>>& on_commit_failure() { return on_failure_; }

  // The prefix of the key's sub-keys of one kind, for its current incarnation.
  std::string SubKeyPrefix(SubKeyTag tag, const KeyHandle& handle) const {
    return codec_->SubKeyPrefix(tag, db_, handle.key, handle.meta.key_version);
  }

 private:
  backends::KvStore* kv_;
  const backends::Capabilities caps_;
  const KeyCodec* codec_;
  const EncodingRegistry* registry_;
  KeyVersionGenerator* versions_;
  const uint8_t db_;
  const int64_t now_ms_;
  redis::RedisTier* tier_;
  redis::TierCounts tier_counts_;
  std::vector<std::function<Status()>> after_commit_;
  std::vector<std::function<void()>> on_failure_;
  backends::WriteBatch batch_;
  // The meta this command wrote for key, if any: *written is false when it wrote none.
  const std::optional<KeyMeta>* Written(std::string_view key) const;
  // The optional key-meta cache (kv.key.meta.cache.enable): "c#" ns "{" key "}meta" generation
  // (8 bytes, RedisTier::meta_cache_generation) -> meta.
  bool meta_cache() const;
  std::string MetaCacheKey(std::string_view key) const;
  Status ReadMetasFromKv(const std::vector<std::string>& meta_keys,
                         std::vector<std::optional<std::string>>* values);
  // MGETs the cached metas of keys[which]; false when the cache is unusable.
  bool ReadMetaCache(const std::vector<std::string_view>& keys, const std::vector<size_t>& which,
                     std::vector<std::optional<std::string>>* values);
  void RefillMetaCache(const std::vector<std::string_view>& keys, const std::vector<size_t>& which,
                       const std::vector<size_t>& misses,
                       const std::vector<std::optional<std::string>>& values);

  // Metas written by this command: (key, meta or nullopt for deleted). Usually 0-2 entries.
  std::vector<std::pair<std::string, std::optional<KeyMeta>>> written_;
};

}  // namespace kvlab::encodings
