// HashEncoding: the type logic of a Redis hash, one implementation per encode-version.
//
// The engine parses a command, locks its key, loads the key-meta and picks the encoding named
// by the meta's encode-version (a new key gets the configured version). The encoding then reads
// through the KvTxn and queues its writes in the KvTxn's batch, including the key-meta when it
// changes or when the hash becomes empty (the meta is then deleted: an empty hash does not
// exist).
//
// Versions (../shared/spec/000_*, docs/encodings.md):
//   v0  count in the meta; exact replies; writes check which fields exist.
//   v1  no count; blind writes; HSET and HDEL reply the number of fields given (a catalogued
//       deviation); HLEN counts by a prefix scan.
//   v2  v0 plus a Redis cache of fields and of whole hashes.
//   v3  v1 plus the same Redis cache.
//   kvrocks  Kvrocks/NeoKV's layout (004_*): v0's field records (byte for byte the spec's
//            DATA_CF sub-keys) under Kvrocks's key-meta (key_meta.h); HSET skips fields whose
//            value is unchanged, as Kvrocks's Hash::MSet does.
//   ardb     Ardb's layout (001_*): fields at `key KEY_HASH_FIELD field`, no count and no
//            key-version; HSET and HDEL read their fields, HLEN scans, DEL deletes every field.
//
// Common REQUIREs of every method: `h` holds the live key-meta of a hash of this encoding's
// version, or, for writes only, a new one (h->is_new) from KvTxn::NewMeta.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "encodings/kv_txn.h"
#include "encodings/type_encoding.h"

namespace kvlab::encodings {

using FieldValue = std::pair<std::string, std::string>;

enum class HashGetAllPart { kKeys, kValues, kBoth };

class HashEncoding : public TypeEncoding {
 public:
  virtual Status Get(KvTxn& txn, const KeyHandle& h, std::string_view field,
                     std::optional<std::string>* value) = 0;
  // values->size() == fields.size() on success.
  virtual Status MultiGet(KvTxn& txn, const KeyHandle& h,
                          const std::vector<std::string_view>& fields,
                          std::vector<std::optional<std::string>>* values) = 0;
  // Every field in field order. `part` says which halves the caller needs (HKEYS, HVALS).
  virtual Status GetAll(KvTxn& txn, const KeyHandle& h, HashGetAllPart part,
                        std::vector<FieldValue>* out) = 0;
  virtual Status Length(KvTxn& txn, const KeyHandle& h, uint64_t* length) = 0;

  // HSCAN: up to `count` fields in field order, starting after field `*after` (from the first
  // field when empty). *next is the last field returned when the walk may go on, empty at the
  // end.
  virtual Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
                      uint64_t count, std::vector<FieldValue>* out,
                      std::optional<std::string>* next) = 0;

  // HSET: sets each pair in order (a later duplicate field wins). *reply is what HSET replies:
  // the number of new fields (v0, v2), or the number of pairs given (v1, v3).
  // REQUIRES: !pairs.empty().
  virtual Status Set(KvTxn& txn, KeyHandle* h,
                     const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
                     int64_t* reply) = 0;
  // HSETNX / HINCRBY: writes one field whose previous state the caller has read with Get, so
  // that no version needs to read it again. `existed` is what that Get found.
  virtual Status Put(KvTxn& txn, KeyHandle* h, std::string_view field, std::string_view value,
                     bool existed) = 0;
  // HDEL: *reply is the number of fields removed (v0, v2) or given (v1, v3). Deletes the
  // key-meta when the hash becomes empty.
  virtual Status Delete(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& fields,
                        int64_t* reply) = 0;
};

// The KV-only logic: counted (v0, and under the cache of v2) and blind (v1, and under v3).
// `version` is the encode-version byte the encoding reports.
std::unique_ptr<HashEncoding> NewCountedHashEncoding(uint8_t version);
std::unique_ptr<HashEncoding> NewBlindHashEncoding(uint8_t version);
// kvrocks: the counted logic under Kvrocks's key-meta (flags 0x82, u64 size), writing no field
// whose value an HSET leaves as it was.
std::unique_ptr<HashEncoding> NewKvrocksHashEncoding();
// ardb: Ardb's layout (001_*): no count, no key-version; exact replies through reads, HLEN by a
// scan, DEL deletes every field (ardb_hash.cc).
std::unique_ptr<HashEncoding> NewArdbHashEncoding();
// v2 and v3 (the KV-only logic above plus a Redis cache) are in tiered_encodings.h.

}  // namespace kvlab::encodings
