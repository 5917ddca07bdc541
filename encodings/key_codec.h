// KeyCodec: where each record of a Redis key lives in the ordered KV store.
//
// Byte layouts (docs/encodings.md repeats them and a test checks the two agree):
//
//   namespace  = ns_prefix | db                      db: 1 byte, 0-15 (the SELECTed database)
//   hashtag    = md5_hex(key)[0..8]                  8 ASCII bytes, only with md5_prefix on
//
//   key-meta   = "m#" | namespace | [hashtag] | key
//   sub-key    = tag "#" | namespace | [hashtag] | key length (u32 BE) | key | key-version (u64 BE)
//                | suffix
//     "s#" suffix: field (hash) or member (zset)         value: field value, or score (8 bytes)
//     "k#" suffix: score (8 bytes, score_codec.h) | member   value: empty
//     "i#" suffix: ref (zset v2/v3 long members)         value: member
//
//   TTL index  = "t#" | namespace | expire-time (u64 BE, ms) | key       value: empty
//     Only with ttl_index on: one record per key-meta with an expiry (Ardb's KEY_TTL_SORT,
//     002_*), ordered by expiry within each database, so that the active expiry cycle
//     (engine/active_expiry.h) finds the expired keys without scanning the key-metas. An entry
//     may be stale (its key since deleted, persisted or re-expired by a write that did not read
//     the old meta, such as SET): the cycle checks it against the meta before acting on it.
//
//   Ardb sub-key = "a#" | namespace | [hashtag] | key length (u32 BE) | key | Ardb type (1)
//                | element                                  (001_*: `key type element...`)
//     type 04 (KEY_HASH_FIELD)  element: field       value: 04 | field value
//     type 08 (KEY_SET_MEMBER)  element: member      value: 08
//     type 0a (KEY_ZSET_SORT)   element: score (8) | member    value: 0a
//     type 0b (KEY_ZSET_SCORE)  element: member      value: 0b | score (8)
//   No key-version: every record of a key, of every kind, starts with ArdbKeyPrefix, and a
//   deleted key's records must be deleted with it (eagerly: the versions named "ardb").
//
// The key length makes sub-key prefixes of different keys disjoint ("ab" never prefixes "abc"'s
// records), and the key-version isolates a key's incarnations: a deleted and re-created key has
// a new version, so the old sub-keys are never read again (lazy deletion, 004_*). The md5
// hashtag spreads keys over a range-partitioned store (Camellia's option); it is off by default,
// and it is fixed for the life of a store.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvlab::encodings {

struct KeyCodecOptions {
  std::string ns_prefix;    // prepended to the db byte to form the namespace
  bool md5_prefix = false;  // put md5_hex(key)[0..8] before the key
  // Keep the TTL index ("t#" records above): one more write per EXPIRE, and active expiry.
  // Fixed for the life of a store (a store without the index has no entries for its keys).
  bool ttl_index = false;
};

// The version of the layout above (and of docs/encodings.md). Stores record it: bump it when a
// layout changes incompatibly.
inline constexpr int kKeyLayoutVersion = 1;

// The store format record of an engine writing with these options (backends/registry.h): the
// layout version and the options that change where records live. A store written with one
// record is refused by an opener with another.
//   layout            kKeyLayoutVersion
//   namespace_prefix  the prefix, as is when printable ASCII without spaces, else "0x" + hex
//   md5_prefix        "yes" or "no"
//   ttl_index         "yes", present only when on (stores written before the index existed
//                     have no such line, and compare equal to an opener with it off)
std::vector<std::pair<std::string, std::string>> StoreFormatRecord(const KeyCodecOptions& options);

// The record kinds of a key's sub-keys. The tag byte reaches disk: DO NOT CHANGE.
enum class SubKeyTag : char {
  kField = 's',  // hash field / zset member -> value / score
  kScore = 'k',  // zset score index
  kIndex = 'i',  // zset member ref -> member
  kArdb = 'a',   // every record of an Ardb-layout key (no key-version; eagerly deleted)
};

// The prefix of every record kind in the store: "m#" (key-metas), then tag "#" for each of
// `tags`. With --column-families (or a ":cf" backend column) each kind is a key space of its own
// (backends/key_spaces.h), as Kvrocks keeps metadata, sub-keys and the zset score index in
// column families of their own (004_*). Whatever the options, every record of a kind starts
// with its prefix: the namespace and the hashtag come after it.
std::vector<std::string> RecordKindPrefixes(const std::vector<SubKeyTag>& tags);

class KeyCodec {
 public:
  static constexpr size_t kHashtagBytes = 8;

  explicit KeyCodec(KeyCodecOptions options) : options_(std::move(options)) {}
  const KeyCodecOptions& options() const { return options_; }

  // ns_prefix | db: the namespace of a database (also the Redis tier's, after "c#").
  std::string Namespace(uint8_t db) const;
  std::string MetaKey(uint8_t db, std::string_view key) const;
  // "m#" | namespace: every key-meta of the database starts with it.
  std::string MetaPrefix(uint8_t db) const;
  // Recovers the Redis key from a key-meta key of database db. False if it is not one.
  bool DecodeMetaKey(uint8_t db, std::string_view meta_key, std::string* key) const;

  // "t#" | namespace | expire-time | key: the TTL index entry of a key expiring at expire_ms.
  // REQUIRES: expire_ms > 0 (kvlab never stores an expiry at or before the epoch).
  std::string TtlIndexKey(uint8_t db, int64_t expire_ms, std::string_view key) const;
  // "t#" | namespace: every TTL index entry of the database starts with it; entries of keys
  // expired at `now_ms` (expire-time < now_ms) sort before TtlIndexKey(db, now_ms, "").
  std::string TtlIndexPrefix(uint8_t db) const;
  // Recovers the expiry and key of a TTL index entry of database db. False if it is not one.
  bool DecodeTtlIndexKey(uint8_t db, std::string_view index_key, int64_t* expire_ms,
                         std::string* key) const;

  // tag "#" | namespace | [hashtag] | key length | key | key-version: every sub-key of one
  // incarnation of a key, of one kind, starts with it.
  std::string SubKeyPrefix(SubKeyTag tag, uint8_t db, std::string_view key,
                           uint64_t key_version) const;
  // "a#" | namespace | [hashtag] | key length | key: every record of an Ardb-layout key.
  std::string ArdbKeyPrefix(uint8_t db, std::string_view key) const;
  // Recovers the Redis key of an a# record of database db (the part before the Ardb type
  // byte). False if the bytes are not one.
  bool DecodeArdbKey(uint8_t db, std::string_view sub_key, std::string* key) const;
  // tag "#" | namespace: every sub-key of that kind in the database.
  std::string SubKeyDbPrefix(SubKeyTag tag, uint8_t db) const;
  // Recovers the key and key-version of a sub-key of kind `tag` in database db, and the length
  // of its SubKeyPrefix (what precedes the suffix). False if the bytes are not one, and always
  // for kArdb, which has no key-version. Every other tag uses the sub-key layout above: the
  // garbage collector (engine/collector.h) finds the owner of any such sub-key through it.
  bool DecodeSubKey(SubKeyTag tag, uint8_t db, std::string_view sub_key, std::string* key,
                    uint64_t* key_version, size_t* prefix_bytes) const;

 private:
  void AppendNamespace(std::string* out, uint8_t db) const;
  void AppendHashtag(std::string* out, std::string_view key) const;

  const KeyCodecOptions options_;
};

}  // namespace kvlab::encodings
