// KeyMeta: the one record every Redis key has, at KeyCodec::MetaKey.
//
// Value layout (big-endian; sizes in bytes; the spec's tables say "bit" but mean bytes):
//
//   encode-version (1) | key-type (1) | key-version (8) | expire-time (8) | extra
//
//   encode-version  the encoding the key was created with: the id of its registry row
//                   (registry.h; hash 0-3, zset 0-3), 0 for strings.
//                   A key keeps it for life; the runtime switch only affects new keys.
//   key-type        KeyType below.
//   key-version     unique and monotonic (KeyVersionGenerator); sub-keys carry it.
//   expire-time     absolute Unix time in ms, signed; -1 when the key has no TTL. The key is
//                   expired once the current time is past it (Redis: now > when).
//   extra           string: the value itself.
//                   versions whose registry row says meta_has_count (hash v0, v2, zset
//                   v0-v3): element count, u32. The others: nothing.
//                   list (every version): count (u32) | head (u64) | tail (u64), the
//                   element indexes of 004_*'s list metadata (list_encoding.h says what each
//                   version keeps in them).
//
// zset v3's count is kvlab's, not the spec's: the zset itself lives only in the store Redis,
// and the count in KV is what lets kvlab notice that the store lost it (docs/engine.md). A
// version whose registry row says count_added_later (zset v3) also decodes a meta written
// before it kept the count (no extra bytes), with count_known false; the count is filled in
// from the store at the key's next use.
#pragma once

#include <cstdint>
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
  kSet = 5,  // reserved by the spec; kvlab does not implement sets
};

// The Redis TYPE name of a key type: "string", "hash", "zset", "list", "set".
const char* KeyTypeName(KeyType type);

class EncodingRegistry;

struct KeyMeta {
  static constexpr size_t kHeaderBytes = 18;
  static constexpr int64_t kNoExpire = -1;

  uint8_t encode_version = 0;
  KeyType type = KeyType::kString;
  uint64_t key_version = 0;
  int64_t expire_ms = kNoExpire;
  // Whether the version keeps an element count (its registry row's meta_has_count): set by
  // KvTxn::NewMeta and by Decode.
  bool counted = false;
  uint32_t count = 0;  // meaningful only when has_count()
  // False only for a meta of a count_added_later version (registry.h; zset v3) written before
  // that version kept a count (no extra bytes). Not encoded: Encode always writes the count.
  bool count_known = true;
  // Lists only: the index range of the elements (list_encoding.h). Encoded after the count.
  uint64_t list_head = 0;
  uint64_t list_tail = 0;
  std::string value;  // strings only

  bool has_count() const { return counted; }
  bool has_expire() const { return expire_ms != kNoExpire; }
  bool ExpiredAt(int64_t now_ms) const { return expire_ms != kNoExpire && now_ms > expire_ms; }

  std::string Encode() const;
  // Fails with Corruption when the bytes are not a key-meta of a string or of a type and
  // version of `registry`.
  static Status Decode(std::string_view bytes, const EncodingRegistry& registry, KeyMeta* meta);
};

}  // namespace kvlab::encodings
