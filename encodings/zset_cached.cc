// Zset v1 and v2: the zset's member records in KV, as v0 keeps them (zset_members.h) but without
// v0's score index, and the whole zset cached in Redis for ranks and ranges (cache-aside).
//
//   v1  KV: s# member -> score, count in the meta.   Cache: c# ns {key} ver -> zset of members.
//   v2  KV: s#, and i# ref -> member for long members (zset_refs.h), count in the meta.
//       Cache: c# ns {key} ver -> zset of refs; c# ns {key} ver | ref -> member (long members).
//
// Point reads (ZSCORE, ZMSCORE), ZCARD and ZSCAN read KV only. Range reads ask the cached zset
// (TierZset's commands); on a miss they load the zset from s# (one prefix scan), refill the
// cache and answer from memory; when the cache is unusable they answer from KV and memory
// (degraded, counted). Writes commit to KV, then update the cached zset only if it exists, so
// that a miss never caches a partial zset; a cache that could not be updated is marked dirty
// (redis/tier.h), so that no stale entry is ever served.
#include <algorithm>

#include "encodings/score_codec.h"
#include "encodings/tier_ops.h"
#include "encodings/tiered_encodings.h"
#include "encodings/zset_members.h"
#include "encodings/zset_tier_base.h"

namespace kvlab::encodings {

using resp::Reply;

namespace {

class CachedZset final : public TierZset {
 public:
  CachedZset(uint8_t version, bool refs, redis::RedisTier* tier)
      : TierZset(version, tier, redis::TierRole::kCache, refs) {}

  Status Card(KvTxn& txn, const KeyHandle& h, uint64_t* card) override {
    *card = h.meta.count;
    return Status::OK();
  }

  Status Scores(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& members,
                std::vector<std::optional<double>>* scores) override {
    scores->assign(members.size(), std::nullopt);
    if (h.is_new || members.empty()) return Status::OK();
    return zset_members::ReadScores(txn, txn.SubKeyPrefix(SubKeyTag::kField, h), members, scores);
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<ScoredMember>* out,
              std::optional<std::string>* next) override {
    return zset_members::ScanPage(txn, h, after, count, out, next);
  }

 protected:
  Status ReadLive(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& cmd,
                  const std::function<Status(const Reply&)>& remote,
                  const std::function<void(const SortedMembers&)>& local) override {
    const std::string key = Session(txn).Prefix(h);
    std::vector<Reply> r;
    const bool usable = CacheRead(Session(txn), key, {cmd}, &r);
    if (usable && r[0].type() != Reply::Type::kNil) {
      ++txn.tier_counts().cache_hits;
      return remote(r[0]);
    }
    std::vector<ScoredMember> all;
    KVLAB_RETURN_IF_ERROR(zset_members::ReadAll(txn, txn.SubKeyPrefix(SubKeyTag::kField, h),
                                                h.meta.has_count() ? h.meta.count : 0, &all));
    if (usable) {
      ++txn.tier_counts().cache_misses;
      Refill(txn, h, all);
    }
    local(SortedMembers(std::move(all)));
    return Status::OK();
  }

  // The s# records (and v2's i# for new long members) and the count in the command's batch;
  // after the commit, the changes to the cached zset if it exists. A new key has nothing
  // cached (its key-version is new).
  Status ApplyAdd(KvTxn& txn, KeyHandle* h, const ZAddPlan& plan,
                  const std::vector<size_t>& changed, const ZAddResult& result) override {
    const std::string field_prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> zadd;
    for (size_t i : changed) {
      const std::string_view m = plan.members[i];
      const std::string element = Element(m);
      txn.batch().Put(field_prefix + std::string(m), zset_members::Value(*plan.after[i], false));
      if (refs() != nullptr && ZsetRefs::IsLong(element) && !plan.before[i]) {
        txn.batch().Put(index_prefix + element, m);
      }
      zadd.push_back(ZsetScoreText(*plan.after[i]));
      zadd.push_back(element);
    }
    if (result.added > 0 || h->is_new) {
      if (h->meta.count + static_cast<uint64_t>(result.added) > UINT32_MAX) {
        return Status::InvalidArgument("a zset of this encoding holds at most 4294967295 members");
      }
      if (result.added == 0) return Status::OK();  // a new key that stays absent
      const bool was_new = h->is_new;
      h->meta.count += static_cast<uint32_t>(result.added);
      txn.PutMeta(h);
      if (was_new) return Status::OK();  // nothing cached for a new key-version
    }
    UpdateCache(txn, *h, "ZADD", zadd);
    return Status::OK();
  }

