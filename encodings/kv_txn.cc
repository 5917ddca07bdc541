#include "encodings/kv_txn.h"

#include "encodings/registry.h"
#include "encodings/tier_ops.h"

namespace kvlab::encodings {

using redis::TierRole;
using resp::Reply;

namespace {

Status DecodeLive(std::string_view key, std::string_view bytes, const EncodingRegistry& registry,
                  int64_t now_ms, KeyMeta* meta, bool* found) {
  Status d = KeyMeta::Decode(bytes, registry, meta);
  if (!d.ok()) return Status::Corruption("key '" + std::string(key) + "': " + d.message());
  *found = !meta->ExpiredAt(now_ms);
  return Status::OK();
}

}  // namespace

const std::optional<KeyMeta>* KvTxn::Written(std::string_view key) const {
  for (auto it = written_.rbegin(); it != written_.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

bool KvTxn::meta_cache() const { return tier_ != nullptr && tier_->meta_cache(); }

std::string KvTxn::MetaCacheKey(std::string_view key) const {
  std::string name = "c#" + codec_->Namespace(db_) + "{" + std::string(key) + "}meta";
  const uint64_t generation = tier_->meta_cache_generation();
  for (int i = 0; i < 8; ++i) name.push_back(static_cast<char>(generation >> (56 - 8 * i)));
  return name;
}

Status KvTxn::GetMeta(std::string_view key, KeyMeta* meta, bool* found) {
  if (!meta_cache()) {
    // The common path, without GetMetas's vectors: one command, one key, one get.
    if (const std::optional<KeyMeta>* w = Written(key)) {
      *found = w->has_value() && !(*w)->ExpiredAt(now_ms_);
      if (*found) *meta = **w;
      return Status::OK();
    }
    std::string bytes;
    Status s = kv_->Get(codec_->MetaKey(db_, key), &bytes);
    if (s.IsNotFound()) {
      *found = false;
      return Status::OK();
    }
    KVLAB_RETURN_IF_ERROR(s);
    return DecodeLive(key, bytes, *registry_, now_ms_, meta, found);
  }
  std::vector<std::optional<KeyMeta>> metas;
  KVLAB_RETURN_IF_ERROR(GetMetas({key}, &metas));
  *found = metas[0].has_value();
  if (*found) *meta = std::move(*metas[0]);
  return Status::OK();
}

Status KvTxn::GetMetas(const std::vector<std::string_view>& keys,
                       std::vector<std::optional<KeyMeta>>* metas) {
  metas->assign(keys.size(), std::nullopt);
  std::vector<std::string> meta_keys;
  std::vector<size_t> from_store;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (const std::optional<KeyMeta>* w = Written(keys[i])) {
      if (w->has_value() && !(*w)->ExpiredAt(now_ms_)) (*metas)[i] = **w;
    } else {
      meta_keys.push_back(codec_->MetaKey(db_, keys[i]));
      from_store.push_back(i);
    }
  }
  if (from_store.empty()) return Status::OK();
  // The optional key-meta cache: one MGET, then KV for the misses (refilled).
  std::vector<std::optional<std::string>> values(from_store.size());
  std::vector<size_t> misses;
  const bool cached = meta_cache() && ReadMetaCache(keys, from_store, &values);
  for (size_t j = 0; j < from_store.size(); ++j) {
    if (!values[j]) misses.push_back(j);
  }
  if (cached) {
    tier_counts_.cache_hits += from_store.size() - misses.size();
    tier_counts_.cache_misses += misses.size();
  }
  if (!misses.empty()) {
    std::vector<std::string> miss_keys;
    for (size_t j : misses) miss_keys.push_back(std::move(meta_keys[j]));
    std::vector<std::optional<std::string>> read;
    KVLAB_RETURN_IF_ERROR(ReadMetasFromKv(miss_keys, &read));
    for (size_t m = 0; m < misses.size(); ++m) values[misses[m]] = std::move(read[m]);
    if (cached) RefillMetaCache(keys, from_store, misses, values);
  }
  for (size_t j = 0; j < from_store.size(); ++j) {
    if (!values[j]) continue;
    KeyMeta meta;
    bool found = false;
    KVLAB_RETURN_IF_ERROR(
        DecodeLive(keys[from_store[j]], *values[j], *registry_, now_ms_, &meta, &found));
    if (found) (*metas)[from_store[j]] = std::move(meta);
  }
  return Status::OK();
}

Status KvTxn::ReadMetasFromKv(const std::vector<std::string>& meta_keys,
                              std::vector<std::optional<std::string>>* values) {
  values->assign(meta_keys.size(), std::nullopt);
  if (meta_keys.size() == 1) {
    std::string v;
    Status s = kv_->Get(meta_keys[0], &v);
    if (!s.ok() && !s.IsNotFound()) return s;
    if (s.ok()) (*values)[0] = std::move(v);
    return Status::OK();
  }
  std::vector<std::string_view> views(meta_keys.begin(), meta_keys.end());
  return kv_->MultiGet(views, values);
}

bool KvTxn::ReadMetaCache(const std::vector<std::string_view>& keys,
                          const std::vector<size_t>& which,
                          std::vector<std::optional<std::string>>* values) {
  std::vector<std::vector<std::string>> commands(1, {"MGET"});
  for (size_t i : which) commands[0].push_back(MetaCacheKey(keys[i]));
  // A meta cache entry is its own dirty-tracking unit (the prefix is the entry's name).
  for (size_t j = 0; j < which.size(); ++j) {
    if (!tier_->CacheUsable(commands[0][j + 1], &tier_counts_)) return false;
  }
  std::vector<Reply> replies;
  if (!tier_->Pipeline(TierRole::kCache, commands, &replies, &tier_counts_).ok() ||
      replies[0].type() != Reply::Type::kArray) {
    ++tier_counts_.degraded;
    return false;
  }
  for (size_t j = 0; j < which.size(); ++j) {
    const Reply& r = replies[0].elements()[j];
    if (r.type() == Reply::Type::kBulk) (*values)[j] = r.str();
  }
  return true;
}

void KvTxn::RefillMetaCache(const std::vector<std::string_view>& keys,
                            const std::vector<size_t>& which, const std::vector<size_t>& misses,
                            const std::vector<std::optional<std::string>>& values) {
  const std::string ttl = std::to_string(tier_->meta_cache_ttl_ms.load());
  for (size_t j : misses) {
    if (!values[j]) continue;  // absent keys are not cached
    const std::string name = MetaCacheKey(keys[which[j]]);
    CacheWriteNow(*this, name, {{"SET", name, *values[j], "PX", ttl}}, {name});
  }
}

void KvTxn::PutMeta(std::string_view key, const KeyMeta& meta) {
  std::string bytes = meta.Encode();
  if (meta_cache()) {
    // Only an entry that exists is rewritten, after the commit.
    const std::string name = MetaCacheKey(key);
    CacheWriteAfterCommit(
        *this, name,
        {{"SET", name, bytes, "XX", "PX", std::to_string(tier_->meta_cache_ttl_ms.load())}},
        {name});
  }
  batch_.Put(codec_->MetaKey(db_, key), bytes);
  written_.emplace_back(std::string(key), meta);
}

void KvTxn::DeleteMeta(std::string_view key) {
  if (meta_cache()) {
    const std::string name = MetaCacheKey(key);
    CacheWriteAfterCommit(*this, name, {{"DEL", name}}, {name});
  }
  batch_.Delete(codec_->MetaKey(db_, key));
  written_.emplace_back(std::string(key), std::nullopt);
}

KeyMeta KvTxn::NewMeta(KeyType type, uint8_t encode_version) {
  KeyMeta meta;
  meta.type = type;
  meta.encode_version = encode_version;
  const EncodingSpec* row = registry_->Find(type, encode_version);
  meta.counted = row != nullptr && row->meta_has_count;
  meta.key_version = versions_->Next();
  return meta;
}

}  // namespace kvlab::encodings
