// Set v2 and v3: v0 and v1 in KV, plus a Redis cache of the whole set (cache-aside, with a TTL).
//
//   smembers cache  c# ns {key} key-version -> the whole set (Redis set,
//                   kv.cache.smembers.cache.millis)
//
// SMEMBERS (and every full read of the algebra, SRANDMEMBER and SPOP) tries the cache; a miss
// reads KV and refills it. Membership probes (SISMEMBER, SMISMEMBER, the algebra's probes) ask
// the cache when the entry exists and read KV points otherwise, without loading the whole set
// for a point question. v3's SCARD asks the cache first (it has no count). Writes commit to KV
// first, then update the entry only if it exists (one EVAL that runs SADD/SREM only when the key
// exists). A cache that is down or dirty sends reads to KV (degraded, counted) and marks what
// writes could not update (redis/tier.h), so that no stale entry is ever served.
#include <algorithm>

#include "encodings/set_encoding.h"
#include "encodings/tier_ops.h"
#include "encodings/tiered_encodings.h"

namespace kvlab::encodings {

using resp::Reply;

namespace {

// `command prefix args...` when the entry exists, in chunks Lua can unpack.
std::vector<std::vector<std::string>> IfExistsChunks(std::string_view command,
                                                     const std::string& prefix,
                                                     const std::vector<std::string_view>& args) {
  std::vector<std::vector<std::string>> out;
  for (size_t start = 0; start < args.size(); start += kMaxLuaArgs) {
    const size_t end = std::min(args.size(), start + kMaxLuaArgs);
    out.push_back(IfExists(command, prefix,
                           std::vector<std::string>(args.begin() + start, args.begin() + end)));
  }
  return out;
}

class CachedSet final : public SetEncoding {
 public:
  CachedSet(std::unique_ptr<SetEncoding> inner, uint8_t version, bool size_from_cache,
            redis::RedisTier* tier)
      : inner_(std::move(inner)),
        version_(version),
        size_from_cache_(size_from_cache),
        tier_(tier) {}

  uint8_t version() const override { return version_; }

  Status Contains(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& members,
                  std::vector<bool>* found) override {
    found->assign(members.size(), false);
    if (h.is_new || members.empty()) return Status::OK();
    const std::string prefix = Session(txn).Prefix(h);
    std::vector<Reply> replies;
    if (CacheRead(Session(txn), prefix, IfExistsChunks("SMISMEMBER", prefix, members), &replies)) {
      // Each chunk replies nil when the entry is absent, else [[0|1, ...]].
      bool hit = true;
      for (const Reply& r : replies) hit = hit && r.type() == Reply::Type::kArray;
      if (hit) {
        size_t i = 0;
        for (const Reply& r : replies) {
          for (const Reply& x : r.elements()[0].elements()) (*found)[i++] = x.integer() == 1;
        }
        ++txn.tier_counts().cache_hits;
        return Status::OK();
      }
      ++txn.tier_counts().cache_misses;
    }
    return inner_->Contains(txn, h, members, found);
  }

  Status Members(KvTxn& txn, const KeyHandle& h, std::vector<std::string>* out) override {
    out->clear();
    if (h.is_new) return Status::OK();
    const std::string prefix = Session(txn).Prefix(h);
    std::vector<Reply> replies;
    const bool cached = CacheRead(Session(txn), prefix, {{"SMEMBERS", prefix}}, &replies);
    if (cached && !replies[0].elements().empty()) {
      ++txn.tier_counts().cache_hits;
      for (const Reply& r : replies[0].elements()) out->push_back(r.str());
      return Status::OK();
    }
    if (cached) ++txn.tier_counts().cache_misses;
    KVLAB_RETURN_IF_ERROR(inner_->Members(txn, h, out));
    if (cached && !out->empty()) {
      std::vector<std::string> sadd = {"SADD", prefix};
      sadd.insert(sadd.end(), out->begin(), out->end());
      CacheWriteNow(
          Session(txn), prefix,
          {std::move(sadd), {"PEXPIRE", prefix, std::to_string(tier_->smembers_ttl_ms.load())}},
          {prefix});
    }
    return Status::OK();
  }

  Status Size(KvTxn& txn, const KeyHandle& h, uint64_t* size) override {
    if (size_from_cache_ && !h.is_new) {
      const std::string prefix = Session(txn).Prefix(h);
      std::vector<Reply> replies;
      if (CacheRead(Session(txn), prefix, {{"SCARD", prefix}}, &replies)) {
        if (replies[0].integer() > 0) {
          ++txn.tier_counts().cache_hits;
          *size = static_cast<uint64_t>(replies[0].integer());
          return Status::OK();
        }
        ++txn.tier_counts().cache_misses;
      }
    }
    return inner_->Size(txn, h, size);
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<std::string>* out,
              std::optional<std::string>* next) override {
    return inner_->Scan(txn, h, after, count, out, next);
  }

  Status Add(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
             int64_t* reply) override {
    const bool is_new = h->is_new;
    KVLAB_RETURN_IF_ERROR(inner_->Add(txn, h, members, reply));
    // A new key has a new key-version, so no cache entry; v2 knows when nothing was added.
    if (!is_new && *reply > 0) UpdateCache(txn, *h, "SADD", members);
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                const RemoveHint& hint, int64_t* reply) override {
    KVLAB_RETURN_IF_ERROR(inner_->Remove(txn, h, members, hint, reply));
    // v2 knows when nothing was removed; v3 replies the members given, so it always updates.
    if (*reply > 0) UpdateCache(txn, *h, "SREM", members);
    return Status::OK();
  }

  // The KV records, plus the whole-set entry in the cache Redis.
  Status Footprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out) override {
    KVLAB_RETURN_IF_ERROR(KvFootprint(txn, h, out, nullptr));
    return TierFootprint(Session(txn), redis::TierRole::kCache, {Session(txn).Prefix(h)},
                         &out->tier_bytes);
  }

 private:
  TierSession Session(KvTxn& txn) const { return TierSession(tier_, &txn); }

  // After the commit: apply the write to the whole-set entry if it exists.
  void UpdateCache(KvTxn& txn, const KeyHandle& h, std::string_view command,
                   const std::vector<std::string_view>& members) const {
    const std::string prefix = Session(txn).Prefix(h);
    CacheWriteAfterCommit(Session(txn), prefix, IfExistsChunks(command, prefix, members), {prefix});
  }

  const std::unique_ptr<SetEncoding> inner_;
  const uint8_t version_;
  const bool size_from_cache_;
  redis::RedisTier* const tier_;
};

}  // namespace

std::unique_ptr<SetEncoding> NewCachedSetEncoding(std::unique_ptr<SetEncoding> inner,
                                                  uint8_t version, bool size_from_cache,
                                                  redis::RedisTier* tier) {
  return std::make_unique<CachedSet>(std::move(inner), version, size_from_cache, tier);
}

}  // namespace kvlab::encodings
