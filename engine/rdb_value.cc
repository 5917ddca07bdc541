// DUMP payloads of Redis 7.0 (rdb_value.h): the object forms rdbSaveObject writes for each
// encoding Redis would hold the value in, and every form rdbLoadObject reads.
#include "engine/rdb_value.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "engine/rdb_format.h"

namespace kvlab::engine::rdb {

using encodings::KeyType;

namespace {

constexpr uint64_t kContainerPlain = 1;      // QUICKLIST_NODE_CONTAINER_PLAIN
constexpr uint64_t kContainerPacked = 2;     // QUICKLIST_NODE_CONTAINER_PACKED
constexpr size_t kListpackEmptyBytes = 7;    // header and end byte
constexpr size_t kSizeEstimateOverhead = 8;  // quicklist.c SIZE_ESTIMATE_OVERHEAD
constexpr size_t kSizeSafetyLimit = 8192;    // quicklist.c SIZE_SAFETY_LIMIT
constexpr size_t kOptimizationLevel[] = {4096, 8192, 16384, 32768, 65536};

// _quicklistNodeAllowInsert: whether RPUSH appends an element of `sz` bytes to the tail node
// (of `node_sz` listpack bytes and `count` entries) or starts a new node.
bool AllowInsert(size_t node_sz, size_t count, int64_t fill, size_t sz) {
  if (sz >= (size_t{1} << 30)) return false;  // a plain node of its own
  const size_t new_sz = node_sz + sz + kSizeEstimateOverhead;
  if (fill < 0) {
    const uint64_t offset = static_cast<uint64_t>(-(fill + 1));
    if (offset < std::size(kOptimizationLevel) && new_sz <= kOptimizationLevel[offset]) return true;
  }
  if (new_sz > kSizeSafetyLimit) return false;
  return fill >= 0 && count < static_cast<size_t>(fill);
}

void DumpList(Writer* w, const std::vector<std::string>& elements, const DumpOptions& o) {
  std::vector<std::vector<std::string_view>> nodes;
  size_t node_sz = 0;
  for (const std::string& e : elements) {
    if (nodes.empty() ||
        !AllowInsert(node_sz, nodes.back().size(), o.list_max_listpack_size, e.size())) {
      nodes.emplace_back();
      node_sz = kListpackEmptyBytes;
    }
    nodes.back().push_back(e);
    node_sz += ListpackEntrySize(e);
  }
  w->Byte(kTypeListQuicklist2);
  w->Len(nodes.size());
  for (const auto& node : nodes) {
    w->Len(kContainerPacked);
    w->String(ListpackEncode(node), o.compression);
  }
}

void DumpSet(Writer* w, const std::vector<std::string>& members, const DumpOptions& o) {
  std::vector<int64_t> ints;
  bool all_ints = static_cast<int64_t>(members.size()) <= o.set_max_intset_entries;
  for (size_t i = 0; all_ints && i < members.size(); ++i) {
    int64_t v = 0;
    all_ints = StrictInt64(members[i], &v);
    ints.push_back(v);
  }
  if (all_ints) {
    std::sort(ints.begin(), ints.end());
    w->Byte(kTypeSetIntset);
    w->String(IntsetEncode(ints), o.compression);
    return;
  }
  w->Byte(kTypeSet);
  w->Len(members.size());
  for (const std::string& m : members) w->String(m, o.compression);
}

void DumpZset(Writer* w, const std::vector<std::pair<std::string, double>>& scored,
              const DumpOptions& o) {
  bool listpack = static_cast<int64_t>(scored.size()) <= o.zset_max_listpack_entries;
  for (size_t i = 0; listpack && i < scored.size(); ++i) {
    listpack = static_cast<int64_t>(scored[i].first.size()) <= o.zset_max_listpack_value;
  }
  if (listpack) {
    std::vector<std::string> scores;
    scores.reserve(scored.size());
    for (const auto& [m, s] : scored) scores.push_back(ScoreText(s));
    std::vector<std::string_view> entries;
    for (size_t i = 0; i < scored.size(); ++i) {
      entries.push_back(scored[i].first);
      entries.push_back(scores[i]);
    }
    w->Byte(kTypeZsetListpack);
    w->String(ListpackEncode(entries), o.compression);
    return;
  }
  // rdbSaveObject walks the skiplist from its tail: highest score first.
  w->Byte(kTypeZset2);
  w->Len(scored.size());
  for (auto it = scored.rbegin(); it != scored.rend(); ++it) {
    w->String(it->first, o.compression);
    w->BinaryDouble(it->second);
  }
}

void DumpHash(Writer* w, const std::vector<std::pair<std::string, std::string>>& pairs,
              const DumpOptions& o) {
  bool listpack = static_cast<int64_t>(pairs.size()) <= o.hash_max_listpack_entries;
  for (size_t i = 0; listpack && i < pairs.size(); ++i) {
    listpack = static_cast<int64_t>(pairs[i].first.size()) <= o.hash_max_listpack_value &&
               static_cast<int64_t>(pairs[i].second.size()) <= o.hash_max_listpack_value;
  }
  if (listpack) {
    std::vector<std::string_view> entries;
    for (const auto& [f, v] : pairs) {
      entries.push_back(f);
      entries.push_back(v);
    }
    w->Byte(kTypeHashListpack);
    w->String(ListpackEncode(entries), o.compression);
    return;
  }
  w->Byte(kTypeHash);
  w->Len(pairs.size());
  for (const auto& [f, v] : pairs) {
    w->String(f, o.compression);
    w->String(v, o.compression);
  }
}

// zzlGetScore of a listpack or ziplist entry: an integer or strtod of the text.
double ScoreOf(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

bool Distinct(std::vector<std::string_view> keys) {
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

// Blobs of field/value or member/score pairs.
bool Pairs(const std::vector<std::string>& entries,
           std::vector<std::pair<std::string, std::string>>* pairs) {
  if (entries.size() % 2 != 0) return false;
  for (size_t i = 0; i < entries.size(); i += 2) pairs->emplace_back(entries[i], entries[i + 1]);
  return true;
}

bool ReadList(Reader* r, uint8_t type, Value* out) {
  out->type = KeyType::kList;
  uint64_t len = 0;
  if (type == kTypeList) {
    if (!r->Len(&len)) return false;
    for (uint64_t i = 0; i < len; ++i) {
      std::string e;
      if (!r->String(&e)) return false;
      out->elements.push_back(std::move(e));
    }
    return true;
  }
  if (type == kTypeListZiplist) {
    std::string blob;
    return r->String(&blob) && ZiplistDecode(blob, &out->elements);
  }
  if (!r->Len(&len)) return false;
  for (uint64_t i = 0; i < len; ++i) {
    uint64_t container = kContainerPacked;
    if (type == kTypeListQuicklist2) {
      if (!r->Len(&container)) return false;
      if (container != kContainerPacked && container != kContainerPlain) return false;
    }
    std::string blob;
    if (!r->String(&blob) || blob.empty()) return false;
    if (container == kContainerPlain) {
      out->elements.push_back(std::move(blob));
      continue;
    }
    std::vector<std::string> node;
    const bool ok =
        type == kTypeListQuicklist2 ? ListpackDecode(blob, &node) : ZiplistDecode(blob, &node);
    if (!ok) return false;
    for (std::string& e : node) out->elements.push_back(std::move(e));
  }
  return true;
}

bool ReadSet(Reader* r, uint8_t type, Value* out) {
  out->type = KeyType::kSet;
  if (type == kTypeSetIntset) {
    std::string blob;
    std::vector<int64_t> ints;
    if (!r->String(&blob) || !IntsetDecode(blob, &ints)) return false;
    for (int64_t v : ints) out->elements.push_back(std::to_string(v));
    return true;
  }
  uint64_t len = 0;
  if (!r->Len(&len)) return false;
  for (uint64_t i = 0; i < len; ++i) {
    std::string e;
    if (!r->String(&e)) return false;
    out->elements.push_back(std::move(e));
  }
  return Distinct({out->elements.begin(), out->elements.end()});
}

bool ReadZset(Reader* r, uint8_t type, Value* out) {
  out->type = KeyType::kZset;
  if (type == kTypeZsetZiplist || type == kTypeZsetListpack) {
    std::string blob;
    std::vector<std::string> entries;
    if (!r->String(&blob)) return false;
    if (!(type == kTypeZsetListpack ? ListpackDecode(blob, &entries)
                                    : ZiplistDecode(blob, &entries))) {
      return false;
    }
    std::vector<std::pair<std::string, std::string>> pairs;
    if (!Pairs(entries, &pairs)) return false;
    for (auto& [m, s] : pairs) out->scored.emplace_back(std::move(m), ScoreOf(s));
  } else {
    uint64_t len = 0;
    if (!r->Len(&len)) return false;
    for (uint64_t i = 0; i < len; ++i) {
      std::string m;
      double score = 0;
      if (!r->String(&m)) return false;
      if (!(type == kTypeZset2 ? r->BinaryDouble(&score) : r->TextDouble(&score))) return false;
      out->scored.emplace_back(std::move(m), score);
    }
  }
  std::vector<std::string_view> members;
  for (const auto& [m, s] : out->scored) {
    if (std::isnan(s)) return false;  // "Zset with NAN score detected"
    members.push_back(m);
  }
  return Distinct(std::move(members));
}

bool ReadHash(Reader* r, uint8_t type, Value* out) {
  out->type = KeyType::kHash;
  if (type == kTypeHash) {
    uint64_t len = 0;
    if (!r->Len(&len)) return false;
    for (uint64_t i = 0; i < len; ++i) {
      std::string f, v;
      if (!r->String(&f) || !r->String(&v)) return false;
      out->pairs.emplace_back(std::move(f), std::move(v));
    }
  } else {
    std::string blob;
    if (!r->String(&blob)) return false;
    if (type == kTypeHashZipmap) {
      if (!ZipmapDecode(blob, &out->pairs)) return false;
    } else {
      std::vector<std::string> entries;
      if (!(type == kTypeHashListpack ? ListpackDecode(blob, &entries)
                                      : ZiplistDecode(blob, &entries))) {
        return false;
      }
      if (!Pairs(entries, &out->pairs)) return false;
    }
  }
  std::vector<std::string_view> fields;
  for (const auto& [f, v] : out->pairs) fields.push_back(f);
  return Distinct(std::move(fields));
}

bool ReadObject(Reader* r, uint8_t type, Value* out) {
  switch (type) {
    case kTypeString:
      out->type = KeyType::kString;
      return r->String(&out->str);
    case kTypeList:
    case kTypeListZiplist:
    case kTypeListQuicklist:
    case kTypeListQuicklist2:
      return ReadList(r, type, out) && !out->elements.empty();
    case kTypeSet:
    case kTypeSetIntset:
      return ReadSet(r, type, out) && !out->elements.empty();
    case kTypeZset:
    case kTypeZset2:
    case kTypeZsetZiplist:
    case kTypeZsetListpack:
      return ReadZset(r, type, out) && !out->scored.empty();
    case kTypeHash:
    case kTypeHashZipmap:
    case kTypeHashZiplist:
    case kTypeHashListpack:
      return ReadHash(r, type, out) && !out->pairs.empty();
    default:
      return false;  // modules and streams: kvlab has no such types
  }
}

uint64_t FooterCrc(std::string_view payload) {
  uint64_t crc = 0;
  for (int i = 7; i >= 0; --i) {
    crc = (crc << 8) | static_cast<uint8_t>(payload[payload.size() - 8 + i]);
  }
  return crc;
}

}  // namespace

std::string DumpPayload(const Value& value, const DumpOptions& options) {
  Writer w;
  switch (value.type) {
    case KeyType::kString:
      w.Byte(kTypeString);
      w.String(value.str, options.compression);
      break;
    case KeyType::kList:
      DumpList(&w, value.elements, options);
      break;
    case KeyType::kSet:
      DumpSet(&w, value.elements, options);
      break;
    case KeyType::kZset:
      DumpZset(&w, value.scored, options);
      break;
    case KeyType::kHash:
      DumpHash(&w, value.pairs, options);
      break;
  }
  w.Byte(kRdbVersion & 0xff);
  w.Byte(kRdbVersion >> 8);
  const uint64_t crc = Crc64(0, w.out());
  for (int i = 0; i < 8; ++i) w.Byte(static_cast<uint8_t>(crc >> (8 * i)));
  return std::move(w.out());
}

ParseResult ParsePayload(std::string_view payload, Value* out) {
  *out = Value();
  if (payload.size() < 10) return ParseResult::kVersionOrChecksum;
  const size_t footer = payload.size() - 10;
  const uint16_t version = static_cast<uint16_t>(static_cast<uint8_t>(payload[footer]) |
                                                 (static_cast<uint8_t>(payload[footer + 1]) << 8));
  if (version > kRdbVersion) return ParseResult::kVersionOrChecksum;
  if (Crc64(0, payload.substr(0, payload.size() - 8)) != FooterCrc(payload)) {
    return ParseResult::kVersionOrChecksum;
  }
  // As Redis, the object is read from the whole payload (its footer included).
  Reader r(payload);
  uint8_t type = 0;
  if (!r.Byte(&type) || !ReadObject(&r, type, out)) return ParseResult::kBadData;
  return ParseResult::kOk;
}

}  // namespace kvlab::engine::rdb
