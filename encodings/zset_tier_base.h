// TierZset: what zset v1, v2 and v3 share. Each keeps the zset in a Redis zset at the key's
// tier prefix (c# ns {key} key-version), of members (v1) or of refs (v2, v3: zset_refs.h), and
// differs in where that zset lives and what KV holds:
//
//   v1  CachedZset (zset_cached.cc): KV's s# records (zset_members.h) and the count in the
//       key-meta; the Redis zset, of members, is a cache.
//   v2  CachedZset with refs: the same plus i# for long members; the cached zset holds refs.
//   v3  StoredZset (zset_stored.cc): the zset of refs is the data, in the store Redis; KV keeps
//       the key-meta (with the count the store must agree with) and i#.
//
// The base answers every range read by one Redis command or script over the Redis zset (of
// members: ZRANGE, ZCOUNT, ZLEXCOUNT, ZRANK; of refs: zset_tier_scripts.h's windows, widened to
// whole score groups and re-sorted by member, so replies stay exact; lex ranges over refs read
// the whole zset, since refs do not sort as members), run by the subclass's Read. It plans
// ZADD once (ApplyZAdd over Scores) and writes it with ApplyAdd. ZREM, the range removals and
// ZPOPMIN/ZPOPMAX are ZsetBase's, over the subclass's RemoveDistinct and RemoveVictims.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encodings/tier_ops.h"
#include "encodings/zset_encoding.h"
#include "encodings/zset_memory.h"
#include "encodings/zset_refs.h"

namespace kvlab::encodings {

// Redis's text of a score (%.17g, or +inf/-inf), for commands sent to Redis.
std::string ZsetScoreText(double v);
// Redis's [elem, score, elem, score, ...] reply as pairs.
std::vector<ScoredMember> ZsetPairs(const resp::Reply& flat);

class TierZset : public ZsetBase {
 public:
  uint8_t version() const override { return version_; }

  Status RangeByRank(KvTxn& txn, const KeyHandle& h, int64_t start, int64_t stop, bool reverse,
                     std::vector<ScoredMember>* out) override;
  Status RangeByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range, bool reverse,
                      const RangeLimit& limit, std::vector<ScoredMember>* out) override;
  Status RangeByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range, bool reverse,
                    const RangeLimit& limit, std::vector<ScoredMember>* out) override;
  Status CountByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range,
                      uint64_t* count) override;
  Status CountByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range,
                    uint64_t* count) override;
  Status Rank(KvTxn& txn, const KeyHandle& h, std::string_view member, bool reverse,
              std::optional<uint64_t>* rank) override;

  Status Add(KvTxn& txn, KeyHandle* h, const ZAddFlags& flags,
             const std::vector<ScoredMember>& elems, ZAddResult* result) override;

  // The KV records, plus the Redis zset (in the role's Redis) and, with refs, the ref entry of
  // each long member (its i# record) in the cache.
  Status Footprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out) override;

 protected:
  // `zset_role`: the Redis the zset lives in (the cache for v1 and v2, the store for v3).
  // `refs`: the Redis zset holds refs (v2, v3), not members (v1).
  // REQUIRES: tier is not null and outlives the encoding.
  TierZset(uint8_t version, redis::RedisTier* tier, redis::TierRole zset_role, bool refs);

  // Read for a live key: runs `cmd` on the Redis zset and hands its reply to `remote`, or
  // answers with `local` from the whole zset in memory (v1/v2: a cache miss or an unusable
  // cache, from KV). A reply of nil (the zset is not in Redis) never reaches `remote`.
  // REQUIRES: !h.is_new.
  virtual Status ReadLive(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& cmd,
                          const std::function<Status(const resp::Reply&)>& remote,
                          const std::function<void(const SortedMembers&)>& local) = 0;
  // Writes a planned ZADD: `changed` (non-empty) indexes plan.members whose score is new or
  // changed; *result is plan.result, and may be the command's error. REQUIRES: the plan was
  // made over Scores of this key.
  virtual Status ApplyAdd(KvTxn& txn, KeyHandle* h, const ZAddPlan& plan,
                          const std::vector<size_t>& changed, const ZAddResult& result) = 0;

  TierSession Session(KvTxn& txn) const { return TierSession(tier_, &txn); }
  // What the Redis zset holds for `member`: its ref (v2, v3) or itself (v1).
  std::string Element(std::string_view member) const;
  // The ref resolver (v2, v3), or null (v1).
  const ZsetRefs* refs() const { return refs_.get(); }

  const uint8_t version_;
  redis::RedisTier* const tier_;

 private:
  // A new key's zset is empty (answered by `local`, with no round trip); a live key's, ReadLive.
  Status Read(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& cmd,
              const std::function<Status(const resp::Reply&)>& remote,
              const std::function<void(const SortedMembers&)>& local);
  // A read that needs the whole zset in member order (lex ranges over refs).
  Status ReadWhole(KvTxn& txn, const KeyHandle& h,
                   const std::function<void(const SortedMembers&)>& local);

  const redis::TierRole zset_role_;
  const std::unique_ptr<ZsetRefs> refs_;
};

}  // namespace kvlab::encodings
