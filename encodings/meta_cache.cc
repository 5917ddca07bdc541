#include "encodings/meta_cache.h"

#include "encodings/tier_ops.h"

namespace kvlab::encodings {

using redis::TierRole;
using resp::Reply;

std::string TierMetaCache::EntryName(const KvTxn& txn, std::string_view key) const {
  std::string name = "c#" + txn.codec().Namespace(txn.db()) + "{" + std::string(key) + "}meta";
  const uint64_t generation = tier_->meta_cache_generation();
  for (int i = 0; i < 8; ++i) name.push_back(static_cast<char>(generation >> (56 - 8 * i)));
  return name;
}

bool TierMetaCache::Read(KvTxn& txn, const std::vector<std::string_view>& keys,
                         const std::vector<size_t>& which,
                         std::vector<std::optional<std::string>>* values) {
  std::vector<std::vector<std::string>> commands(1, {"MGET"});
  for (size_t i : which) commands[0].push_back(EntryName(txn, keys[i]));
  // A meta cache entry is its own dirty-tracking unit (the prefix is the entry's name).
  for (size_t j = 0; j < which.size(); ++j) {
    if (!tier_->CacheUsable(commands[0][j + 1], &txn.tier_counts())) return false;
  }
  std::vector<Reply> replies;
  if (!tier_->Pipeline(TierRole::kCache, commands, &replies, &txn.tier_counts()).ok() ||
      replies[0].type() != Reply::Type::kArray) {
    ++txn.tier_counts().degraded;
    return false;
  }
  for (size_t j = 0; j < which.size(); ++j) {
    const Reply& r = replies[0].elements()[j];
    if (r.type() == Reply::Type::kBulk) (*values)[j] = r.str();
  }
  return true;
}

void TierMetaCache::Refill(KvTxn& txn, const std::vector<std::string_view>& keys,
                           const std::vector<size_t>& which, const std::vector<size_t>& misses,
                           const std::vector<std::optional<std::string>>& values) {
  const std::string ttl = std::to_string(tier_->meta_cache_ttl_ms.load());
  for (size_t j : misses) {
    if (!values[j]) continue;  // absent keys are not cached
    const std::string name = EntryName(txn, keys[which[j]]);
    CacheWriteNow(TierSession(tier_, &txn), name, {{"SET", name, *values[j], "PX", ttl}}, {name});
  }
}

void TierMetaCache::Written(KvTxn& txn, std::string_view key, const std::string* bytes) {
  const std::string name = EntryName(txn, key);
  if (bytes == nullptr) {
    CacheWriteAfterCommit(TierSession(tier_, &txn), name, {{"DEL", name}}, {name});
    return;
  }
  // Only an entry that exists is rewritten, after the commit.
  CacheWriteAfterCommit(
      TierSession(tier_, &txn), name,
      {{"SET", name, *bytes, "XX", "PX", std::to_string(tier_->meta_cache_ttl_ms.load())}}, {name});
}

void TierMetaCache::Stale(KvTxn& txn, std::string_view key) {
  const std::string name = EntryName(txn, key);
  tier_->MarkDirty(name, {name});
}

}  // namespace kvlab::encodings
