#include "encodings/kv_txn.h"

#include "encodings/coding.h"
#include "encodings/registry.h"

namespace kvlab::encodings {

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
  const auto& metas = writes_->metas;
  for (auto it = metas.rbegin(); it != metas.rend(); ++it) {
    if (it->db == db_ && it->key == key) return &it->meta;
  }
  return nullptr;
}

Status KvTxn::GetMeta(std::string_view key, KeyMeta* meta, bool* found) {
  if (meta_cache_ == nullptr) {
    // The common path, without GetMetas's vectors: one command, one key, one get.
    if (const std::optional<KeyMeta>* w = Written(key)) {
      *found = w->has_value() && !(*w)->ExpiredAt(now_ms_);
      if (*found) *meta = **w;
      return Status::OK();
    }
    std::string bytes;
    Status s = kv_->Get(codec_->MetaKey(db_, key), &bytes);
    if (s.IsNotFound()) {
      RememberStored(key, nullptr);
      *found = false;
      return Status::OK();
    }
    KVLAB_RETURN_IF_ERROR(s);
    RememberStored(key, &bytes);
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
  const bool cached = meta_cache_ != nullptr && meta_cache_->Read(*this, keys, from_store, &values);
  for (size_t j = 0; j < from_store.size(); ++j) {
    if (!values[j]) misses.push_back(j);
  }
  if (cached) {
    writes_->tier_counts.cache_hits += from_store.size() - misses.size();
    writes_->tier_counts.cache_misses += misses.size();
  }
  if (!misses.empty()) {
    std::vector<std::string> miss_keys;
    for (size_t j : misses) miss_keys.push_back(std::move(meta_keys[j]));
    std::vector<std::optional<std::string>> read;
    KVLAB_RETURN_IF_ERROR(ReadMetasFromKv(miss_keys, &read));
    for (size_t m = 0; m < misses.size(); ++m) values[misses[m]] = std::move(read[m]);
    if (cached) meta_cache_->Refill(*this, keys, from_store, misses, values);
  }
  for (size_t j = 0; j < from_store.size(); ++j) {
    RememberStored(keys[from_store[j]], values[j] ? &*values[j] : nullptr);
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

void KvTxn::RememberStored(std::string_view key, const std::string* bytes) {
  if (!codec_->options().ttl_index) return;
  int64_t expire_ms = KeyMeta::kNoExpire;
  if (bytes != nullptr) {
    KeyMeta meta;
    if (!KeyMeta::Decode(*bytes, *registry_, &meta).ok()) return;
    expire_ms = meta.expire_ms;
  }
  writes_->stored.push_back({db_, std::string(key), expire_ms});
}

void KvTxn::NoteStoredMeta(std::string_view key, const KeyMeta* meta) {
  if (!codec_->options().ttl_index) return;
  writes_->stored.push_back(
      {db_, std::string(key), meta != nullptr ? meta->expire_ms : KeyMeta::kNoExpire});
}

bool KvTxn::PreviousExpiry(std::string_view key, int64_t* expire_ms) const {
  if (const std::optional<KeyMeta>* w = Written(key)) {
    *expire_ms = w->has_value() ? (*w)->expire_ms : KeyMeta::kNoExpire;
    return true;
  }
  const auto& stored = writes_->stored;
  for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
    if (it->db == db_ && it->key == key) {
      *expire_ms = it->expire_ms;
      return true;
    }
  }
  return false;
}

void KvTxn::PutMeta(std::string_view key, const KeyMeta& meta) {
  if (codec_->options().ttl_index) {
    int64_t before = KeyMeta::kNoExpire;
    const bool known = PreviousExpiry(key, &before);
    if (known && before != KeyMeta::kNoExpire && before != meta.expire_ms) {
      writes_->batch.Delete(codec_->TtlIndexKey(db_, before, key));
    }
    if (meta.has_expire() && (!known || before != meta.expire_ms)) {
      writes_->batch.Put(codec_->TtlIndexKey(db_, meta.expire_ms, key), "");
    }
  }
  std::string bytes = meta.Encode();
  if (meta_cache_ != nullptr) meta_cache_->Written(*this, key, &bytes);
  writes_->batch.Put(codec_->MetaKey(db_, key), bytes);
  writes_->metas.push_back({db_, std::string(key), meta});
}

void KvTxn::DeleteMeta(std::string_view key) {
  int64_t before = KeyMeta::kNoExpire;
  if (codec_->options().ttl_index && PreviousExpiry(key, &before) && before != KeyMeta::kNoExpire) {
    writes_->batch.Delete(codec_->TtlIndexKey(db_, before, key));
  }
  if (meta_cache_ != nullptr) meta_cache_->Written(*this, key, nullptr);
  writes_->batch.Delete(codec_->MetaKey(db_, key));
  writes_->metas.push_back({db_, std::string(key), std::nullopt});
}

KeyMeta KvTxn::NewMeta(KeyType type, uint8_t encode_version) {
  KeyMeta meta;
  meta.type = type;
  meta.encode_version = encode_version;
  const EncodingSpec* row = registry_->Find(type, encode_version);
  meta.counted = row != nullptr && row->meta_has_count;
  // An Ardb-layout key has no key-version (its sub-keys carry none).
  meta.key_version = meta.ardb_layout() ? 0 : versions_->Next();
  return meta;
}

std::string KvTxn::SubKeyPrefix(SubKeyTag tag, const KeyHandle& handle) const {
  if (!handle.meta.ardb_layout()) {
    return codec_->SubKeyPrefix(tag, db_, handle.key, handle.meta.key_version);
  }
  std::string prefix = codec_->ArdbKeyPrefix(db_, handle.key);
  ArdbTag kind = ArdbTag::kHashField;
  switch (tag) {
    case SubKeyTag::kArdb:
      return prefix;
    case SubKeyTag::kScore:
      kind = ArdbTag::kZsetSort;
      break;
    case SubKeyTag::kField:
    case SubKeyTag::kIndex:
      switch (handle.meta.type) {
        case KeyType::kSet:
          kind = ArdbTag::kSetMember;
          break;
        case KeyType::kZset:
          kind = ArdbTag::kZsetScore;
          break;
        case KeyType::kList:
          kind = ArdbTag::kListElement;
          break;
        default:
          kind = ArdbTag::kHashField;
      }
      break;
  }
  prefix.push_back(static_cast<char>(kind));
  return prefix;
}

Status KvTxn::WriteShadowed(const std::vector<std::string>& prefixes,
                            const std::function<Status()>& write) {
  std::unique_ptr<ShadowStore>& shadow = writes_->shadow;
  if (shadow == nullptr) shadow = std::make_unique<ShadowStore>(kv_);
  for (const std::string& prefix : prefixes) shadow->AddRange(prefix, PrefixSuccessor(prefix));
  const size_t first = writes_->batch.records().size();
  KVLAB_RETURN_IF_ERROR(write());
  shadow->Apply(writes_->batch.records(), first);
  return Status::OK();
}

}  // namespace kvlab::encodings
