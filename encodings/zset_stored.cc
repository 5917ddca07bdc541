// Zset v3: the zset of refs (zset_refs.h) is the data, in the store Redis; KV keeps the
// key-meta, with the count the store must agree with, and i# for long members.
//
//   KV     m# ... key-meta with count; i# ... | key-version | ref -> member (long members only)
//   store  c# ns {key} key-version -> zset of refs (never evicted; TTL = the key's + a margin)
//   cache  c# ns {key} key-version | ref -> member (long members)
//
// Every read asks the store with a ZCARD in the same round trip: a store whose count differs
// from the key-meta's lost data, and the command fails with a clear error instead of answering
// short (StoreChecked). A store that is down fails the command. Writes go to the store before
// the KV commit, fenced and carrying the counts they expect (StoreWrites), in the order that
// keeps every failure harmless (AddStored, RemoveStored); a write whose outcome is unknown marks
// the key uncertain, and Reconcile makes KV follow the store before the key's next use.
#include <algorithm>
#include <cstdlib>

#include "encodings/tier_ops.h"
#include "encodings/tiered_encodings.h"
#include "encodings/zset_tier_base.h"
#include "encodings/zset_tier_scripts.h"

namespace kvlab::encodings {

using backends::WriteBatch;
using redis::RedisTier;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;

namespace {

// (arguments, members they add or remove) per fenced store write.
using StoreChunks = std::vector<std::pair<std::vector<std::string>, uint64_t>>;

class StoredZset final : public TierZset {
 public:
  StoredZset(uint8_t version, RedisTier* tier)
      : TierZset(version, tier, TierRole::kStore, /*refs=*/true) {}

  // The count is in the key-meta; the store must agree (one ZCARD).
  Status Card(KvTxn& txn, const KeyHandle& h, uint64_t* card) override {
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(txn, h, {}, &r));
    *card = h.meta.count;
    return Status::OK();
  }

  Status Scores(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& members,
                std::vector<std::optional<double>>* scores) override {
    scores->assign(members.size(), std::nullopt);
    if (h.is_new || members.empty()) return Status::OK();
    std::vector<std::string> cmd = {"ZMSCORE", Session(txn).Prefix(h)};
    for (std::string_view m : members) cmd.push_back(ZsetRefs::Of(m));
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(txn, h, {cmd}, &r));
    for (size_t i = 0; i < members.size() && i < r[0].elements().size(); ++i) {
      const Reply& s = r[0].elements()[i];
      if (s.type() == Reply::Type::kBulk) (*scores)[i] = std::strtod(s.str().c_str(), nullptr);
    }
    return Status::OK();
  }

