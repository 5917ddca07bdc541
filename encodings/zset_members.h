// The member records of a zset (member -> score), shared by every version that keeps its
// members in KV: v0, kvrocks and ardb beside their score index (zset_kv.cc), and v1 and v2 alone
// under their Redis cache (zset_cached.cc).
//
//   s# ... | key-version | member -> score (8 bytes, score_codec.h)
//   ardb: a# ... | 0b (KEY_ZSET_SCORE) | member -> 0b | score (8 bytes)
//
// `prefix` is the records' common prefix, txn.SubKeyPrefix(SubKeyTag::kField, h): everything
// before the member. The functions read through txn.kv() or queue writes in txn.batch(), and
// cost what kv_reads.h says (docs/amplification.md counts them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "encodings/zset_encoding.h"

namespace kvlab::encodings::zset_members {

// A member record's value: the score's 8 bytes, after Ardb's type byte 0b when `ardb`.
std::string Value(double score, bool ardb);

// The score of each member, or empty when it has no record: one point read (Get or MultiGet).
// scores->size() == members.size() on success. Fails with Corruption on a value that is not
// a score.
Status ReadScores(KvTxn& txn, std::string_view prefix, const std::vector<std::string_view>& members,
                  std::vector<std::optional<double>>* scores);

// Appends the records of the keys [lower, upper) to *out, in member order (or reverse), skipping
// `skip` and taking `take` (< 0: all), as ScanRange does.
// REQUIRES: prefix <= lower and upper <= PrefixSuccessor(prefix); reverse only when the store
// has reverse scan.
Status Walk(KvTxn& txn, std::string_view prefix, const std::string& lower, const std::string& upper,
            bool reverse, uint64_t skip, int64_t take, std::vector<ScoredMember>* out);

// Every record, in member order: one prefix scan. Reserves `expected` entries first.
Status ReadAll(KvTxn& txn, std::string_view prefix, uint64_t expected,
               std::vector<ScoredMember>* out);

// ZSCAN's page of the key's zset: up to `count` records after member `*after` (from the first
// when empty), in member order; *next is the page's last member when the page is full.
// ScanPage's cost; nothing for a new key or a count of 0.
Status ScanPage(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
                uint64_t count, std::vector<ScoredMember>* out, std::optional<std::string>* next);

}  // namespace kvlab::encodings::zset_members
