// KeyMeta: the one record every Redis key has, at KeyCodec::MetaKey.
//
// Two value layouts, told apart by bit 7 of the first byte (big-endian; sizes in bytes; the
// spec's tables say "bit" but mean bytes). The registry row of the key's version says which
// (registry.h): a row whose id has bit 7 set is a Kvrocks/NeoKV row, and its id is the flags byte.
//
// Camellia (../shared/spec/000_*), ids 0x00-0x7f:
//
//   encode-version (1) | key-type (1) | key-version (8) | expire-time (8) | extra
//
//   encode-version  the encoding the key was created with: the id of its registry row
//                   (registry.h; hash 0-3, zset 0-3, list 0-1, set 0-3), 0 for strings.
//                   Below 0x80.
//                   A key keeps it for life; the runtime switch only affects new keys.
//   key-type        KeyType below.
//   key-version     unique and monotonic (KeyVersionGenerator); sub-keys carry it.
//   expire-time     absolute Unix time in ms, signed; -1 when the key has no TTL. The key is
//                   expired once the current time is past it (Redis: now > when).
//   extra           string: the value itself.
//                   versions whose registry row says meta_has_count (hash v0, v2, zset
//                   v0-v3, set v0, v2): element count, u32. The others: nothing.
//                   list (every version): count (u32) | head (u64) | tail (u64), the
//                   element indexes of 004_*'s list metadata (list_encoding.h says what each
//                   version keeps in them).
//
// Kvrocks/NeoKV (../shared/spec/004_*, RedisMetadata::encode), the rows named "kvrocks":
//
//   flags (1) | expire-time (8) | key-version (8) | size (8) [| head (8) | tail (8)]
//
//   flags           0x80 (the 64-bit encoding marker, always set) | the Kvrocks type in the low
//                   4 bits (KvrocksTypeOf: hash 2, list 3, set 4, zset 5); bits 4-6 are 0.
//                   It is also the encode-version id of the key's registry row, so a type has
//                   at most one Kvrocks version (the flags byte has no room for more).
//   expire-time     absolute Unix time in ms, unsigned; 0 when the key has no TTL (Kvrocks's
//                   convention; kvlab never stores an expiry at or before the epoch: a key
//                   given one is deleted at once).
//   key-version     as above: 004_*'s microsecond timestamp and counter.
//   size            the element count, u64.
//   list only       then head (u64) | tail (u64), as in Camellia's layout above.
//
// Ardb (../shared/spec/001_*, 002_*: the value `<type> <MetaObject>`), the rows named "ardb":
//
//   type (1) | format (1) = 00 | expire-time (8)
//
//   type            Ardb's KeyType of the key's type (ArdbTag: hash 3, list 5, set 7, zset 9).
//   format          MetaObject's format byte, 0 (Ardb's kCurrentMetaFormat, src/db/codec.cpp).
//   expire-time     absolute Unix time in ms, unsigned; 0 when the key has no TTL (Ardb's
//                   MetaObject default; kvlab never stores an expiry at or before the epoch).
//   list only       then size (8) | sequential (1) | min index (8) | max index (8): Ardb's
//                   MetaObject {size, list_sequential} and its list meta's min and max element
//                   index (src/db/codec.hpp), kept in list_head and list_tail (ardb_list.cc says
//                   how an index is encoded; sequential is 1 or 0).
//   No key-version, and no element count but a list's: Ardb's sub-keys are `key type element`
//   (key_codec.h, "a#"), so DEL deletes every sub-key, and counts are counted by scanning.
//   The registry id of an Ardb row is 0x40 | type (ArdbId: hash 0x43, list 0x45, set 0x47, zset
//   0x49); the meta stores the type, from which Decode derives the id.
//
// Telling the layouts apart (DO NOT CHANGE any of these bytes):
//   first byte has bit 7 set                      Kvrocks (its flags byte)
//   else second byte is 00                        Ardb (MetaObject's format byte; Camellia's
//                                                 second byte is its key-type, never 0)
//   else                                          Camellia (first byte below 0x40)
// One Decode reads all three: the engine runs keys of every family side by side, and each key
// keeps the family that created it.
//
// zset v3's count is kvlab's, not the spec's: the zset itself lives only in the store Redis,
// and the count in KV is what lets kvlab notice that the store lost it (docs/engine.md). A
// version whose registry row says count_added_later (zset v3) also decodes a meta written
// before it kept the count (no extra bytes), with count_known false; the count is filled in
// from the store at the key's next use.
//
// A version whose data lives partly in the store Redis (a registry row with TierUse::kStore:
// zset v3) may carry a store-write intent after its count (DO NOT CHANGE: it reaches disk):
//
//   ... | count (u32) | 01 | intent count (u32)
//
// written to KV, alone, before a store write that may change the count, and cleared by the
// command's own commit. A meta that still holds one was left by a process that stopped between
// the two: the store holds between `count` and `intent count` members (inclusive), and the
// key is reconciled before its next use (zset_stored.cc; docs/engine.md, "Crash recovery").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace kvlab::encodings {

// Reaches disk in every key-meta: DO NOT CHANGE the values.
enum class KeyType : uint8_t {
  kString = 1,
  kHash = 2,
  kZset = 3,
  kList = 4,
  kSet = 5,  // the spec's set section says "key-type 2": a typo, its KeyType enum says 5
};

// The Redis TYPE name of a key type: "string", "hash", "zset", "list", "set".
const char* KeyTypeName(KeyType type);

