// ZsetEncoding: the type logic of a Redis sorted set, one implementation per encode-version.
//
// The engine parses the command (all of Redis's range syntaxes become the range structs below),
// locks the key, loads the key-meta and calls the encoding the meta names. Encodings queue their
// writes in the KvTxn's batch, including the key-meta when it changes; an emptied zset's meta is
// deleted.
//
// Versions (../shared/spec/000_*, docs/encodings.md):
//   v0  s# member -> score and k# score|member index in KV, count in the meta.
//   v1  s# in KV, the whole zset cached in Redis.
//   v2  s# (+ i# for long members) in KV, a zset of refs cached in Redis.
//   v3  the zset of refs stored in Redis, i# for long members in KV, no count.
//   kvrocks  Kvrocks/NeoKV's layout (004_*): v0's s# and k# records (byte for byte the spec's
//            DATA_CF and REDIS_ZSET_SCORE_CF keys) under Kvrocks's key-meta (key_meta.h).
//
// Scores reaching an encoding are never NaN and never -0 (the engine normalises -0 to +0).
// Common REQUIREs: `h` holds the live key-meta of a zset of this encoding's version, or, for
// writes only, a new one (h->is_new) from KvTxn::NewMeta.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "encodings/type_encoding.h"

namespace kvlab::encodings {

struct ScoredMember {
  std::string member;
  double score = 0;
  bool operator==(const ScoredMember&) const = default;
};

struct ScoreBound {
  double value = 0;  // may be -inf or +inf
  bool exclusive = false;
};
struct ScoreRange {
  ScoreBound min, max;
  // True when no score can satisfy both bounds.
  bool IsEmpty() const {
    return min.value > max.value || (min.value == max.value && (min.exclusive || max.exclusive));
  }
  bool Contains(double s) const {
    return (min.exclusive ? s > min.value : s >= min.value) &&
           (max.exclusive ? s < max.value : s <= max.value);
  }
};

struct LexBound {
  enum class Kind { kNegInf, kPosInf, kInclusive, kExclusive };  // "-", "+", "[x", "(x"
  Kind kind = Kind::kNegInf;
  std::string value;
};
struct LexRange {
  LexBound min, max;
  bool IsEmpty() const;
  bool Contains(std::string_view member) const;
};

// LIMIT offset count. count < 0 means no limit. REQUIRES: offset >= 0 (the engine answers a
// negative offset with an empty reply, as Redis does, without calling the encoding).
struct RangeLimit {
  int64_t offset = 0;
  int64_t count = -1;
};

struct ZAddFlags {
  bool nx = false, xx = false, gt = false, lt = false, incr = false;
};

struct ZAddResult {
  int64_t added = 0;    // new members
  int64_t updated = 0;  // existing members whose score changed
  // INCR only: the member's new score, or empty when a flag stopped the update.
  std::optional<double> incr_score;
};

class ZsetEncoding : public TypeEncoding {
 public:
  // ZADD / ZINCRBY. Processes elements in order, as Redis does (a repeated member sees the
  // score an earlier element gave it). Fails with InvalidArgument "resulting score is not a
  // number (NaN)" when INCR would produce NaN; then nothing is written.
  // REQUIRES: !elems.empty(); with flags.incr, elems.size() == 1.
  virtual Status Add(KvTxn& txn, KeyHandle* h, const ZAddFlags& flags,
                     const std::vector<ScoredMember>& elems, ZAddResult* result) = 0;
  virtual Status Card(KvTxn& txn, const KeyHandle& h, uint64_t* card) = 0;
  // scores->size() == members.size() on success.
  virtual Status Scores(KvTxn& txn, const KeyHandle& h,
                        const std::vector<std::string_view>& members,
                        std::vector<std::optional<double>>* scores) = 0;

