#include "encodings/key_meta.h"

#include "encodings/coding.h"
#include "encodings/registry.h"

namespace kvlab::encodings {

const char* KeyTypeName(KeyType type) {
  switch (type) {
    case KeyType::kString:
      return "string";
    case KeyType::kHash:
      return "hash";
    case KeyType::kZset:
      return "zset";
    case KeyType::kList:
      return "list";
    case KeyType::kSet:
      return "set";
  }
  return "none";
}

uint8_t KvrocksTypeOf(KeyType type) {
  switch (type) {
    case KeyType::kString:
      return 1;
    case KeyType::kHash:
      return 2;
    case KeyType::kList:
      return 3;
    case KeyType::kSet:
      return 4;
    case KeyType::kZset:
      return 5;
  }
  return 0;
}

uint8_t ArdbTypeOf(KeyType type) {
  switch (type) {
    case KeyType::kString:
      return 0;  // strings keep kvlab's layout in every family
    case KeyType::kHash:
      return static_cast<uint8_t>(ArdbTag::kHash);
    case KeyType::kList:
      return static_cast<uint8_t>(ArdbTag::kList);
    case KeyType::kSet:
      return static_cast<uint8_t>(ArdbTag::kSet);
    case KeyType::kZset:
      return static_cast<uint8_t>(ArdbTag::kZset);
  }
  return 0;
}

namespace {

// Ardb's `<type> <MetaObject>` (001_*): type | format 00 | expire (0 = none) [| size |
// sequential | min index | max index, a list's].
std::string EncodeArdb(const KeyMeta& m) {
  std::string out;
  out.reserve(KeyMeta::kArdbListBytes);
  out.push_back(static_cast<char>(ArdbTypeOf(m.type)));
  out.push_back(static_cast<char>(kArdbMetaFormat));
  PutFixed64BE(&out, m.has_expire() ? static_cast<uint64_t>(m.expire_ms) : 0);
  if (m.type == KeyType::kList) {
    PutFixed64BE(&out, m.count);
    out.push_back(static_cast<char>(m.list_sequential ? 1 : 0));
    PutFixed64BE(&out, m.list_head);
    PutFixed64BE(&out, m.list_tail);
  }
  return out;
}

Status DecodeArdb(std::string_view bytes, const EncodingRegistry& registry, KeyMeta* meta) {
  const auto tag = static_cast<uint8_t>(bytes[0]);
  KeyType type = KeyType::kString;
  for (KeyType t : {KeyType::kHash, KeyType::kList, KeyType::kSet, KeyType::kZset}) {
    if (ArdbTypeOf(t) == tag) type = t;
  }
  if (type == KeyType::kString) {
    return Status::Corruption("Ardb key-meta has unknown type " + std::to_string(tag));
  }
  if (registry.Find(type, ArdbId(type)) == nullptr) {
    return Status::Corruption(std::string("Ardb key-meta of a ") + KeyTypeName(type) +
                              ", which this registry has no Ardb version of");
  }
  const bool list = type == KeyType::kList;
  const size_t size = list ? KeyMeta::kArdbListBytes : KeyMeta::kArdbBytes;
  if (bytes.size() != size) {
    return Status::Corruption(std::string("Ardb key-meta of a ") + KeyTypeName(type) + " is " +
                              std::to_string(bytes.size()) + " bytes, not " + std::to_string(size));
  }
  if (list && static_cast<uint8_t>(bytes[18]) > 1) {
    return Status::Corruption("Ardb key-meta of a list has sequential flag " +
                              std::to_string(static_cast<uint8_t>(bytes[18])) + ", not 0 or 1");
  }
  const uint64_t expire = DecodeFixed64BE(bytes.data() + 2);
  meta->encode_version = ArdbId(type);
  meta->type = type;
  meta->counted = list;
  meta->count_known = true;
  meta->intent_count.reset();
  meta->count = list ? DecodeFixed64BE(bytes.data() + 10) : 0;
  meta->key_version = 0;
  meta->expire_ms = expire == 0 ? KeyMeta::kNoExpire : static_cast<int64_t>(expire);
  meta->value.clear();
  meta->list_sequential = list && bytes[18] == 1;
  meta->list_head = list ? DecodeFixed64BE(bytes.data() + 19) : 0;
  meta->list_tail = list ? DecodeFixed64BE(bytes.data() + 27) : 0;
  return Status::OK();
}

// The KeyType of a Kvrocks flags byte's type bits, or false for kRedisNone and unknown types.
bool KeyTypeOfKvrocks(uint8_t flags, KeyType* type) {
  for (KeyType t :
       {KeyType::kString, KeyType::kHash, KeyType::kList, KeyType::kSet, KeyType::kZset}) {
    if (KvrocksTypeOf(t) == (flags & kKvrocksTypeMask)) {
      *type = t;
      return true;
    }
  }
  return false;
}

// 004_*'s RedisMetadata::encode: flags | expire (0 = none) | version | size [| head | tail].
std::string EncodeKvrocks(const KeyMeta& m) {
  std::string out;
  out.reserve(KeyMeta::kKvrocksHeaderBytes + 8 + (m.type == KeyType::kList ? 16 : 0));
  out.push_back(static_cast<char>(m.encode_version));
  PutFixed64BE(&out, m.has_expire() ? static_cast<uint64_t>(m.expire_ms) : 0);
  PutFixed64BE(&out, m.key_version);
  PutFixed64BE(&out, m.count);
  if (m.type == KeyType::kList) {
    PutFixed64BE(&out, m.list_head);
    PutFixed64BE(&out, m.list_tail);
  }
  return out;
}

Status DecodeKvrocks(std::string_view bytes, const EncodingRegistry& registry, KeyMeta* meta) {
  const auto flags = static_cast<uint8_t>(bytes[0]);
  KeyType type;
  if ((flags & ~(kKvrocksMarker | kKvrocksTypeMask)) != 0 || !KeyTypeOfKvrocks(flags, &type)) {
    return Status::Corruption("Kvrocks key-meta has unknown flags " + std::to_string(flags));
  }
  const EncodingSpec* row = type == KeyType::kString ? nullptr : registry.Find(type, flags);
  if (row == nullptr) {
    return Status::Corruption(std::string("Kvrocks key-meta of a ") + KeyTypeName(type) +
                              ", which this registry has no Kvrocks version of");
  }
  const size_t size = KeyMeta::kKvrocksHeaderBytes + 8 + (type == KeyType::kList ? 16 : 0);
  if (bytes.size() != size) {
    return Status::Corruption(std::string("Kvrocks key-meta of a ") + KeyTypeName(type) + " is " +
                              std::to_string(bytes.size()) + " bytes, not " + std::to_string(size));
  }
  const uint64_t expire = DecodeFixed64BE(bytes.data() + 1);
  meta->encode_version = flags;
  meta->type = type;
  meta->counted = true;
  meta->count_known = true;
  meta->intent_count.reset();
  meta->expire_ms = expire == 0 ? KeyMeta::kNoExpire : static_cast<int64_t>(expire);
  meta->key_version = DecodeFixed64BE(bytes.data() + 9);
  meta->count = DecodeFixed64BE(bytes.data() + 17);
  meta->value.clear();
  meta->list_head = meta->list_tail = 0;
  meta->list_sequential = false;
  if (type == KeyType::kList) {
    meta->list_head = DecodeFixed64BE(bytes.data() + 25);
    meta->list_tail = DecodeFixed64BE(bytes.data() + 33);
  }
  return Status::OK();
}

}  // namespace

std::string KeyMeta::Encode() const {
  if (kvrocks_layout()) return EncodeKvrocks(*this);
  if (ardb_layout()) return EncodeArdb(*this);
  std::string out;
  out.reserve(kHeaderBytes + (type == KeyType::kString ? value.size() : 4));
  out.push_back(static_cast<char>(encode_version));
  out.push_back(static_cast<char>(type));
  PutFixed64BE(&out, key_version);
  PutFixed64BE(&out, static_cast<uint64_t>(expire_ms));
  if (type == KeyType::kString) {
    out.append(value);
  } else if (has_count()) {
    PutFixed32BE(&out, static_cast<uint32_t>(count));
    if (intent_count) {
      out.push_back(static_cast<char>(kStoreIntentTag));
      PutFixed32BE(&out, *intent_count);
    }
  }
  if (type == KeyType::kList) {
    PutFixed64BE(&out, list_head);
    PutFixed64BE(&out, list_tail);
  }
  return out;
}

Status KeyMeta::Decode(std::string_view bytes, const EncodingRegistry& registry, KeyMeta* meta) {
  if (!bytes.empty() && IsKvrocksId(static_cast<uint8_t>(bytes[0]))) {
    return DecodeKvrocks(bytes, registry, meta);
  }
  if (bytes.size() >= 2 && static_cast<uint8_t>(bytes[1]) == kArdbMetaFormat) {
    return DecodeArdb(bytes, registry, meta);  // Camellia's second byte is a key-type, never 0
  }
  if (bytes.size() < kHeaderBytes) {
    return Status::Corruption("key-meta of " + std::to_string(bytes.size()) +
                              " bytes is too short");
  }
  const auto type = static_cast<KeyType>(static_cast<uint8_t>(bytes[1]));
  const auto version = static_cast<uint8_t>(bytes[0]);
  if (IsArdbId(version)) {
    return Status::Corruption("key-meta has encode-version " + std::to_string(version) +
                              ", an Ardb id, in Camellia's layout");
  }
  bool counted = false;
  bool count_added_later = false;
  bool store_intents = false;  // a version with data in the store Redis: may carry an intent
  if (type == KeyType::kString) {
    if (version != 0) {
      return Status::Corruption("key-meta of a string has unknown encode-version " +
                                std::to_string(version));
    }
  } else if (registry.FindType(type) == nullptr) {
    return Status::Corruption("key-meta has unknown key-type " +
                              std::to_string(static_cast<uint8_t>(bytes[1])));
  } else if (const EncodingSpec* row = registry.Find(type, version)) {
    counted = row->meta_has_count;
    count_added_later = row->count_added_later;
    store_intents = row->tier == TierUse::kStore;
  } else {
    return Status::Corruption(std::string("key-meta of a ") + KeyTypeName(type) +
                              " has unknown encode-version " + std::to_string(version));
  }
  meta->encode_version = version;
  meta->type = type;
  meta->counted = counted;
  meta->key_version = DecodeFixed64BE(bytes.data() + 2);
  meta->expire_ms = static_cast<int64_t>(DecodeFixed64BE(bytes.data() + 10));
  bytes.remove_prefix(kHeaderBytes);
  meta->count = 0;
  meta->count_known = true;
  meta->intent_count.reset();
  meta->value.clear();
  meta->list_head = meta->list_tail = 0;
  meta->list_sequential = false;
  if (type == KeyType::kList) {
    // count | head | tail (every list version keeps all three).
    if (!counted || bytes.size() != 20) {
      return Status::Corruption("key-meta of a list is not count, head and tail (20 bytes)");
    }
    meta->count = DecodeFixed32BE(bytes.data());
    meta->list_head = DecodeFixed64BE(bytes.data() + 4);
    meta->list_tail = DecodeFixed64BE(bytes.data() + 12);
  } else if (type == KeyType::kString) {
    meta->value.assign(bytes);
  } else if (counted && count_added_later && bytes.empty()) {
    meta->count_known = false;  // written before the version kept a count
  } else if (meta->has_count()) {
    if (store_intents && bytes.size() == 9 && static_cast<uint8_t>(bytes[4]) == kStoreIntentTag) {
      meta->intent_count = DecodeFixed32BE(bytes.data() + 5);
    } else if (bytes.size() != 4) {
      return Status::Corruption(
          store_intents ? "key-meta count is not 4 bytes, nor 4 and a store-write intent"
                        : "key-meta count is not 4 bytes");
    }
    meta->count = DecodeFixed32BE(bytes.data());
  } else if (!bytes.empty()) {
    return Status::Corruption("key-meta has trailing bytes");
  }
  return Status::OK();
}

}  // namespace kvlab::encodings
