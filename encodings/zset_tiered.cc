// Zset v1, v2 and v3: the versions that put a zset in Redis.
//
//   v1  KV: s# member -> score, count in the meta.   Cache: c# ... {key} ver -> zset of members.
//   v2  KV: s#, i# ref -> member for long members, count in the meta.
//       Cache: c# ... {key} ver -> zset of refs; c# ... {key} ver ref -> member (long members).
//   v3  KV: i# for long members only, no count.      Store: c# ... {key} ver -> zset of refs
//       (storage: never evicted, TTL = the key's + a margin). Cache: the ref -> member entries.
//   ref = 0x00 member (member under 15 bytes) | 0x01 md5(member) (16 raw bytes)
//
// Reads go to Redis: v1 and v2 load the zset from KV on a miss and answer from memory; when the
// cache is unusable they answer from KV and memory (degraded, counted); v3 fails with a clear
// error while its store is down. Windows over refs are widened to whole score groups and
// re-sorted by member (zset_tier_scripts.h), so replies stay exact. Lex ranges over refs load
// the whole zset (refs do not sort as members). v1/v2 commit to KV, then update the cached zset
// only if it exists; v3 writes the store before its KV commit (see AddStored and RemoveStored
// for the order that keeps each failure harmless).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <unordered_set>

#include "encodings/kv_reads.h"
#include "encodings/md5.h"
#include "encodings/score_codec.h"
#include "encodings/tier_ops.h"
#include "encodings/tiered_encodings.h"
#include "encodings/zset_encoding.h"
#include "encodings/zset_memory.h"
#include "encodings/zset_tier_scripts.h"

namespace kvlab::encodings {

using backends::WriteBatch;
using redis::RedisTier;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;

namespace {

constexpr size_t kShortMemberLimit = 15;  // members shorter than this are their own ref

std::string RefOf(std::string_view member) {
  std::string ref;
  if (member.size() < kShortMemberLimit) {
    ref.push_back('\x00');
    ref.append(member);
  } else {
    const Md5Digest d = Md5(member);
    ref.push_back('\x01');
    ref.append(reinterpret_cast<const char*>(d.data()), d.size());
  }
  return ref;
}

bool IsLongRef(std::string_view ref) { return !ref.empty() && ref[0] == '\x01'; }

// Redis's text of a score, and of score bounds, for commands sent to Redis.
std::string ScoreText(double v) {
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}
std::string BoundText(const ScoreBound& b) { return (b.exclusive ? "(" : "") + ScoreText(b.value); }
std::string LexText(const LexBound& b) {
  switch (b.kind) {
    case LexBound::Kind::kNegInf:
      return "-";
    case LexBound::Kind::kPosInf:
      return "+";
    case LexBound::Kind::kInclusive:
      return "[" + b.value;
    default:
      return "(" + b.value;
  }
}
double ParseScore(const std::string& s) { return std::strtod(s.c_str(), nullptr); }

// [elem, score, elem, score, ...] -> pairs.
std::vector<ScoredMember> Pairs(const Reply& flat) {
  std::vector<ScoredMember> out;
  const auto& e = flat.elements();
  for (size_t i = 0; i + 1 < e.size(); i += 2)
    out.push_back({e[i].str(), ParseScore(e[i + 1].str())});
  return out;
}

class TieredZset final : public ZsetEncoding {
 public:
  TieredZset(uint8_t version, RedisTier* tier) : version_(version), tier_(tier) {}
  uint8_t version() const override { return version_; }

  // --- reads -----------------------------------------------------------------------------

  Status Card(KvTxn& txn, const KeyHandle& h, uint64_t* card) override {
    if (!stored()) {
      *card = h.meta.count;
      return Status::OK();
    }
    // v3: the count is in the key-meta; the store must agree (one ZCARD).
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(txn, h, {}, &r));
    *card = h.meta.count;
    return Status::OK();
  }

