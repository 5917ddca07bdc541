// Zset v0, kvrocks and ardb: member -> score and a score index, both in KV; the count in the
// key-meta (v0, kvrocks).
//
//   key-meta  m# ... -> 0 | 3 | key-version | expire | count u32
//             kvrocks: 0x85 | expire (0 = none) | key-version | size u64 (key_meta.h)
//             ardb: 09 (KEY_ZSET) | 00 (format) | expire (0 = none)
//   member    s# ... | key-version | member -> score (8 bytes, score_codec.h)
//             ardb: a# ... | 0b (KEY_ZSET_SCORE) | member -> 0b | score (8 bytes)
//   index     k# ... | key-version | score (8 bytes, score_codec.h) | member -> ""
//             ardb: a# ... | 0a (KEY_ZSET_SORT) | score (8 bytes) | member -> 0a
//             (kvrocks: s# is 004_*'s DATA_CF and k# its REDIS_ZSET_SCORE_CF, byte for byte)
//
// ardb (001_*) keeps no count and no key-version: ZCARD counts the members with a scan, a
// negative rank (or a reverse rank on a store without reverse scan) reads the whole index, ZREM
// and the range removals scan for a surviving member to know whether the zset is now empty, a
// new zset first clears its prefix, and DEL deletes every record (OnDelete: 2n deletes).
//
// An index record is written once and deleted once, so it is deleted with SingleDelete (on
// RocksDB a tombstone that vanishes with its Put in a compaction, kv_store.h): its key holds the
// score, so a score change or a removal deletes it and a new score writes another key
// (ApplyZAdd's Changed() leaves out unchanged scores, -0 included: it is stored as 0), and a
// member's record is only written again into a fresh prefix: a new key-version, or for Ardb's
// layout a prefix that a new key, DEL, an overwrite, a reaped expiry, RENAME/COPY and migration
// clear first.
//
// Score order is k# order, so rank and score ranges walk k#; lex ranges walk s# (member order,
// which is the zset's order when all scores are equal, the only case where Redis defines them).
// Rank ranges cost one next per skipped rank: a KV store has no order statistics.
// Reverse ranges use reverse scan when the store has it; otherwise they walk forward (using the
// count to turn reverse ranks into forward ones), and the extra cost shows in the counters.
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "encodings/ardb_common.h"
#include "encodings/kv_reads.h"
#include "encodings/score_codec.h"
#include "encodings/zset_encoding.h"
#include "encodings/zset_members.h"
#include "encodings/zset_memory.h"

namespace kvlab::encodings {
namespace {

class IndexedZset final : public ZsetBase {
 public:
  explicit IndexedZset(uint8_t version) : version_(version), ardb_(IsArdbId(version)) {}
  uint8_t version() const override { return version_; }

  Status Add(KvTxn& txn, KeyHandle* h, const ZAddFlags& flags,
             const std::vector<ScoredMember>& elems, ZAddResult* result) override {
    const Keys keys(txn, *h);
    const std::vector<std::string_view> distinct = DistinctMembers(elems);
    std::vector<std::optional<double>> before(distinct.size());
    if (!h->is_new) KVLAB_RETURN_IF_ERROR(ReadScores(txn, keys, distinct, &before));
    ZAddPlan plan;
    KVLAB_RETURN_IF_ERROR(ApplyZAdd(flags, elems, std::move(before), &plan));
    *result = plan.result;
    // A new Ardb key first clears its prefix (ardb_common.h).
    if (ardb_ && h->is_new && result->added > 0) KVLAB_RETURN_IF_ERROR(PurgeArdbKey(txn, *h));
    const std::string index_value = ardb_ ? ArdbValue(ArdbTag::kZsetSort, "") : "";
    for (size_t i : plan.Changed()) {
      const std::string_view member = plan.members[i];
      // The index record is written once and deleted once (the header comment says why).
      if (plan.before[i]) txn.batch().SingleDelete(keys.ScoreKey(*plan.before[i], member));
      txn.batch().Put(keys.ScoreKey(*plan.after[i], member), index_value);
      txn.batch().Put(keys.member + std::string(member),
                      zset_members::Value(*plan.after[i], ardb_));
    }
    // No new member: the count is unchanged, and a new key stays absent (ZADD XX).
    if (result->added == 0) return Status::OK();
    if (ardb_) {
      if (h->is_new) txn.PutMeta(h);  // no count to keep: the meta is written once
      return Status::OK();
    }
    if (static_cast<uint64_t>(result->added) > h->meta.MaxCount() - h->meta.count) {
      return Status::InvalidArgument("a zset of this encoding holds at most " +
                                     std::to_string(h->meta.MaxCount()) + " members");
    }
    h->meta.count += static_cast<uint64_t>(result->added);
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Card(KvTxn& txn, const KeyHandle& h, uint64_t* card) override {
    if (!ardb_) {
      *card = h.meta.count;
      return Status::OK();
    }
    *card = 0;
    if (h.is_new) return Status::OK();
    return ScanPrefix(txn.kv(), Keys(txn, h).member, [&](std::string_view, std::string_view) {
      ++*card;
      return true;
    });
  }

  Status Scores(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& members,
                std::vector<std::optional<double>>* scores) override {
    return ReadScores(txn, Keys(txn, h), members, scores);
  }

  // DEL, UNLINK, an overwrite, a reaped expiry: an Ardb zset's records go with its meta.
  Status OnDelete(KvTxn& txn, const KeyHandle& h) override {
    return ardb_ ? PurgeArdbKey(txn, h) : Status::OK();
  }

  // RENAME, COPY: a new Ardb key's prefix is cleared first; then every record is copied.
  Status Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to) override {
    if (ardb_) KVLAB_RETURN_IF_ERROR(PurgeArdbKey(to_txn, *to));
    return TypeEncoding::Copy(txn, from, to_txn, to);
  }