  // Redis's own ZSCAN over the store, its cursor carried in kvlab's.
  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<ScoredMember>* out,
              std::optional<std::string>* next) override {
    out->clear();
    next->reset();
    if (h.is_new || count == 0) return Status::OK();
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(
        txn, h,
        {{"ZSCAN", Session(txn).Prefix(h), after.value_or("0"), "COUNT", std::to_string(count)}},
        &r));
    if (r[0].elements().size() != 2) return Status::OK();
    std::vector<ScoredMember> items = ZsetPairs(r[0].elements()[1]);
    KVLAB_RETURN_IF_ERROR(refs()->ResolveInPlace(txn, h, &items));
    *out = std::move(items);
    if (r[0].elements()[0].str() != "0") *next = r[0].elements()[0].str();
    return Status::OK();
  }

  // --- keyspace hooks ------------------------------------------------------------------------

  // The members are in the store: the copy reads them whole and adds them to `to` as a new zset
  // (the store write, the i# records of long members and the counted meta, as ZADD writes
  // them), then gives the store `to`'s expiry.
  Status Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to) override {
    std::vector<ScoredMember> all;
    KVLAB_RETURN_IF_ERROR(RangeByRank(txn, from, 0, -1, false, &all));
    if (all.empty()) return Status::Corruption("zset v3 copy: the source zset is empty");
    to->meta.count = 0;
    to->meta.count_known = true;
    ZAddResult added;
    KVLAB_RETURN_IF_ERROR(Add(to_txn, to, ZAddFlags{}, all, &added));
    if (!to->meta.has_expire()) return Status::OK();
    return OnExpire(to_txn, *to, KeyMeta::kNoExpire);
  }

  Status OnExpire(KvTxn& txn, const KeyHandle& h, int64_t old_expire_ms) override {
    // Before the commit: the later of the two expiries (so that the store never expires before
    // the meta, whatever happens to the commit); after it: the new one.
    const std::string key = Session(txn).Prefix(h);
    const int64_t margin = tier_->store_ttl_margin_ms();
    auto ttl_command = [&](int64_t expire) -> std::vector<std::string> {
      // No TTL when none is set, or when expiry plus margin would overflow: the store then
      // outlives the key-meta, which is safe (the collector reclaims it).
      if (expire == KeyMeta::kNoExpire || expire > INT64_MAX - margin) return {"PERSIST", key};
      return {"PEXPIREAT", key, std::to_string(expire + margin)};
    };
    const int64_t later =
        (old_expire_ms == KeyMeta::kNoExpire || h.meta.expire_ms == KeyMeta::kNoExpire)
            ? KeyMeta::kNoExpire
            : std::max(old_expire_ms, h.meta.expire_ms);
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(Store(txn, {ttl_command(later)}, &r));
    std::vector<std::string> after = ttl_command(h.meta.expire_ms);
    txn.AfterCommit([this, &txn, after] {
      std::vector<Reply> ignored;
      TierCounts& counts = txn.tier_counts();
      // Best effort: on failure the store key keeps the later expiry set before the commit, so
      // it outlives the key-meta, which is safe (the collector reclaims it).
      tier_->Pipeline(TierRole::kStore, {after}, &ignored, &counts).IgnoreError();
      return Status::OK();
    });
    return Status::OK();
  }

  Status Reconcile(KvTxn& txn, KeyHandle* h, bool uncertain, bool* exists) override {
    *exists = true;
    if (tier_ == nullptr) return Status::OK();
    RedisTier* tier = tier_;
    // A new fence first (acknowledged): a late write of the uncertain one is refused from now
    // on if it has not run, so what the store holds next is final.
    std::string fence;
    Status s = tier->StoreFence(&txn.tier_counts(), &fence);
    if (!s.ok()) return StoreUnavailable(s);
    const std::string key = Session(txn).Prefix(*h);
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(Store(txn, {{"ZCARD", key}}, &r));
    const int64_t held = r[0].integer();
    if (held == 0 && !uncertain) {
      // A meta from before v3 kept a count, over a store with no zset: lost, not reconciled.
      return StoreDisagrees(*h, 0);
    }
    if (held == 0) {
      txn.DeleteMeta(h->key);  // the removal that timed out did apply: the zset is empty
      *exists = false;
    } else if (static_cast<uint64_t>(held) != h->meta.count || !h->meta.count_known) {
      h->meta.count = static_cast<uint32_t>(held);
      h->meta.count_known = true;
      txn.PutMeta(h->key, h->meta);
    }
    tier->ClearUncertain(key);
    tier->CountReconciled();
    return Status::OK();
  }

  Status OnDelete(KvTxn& txn, const KeyHandle& h) override {
    if (tier_ == nullptr) return Status::OK();
    const std::string key = Session(txn).Prefix(h);
    txn.AfterCommit([this, &txn, key] {
      // Best effort: an unreachable zset is garbage either way; a failure leaves it for GC.
      std::vector<Reply> ignored;
      tier_->Pipeline(TierRole::kStore, {{"UNLINK", key}}, &ignored, &txn.tier_counts())
          .IgnoreError();
      return Status::OK();
    });
    return Status::OK();
  }

 protected:
  // A zset of a live key-meta is never empty: a missing one is lost data, an error.
  Status ReadLive(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& cmd,
                  const std::function<Status(const Reply&)>& remote,
                  const std::function<void(const SortedMembers&)>& local) override {
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(txn, h, {cmd}, &r));
    if (r[0].type() == Reply::Type::kNil) return StoreDisagrees(h, 0);
    return remote(r[0]);
  }

  // The additions, in the order that keeps every failure harmless: the new long members' i#
  // first (an unreferenced i# is inert), then the store, then (in the command's batch) the
  // key-meta with its new count. A store that is down fails the command with nothing visible;
  // a crash after the store write leaves, at worst, a new key's zset without its meta:
  // invisible garbage for the collector. The store writes are fenced and carry the expected
  // counts (StoreWrites).
  Status ApplyAdd(KvTxn& txn, KeyHandle* h, const ZAddPlan& plan,
                  const std::vector<size_t>& changed, const ZAddResult& result) override {
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> zadd;
    std::vector<bool> adds;  // per (score, ref) pair of zadd: whether it adds a member
    WriteBatch index_first;  // the new long members' i#, written before their refs
    for (size_t i : changed) {
      const std::string_view m = plan.members[i];
      std::string ref = ZsetRefs::Of(m);
      if (ZsetRefs::IsLong(ref) && !plan.before[i]) index_first.Put(index_prefix + ref, m);
      zadd.push_back(ZsetScoreText(*plan.after[i]));
      zadd.push_back(std::move(ref));
      adds.push_back(!plan.before[i].has_value());
    }
    const uint64_t count = h->is_new ? 0 : h->meta.count;
    if (count + static_cast<uint64_t>(result.added) > UINT32_MAX) {
      return Status::InvalidArgument("a zset of this encoding holds at most 4294967295 members");
    }
    if (!index_first.empty()) KVLAB_RETURN_IF_ERROR(txn.kv().Write(index_first));
    StoreChunks chunks;
    for (size_t s = 0; s < zadd.size(); s += kMaxLuaArgs) {
      const size_t end = std::min(zadd.size(), s + kMaxLuaArgs);
      uint64_t added = 0;
      for (size_t p = s / 2; p < end / 2; ++p) added += adds[p];
      chunks.emplace_back(std::vector<std::string>(zadd.begin() + s, zadd.begin() + end), added);
    }
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreWrites(txn, *h, "ZADD", count, chunks, &r));
    ReconcileIfCommitFails(txn, *h);
    const uint64_t held = static_cast<uint64_t>(r.back().elements()[1].integer());
    if (held != count + static_cast<uint64_t>(result.added)) {
      MarkUncertain(txn, *h);  // the store changed under the key's lock: make KV follow it
      return Status::Unavailable("the zset store holds " + std::to_string(held) +
                                 " members of zset '" + std::string(h->key) + "' after ZADD, " +
                                 "not the expected " + std::to_string(count + result.added) +
                                 "; kvlab reconciles the key before its next use");
    }
    if (result.added > 0) {
      h->meta.count = static_cast<uint32_t>(held);
      txn.PutMeta(h);
    }
    return Status::OK();
  }

  // A removal of more than one chunk must know which members are in the zset (the count after
  // each chunk), so it reads their scores first.
  Status RemoveDistinct(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        uint64_t* removed) override {
    if (members.size() <= kMaxLuaArgs || h->is_new) {
      return RemoveStored(txn, h, members, /*all_present=*/false, removed);
    }
    std::vector<std::optional<double>> scores;
    KVLAB_RETURN_IF_ERROR(Scores(txn, *h, members, &scores));
    std::vector<std::string_view> present;
    for (size_t i = 0; i < members.size(); ++i) {
      if (scores[i]) present.push_back(members[i]);
    }
    return RemoveStored(txn, h, present, /*all_present=*/true, removed);
  }

  Status RemoveVictims(KvTxn& txn, KeyHandle* h, const std::vector<ScoredMember>& victims,
                       uint64_t* removed) override {
    std::vector<std::string_view> members;
    for (const auto& v : victims) members.push_back(v.member);
    return RemoveStored(txn, h, members, /*all_present=*/true, removed);
  }

 private:
  // The removals: the store first (the reply needs its count), then the long members' i# and
  // the key-meta's count (the meta goes when the zset became empty). `all_present`: every one
  // of `members` is in the zset, so the count after each chunk is known; otherwise they fit in
  // one chunk, which needs only the count before it.
  Status RemoveStored(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                      bool all_present, uint64_t* removed) {
    *removed = 0;
    if (members.empty() || h->is_new) return Status::OK();
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> refs_given;
    for (std::string_view m : members) refs_given.push_back(ZsetRefs::Of(m));
    StoreChunks chunks;  // (refs, removals)
    for (size_t s = 0; s < refs_given.size(); s += kMaxLuaArgs) {
      const size_t end = std::min(refs_given.size(), s + kMaxLuaArgs);
      chunks.emplace_back(
          std::vector<std::string>(refs_given.begin() + s, refs_given.begin() + end),
          all_present ? end - s : 0);
    }
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreWrites(txn, *h, "ZREM", h->meta.count, chunks, &r));
    ReconcileIfCommitFails(txn, *h);
    for (const Reply& chunk : r) *removed += static_cast<uint64_t>(chunk.elements()[0].integer());
    for (const std::string& ref : refs_given) {
      if (ZsetRefs::IsLong(ref)) txn.batch().Delete(index_prefix + ref);
    }
    const int64_t held = r.back().elements()[1].integer();
    if (held == 0) {
      txn.DeleteMeta(h->key);
    } else if (*removed > 0) {
      h->meta.count = static_cast<uint32_t>(held);
      txn.PutMeta(h);
    }
    return Status::OK();
  }

  // Runs fenced store writes (zset_scripts::kStoreWrite), one per chunk of `command`'s
  // arguments; chunk i must find the zset holding `count_before` plus (ZADD) or minus (ZREM) the
  // members changed by the chunks before it. On success *replies holds one {reply, count after}
  // per chunk. A write refused before anything changed returns the store's disagreement (lost
  // data), after moving the fence on and trying once more if only the fence was stale. A write
  // whose outcome is unknown (no reply), or that stopped half way, marks the key uncertain: the
  // reply says the write may have been applied, and kvlab reconciles the key before its next use.
  Status StoreWrites(KvTxn& txn, const KeyHandle& h, const char* command, uint64_t count_before,
                     const StoreChunks& chunks, std::vector<Reply>* replies) {
    RedisTier* tier = tier_;
    if (tier == nullptr) return Status::Unavailable("zset v3 needs the Redis tier");
    const std::string key = Session(txn).Prefix(h);
    const bool adding = std::string_view(command) == "ZADD";
    for (int attempt = 0;; ++attempt) {
      std::string fence;
      Status s = tier->StoreFence(&txn.tier_counts(), &fence);
      if (!s.ok()) return StoreUnavailable(s);
      std::vector<std::vector<std::string>> cmds;
      uint64_t expected = count_before;
      for (const auto& [args, changes] : chunks) {
        std::vector<std::string> c = {
            "EVAL", zset_scripts::kStoreWrite, "2",    key, RedisTier::kFenceKey,
            fence,  std::to_string(expected),  command};
        c.insert(c.end(), args.begin(), args.end());
        cmds.push_back(std::move(c));
        expected = adding ? expected + changes : expected - std::min(expected, changes);
      }
      bool maybe_applied = false;
      s = tier->PipelineWrite(TierRole::kStore, cmds, replies, &txn.tier_counts(), &maybe_applied);
      if (!s.ok()) {
        if (!maybe_applied) return StoreUnavailable(s);
        MarkUncertain(txn, h);
        return Status::Unavailable(
            "the zset store (" + tier->Describe(TierRole::kStore) +
            ") did not answer: " + s.message() + "; the " + command +
            " may still be applied when it does, and kvlab reconciles the key before its next "
            "use");
      }
      const Reply& first = (*replies)[0];
      if (first.is_error()) {
        // The first chunk changed nothing, and neither did the later ones (same checks).
        if (first.str().starts_with("KVLABFENCE") && attempt == 0) {
          tier->InvalidateStoreFence();  // the store does not know ours: it lost it
          continue;
        }
        if (first.str().starts_with("KVLABCOUNT ")) {
          return StoreDisagrees(h, std::atoll(first.str().c_str() + 11));
        }
        return Status::Unavailable("the zset store replied " + first.str());
      }
      for (const Reply& chunk : *replies) {
        if (chunk.is_error() || chunk.elements().size() != 2) {
          MarkUncertain(txn, h);
          return Status::Unavailable("the zset store applied part of the " + std::string(command) +
                                     " and then replied " + chunk.Describe() +
                                     "; kvlab reconciles the key before its next use");
        }
      }
      return Status::OK();
    }
  }

  Status StoreUnavailable(const Status& s) const {
    if (s.IsInvalidArgument()) return s;  // a refused configuration says so itself
    return Status::Unavailable("the zset store (" + tier_->Describe(TierRole::kStore) +
                               ") is unavailable: " + s.message());
  }

  void MarkUncertain(KvTxn& txn, const KeyHandle& h) const {
    tier_->MarkUncertain(Session(txn).Prefix(h),
                         {txn.db(), std::string(h.key), h.meta.key_version});
  }

  // After a store write that succeeded: if the command's KV batch then fails, the store is
  // ahead of KV, and the key is reconciled before its next use.
  void ReconcileIfCommitFails(KvTxn& txn, const KeyHandle& h) const {
    RedisTier* tier = tier_;
    RedisTier::UncertainKey key{txn.db(), std::string(h.key), h.meta.key_version};
    const std::string name = Session(txn).Prefix(h);
    txn.OnCommitFailure([tier, key, name] { tier->MarkUncertain(name, key); });
  }

  // The error for a store that does not hold what the key-meta counts.
  static Status StoreDisagrees(const KeyHandle& h, int64_t held) {
    const std::string name = "zset '" + std::string(h.key) + "'";
    const std::string counted = std::to_string(h.meta.count);
    const std::string way_out =
        "; KV does not hold its scores, so kvlab cannot rebuild it: restore the store, or DEL "
        "the key";
    if (held == 0) {
      return Status::Unavailable("the zset store has lost " + name +
                                 ": it holds no zset for the key, whose key-meta counts " +
                                 counted +
                                 " members (the store was emptied, restarted without its data, "
                                 "or evicted it)" +
                                 way_out);
    }
    return Status::Unavailable("the zset store holds " + std::to_string(held) + " members of " +
                               name + ", whose key-meta counts " + counted +
                               ": the store lost writes (it restarted from an older state?)" +
                               way_out);
  }

  // Reads: `cmds` and a ZCARD of the zset in one round trip; the count must be the
  // key-meta's, so that a store that lost the zset, or writes to it, gives an error, never an
  // empty or short answer. The ZCARD's reply is removed.
  Status StoreChecked(KvTxn& txn, const KeyHandle& h, std::vector<std::vector<std::string>> cmds,
                      std::vector<Reply>* replies) const {
    cmds.push_back({"ZCARD", Session(txn).Prefix(h)});
    KVLAB_RETURN_IF_ERROR(Store(txn, cmds, replies));
    const int64_t held = replies->back().integer();
    replies->pop_back();
    if (static_cast<uint64_t>(held) != h.meta.count) return StoreDisagrees(h, held);
    return Status::OK();
  }

  // Runs `cmds` on the store, which must answer each without an error.
  Status Store(KvTxn& txn, const std::vector<std::vector<std::string>>& cmds,
               std::vector<Reply>* replies) const {
    if (tier_ == nullptr) return Status::Unavailable("zset v3 needs the Redis tier");
    Status s = tier_->Pipeline(TierRole::kStore, cmds, replies, &txn.tier_counts());
    if (!s.ok()) {
      return Status::Unavailable("the zset store (" + tier_->Describe(TierRole::kStore) +
                                 ") is unavailable: " + s.message());
    }
    for (const Reply& r : *replies) {
      if (r.is_error()) return Status::Unavailable("the zset store replied " + r.str());
    }
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<ZsetEncoding> NewStoredZsetEncoding(uint8_t version, RedisTier* tier) {
  return std::make_unique<StoredZset>(version, tier);
}

}  // namespace kvlab::encodings