  Status Scores(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& members,
                std::vector<std::optional<double>>* scores) override {
    scores->assign(members.size(), std::nullopt);
    if (h.is_new || members.empty()) return Status::OK();
    if (!stored()) {
      std::vector<std::optional<std::string>> raw;
      KVLAB_RETURN_IF_ERROR(
          ReadPoints(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h), members, &raw));
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] && raw[i]->size() == 8) (*scores)[i] = DecodeScore(raw[i]->data());
      }
      return Status::OK();
    }
    std::vector<std::string> cmd = {"ZMSCORE", Session(txn).Prefix(h)};
    for (std::string_view m : members) cmd.push_back(RefOf(m));
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(txn, h, {cmd}, &r));
    for (size_t i = 0; i < members.size() && i < r[0].elements().size(); ++i) {
      const Reply& s = r[0].elements()[i];
      if (s.type() == Reply::Type::kBulk) (*scores)[i] = ParseScore(s.str());
    }
    return Status::OK();
  }

  Status RangeByRank(KvTxn& txn, const KeyHandle& h, int64_t start, int64_t stop, bool reverse,
                     std::vector<ScoredMember>* out) override {
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::string> cmd =
        refs() ? Script(zset_scripts::kRankWindow, key,
                        {std::to_string(start), std::to_string(stop), reverse ? "1" : "0"})
               : IfExists("ZRANGE", key,
                          Args({std::to_string(start), std::to_string(stop)}, reverse, true));
    return Read(
        txn, h, cmd,
        [&](const Reply& r) -> Status {
          if (!refs()) {
            *out = Pairs(r.elements()[0]);
            return Status::OK();
          }
          out->clear();
          if (r.elements().size() < 5) return Status::OK();
          const auto a = static_cast<uint64_t>(r.elements()[1].integer());
          const auto b = static_cast<uint64_t>(r.elements()[2].integer());
          const auto r0 = static_cast<uint64_t>(r.elements()[3].integer());
          std::vector<ScoredMember> group;
          KVLAB_RETURN_IF_ERROR(ResolveSorted(txn, h, r.elements()[4], &group));
          for (uint64_t i = a; i <= b && i - r0 < group.size(); ++i) out->push_back(group[i - r0]);
          if (reverse) std::reverse(out->begin(), out->end());
          return Status::OK();
        },
        [&](const SortedMembers& z) { *out = z.RangeByRank(start, stop, reverse); });
  }

  Status RangeByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range, bool reverse,
                      const RangeLimit& limit, std::vector<ScoredMember>* out) override {
    out->clear();
    if (range.IsEmpty()) return Status::OK();
    const std::string key = Session(txn).Prefix(h);
    const std::string lo = BoundText(range.min), hi = BoundText(range.max);
    const std::string off = std::to_string(limit.offset), cnt = std::to_string(limit.count);
    std::vector<std::string> cmd =
        refs() ? Script(zset_scripts::kScoreWindow, key, {lo, hi, off, cnt, reverse ? "1" : "0"})
               : IfExists("ZRANGE", key,
                          Args(reverse ? std::vector<std::string>{hi, lo, "BYSCORE"}
                                       : std::vector<std::string>{lo, hi, "BYSCORE"},
                               reverse, true, {"LIMIT", off, cnt}));
    return Read(
        txn, h, cmd,
        [&](const Reply& r) -> Status {
          if (!refs()) {
            *out = Pairs(r.elements()[0]);
            return Status::OK();
          }
          if (r.elements().size() < 2) return Status::OK();
          const auto r0 = static_cast<int64_t>(r.elements()[0].integer());
          std::vector<ScoredMember> group;
          KVLAB_RETURN_IF_ERROR(ResolveSorted(txn, h, r.elements()[1], &group));
          if (reverse) std::reverse(group.begin(), group.end());
          *out = ApplyLimit(std::move(group), {limit.offset - r0, limit.count});
          return Status::OK();
        },
        [&](const SortedMembers& z) { *out = z.RangeByScore(range, reverse, limit); });
  }

  Status RangeByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range, bool reverse,
                    const RangeLimit& limit, std::vector<ScoredMember>* out) override {
    out->clear();
    if (range.IsEmpty()) return Status::OK();
    auto local = [&](const SortedMembers& z) { *out = z.RangeByLex(range, reverse, limit); };
    if (refs()) return ReadWhole(txn, h, local);
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::string> args = {LexText(reverse ? range.max : range.min),
                                     LexText(reverse ? range.min : range.max), "BYLEX"};
    if (reverse) args.push_back("REV");
    args.insert(args.end(), {"LIMIT", std::to_string(limit.offset), std::to_string(limit.count)});
    return Read(
        txn, h, IfExists("ZRANGE", key, args),
        [&](const Reply& r) -> Status {
          for (const Reply& m : r.elements()[0].elements()) out->push_back({m.str(), 0});
          return Status::OK();
        },
        local);
  }

  Status CountByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range,
                      uint64_t* count) override {
    *count = 0;
    if (range.IsEmpty()) return Status::OK();
    const std::string key = Session(txn).Prefix(h);
    return Read(
        txn, h, IfExists("ZCOUNT", key, {BoundText(range.min), BoundText(range.max)}),
        [&](const Reply& r) -> Status {
          *count = static_cast<uint64_t>(r.elements()[0].integer());
          return Status::OK();
        },
        [&](const SortedMembers& z) { *count = z.CountByScore(range); });
  }

  Status CountByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range,
                    uint64_t* count) override {
    *count = 0;
    if (range.IsEmpty()) return Status::OK();
    auto local = [&](const SortedMembers& z) { *count = z.CountByLex(range); };
    if (refs()) return ReadWhole(txn, h, local);
    return Read(
        txn, h,
        IfExists("ZLEXCOUNT", Session(txn).Prefix(h), {LexText(range.min), LexText(range.max)}),
        [&](const Reply& r) -> Status {
          *count = static_cast<uint64_t>(r.elements()[0].integer());
          return Status::OK();
        },
        local);
  }

  Status Rank(KvTxn& txn, const KeyHandle& h, std::string_view member, bool reverse,
              std::optional<uint64_t>* rank) override {
    rank->reset();
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::string> cmd =
        refs() ? Script(zset_scripts::kRankOf, key, {RefOf(member)})
               : IfExists(reverse ? "ZREVRANK" : "ZRANK", key, {std::string(member)});
    return Read(
        txn, h, cmd,
        [&](const Reply& r) -> Status {
          if (!refs()) {
            const auto& boxed = r.elements();
            if (!boxed.empty() && boxed[0].type() == Reply::Type::kInteger) {
              *rank = static_cast<uint64_t>(boxed[0].integer());
            }
            return Status::OK();
          }
          if (r.elements().size() < 3) return Status::OK();
          const auto n = static_cast<uint64_t>(r.elements()[0].integer());
          uint64_t forward = static_cast<uint64_t>(r.elements()[1].integer());
          std::vector<std::string> refs_tied;
          for (const Reply& e : r.elements()[2].elements()) refs_tied.push_back(e.str());
          if (refs_tied.size() > 1) {  // ties: order them by member, not by ref
            std::vector<std::string> tied;
            KVLAB_RETURN_IF_ERROR(ResolveRefs(txn, h, refs_tied, &tied));
            for (const std::string& m : tied) forward += m < member;
          }
          *rank = reverse ? n - 1 - forward : forward;
          return Status::OK();
        },
        [&](const SortedMembers& z) { *rank = z.Rank(member, reverse); });
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<ScoredMember>* out,
              std::optional<std::string>* next) override {
    out->clear();
    next->reset();
    if (h.is_new || count == 0) return Status::OK();
    if (!stored()) {
      // The members are in KV: walk s# in member order, as v0 does.
      const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
      std::string lower = prefix;
      if (after) lower.append(*after).push_back('\0');
      KVLAB_RETURN_IF_ERROR(ScanRange(
          txn.kv(), lower, PrefixSuccessor(prefix), false, 0, static_cast<int64_t>(count),
          [&](std::string_view k, std::string_view v) {
            if (v.size() == 8) {
              out->push_back({std::string(k.substr(prefix.size())), DecodeScore(v.data())});
            }
            return true;
          }));
      if (out->size() == count) *next = out->back().member;
      return Status::OK();
    }
    // v3: Redis's own ZSCAN over the store, its cursor carried in kvlab's.
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreChecked(
        txn, h,
        {{"ZSCAN", Session(txn).Prefix(h), after.value_or("0"), "COUNT", std::to_string(count)}},
        &r));
    if (r[0].elements().size() != 2) return Status::OK();
    std::vector<ScoredMember> items = Pairs(r[0].elements()[1]);
    KVLAB_RETURN_IF_ERROR(ResolveInPlace(txn, h, &items));
    *out = std::move(items);
    if (r[0].elements()[0].str() != "0") *next = r[0].elements()[0].str();
    return Status::OK();
  }

  // --- writes ----------------------------------------------------------------------------

  Status Add(KvTxn& txn, KeyHandle* h, const ZAddFlags& flags,
             const std::vector<ScoredMember>& elems, ZAddResult* result) override {
    const std::vector<std::string_view> distinct = DistinctMembers(elems);
    std::vector<std::optional<double>> before(distinct.size());
    if (!h->is_new) KVLAB_RETURN_IF_ERROR(Scores(txn, *h, distinct, &before));
    ZAddPlan plan;
    KVLAB_RETURN_IF_ERROR(ApplyZAdd(flags, elems, std::move(before), &plan));
    *result = plan.result;
    const std::vector<size_t> changed = plan.Changed();
    if (changed.empty()) return Status::OK();
    const std::string field_prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> zadd;
    std::vector<bool> adds;  // per (score, member) pair of zadd: whether it adds a member
    WriteBatch index_first;  // v3: the new long members' i#, written before their refs
    for (size_t i : changed) {
      const std::string_view m = plan.members[i];
      const std::string ref = RefOf(m);
      if (!stored()) {
        std::string score;
        PutScore(&score, *plan.after[i]);
        txn.batch().Put(field_prefix + std::string(m), score);
      }
      if (refs() && IsLongRef(ref) && !plan.before[i]) {
        (stored() ? index_first : txn.batch()).Put(index_prefix + ref, m);
      }
      zadd.push_back(ScoreText(*plan.after[i]));
      zadd.push_back(refs() ? ref : std::string(m));
      adds.push_back(!plan.before[i].has_value());
    }
    const std::string key = Session(txn).Prefix(*h);
    if (stored()) return AddStored(txn, h, key, index_first, zadd, adds, *result);
    if (result->added > 0 || h->is_new) {
      if (h->meta.count + static_cast<uint64_t>(result->added) > UINT32_MAX) {
        return Status::InvalidArgument("a zset of this encoding holds at most 4294967295 members");
      }
      if (result->added == 0) return Status::OK();  // a new key that stays absent
      const bool was_new = h->is_new;
      h->meta.count += static_cast<uint32_t>(result->added);
      txn.PutMeta(h);
      if (was_new) return Status::OK();  // nothing cached for a new key-version
    }
    std::vector<std::vector<std::string>> cmds;
    for (size_t s = 0; s < zadd.size(); s += kMaxLuaArgs) {
      cmds.push_back(
          IfExists("ZADD", key,
                   std::vector<std::string>(
                       zadd.begin() + s, zadd.begin() + std::min(zadd.size(), s + kMaxLuaArgs))));
    }
    CacheWriteAfterCommit(Session(txn), key, std::move(cmds), {key});
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                uint64_t* removed) override {
    *removed = 0;
    std::vector<std::string_view> distinct;
    std::unordered_set<std::string_view> seen;
    for (std::string_view m : members) {
      if (seen.insert(m).second) distinct.push_back(m);
    }
    if (stored()) return RemoveStored(txn, h, distinct, /*all_members=*/false, removed);
    std::vector<std::optional<double>> scores;
    KVLAB_RETURN_IF_ERROR(Scores(txn, *h, distinct, &scores));
    std::vector<std::string_view> victims;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (scores[i]) victims.push_back(distinct[i]);
    }
    return RemoveCached(txn, h, victims, removed);
  }

  Status RemoveRangeByRank(KvTxn& txn, KeyHandle* h, int64_t start, int64_t stop,
                           uint64_t* removed) override {
    std::vector<ScoredMember> victims;
    KVLAB_RETURN_IF_ERROR(RangeByRank(txn, *h, start, stop, false, &victims));
    return RemoveVictims(txn, h, victims, removed);
  }

  Status RemoveRangeByScore(KvTxn& txn, KeyHandle* h, const ScoreRange& range,
                            uint64_t* removed) override {
    std::vector<ScoredMember> victims;
    KVLAB_RETURN_IF_ERROR(RangeByScore(txn, *h, range, false, RangeLimit(), &victims));
    return RemoveVictims(txn, h, victims, removed);
  }

  Status RemoveRangeByLex(KvTxn& txn, KeyHandle* h, const LexRange& range,
                          uint64_t* removed) override {
    std::vector<ScoredMember> victims;
    KVLAB_RETURN_IF_ERROR(RangeByLex(txn, *h, range, false, RangeLimit(), &victims));
    return RemoveVictims(txn, h, victims, removed);
  }

  Status Pop(KvTxn& txn, KeyHandle* h, uint64_t count, bool max,
             std::vector<ScoredMember>* out) override {
    out->clear();
    if (count == 0) return Status::OK();
    const int64_t last =
        count > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(count - 1);
    KVLAB_RETURN_IF_ERROR(RangeByRank(txn, *h, 0, last, max, out));
    uint64_t removed = 0;
    return RemoveVictims(txn, h, *out, &removed);
  }

  // --- keyspace hooks (v3's store) ---------------------------------------------------------

  // v0-v2 keep everything in KV (the default copies its records). v3's members are in the store:
  // the copy reads them whole and adds them to `to` as a new zset (the store write, the `i#`
  // records of long members and the counted meta, as ZADD writes them), then gives the store
  // `to`'s expiry.
  Status Copy(KvTxn& txn, const KeyHandle& from, KeyHandle* to) override {
    if (!stored()) return TypeEncoding::Copy(txn, from, to);
    std::vector<ScoredMember> all;
    KVLAB_RETURN_IF_ERROR(RangeByRank(txn, from, 0, -1, false, &all));
    if (all.empty()) return Status::Corruption("zset v3 copy: the source zset is empty");
    to->meta.count = 0;
    to->meta.count_known = true;
    ZAddResult added;
    KVLAB_RETURN_IF_ERROR(Add(txn, to, ZAddFlags{}, all, &added));
    if (!to->meta.has_expire()) return Status::OK();
    return OnExpire(txn, *to, KeyMeta::kNoExpire);
  }

  // The KV records, plus the zset at the key's tier prefix (v1, v2: in the cache; v3: in the
  // store) and, for v2 and v3, the ref -> member cache entry of each long member (its i# record).
  Status Footprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out) override {
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::string> cached = {};
    if (!stored()) cached.push_back(key);
    const std::function<void(SubKeyTag, std::string_view)> each = [&](SubKeyTag tag,
                                                                      std::string_view ref) {
      if (tag == SubKeyTag::kIndex) cached.push_back(key + std::string(ref));
    };
    KVLAB_RETURN_IF_ERROR(KvFootprint(txn, h, out, &each));
    KVLAB_RETURN_IF_ERROR(TierFootprint(Session(txn), TierRole::kCache, cached, &out->tier_bytes));
    if (!stored()) return Status::OK();
    return TierFootprint(Session(txn), TierRole::kStore, {key}, &out->tier_bytes);
  }

  Status OnExpire(KvTxn& txn, const KeyHandle& h, int64_t old_expire_ms) override {
    if (!stored()) return Status::OK();
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
    if (!stored() || tier_ == nullptr) return Status::OK();
    RedisTier* tier = tier_;
    // A new fence first (acknowledged): a late write of the uncertain one is refused from now
    // on if it has not run, so what the store holds next is final.
    std::string fence;
    Status s = tier->StoreFence(&txn.tier_counts(), &fence);
    if (!s.ok()) return StoreUnavailable(txn, s);
    const std::string key = Session(txn).Prefix(*h);
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(Store(txn, {{"ZCARD", key}}, &r));
    const int64_t held = r[0].integer();
    if (held == 0 && !uncertain) {
      // A meta from before v3 kept a count, over a store with no zset: lost, not reconciled.
      return StoreDisagrees(txn, *h, 0);
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
    if (!stored() || tier_ == nullptr) return Status::OK();
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

 private:
  bool refs() const { return version_ >= 2; }
  bool stored() const { return version_ == 3; }

  static std::vector<std::string> Script(const char* script, const std::string& key,
                                         std::vector<std::string> args) {
    std::vector<std::string> out = {"EVAL", script, "1", key};
    out.insert(out.end(), std::make_move_iterator(args.begin()),
               std::make_move_iterator(args.end()));
    return out;
  }

  // ZRANGE's arguments after the key.
  static std::vector<std::string> Args(std::vector<std::string> head, bool reverse, bool scores,
                                       std::vector<std::string> tail = {}) {
    if (reverse) head.push_back("REV");
    head.insert(head.end(), tail.begin(), tail.end());
    if (scores) head.push_back("WITHSCORES");
    return head;
  }

  Status StoreOn(KvTxn& txn, const std::vector<std::vector<std::string>>& cmds,
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
  Status Store(KvTxn& txn, const std::vector<std::vector<std::string>>& cmds,
               std::vector<Reply>* replies) const {
    return StoreOn(txn, cmds, replies);
  }

  // Runs a read: on Redis (v3: the store, which must answer; v1/v2: the cache, if usable and
  // holding the zset), else from the whole zset loaded from KV. `remote` parses the reply
  // of `cmd`; `local` answers from memory.
  Status Read(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& cmd,
              const std::function<Status(const Reply&)>& remote,
              const std::function<void(const SortedMembers&)>& local) {
    if (h.is_new) {
      local(SortedMembers({}));
      return Status::OK();
    }
    const std::string key = Session(txn).Prefix(h);
    std::vector<Reply> r;
    if (stored()) {
      // A v3 zset of a live key-meta is never empty: a missing one is lost data, an error.
      KVLAB_RETURN_IF_ERROR(StoreChecked(txn, h, {cmd}, &r));
      if (r[0].type() == Reply::Type::kNil) return StoreDisagrees(txn, h, 0);
      return remote(r[0]);
    }
    const bool usable = CacheRead(Session(txn), key, {cmd}, &r);
    if (usable && r[0].type() != Reply::Type::kNil) {
      ++txn.tier_counts().cache_hits;
      return remote(r[0]);
    }
    std::vector<ScoredMember> all;
    KVLAB_RETURN_IF_ERROR(LoadFromKv(txn, h, &all));
    if (usable) {
      ++txn.tier_counts().cache_misses;
      Refill(txn, h, all);
    }
    local(SortedMembers(std::move(all)));
    return Status::OK();
  }

  // A read that needs the whole zset in member order (lex ranges over refs).
  Status ReadWhole(KvTxn& txn, const KeyHandle& h,
                   const std::function<void(const SortedMembers&)>& local) {
    return Read(
        txn, h, IfExists("ZRANGE", Session(txn).Prefix(h), {"0", "-1", "WITHSCORES"}),
        [&](const Reply& r) -> Status {
          std::vector<ScoredMember> all = Pairs(r.elements()[0]);
          KVLAB_RETURN_IF_ERROR(ResolveInPlace(txn, h, &all));
          local(SortedMembers(std::move(all)));
          return Status::OK();
        },
        local);
  }

  // The whole zset from KV's s# records (v1, v2).
  static Status LoadFromKv(KvTxn& txn, const KeyHandle& h, std::vector<ScoredMember>* all) {
    all->clear();
    if (h.meta.has_count()) all->reserve(h.meta.count);
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view m, std::string_view v) {
                        if (v.size() == 8) all->push_back({std::string(m), DecodeScore(v.data())});
                        return true;
                      });
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
        zadd.push_back(ScoreText(all[i].score));
        const std::string ref = refs() ? RefOf(all[i].member) : all[i].member;
        zadd.push_back(ref);
        if (refs() && IsLongRef(ref)) {
          touched.push_back(key + ref);
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

  // Members of refs: short refs carry them; long ones come from the ref cache, else from i#
  // (refilling the cache).
  Status ResolveRefs(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& refs_in,
                     std::vector<std::string>* members) {
    members->assign(refs_in.size(), "");
    std::vector<size_t> longs;
    for (size_t i = 0; i < refs_in.size(); ++i) {
      if (IsLongRef(refs_in[i])) {
        longs.push_back(i);
      } else {
        (*members)[i] = refs_in[i].substr(1);
      }
    }
    if (longs.empty()) return Status::OK();
    const std::string key = Session(txn).Prefix(h);
    std::vector<std::string> mget = {"MGET"};
    for (size_t i : longs) mget.push_back(key + refs_in[i]);
    std::vector<Reply> r;
    const bool cached = CacheRead(Session(txn), key, {mget}, &r);
    std::vector<size_t> from_kv;
    for (size_t j = 0; j < longs.size(); ++j) {
      if (cached && r[0].elements()[j].type() == Reply::Type::kBulk) {
        (*members)[longs[j]] = r[0].elements()[j].str();
        ++txn.tier_counts().cache_hits;
      } else {
        if (cached) ++txn.tier_counts().cache_misses;
        from_kv.push_back(longs[j]);
      }
    }
    if (from_kv.empty()) return Status::OK();
    std::vector<std::string_view> suffixes;
    for (size_t i : from_kv) suffixes.push_back(refs_in[i]);
    std::vector<std::optional<std::string>> found;
    KVLAB_RETURN_IF_ERROR(
        ReadPoints(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kIndex, h), suffixes, &found));
    std::vector<std::vector<std::string>> refill;
    std::vector<std::string> touched;
    const std::string ttl = std::to_string(tier_->zset_member_ttl_ms.load());
    for (size_t k = 0; k < from_kv.size(); ++k) {
      if (!found[k]) return Status::Corruption("zset ref without its member index (i#)");
      (*members)[from_kv[k]] = *found[k];
      if (!cached) continue;
      touched.push_back(key + refs_in[from_kv[k]]);
      refill.push_back({"SET", touched.back(), *found[k], "PX", ttl});
    }
    CacheWriteNow(Session(txn), key, refill, touched);
    return Status::OK();
  }

  Status ResolveInPlace(KvTxn& txn, const KeyHandle& h, std::vector<ScoredMember>* items) {
    if (!refs()) return Status::OK();
    std::vector<std::string> refs_in, members;
    for (const auto& i : *items) refs_in.push_back(i.member);
    KVLAB_RETURN_IF_ERROR(ResolveRefs(txn, h, refs_in, &members));
    for (size_t i = 0; i < items->size(); ++i) (*items)[i].member = std::move(members[i]);
    return Status::OK();
  }

  // A flat [ref, score, ...] group, resolved and sorted as Redis sorts members.
  Status ResolveSorted(KvTxn& txn, const KeyHandle& h, const Reply& flat,
                       std::vector<ScoredMember>* out) {
    *out = Pairs(flat);
    KVLAB_RETURN_IF_ERROR(ResolveInPlace(txn, h, out));
    std::sort(out->begin(), out->end(), ZsetLess);
    return Status::OK();
  }

  Status RemoveVictims(KvTxn& txn, KeyHandle* h, const std::vector<ScoredMember>& victims,
                       uint64_t* removed) {
    std::vector<std::string_view> members;
    for (const auto& v : victims) members.push_back(v.member);
    if (stored()) return RemoveStored(txn, h, members, /*all_members=*/true, removed);
    return RemoveCached(txn, h, members, removed);
  }

  // v1/v2: delete existing members from KV, then from the cached zset if it exists.
  Status RemoveCached(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& victims,
                      uint64_t* removed) {
    *removed = victims.size();
    if (victims.empty()) return Status::OK();
    const std::string field_prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> elems;
    for (std::string_view m : victims) {
      txn.batch().Delete(field_prefix + std::string(m));
      const std::string ref = RefOf(m);
      if (refs() && IsLongRef(ref)) txn.batch().Delete(index_prefix + ref);
      elems.push_back(refs() ? ref : std::string(m));
    }
    if (victims.size() >= h->meta.count) {
      txn.DeleteMeta(h->key);
    } else {
      h->meta.count -= static_cast<uint32_t>(victims.size());
      txn.PutMeta(h);
    }
    const std::string key = Session(txn).Prefix(*h);
    std::vector<std::vector<std::string>> cmds;
    for (size_t s = 0; s < elems.size(); s += kMaxLuaArgs) {
      cmds.push_back(IfExists(
          "ZREM", key,
          std::vector<std::string>(elems.begin() + s,
                                   elems.begin() + std::min(elems.size(), s + kMaxLuaArgs))));
    }
    CacheWriteAfterCommit(Session(txn), key, std::move(cmds), {key});
    return Status::OK();
  }

  // v3's additions, in the order that keeps every failure harmless: the new long members' i#
  // first (an unreferenced i# is inert), then the store, then (in the command's batch) the
  // key-meta with its new count. A store that is down fails the command with nothing visible;
  // a crash after the store write leaves, at worst, a new key's zset without its meta:
  // invisible garbage for the collector. The store writes are fenced and carry the expected
  // counts (StoreWrites).
  Status AddStored(KvTxn& txn, KeyHandle* h, const std::string& key, const WriteBatch& index_first,
                   const std::vector<std::string>& zadd, const std::vector<bool>& adds,
                   const ZAddResult& result) {
    const uint64_t count = h->is_new ? 0 : h->meta.count;
    if (count + static_cast<uint64_t>(result.added) > UINT32_MAX) {
      return Status::InvalidArgument("a zset of this encoding holds at most 4294967295 members");
    }
    if (!index_first.empty()) KVLAB_RETURN_IF_ERROR(txn.kv().Write(index_first));
    std::vector<std::pair<std::vector<std::string>, uint64_t>> chunks;  // (args, adds)
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

  // v3's removals: the store first (the reply needs its count), then the long members' i# and
  // the key-meta's count (the meta goes when the zset became empty). `all_members`: every one
  // of `members` is in the zset (range removals), so the count after each chunk is known;
  // otherwise a removal of more than one chunk reads the members' scores first.
  Status RemoveStored(KvTxn& txn, KeyHandle* h, std::vector<std::string_view> members,
                      bool all_members, uint64_t* removed) {
    *removed = 0;
    if (members.empty() || h->is_new) return Status::OK();
    if (!all_members && members.size() > kMaxLuaArgs) {
      std::vector<std::optional<double>> scores;
      KVLAB_RETURN_IF_ERROR(Scores(txn, *h, members, &scores));
      std::vector<std::string_view> present;
      for (size_t i = 0; i < members.size(); ++i) {
        if (scores[i]) present.push_back(members[i]);
      }
      members = std::move(present);
      all_members = true;
      if (members.empty()) return Status::OK();
    }
    const std::string key = Session(txn).Prefix(*h);
    const std::string index_prefix = txn.SubKeyPrefix(SubKeyTag::kIndex, *h);
    std::vector<std::string> refs_given;
    for (std::string_view m : members) refs_given.push_back(RefOf(m));
    std::vector<std::pair<std::vector<std::string>, uint64_t>> chunks;  // (refs, removals)
    for (size_t s = 0; s < refs_given.size(); s += kMaxLuaArgs) {
      const size_t end = std::min(refs_given.size(), s + kMaxLuaArgs);
      // A chunk's removals are known exactly when every member is in the zset; a single chunk
      // needs only the count before it.
      chunks.emplace_back(
          std::vector<std::string>(refs_given.begin() + s, refs_given.begin() + end),
          all_members ? end - s : 0);
    }
    std::vector<Reply> r;
    KVLAB_RETURN_IF_ERROR(StoreWrites(txn, *h, "ZREM", h->meta.count, chunks, &r));
    ReconcileIfCommitFails(txn, *h);
    for (const Reply& chunk : r) *removed += static_cast<uint64_t>(chunk.elements()[0].integer());
    for (const std::string& ref : refs_given) {
      if (IsLongRef(ref)) txn.batch().Delete(index_prefix + ref);
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

  // Runs fenced v3 store writes (zset_scripts::kStoreWrite), one per chunk of `command`'s
  // arguments; chunk i must find the zset holding `count_before` plus (ZADD) or minus (ZREM) the
  // members changed by the chunks before it. On success *replies holds one {reply, count after}
  // per chunk. A write refused before anything changed returns the store's disagreement (lost
  // data), after moving the fence on and trying once more if only the fence was stale. A write
  // whose outcome is unknown (no reply), or that stopped half way, marks the key uncertain: the
  // reply says the write may have been applied, and kvlab reconciles the key before its next use.
  Status StoreWrites(KvTxn& txn, const KeyHandle& h, const char* command, uint64_t count_before,
                     const std::vector<std::pair<std::vector<std::string>, uint64_t>>& chunks,
                     std::vector<Reply>* replies) {
    RedisTier* tier = tier_;
    if (tier == nullptr) return Status::Unavailable("zset v3 needs the Redis tier");
    const std::string key = Session(txn).Prefix(h);
    const bool adding = std::string_view(command) == "ZADD";
    for (int attempt = 0;; ++attempt) {
      std::string fence;
      Status s = tier->StoreFence(&txn.tier_counts(), &fence);
      if (!s.ok()) return StoreUnavailable(txn, s);
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
        if (!maybe_applied) return StoreUnavailable(txn, s);
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
          return StoreDisagrees(txn, h, std::atoll(first.str().c_str() + 11));
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

  Status StoreUnavailable(KvTxn& txn, const Status& s) const {
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
  static Status StoreDisagrees(KvTxn& txn, const KeyHandle& h, int64_t held) {
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

  // v3 reads: `cmds` and a ZCARD of the zset in one round trip; the count must be the
  // key-meta's, so that a store that lost the zset, or writes to it, gives an error, never an
  // empty or short answer. The ZCARD's reply is removed.
  Status StoreChecked(KvTxn& txn, const KeyHandle& h, std::vector<std::vector<std::string>> cmds,
                      std::vector<Reply>* replies) const {
    cmds.push_back({"ZCARD", Session(txn).Prefix(h)});
    KVLAB_RETURN_IF_ERROR(Store(txn, cmds, replies));
    const int64_t held = replies->back().integer();
    replies->pop_back();
    if (static_cast<uint64_t>(held) != h.meta.count) return StoreDisagrees(txn, h, held);
    return Status::OK();
  }

  TierSession Session(KvTxn& txn) const { return TierSession(tier_, &txn); }

  const uint8_t version_;
  RedisTier* const tier_;
};

}  // namespace

std::unique_ptr<ZsetEncoding> NewTieredZsetEncoding(uint8_t version, RedisTier* tier) {
  return std::make_unique<TieredZset>(version, tier);
}

}  // namespace kvlab::encodings