  Status RemoveDistinct(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        uint64_t* removed) override {
    std::vector<std::optional<double>> scores;
    KVLAB_RETURN_IF_ERROR(Scores(txn, *h, members, &scores));
    std::vector<std::string_view> victims;
    for (size_t i = 0; i < members.size(); ++i) {
      if (scores[i]) victims.push_back(members[i]);
    }
    return Delete(txn, h, victims, removed);
  }

  Status RemoveVictims(KvTxn& txn, KeyHandle* h, const std::vector<ScoredMember>& victims,
                       uint64_t* removed) override {
    std::vector<std::string_view> members;
    for (const auto& v : victims) members.push_back(v.member);
    return Delete(txn, h, members, removed);
  }

 private:
  // Deletes members that are in the zset from KV (s#, and v2's i#), updates or deletes the
  // key-meta, and after the commit removes them from the cached zset if it exists.
  Status Delete(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& victims,
                uint64_t* removed) {
    *removed = victims.size();
    if (victims.empty()) return Status::OK();
    const std::string field_prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> elements;
    for (std::string_view m : victims) {
      txn.batch().Delete(field_prefix + std::string(m));
      std::string element = Element(m);
      if (refs() != nullptr && ZsetRefs::IsLong(element)) {
        txn.batch().Delete(index_prefix + element);
      }
      elements.push_back(std::move(element));
    }
    if (victims.size() >= h->meta.count) {
      txn.DeleteMeta(h->key);
    } else {
      h->meta.count -= static_cast<uint32_t>(victims.size());
      txn.PutMeta(h);
    }
    UpdateCache(txn, *h, "ZREM", elements);
    return Status::OK();
  }

  // After the commit: `command` (ZADD or ZREM) with `args` on the cached zset, only if it
  // exists, in chunks of at most kMaxLuaArgs arguments.
  void UpdateCache(KvTxn& txn, const KeyHandle& h, const char* command,
                   const std::vector<std::string>& args) {
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::vector<std::string>> cmds;
    for (size_t s = 0; s < args.size(); s += kMaxLuaArgs) {
      cmds.push_back(
          IfExists(command, key,
                   std::vector<std::string>(
                       args.begin() + s, args.begin() + std::min(args.size(), s + kMaxLuaArgs))));
    }
    CacheWriteAfterCommit(Session(txn), key, std::move(cmds), {key});
  }

  // Puts a zset loaded from KV in the cache (and, for v2, its long members' ref entries).
  void Refill(KvTxn& txn, const KeyHandle& h, const std::vector<ScoredMember>& all) {
    if (all.empty()) return;
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::vector<std::string>> cmds;
    std::vector<std::string> touched = {key};
    const std::string member_ttl = std::to_string(tier_->zset_member_ttl_ms.load());
    for (size_t s = 0; s < all.size(); s += kMaxLuaArgs / 2) {
      std::vector<std::string> zadd = {"ZADD", key};
      for (size_t i = s; i < std::min(all.size(), s + kMaxLuaArgs / 2); ++i) {
        zadd.push_back(ZsetScoreText(all[i].score));
        const std::string element = Element(all[i].member);
        zadd.push_back(element);
        if (refs() != nullptr && ZsetRefs::IsLong(element)) {
          touched.push_back(key + element);
          cmds.push_back({"SET", touched.back(), all[i].member, "PX", member_ttl});
        }
      }
      cmds.push_back(std::move(zadd));
    }
    cmds.push_back({"PEXPIRE", key, std::to_string(tier_->zset_range_ttl_ms.load())});
    if (all.size() > kMaxLuaArgs / 2) {
      // Several ZADDs: one transaction, so that a reader sharing the key's lock (reads take
      // shared locks) never sees a partly refilled zset as the whole one.
      cmds.insert(cmds.begin(), {"MULTI"});
      cmds.push_back({"EXEC"});
    }
    CacheWriteNow(Session(txn), key, cmds, touched);
  }
};

}  // namespace

std::unique_ptr<ZsetEncoding> NewCachedZsetEncoding(uint8_t version, bool refs,
                                                    redis::RedisTier* tier) {
  return std::make_unique<CachedZset>(version, refs, tier);
}

}  // namespace kvlab::encodings
