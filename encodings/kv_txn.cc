#include "encodings/kv_txn.h"

namespace kvlab {

namespace {

Status DecodeLive(std::string_view key, std::string_view bytes, int64_t now_ms, KeyMeta* meta,
                  bool* found) {
  Status d = KeyMeta::Decode(bytes, meta);
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

Status KvTxn::GetMeta(std::string_view key, KeyMeta* meta, bool* found) {
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
  return DecodeLive(key, bytes, now_ms_, meta, found);
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
  std::vector<std::optional<std::string>> values;
  if (from_store.size() == 1) {
    std::string v;
    Status s = kv_->Get(meta_keys[0], &v);
    if (!s.ok() && !s.IsNotFound()) return s;
    values.emplace_back();
    if (s.ok()) values[0] = std::move(v);
  } else {
    std::vector<std::string_view> views(meta_keys.begin(), meta_keys.end());
    KVLAB_RETURN_IF_ERROR(kv_->MultiGet(views, &values));
  }
  for (size_t j = 0; j < from_store.size(); ++j) {
    if (!values[j]) continue;
    KeyMeta meta;
    bool found = false;
    KVLAB_RETURN_IF_ERROR(DecodeLive(keys[from_store[j]], *values[j], now_ms_, &meta, &found));
    if (found) (*metas)[from_store[j]] = std::move(meta);
  }
  return Status::OK();
}

void KvTxn::PutMeta(std::string_view key, const KeyMeta& meta) {
  batch_.Put(codec_->MetaKey(db_, key), meta.Encode());
  written_.emplace_back(std::string(key), meta);
}

void KvTxn::DeleteMeta(std::string_view key) {
  batch_.Delete(codec_->MetaKey(db_, key));
  written_.emplace_back(std::string(key), std::nullopt);
}

KeyMeta KvTxn::NewMeta(KeyType type, uint8_t encode_version) {
  KeyMeta meta;
  meta.type = type;
  meta.encode_version = encode_version;
  meta.key_version = versions_->Next();
  return meta;
}

}  // namespace kvlab