class EncodingRegistry;

// The Kvrocks/NeoKV layout (004_*). DO NOT CHANGE: these reach disk.
inline constexpr uint8_t kKvrocksMarker = 0x80;    // METADATA_64BIT_ENCODING_MASK
inline constexpr uint8_t kKvrocksTypeMask = 0x0f;  // METADATA_TYPE_MASK
// Whether an encode-version id (the first byte of a key-meta) is a Kvrocks flags byte.
inline constexpr bool IsKvrocksId(uint8_t id) { return (id & kKvrocksMarker) != 0; }
// Kvrocks's RedisType of a key type (string 1, hash 2, list 3, set 4, zset 5): its numbering
// differs from KeyType's.
uint8_t KvrocksTypeOf(KeyType type);
// The flags byte of a Kvrocks key-meta of this type: the id of the type's Kvrocks row.
inline uint8_t KvrocksFlags(KeyType type) { return kKvrocksMarker | KvrocksTypeOf(type); }

// The Ardb layout (001_*; the type numbers are Ardb's KeyType, src/db/codec.hpp). DO NOT
// CHANGE: they reach disk, as the first byte of a key-meta and the byte after the key in a
// sub-key (key_codec.h).
enum class ArdbTag : uint8_t {
  kHash = 3,
  kHashField = 4,
  kList = 5,
  kListElement = 6,
  kSet = 7,
  kSetMember = 8,
  kZset = 9,
  kZsetSort = 10,   // score | member -> the tag
  kZsetScore = 11,  // member -> the tag | score
};
inline constexpr uint8_t kArdbIdBase = 0x40;  // Ardb ids: 0x40 | the key-meta's type tag
inline constexpr uint8_t kArdbMetaFormat = 0x00;
// Whether an encode-version id is an Ardb row's (0x40-0x7f).
inline constexpr bool IsArdbId(uint8_t id) { return (id & 0xc0) == kArdbIdBase; }
// Ardb's key-meta type tag of a collection type (hash 3, list 5, set 7, zset 9); 0 for strings.
uint8_t ArdbTypeOf(KeyType type);
// The registry id of the type's Ardb row: 0x40 | ArdbTypeOf(type).
inline uint8_t ArdbId(KeyType type) { return kArdbIdBase | ArdbTypeOf(type); }

// The byte that opens a store-write intent after a count (above). DO NOT CHANGE: it reaches disk.
inline constexpr uint8_t kStoreIntentTag = 0x01;

struct KeyMeta {
  static constexpr size_t kHeaderBytes = 18;         // Camellia: version, type, key-version, expiry
  static constexpr size_t kKvrocksHeaderBytes = 17;  // Kvrocks: flags, expiry, key-version
  static constexpr size_t kArdbBytes = 10;           // Ardb: type, format, expiry
  static constexpr size_t kArdbListBytes = 35;       // then size, sequential, min, max
  static constexpr int64_t kNoExpire = -1;

  uint8_t encode_version = 0;
  KeyType type = KeyType::kString;
  uint64_t key_version = 0;
  int64_t expire_ms = kNoExpire;
  // Whether the version keeps an element count (its registry row's meta_has_count): set by
  // KvTxn::NewMeta and by Decode.
  bool counted = false;
  // Meaningful only when has_count(). At most MaxCount(): the layout's count field bounds it.
  uint64_t count = 0;
  // False only for a meta of a count_added_later version (registry.h; zset v3) written before
  // that version kept a count (no extra bytes). Not encoded: Encode always writes the count.
  bool count_known = true;
  // A store-write intent (above): the count the store may hold once an in-flight store write
  // has run. Only in metas of store versions, and only between a write's two KV writes, or
  // after a process stopped between them.
  std::optional<uint32_t> intent_count;
  // Lists only: the index range of the elements (list_encoding.h). Encoded after the count.
  uint64_t list_head = 0;
  uint64_t list_tail = 0;
  // Ardb lists only: whether the element indexes are consecutive integers (Ardb's
  // list_sequential), so that the element at position p is at min index + p.
  bool list_sequential = false;
  std::string value;  // strings only

  bool has_count() const { return counted; }
  bool kvrocks_layout() const { return IsKvrocksId(encode_version); }
  // Ardb's layout keeps no key-version (key_version is 0) and no count.
  bool ardb_layout() const { return type != KeyType::kString && IsArdbId(encode_version); }
  // The largest element count the layout records: u32 in Camellia's, and in Kvrocks's and
  // Ardb's (8 bytes) the largest a Redis integer reply holds.
  uint64_t MaxCount() const {
    return kvrocks_layout() || ardb_layout() ? uint64_t{INT64_MAX} : uint64_t{UINT32_MAX};
  }
  bool has_expire() const { return expire_ms != kNoExpire; }
  bool ExpiredAt(int64_t now_ms) const { return expire_ms != kNoExpire && now_ms > expire_ms; }

  // REQUIRES: a Kvrocks-layout meta (kvrocks_layout()) is not a string's, is counted, and has
  // no expiry or one after the epoch; an Ardb-layout meta is counted exactly when it is a
  // list's, and has no expiry or one after the epoch.
  std::string Encode() const;
  // Fails with Corruption when the bytes are not a key-meta of a string or of a type and
  // version of `registry`.
  static Status Decode(std::string_view bytes, const EncodingRegistry& registry, KeyMeta* meta);
};

}  // namespace kvlab::encodings