  // Ranks as Redis takes them: negative counts from the end; out-of-range clamps.
  virtual Status RangeByRank(KvTxn& txn, const KeyHandle& h, int64_t start, int64_t stop,
                             bool reverse, std::vector<ScoredMember>* out) = 0;
  // In score order, or reverse score order with `reverse`; the limit applies in that order.
  virtual Status RangeByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range, bool reverse,
                              const RangeLimit& limit, std::vector<ScoredMember>* out) = 0;
  virtual Status RangeByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range, bool reverse,
                            const RangeLimit& limit, std::vector<ScoredMember>* out) = 0;
  virtual Status CountByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range,
                              uint64_t* count) = 0;
  virtual Status CountByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range,
                            uint64_t* count) = 0;
  // The 0-based rank of member in score order (reverse: from the highest), or empty.
  virtual Status Rank(KvTxn& txn, const KeyHandle& h, std::string_view member, bool reverse,
                      std::optional<uint64_t>* rank) = 0;

  // ZSCAN: up to `count` members in member order, starting after `*after` (from the first
  // member when empty). *next is the last member returned when the walk may go on.
  virtual Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
                      uint64_t count, std::vector<ScoredMember>* out,
                      std::optional<std::string>* next) = 0;

  virtual Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        uint64_t* removed) = 0;
  virtual Status RemoveRangeByRank(KvTxn& txn, KeyHandle* h, int64_t start, int64_t stop,
                                   uint64_t* removed) = 0;
  virtual Status RemoveRangeByScore(KvTxn& txn, KeyHandle* h, const ScoreRange& range,
                                    uint64_t* removed) = 0;
  virtual Status RemoveRangeByLex(KvTxn& txn, KeyHandle* h, const LexRange& range,
                                  uint64_t* removed) = 0;
  // ZPOPMIN / ZPOPMAX: removes and returns up to `count` members from the low (or high) end.
  virtual Status Pop(KvTxn& txn, KeyHandle* h, uint64_t count, bool max,
                     std::vector<ScoredMember>* out) = 0;

  // Makes the key-meta agree with data kept outside KV (v3's store): after a store write whose
  // outcome was unknown (`uncertain`: it may have run late), or for a meta written before the
  // version kept a count. May change the meta's count or delete the key (*exists = false), in
  // the command's batch. REQUIRES: the key's lock, exclusively or shared.
  virtual Status Reconcile(KvTxn& txn, KeyHandle* h, bool uncertain, bool* exists) {
    *exists = true;
    return Status::OK();
  }
};

// ZsetBase: what every zset encoding does the same way, written once over two hooks. ZREM
// removes each distinct member once (RemoveDistinct); the range removals read their victims with
// the encoding's own range read, in forward order, and ZPOPMIN / ZPOPMAX read theirs with
// RangeByRank(0, count - 1) (reverse for ZPOPMAX), then remove them (RemoveVictims). So a range
// removal costs the range read plus the removal, in every version.
class ZsetBase : public ZsetEncoding {
 public:
  Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                uint64_t* removed) final;
  Status RemoveRangeByRank(KvTxn& txn, KeyHandle* h, int64_t start, int64_t stop,
                           uint64_t* removed) final;
  Status RemoveRangeByScore(KvTxn& txn, KeyHandle* h, const ScoreRange& range,
                            uint64_t* removed) final;
  Status RemoveRangeByLex(KvTxn& txn, KeyHandle* h, const LexRange& range, uint64_t* removed) final;
  Status Pop(KvTxn& txn, KeyHandle* h, uint64_t count, bool max,
             std::vector<ScoredMember>* out) final;

 protected:
  // ZREM: removes those of `members` that are in the zset; *removed is how many were.
  // REQUIRES: `members` holds no member twice; *removed == 0.
  virtual Status RemoveDistinct(KvTxn& txn, KeyHandle* h,
                                const std::vector<std::string_view>& members,
                                uint64_t* removed) = 0;
  // Removes `victims`, which a range read of this key has just returned (each is in the zset,
  // with its score), and updates or deletes the key-meta; *removed = victims.size().
  virtual Status RemoveVictims(KvTxn& txn, KeyHandle* h, const std::vector<ScoredMember>& victims,
                               uint64_t* removed) = 0;
};

// Redis's rank clamping: turns (start, stop) into 0-based inclusive [first, last] over a zset of
// `size` members. Returns false when the range is empty.
bool ClampRankRange(int64_t start, int64_t stop, uint64_t size, uint64_t* first, uint64_t* last);

// v0: s# + k# in KV, count in the meta. `version` is the encode-version byte it reports.
std::unique_ptr<ZsetEncoding> NewIndexedZsetEncoding(uint8_t version);
// kvrocks: v0's logic under Kvrocks's key-meta (flags 0x85, u64 size); Kvrocks's ZADD reads
// each member, as v0's does, and rewrites only the members whose score changes.
std::unique_ptr<ZsetEncoding> NewKvrocksZsetEncoding();
// ardb: Ardb's layout (001_*): KEY_ZSET_SCORE member -> score and the KEY_ZSET_SORT index with
// v0's plans, but no count and no key-version: ZCARD scans, a negative rank reads the whole
// index, a removal scans for a survivor, DEL deletes every record (zset_kv.cc).
std::unique_ptr<ZsetEncoding> NewArdbZsetEncoding();
// v1, v2 and v3, the Redis-tier versions, are in tiered_encodings.h.

}  // namespace kvlab::encodings
