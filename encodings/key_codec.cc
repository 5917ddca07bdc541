#include "encodings/key_codec.h"

#include <algorithm>

#include "encodings/coding.h"
#include "encodings/md5.h"

namespace kvlab::encodings {

void KeyCodec::AppendNamespace(std::string* out, uint8_t db) const {
  out->append(options_.ns_prefix);
  out->push_back(static_cast<char>(db));
}

void KeyCodec::AppendHashtag(std::string* out, std::string_view key) const {
  if (options_.md5_prefix) out->append(Md5Hex(key), 0, kHashtagBytes);
}

std::string KeyCodec::Namespace(uint8_t db) const {
  std::string out;
  AppendNamespace(&out, db);
  return out;
}

std::string KeyCodec::MetaPrefix(uint8_t db) const {
  std::string out = "m#";
  AppendNamespace(&out, db);
  return out;
}

std::string KeyCodec::MetaKey(uint8_t db, std::string_view key) const {
  std::string out;
  out.reserve(3 + options_.ns_prefix.size() + kHashtagBytes + key.size());
  out.append("m#");
  AppendNamespace(&out, db);
  AppendHashtag(&out, key);
  out.append(key);
  return out;
}

bool KeyCodec::DecodeMetaKey(uint8_t db, std::string_view meta_key, std::string* key) const {
  const std::string prefix = MetaPrefix(db);
  if (!meta_key.starts_with(prefix)) return false;
  meta_key.remove_prefix(prefix.size());
  if (options_.md5_prefix) {
    if (meta_key.size() < kHashtagBytes) return false;
    meta_key.remove_prefix(kHashtagBytes);
  }
  key->assign(meta_key);
  return true;
}

std::string KeyCodec::TtlIndexPrefix(uint8_t db) const {
  std::string out = "t#";
  AppendNamespace(&out, db);
  return out;
}

std::string KeyCodec::TtlIndexKey(uint8_t db, int64_t expire_ms, std::string_view key) const {
  std::string out = TtlIndexPrefix(db);
  PutFixed64BE(&out, static_cast<uint64_t>(expire_ms));
  out.append(key);
  return out;
}

bool KeyCodec::DecodeTtlIndexKey(uint8_t db, std::string_view index_key, int64_t* expire_ms,
                                 std::string* key) const {
  const std::string prefix = TtlIndexPrefix(db);
  if (!index_key.starts_with(prefix) || index_key.size() < prefix.size() + 8) return false;
  index_key.remove_prefix(prefix.size());
  *expire_ms = static_cast<int64_t>(DecodeFixed64BE(index_key.data()));
  key->assign(index_key.substr(8));
  return true;
}

std::string KeyCodec::SubKeyDbPrefix(SubKeyTag tag, uint8_t db) const {
  std::string out;
  out.push_back(static_cast<char>(tag));
  out.push_back('#');
  AppendNamespace(&out, db);
  return out;
}

std::string KeyCodec::SubKeyPrefix(SubKeyTag tag, uint8_t db, std::string_view key,
                                   uint64_t key_version) const {
  std::string out;
  out.reserve(2 + options_.ns_prefix.size() + 1 + kHashtagBytes + 4 + key.size() + 8 + 16);
  out.push_back(static_cast<char>(tag));
  out.push_back('#');
  AppendNamespace(&out, db);
  AppendHashtag(&out, key);
  PutFixed32BE(&out, static_cast<uint32_t>(key.size()));
  out.append(key);
  PutFixed64BE(&out, key_version);
  return out;
}

std::string KeyCodec::ArdbKeyPrefix(uint8_t db, std::string_view key) const {
  std::string out;
  out.reserve(2 + options_.ns_prefix.size() + 1 + kHashtagBytes + 4 + key.size() + 1 + 16);
  out.push_back(static_cast<char>(SubKeyTag::kArdb));
  out.push_back('#');
  AppendNamespace(&out, db);
  AppendHashtag(&out, key);
  PutFixed32BE(&out, static_cast<uint32_t>(key.size()));
  out.append(key);
  return out;
}

bool KeyCodec::DecodeArdbKey(uint8_t db, std::string_view sub_key, std::string* key) const {
  const std::string db_prefix = SubKeyDbPrefix(SubKeyTag::kArdb, db);
  if (!sub_key.starts_with(db_prefix)) return false;
  std::string_view rest = sub_key.substr(db_prefix.size());
  if (options_.md5_prefix) {
    if (rest.size() < kHashtagBytes) return false;
    rest.remove_prefix(kHashtagBytes);
  }
  if (rest.size() < 4) return false;
  const uint32_t key_bytes = DecodeFixed32BE(rest.data());
  rest.remove_prefix(4);
  if (rest.size() < uint64_t{key_bytes} + 1) return false;  // the key, then the type byte
  key->assign(rest.substr(0, key_bytes));
  return true;
}

bool KeyCodec::DecodeSubKey(SubKeyTag tag, uint8_t db, std::string_view sub_key, std::string* key,
                            uint64_t* key_version, size_t* prefix_bytes) const {
  if (tag == SubKeyTag::kArdb) return false;
  const std::string db_prefix = SubKeyDbPrefix(tag, db);
  if (!sub_key.starts_with(db_prefix)) return false;
  std::string_view rest = sub_key.substr(db_prefix.size());
  if (options_.md5_prefix) {
    if (rest.size() < kHashtagBytes) return false;
    rest.remove_prefix(kHashtagBytes);
  }
  if (rest.size() < 4) return false;
  const uint32_t key_bytes = DecodeFixed32BE(rest.data());
  rest.remove_prefix(4);
  if (rest.size() < uint64_t{key_bytes} + 8) return false;
  key->assign(rest.substr(0, key_bytes));
  *key_version = DecodeFixed64BE(rest.data() + key_bytes);
  *prefix_bytes = sub_key.size() - rest.size() + key_bytes + 8;
  return true;
}

std::vector<std::string> RecordKindPrefixes(const std::vector<SubKeyTag>& tags) {
  std::vector<std::string> out = {"m#"};
  for (SubKeyTag tag : tags) out.push_back(std::string(1, static_cast<char>(tag)) + "#");
  return out;
}

std::vector<std::pair<std::string, std::string>> StoreFormatRecord(const KeyCodecOptions& options) {
  const std::string& ns = options.ns_prefix;
  const bool printable =
      std::all_of(ns.begin(), ns.end(), [](char c) { return c > ' ' && c < 127; });
  std::string shown = ns;
  if (!printable) {
    static const char kHex[] = "0123456789abcdef";
    shown = "0x";
    for (unsigned char c : ns) {
      shown += kHex[c >> 4];
      shown += kHex[c & 15];
    }
  }
  std::vector<std::pair<std::string, std::string>> record = {
      {"layout", std::to_string(kKeyLayoutVersion)},
      {"namespace_prefix", shown},
      {"md5_prefix", options.md5_prefix ? "yes" : "no"}};
  if (options.ttl_index) record.emplace_back("ttl_index", "yes");
  return record;
}

}  // namespace kvlab::encodings