  Status RangeByRank(KvTxn& txn, const KeyHandle& h, int64_t start, int64_t stop, bool reverse,
                     std::vector<ScoredMember>* out) override {
    out->clear();
    const Keys keys(txn, h);
    if (ardb_) return ArdbRangeByRank(txn, keys, start, stop, reverse, out);
    uint64_t first, last;
    if (!ClampRankRange(start, stop, h.meta.count, &first, &last)) return Status::OK();
    if (reverse && !txn.capabilities().reverse_scan) {
      // Reverse ranks [first, last] are forward ranks [count-1-last, count-1-first].
      KVLAB_RETURN_IF_ERROR(WalkIndex(txn, keys, keys.score, keys.score_end, false,
                                      h.meta.count - 1 - last, last - first + 1, out));
      std::reverse(out->begin(), out->end());
      return Status::OK();
    }
    return WalkIndex(txn, keys, keys.score, keys.score_end, reverse, first, last - first + 1, out);
  }

  Status RangeByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range, bool reverse,
                      const RangeLimit& limit, std::vector<ScoredMember>* out) override {
    out->clear();
    if (range.IsEmpty()) return Status::OK();
    const Keys keys(txn, h);
    std::string lower = keys.ScoreBoundKey(range.min, /*is_max=*/false);
    std::string upper = keys.ScoreBoundKey(range.max, /*is_max=*/true);
    if (reverse && !txn.capabilities().reverse_scan) {
      KVLAB_RETURN_IF_ERROR(WalkIndex(txn, keys, lower, upper, false, 0, -1, out));
      return ReverseAndLimit(limit, out);
    }
    return WalkIndex(txn, keys, lower, upper, reverse, static_cast<uint64_t>(limit.offset),
                     limit.count, out);
  }

  Status RangeByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range, bool reverse,
                    const RangeLimit& limit, std::vector<ScoredMember>* out) override {
    out->clear();
    if (range.IsEmpty()) return Status::OK();
    const Keys keys(txn, h);
    auto [lower, upper] = keys.LexBounds(range);
    if (reverse && !txn.capabilities().reverse_scan) {
      KVLAB_RETURN_IF_ERROR(WalkMembers(txn, keys, lower, upper, false, 0, -1, out));
      return ReverseAndLimit(limit, out);
    }
    return WalkMembers(txn, keys, lower, upper, reverse, static_cast<uint64_t>(limit.offset),
                       limit.count, out);
  }

