// The optional key-meta cache (kv.key.meta.cache.enable, Camellia's), over the cache Redis:
//
//   "c#" namespace "{" key "}meta" generation (8 bytes, big-endian) -> the key-meta's bytes
//
// refilled on a miss (absent keys are not cached), rewritten after a write commits (only an entry
// that exists: SET ... XX), deleted after a delete commits. The generation is
// RedisTier::meta_cache_generation(): switching the cache off and on starts a new one, so that
// entries that missed writes meanwhile are never read (docs/engine.md). A cache that is down or
// dirty sends reads to KV, as the collection caches do (tier_ops.h).
//
// KvTxn (kv_txn.h) knows only the KeyMetaCache interface; the engine hands a transaction this
// cache while the tier's meta_cache() is on.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "redis/tier.h"

namespace kvlab::encodings {

class TierMetaCache final : public KeyMetaCache {
 public:
  // REQUIRES: tier is not null and outlives this cache.
  explicit TierMetaCache(redis::RedisTier* tier) : tier_(tier) {}

  bool Read(KvTxn& txn, const std::vector<std::string_view>& keys, const std::vector<size_t>& which,
            std::vector<std::optional<std::string>>* values) override;
  void Refill(KvTxn& txn, const std::vector<std::string_view>& keys,
              const std::vector<size_t>& which, const std::vector<size_t>& misses,
              const std::vector<std::optional<std::string>>& values) override;
  void Written(KvTxn& txn, std::string_view key, const std::string* bytes) override;
  // Marks the entry dirty (redis/tier.h): it is deleted before the cache is read for it again.
  void Stale(KvTxn& txn, std::string_view key) override;

 private:
  std::string EntryName(const KvTxn& txn, std::string_view key) const;

  redis::RedisTier* const tier_;
};

}  // namespace kvlab::encodings
