// Zset v3: the zset of refs (zset_refs.h) is the data, in the store Redis; KV keeps the
// key-meta, with the count the store must agree with, and i# for long members.
//
//   KV     m# ... key-meta with count; i# ... | key-version | ref -> member (long members only)
//   store  c# ns {key} key-version -> zset of refs (never evicted; TTL = the key's + a margin)
//   cache  c# ns {key} key-version | ref -> member (long members)
//
// Every read asks the store with a ZCARD in the same round trip: a store whose count differs
// from the key-meta's lost data, and the command fails with a clear error, naming the direction
// it saw, instead of answering short (StoreChecked). A store that is down fails the command.
// Writes go to the store before the KV commit, fenced and carrying the counts they expect
// (StoreWrites), in the order that keeps every failure harmless (ApplyAdd, RemoveStored). A write
// that may change the count of a key KV holds first writes a store-write intent into the
// key-meta, alone and at once (key_meta.h): a process that stops between the store write and the
// commit leaves it there, and the next use of the key makes KV follow the store (Reconcile), as
// it does in-process for a write whose outcome is unknown (the key is then uncertain).
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

  // Makes the key-meta follow the store after a store write whose KV commit never came: one
  // this process made (`uncertain`), or one that a stopped process left as an intent in the
  // meta. The store is authoritative for that one write, within what its intent allows: the
  // store must hold between the meta's count and its intent count. An acknowledged write was
  // committed to KV, so it is in both; an unacknowledged one is kept whole (a multi-chunk write
  // is one MULTI/EXEC), never half. Anything else is a store that disagrees: an error, with
  // the direction it saw.
  Status Reconcile(KvTxn& txn, KeyHandle* h, bool uncertain, bool* exists) override {
    *exists = true;
    if (tier_ == nullptr) return Status::OK();
    RedisTier* tier = tier_;
    const std::string key = Session(txn).Prefix(*h);
    // In-process, the intent is in KV but the key-meta cache may still hold the meta from
    // before it: KV's own decides (a removal that emptied the zset deleted it already).
    if (uncertain) {
      KeyMeta stored;
      bool found = false;
      KVLAB_RETURN_IF_ERROR(ReadStoredMeta(txn, h->key, &stored, &found));
      if (!found || stored.key_version != h->meta.key_version) {
        tier->ClearUncertain(key);
        *exists = found;
        if (found) h->meta = stored;
        return found && stored.intent_count ? Reconcile(txn, h, false, exists) : Status::OK();
      }
      h->meta = stored;
    }
    // A new fence first (acknowledged): a late write of the uncertain one is refused from now
    // on if it has not run, so what the store holds next is final. (A new process sets its own
    // fence before its first store write, which a stopped process's late write cannot carry.)
    std::string fence;
    Status s = tier->StoreFence(&txn.tier_counts(), &fence);
    if (!s.ok()) return StoreUnavailable(s);
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(Store(txn, {{"ZCARD", key}}, &r));
    const auto held = static_cast<uint64_t>(r[0].integer());
    const uint64_t count = h->meta.count;
    bool follows = false;
    if (!h->meta.count_known) {
      follows = held > 0;  // a meta from before v3 kept a count: the store's, unless it is lost
    } else if (h->meta.intent_count) {
      const uint64_t other = *h->meta.intent_count;
      follows = std::min(count, other) <= held && held <= std::max(count, other);
    } else {
      follows = held == count;  // a write that could not change the count (scores only)
    }
    // (An intent never reaches 0: a removal that empties the zset deletes the meta instead.)
    if (!follows) return StoreDisagrees(*h, static_cast<int64_t>(held));
    if (held != count || !h->meta.count_known || h->meta.intent_count) {
      h->meta.count = static_cast<uint32_t>(held);
      h->meta.count_known = true;
      h->meta.intent_count.reset();
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
  // first (an unreferenced i#, or one of an incarnation KV never names, is inert), with the
  // store-write intent of a key KV holds (the count after the write), written at once; then
  // the store; then (in the command's batch) the key-meta with its new count, which clears the
  // intent. A store that is down fails the command with nothing visible (the intent is taken
  // back); a process that stops after the store write leaves the intent, and the key follows
  // the store at its next use (Reconcile); a new key's zset without its meta is invisible
  // garbage for the collector. The store writes are fenced and carry the expected counts
  // (StoreWrites).
  Status ApplyAdd(KvTxn& txn, KeyHandle* h, const ZAddPlan& plan,
                  const std::vector<size_t>& changed, const ZAddResult& result) override {
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> zadd;
    std::vector<bool> adds;  // per (score, ref) pair of zadd: whether it adds a member
    WriteBatch first;        // the new long members' i#, written before their refs
    for (size_t i : changed) {
      const std::string_view m = plan.members[i];
      std::string ref = ZsetRefs::Of(m);
      if (ZsetRefs::IsLong(ref) && !plan.before[i]) first.Put(index_prefix + ref, m);
      zadd.push_back(ZsetScoreText(*plan.after[i]));
      zadd.push_back(std::move(ref));
      adds.push_back(!plan.before[i].has_value());
    }
    const uint64_t count = h->is_new ? 0 : h->meta.count;
    const uint64_t after = count + static_cast<uint64_t>(result.added);
    if (after > UINT32_MAX) {
      return Status::InvalidArgument("a zset of this encoding holds at most 4294967295 members");
    }
    const bool intent = result.added > 0 && InKv(*h);
    KVLAB_RETURN_IF_ERROR(
        WriteFirst(txn, *h, intent ? std::optional<uint64_t>(after) : std::nullopt, &first));
    StoreChunks chunks;
    for (size_t s = 0; s < zadd.size(); s += kMaxLuaArgs) {
      const size_t end = std::min(zadd.size(), s + kMaxLuaArgs);
      uint64_t added = 0;
      for (size_t p = s / 2; p < end / 2; ++p) added += adds[p];
      chunks.emplace_back(std::vector<std::string>(zadd.begin() + s, zadd.begin() + end), added);
    }
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreWrites(txn, *h, "ZADD", count, chunks, intent, &r));
    ReconcileIfCommitFails(txn, *h);
    const uint64_t held = static_cast<uint64_t>(r.back().elements()[1].integer());
    if (held != after) {
      MarkUncertain(txn, *h);  // the store changed under the key's lock: make KV follow it
      return Status::Unavailable("the zset store holds " + std::to_string(held) +
                                 " members of zset '" + std::string(h->key) + "' after ZADD, " +
                                 "not the expected " + std::to_string(after) +
                                 "; kvlab reconciles the key before its next use");
    }
    if (result.added > 0) {
      h->meta.count = static_cast<uint32_t>(held);
      txn.PutMeta(h);  // the meta without the intent: the write is whole in KV and the store
    }
    return Status::OK();
  }

  // A removal of more than one chunk must know which members are in the zset (the count after
  // each chunk), and so must one that may empty it (whether the key goes, before the store
  // write: RemoveStored), so they read their scores first.
  Status RemoveDistinct(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        uint64_t* removed) override {
    if (h->is_new || (members.size() <= kMaxLuaArgs && members.size() < h->meta.count)) {
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
  // The removals: the store-write intent of a key KV holds first (the fewest members the zset
  // may hold after), written at once, or, for a removal that empties the zset, the key-meta's
  // delete: a process that stops after it has removed the key whatever the store did (its zset
  // is then garbage for the collector); then the store (the reply needs its count); then, in
  // the command's batch, the long members' i# deletes and the key-meta with its count, which
  // clears the intent (the meta goes when the zset became empty). `all_present`: every one of
  // `members` is in the zset, so the count after each chunk is known; otherwise they fit in one
  // chunk, which needs only the count before it, and leave at least one member.
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
    // The fewest members the zset holds after: exact when all are present, and above 0
    // otherwise (RemoveDistinct), so an intent never leaves it unsure whether the key exists.
    const uint64_t count = h->meta.count;
    const uint64_t fewest = count - std::min<uint64_t>(count, members.size());
    const bool intent = InKv(*h);
    WriteBatch first;
    KVLAB_RETURN_IF_ERROR(
        WriteFirst(txn, *h, intent ? std::optional<uint64_t>(fewest) : std::nullopt, &first));
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreWrites(txn, *h, "ZREM", count, chunks, intent, &r));
    ReconcileIfCommitFails(txn, *h);
    for (const Reply& chunk : r) *removed += static_cast<uint64_t>(chunk.elements()[0].integer());
    for (const std::string& ref : refs_given) {
      if (ZsetRefs::IsLong(ref)) txn.batch().Delete(index_prefix + ref);
    }
    const int64_t held = r.back().elements()[1].integer();
    if (held == 0) {
      txn.DeleteMeta(h->key);
    } else if (*removed > 0 || intent) {
      h->meta.count = static_cast<uint32_t>(held);
      txn.PutMeta(h);
    }
    return Status::OK();
  }

  // Whether KV holds the key's incarnation already (loaded from it, not created by this
  // command): only then can a stopped process leave KV naming a zset the store has changed,
  // and only then does a write need a store-write intent.
  static bool InKv(const KeyHandle& h) { return !h.is_new && !h.created; }

  // Writes `first` (records that must be in KV before the store write: new long members' i#)
  // and, with `intent`, the key-meta with that intent count (its delete for an intent of 0), in
  // one write. For a key KV holds it goes to the store at once (KvTxn::WriteNow: not into a
  // transaction's pending write, which commits after the store write); a created incarnation's
  // records go through the command's view of the store (a migration reads them back before its
  // batch commits).
  Status WriteFirst(KvTxn& txn, const KeyHandle& h, std::optional<uint64_t> intent,
                    WriteBatch* first) const {
    if (intent && *intent == 0) {
      first->Delete(txn.codec().MetaKey(txn.db(), h.key));
    } else if (intent) {
      KeyMeta meta = h.meta;
      meta.intent_count = static_cast<uint32_t>(*intent);
      first->Put(txn.codec().MetaKey(txn.db(), h.key), meta.Encode());
    }
    if (first->empty()) return Status::OK();
    return InKv(h) ? txn.WriteNow(*first) : txn.kv().Write(*first);
  }

  // Takes back the intent of a store write that did not run (the key-meta as it was). If that
  // fails too, the key is reconciled before its next use, which does the same.
  void DropIntent(KvTxn& txn, const KeyHandle& h) const {
    WriteBatch undo;
    undo.Put(txn.codec().MetaKey(txn.db(), h.key), h.meta.Encode());
    if (!txn.WriteNow(undo).ok()) MarkUncertain(txn, h);
  }

  // The key-meta KV holds for the key (the key-meta cache may hold the one from before an
  // intent): *found is false when there is none, or a dead one.
  static Status ReadStoredMeta(KvTxn& txn, std::string_view key, KeyMeta* meta, bool* found) {
    std::string bytes;
    Status s = txn.kv().Get(txn.codec().MetaKey(txn.db(), key), &bytes);
    *found = false;
    if (s.IsNotFound()) return Status::OK();
    KVLAB_RETURN_IF_ERROR(s);
    KVLAB_RETURN_IF_ERROR(KeyMeta::Decode(bytes, txn.registry(), meta));
    *found = !meta->ExpiredAt(txn.now_ms());
    return Status::OK();
  }

  // Runs fenced store writes (zset_scripts::kStoreWrite), one per chunk of `command`'s
  // arguments, in one MULTI/EXEC when there are several, so that the store applies all of them
  // or none even if kvlab stops half way through sending them; chunk i must find the zset
  // holding `count_before` plus (ZADD) or minus (ZREM) the members changed by the chunks before
  // it. On success *replies holds one {reply, count after} per chunk. A write refused before
  // anything changed returns the store's disagreement (lost data), after moving the fence on
  // and trying once more if only the fence was stale; a write that did not run takes its
  // intent back (`intent`: WriteFirst wrote one). A write whose outcome is unknown (no reply),
  // or that stopped half way, marks the key uncertain: the reply says the write may have been
  // applied, and kvlab reconciles the key before its next use.
  Status StoreWrites(KvTxn& txn, const KeyHandle& h, const char* command, uint64_t count_before,
                     const StoreChunks& chunks, bool intent, std::vector<Reply>* replies) {
    RedisTier* tier = tier_;
    if (tier == nullptr) return Status::Unavailable("zset v3 needs the Redis tier");
    // Every return below that is not OK and not uncertain left the store as it was.
    auto not_run = [&](Status s) {
      if (intent) DropIntent(txn, h);
      return s;
    };
    const std::string key = Session(txn).Prefix(h);
    const bool adding = std::string_view(command) == "ZADD";
    const bool wrapped = chunks.size() > 1;
    for (int attempt = 0;; ++attempt) {
      std::string fence;
      Status s = tier->StoreFence(&txn.tier_counts(), &fence);
      if (!s.ok()) return not_run(StoreUnavailable(s));
      std::vector<std::vector<std::string>> cmds;
      if (wrapped) cmds.push_back({"MULTI"});
      uint64_t expected = count_before;
      for (const auto& [args, changes] : chunks) {
        std::vector<std::string> c = {
            "EVAL", zset_scripts::kStoreWrite, "2",    key, RedisTier::kFenceKey,
            fence,  std::to_string(expected),  command};
        c.insert(c.end(), args.begin(), args.end());
        cmds.push_back(std::move(c));
        expected = adding ? expected + changes : expected - std::min(expected, changes);
      }
      if (wrapped) cmds.push_back({"EXEC"});
      bool maybe_applied = false;
      s = tier->PipelineWrite(TierRole::kStore, cmds, replies, &txn.tier_counts(), &maybe_applied);
      if (!s.ok()) {
        if (!maybe_applied) return not_run(StoreUnavailable(s));
        MarkUncertain(txn, h);
        return Status::Unavailable(
            "the zset store (" + tier->Describe(TierRole::kStore) +
            ") did not answer: " + s.message() + "; the " + command +
            " may still be applied when it does, and kvlab reconciles the key before its next "
            "use");
      }
      if (wrapped) {
        // EXEC's reply holds the chunks' replies; an error instead (EXECABORT) ran none.
        Reply exec = std::move(replies->back());
        if (exec.is_error()) {
          return not_run(Status::Unavailable("the zset store replied " + exec.str()));
        }
        if (exec.type() != Reply::Type::kArray || exec.elements().size() != chunks.size()) {
          MarkUncertain(txn, h);
          return Status::Unavailable("the zset store answered the " + std::string(command) +
                                     "'s EXEC with " + exec.Describe() +
                                     "; kvlab reconciles the key before its next use");
        }
        *replies = exec.elements();
      }
      const Reply& first = (*replies)[0];
      if (first.is_error()) {
        // The first chunk changed nothing, and neither did the later ones (same checks).
        if (first.str().starts_with("KVLABFENCE") && attempt == 0) {
          tier->InvalidateStoreFence();  // the store does not know ours: it lost it
          continue;
        }
        if (first.str().starts_with("KVLABCOUNT ")) {
          return not_run(StoreDisagrees(h, std::atoll(first.str().c_str() + 11)));
        }
        return not_run(Status::Unavailable("the zset store replied " + first.str()));
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

  // The key is reconciled before its next use. Its key-meta may have changed in KV (an intent
  // left, or the meta deleted) behind the key-meta cache's back: that entry is not read again.
  void MarkUncertain(KvTxn& txn, const KeyHandle& h) const {
    tier_->MarkUncertain(Session(txn).Prefix(h),
                         {txn.db(), std::string(h.key), h.meta.key_version});
    txn.MetaMayBeStale(h.key);
  }

  // After a store write that succeeded: if the command's KV batch then fails, the store is
  // ahead of KV, and the key is reconciled before its next use. (The step runs while the
  // command's transaction, and the arguments the handle's key views, are alive: RunLocked, at
  // its failed commit.)
  void ReconcileIfCommitFails(KvTxn& txn, const KeyHandle& h) const {
    txn.OnCommitFailure([this, &txn, h] { MarkUncertain(txn, h); });
  }

  // The error for a store that does not hold what the key-meta counts, in the direction seen.
  static Status StoreDisagrees(const KeyHandle& h, int64_t held) {
    const std::string name = "zset '" + std::string(h.key) + "'";
    const uint64_t counted = h.meta.count;
    const std::string way_out =
        "; KV does not hold its scores, so kvlab cannot rebuild it: restore the store, or DEL "
        "the key";
    if (held == 0) {
      return Status::Unavailable("the zset store has lost " + name +
                                 ": it holds no zset for the key, whose key-meta counts " +
                                 std::to_string(counted) +
                                 " members (the store was emptied, restarted without its data, "
                                 "or evicted it)" +
                                 way_out);
    }
    const auto holds = static_cast<uint64_t>(held);
    const bool more = holds > counted;
    const std::string diff = std::to_string(more ? holds - counted : counted - holds);
    const std::string seen = "the zset store holds " + std::to_string(holds) + " members of " +
                             name + ", " + diff + (more ? " more" : " fewer") +
                             " than its key-meta counts (" + std::to_string(counted) + ")";
    if (more) {
      return Status::Unavailable(
          seen +
          ": the store holds writes KV never committed that no store-write intent accounts for "
          "(another writer changed the store, or it lost a removal KV committed)" +
          way_out);
    }
    return Status::Unavailable(seen +
                               ": the store lost writes KV committed (it restarted from an "
                               "older state, or lost its last second of AOF?)" +
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