  Status CountByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range,
                      uint64_t* count) override {
    *count = 0;
    if (range.IsEmpty()) return Status::OK();
    const Keys keys(txn, h);
    return ScanRange(txn.kv(), keys.ScoreBoundKey(range.min, false),
                     keys.ScoreBoundKey(range.max, true), false, 0, -1,
                     [&](std::string_view, std::string_view) { return ++*count, true; });
  }

  Status CountByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range,
                    uint64_t* count) override {
    *count = 0;
    if (range.IsEmpty()) return Status::OK();
    const Keys keys(txn, h);
    auto [lower, upper] = keys.LexBounds(range);
    return ScanRange(txn.kv(), lower, upper, false, 0, -1,
                     [&](std::string_view, std::string_view) { return ++*count, true; });
  }

  Status Rank(KvTxn& txn, const KeyHandle& h, std::string_view member, bool reverse,
              std::optional<uint64_t>* rank) override {
    rank->reset();
    const Keys keys(txn, h);
    std::vector<std::optional<double>> score;
    KVLAB_RETURN_IF_ERROR(ReadScores(txn, keys, {member}, &score));
    if (!score[0]) return Status::OK();
    // The forward rank is the number of index entries before (score, member).
    uint64_t before = 0;
    KVLAB_RETURN_IF_ERROR(
        ScanRange(txn.kv(), keys.score, keys.ScoreKey(*score[0], member), false, 0, -1,
                  [&](std::string_view, std::string_view) { return ++before, true; }));
    uint64_t card = h.meta.count;
    if (reverse && ardb_) KVLAB_RETURN_IF_ERROR(Card(txn, h, &card));
    *rank = reverse ? card - 1 - before : before;
    return Status::OK();
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<ScoredMember>* out,
              std::optional<std::string>* next) override {
    return zset_members::ScanPage(txn, h, after, count, out, next);
  }

 protected:
  Status RemoveDistinct(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        uint64_t* removed) override {
    const Keys keys(txn, *h);
    std::vector<std::optional<double>> scores;
    KVLAB_RETURN_IF_ERROR(ReadScores(txn, keys, members, &scores));
    std::vector<ScoredMember> victims;
    for (size_t i = 0; i < members.size(); ++i) {
      if (scores[i]) victims.push_back({std::string(members[i]), *scores[i]});
    }
    return Erase(txn, keys, h, victims, removed);
  }

  Status RemoveVictims(KvTxn& txn, KeyHandle* h, const std::vector<ScoredMember>& victims,
                       uint64_t* removed) override {
    return Erase(txn, Keys(txn, *h), h, victims, removed);
  }

 private:
  const uint8_t version_;
  const bool ardb_;  // Ardb's layout: no count, tagged values (key_meta.h, key_codec.h)
  // The key prefixes of one incarnation of a zset.
  struct Keys {
    Keys(const KvTxn& txn, const KeyHandle& h)
        : member(txn.SubKeyPrefix(SubKeyTag::kField, h)),
          score(txn.SubKeyPrefix(SubKeyTag::kScore, h)),
          member_end(PrefixSuccessor(member)),
          score_end(PrefixSuccessor(score)) {}

    std::string ScoreKey(double s, std::string_view m) const {
      std::string k = score;
      PutScore(&k, s);
      k.append(m);
      return k;
    }
    // The index key bounding a score range: lower bounds are inclusive, upper exclusive, so an
    // inclusive max and an exclusive min move to the next encoded score.
    std::string ScoreBoundKey(const ScoreBound& b, bool is_max) const {
      uint64_t bits = ScoreToOrderedBits(b.value == 0 ? 0.0 : b.value);
      if (is_max != b.exclusive) ++bits;  // inclusive max or exclusive min
      std::string k = score;
      PutFixed64BE(&k, bits);
      return k;
    }
    std::pair<std::string, std::string> LexBounds(const LexRange& r) const {
      auto key_of = [&](const LexBound& b, bool is_max) {
        switch (b.kind) {
          case LexBound::Kind::kNegInf:
            return member;
          case LexBound::Kind::kPosInf:
            return member_end;
          default: {
            std::string k = member + b.value;
            // The smallest string above x is x + "\0".
            if (is_max != (b.kind == LexBound::Kind::kExclusive)) k.push_back('\0');
            return k;
          }
        }
      };
      return {key_of(r.min, false), key_of(r.max, true)};
    }

    std::string member, score, member_end, score_end;
  };

  static Status ReadScores(KvTxn& txn, const Keys& keys,
                           const std::vector<std::string_view>& members,
                           std::vector<std::optional<double>>* scores) {
    return zset_members::ReadScores(txn, keys.member, members, scores);
  }

  // Ardb keeps no count: a rank range with a negative end, or a reverse one on a store without
  // reverse scan, reads the whole index and picks the ranks in memory; non-negative ranks walk
  // as v0's do.
  static Status ArdbRangeByRank(KvTxn& txn, const Keys& keys, int64_t start, int64_t stop,
                                bool reverse, std::vector<ScoredMember>* out) {
    if (start >= 0 && stop >= 0 && (!reverse || txn.capabilities().reverse_scan)) {
      if (start > stop) return Status::OK();
      const uint64_t span = static_cast<uint64_t>(stop - start) + 1;
      return WalkIndex(txn, keys, keys.score, keys.score_end, reverse, static_cast<uint64_t>(start),
                       span > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(span),
                       out);
    }
    std::vector<ScoredMember> all;
    KVLAB_RETURN_IF_ERROR(WalkIndex(txn, keys, keys.score, keys.score_end, false, 0, -1, &all));
    if (reverse) std::reverse(all.begin(), all.end());
    uint64_t first, last;
    if (!ClampRankRange(start, stop, all.size(), &first, &last)) return Status::OK();
    out->assign(std::make_move_iterator(all.begin() + static_cast<ptrdiff_t>(first)),
                std::make_move_iterator(all.begin() + static_cast<ptrdiff_t>(last) + 1));
    return Status::OK();
  }

  // Collects index entries of [lower, upper) in score order (or reverse), skipping and taking.
  static Status WalkIndex(KvTxn& txn, const Keys& keys, const std::string& lower,
                          const std::string& upper, bool reverse, uint64_t skip, int64_t take,
                          std::vector<ScoredMember>* out) {
    const size_t p = keys.score.size();
    Status bad;
    Status s = ScanRange(
        txn.kv(), lower, upper, reverse, skip, take, [&](std::string_view k, std::string_view) {
          if (k.size() < p + 8) {
            bad = Status::Corruption("zset index key too short");
            return false;
          }
          out->push_back({std::string(k.substr(p + 8)), DecodeScore(k.data() + p)});
          return true;
        });
    return bad.ok() ? s : bad;
  }

  // Collects member entries of [lower, upper) in member order (or reverse).
  static Status WalkMembers(KvTxn& txn, const Keys& keys, const std::string& lower,
                            const std::string& upper, bool reverse, uint64_t skip, int64_t take,
                            std::vector<ScoredMember>* out) {
    return zset_members::Walk(txn, keys.member, lower, upper, reverse, skip, take, out);
  }

  // For forward-only stores: `out` holds a whole range in forward order; make it the reverse
  // range with the limit applied.
  static Status ReverseAndLimit(const RangeLimit& limit, std::vector<ScoredMember>* out) {
    std::reverse(out->begin(), out->end());
    const auto skip = std::min<uint64_t>(static_cast<uint64_t>(limit.offset), out->size());
    out->erase(out->begin(), out->begin() + static_cast<ptrdiff_t>(skip));
    if (limit.count >= 0 && static_cast<uint64_t>(limit.count) < out->size()) {
      out->resize(static_cast<size_t>(limit.count));
    }
    return Status::OK();
  }

  // Deletes members (with their index entries) and updates or deletes the meta.
  Status Erase(KvTxn& txn, const Keys& keys, KeyHandle* h, const std::vector<ScoredMember>& victims,
               uint64_t* removed) const {
    *removed = victims.size();
    if (victims.empty()) return Status::OK();
    for (const auto& v : victims) {
      txn.batch().Delete(keys.member + v.member);
      txn.batch().SingleDelete(keys.ScoreKey(v.score, v.member));
    }
    if (ardb_) {
      // No count: whether the zset is now empty takes a scan of the index, stopped at the first
      // survivor (the index, not the members: removals by rank and score take its first entries).
      std::vector<std::string> index_suffixes;
      index_suffixes.reserve(victims.size());
      for (const auto& v : victims) {
        index_suffixes.push_back(keys.ScoreKey(v.score, v.member).substr(keys.score.size()));
      }
      const std::unordered_set<std::string_view> deleted(index_suffixes.begin(),
                                                         index_suffixes.end());
      bool survivor = false;
      KVLAB_RETURN_IF_ERROR(AnySurvivor(txn.kv(), keys.score, deleted, &survivor));
      if (!survivor) txn.DeleteMeta(h->key);
      return Status::OK();
    }
    if (victims.size() >= h->meta.count) {
      txn.DeleteMeta(h->key);
      return Status::OK();
    }
    h->meta.count -= victims.size();
    txn.PutMeta(h);
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<ZsetEncoding> NewIndexedZsetEncoding(uint8_t version) {
  return std::make_unique<IndexedZset>(version);
}

std::unique_ptr<ZsetEncoding> NewKvrocksZsetEncoding() {
  return std::make_unique<IndexedZset>(KvrocksFlags(KeyType::kZset));
}

std::unique_ptr<ZsetEncoding> NewArdbZsetEncoding() {
  return std::make_unique<IndexedZset>(ArdbId(KeyType::kZset));
}

}  // namespace kvlab::encodings
