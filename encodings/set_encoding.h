// SetEncoding: the type logic of a Redis set, one implementation per encode-version.
//
// The engine parses a command, locks its keys, loads the key-metas and calls the encoding each
// meta names. Encodings read through the KvTxn and queue their writes in its batch, including
// the key-meta when it changes or when the set becomes empty (the meta is then deleted: an empty
// set does not exist). The set algebra (SINTER, SUNION, SDIFF and their STORE forms, SINTERCARD,
// SMOVE, SPOP, SRANDMEMBER) lives in the engine, over these primitives, so that every version
// pays the same plan: each source is read once, fully (Members) or by point probes (Contains).
//
// Versions (../shared/spec/000_* "set数据结构", docs/encodings.md "Set v0".."Set v3"):
//   v0  count in the meta; SCARD is free; SADD/SREM read which members exist and reply exactly.
//   v1  no count; blind writes; SADD and SREM reply the number of members given (the spec's
//       deviation); SCARD counts by a prefix scan.
//   v2  v0 plus a Redis cache of the whole set.
//   v3  v1 plus the same Redis cache.
//   kvrocks  Kvrocks/NeoKV's layout (004_*): v0's member records (byte for byte the spec's
//            DATA_CF sub-keys, empty values) under Kvrocks's key-meta (key_meta.h). Kvrocks's
//            Set::Add and Set::Remove read each member first, as v0 does.
//   ardb     Ardb's layout (001_*): members at `key KEY_SET_MEMBER member`, no count and no
//            key-version; SADD and SREM read their members, SCARD scans, DEL deletes every member.
//
// Common REQUIREs of every method: `h` holds the live key-meta of a set of this encoding's
// version, or, for writes only, a new one (h->is_new) from KvTxn::NewMeta.
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

// What a caller of SetEncoding::Remove knows about the members it removes.
struct RemoveHint {
  // Every member is in the set, and the members are distinct.
  bool present = false;
  // Whether removing them empties the set, when the caller knows (SPOP read every member).
  std::optional<bool> empties;
};

class SetEncoding : public TypeEncoding {
 public:
  // SISMEMBER, SMISMEMBER and the algebra's probes: found->size() == members.size().
  virtual Status Contains(KvTxn& txn, const KeyHandle& h,
                          const std::vector<std::string_view>& members,
                          std::vector<bool>* found) = 0;
  // Every member (SMEMBERS and the algebra's full reads). The order is unspecified (Redis's is
  // its hash order); the KV versions return byte order.
  virtual Status Members(KvTxn& txn, const KeyHandle& h, std::vector<std::string>* out) = 0;
  // SCARD.
  virtual Status Size(KvTxn& txn, const KeyHandle& h, uint64_t* size) = 0;
  // SSCAN: up to `count` members in byte order, starting after `*after` (from the first member
  // when empty). *next is the last member returned when the walk may go on, empty at the end.
  virtual Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
                      uint64_t count, std::vector<std::string>* out,
                      std::optional<std::string>* next) = 0;

  // SADD: *reply is the number of new members (v0, v2) or of members given (v1, v3).
  // REQUIRES: !members.empty().
  virtual Status Add(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                     int64_t* reply) = 0;
  // SREM: *reply is the number of members removed (v0, v2) or given (v1, v3). Deletes the
  // key-meta when the set becomes empty. `hint` is what the caller read in this command about
  // the members (SPOP, SMOVE), so that no version reads it again.
  virtual Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        const RemoveHint& hint, int64_t* reply) = 0;
};

// The KV-only logic: counted (v0, and under the cache of v2) and blind (v1, and under v3).
// `version` is the encode-version byte the encoding reports.
std::unique_ptr<SetEncoding> NewCountedSetEncoding(uint8_t version);
std::unique_ptr<SetEncoding> NewBlindSetEncoding(uint8_t version);
// kvrocks: the counted logic under Kvrocks's key-meta (flags 0x84, u64 size).
std::unique_ptr<SetEncoding> NewKvrocksSetEncoding();
// ardb: Ardb's layout (001_*): no count, no key-version; exact replies through reads, SCARD by
// a scan, DEL deletes every member (ardb_set.cc).
std::unique_ptr<SetEncoding> NewArdbSetEncoding();
// v2 and v3 (the cache over these) are in tiered_encodings.h.

}  // namespace kvlab::encodings
