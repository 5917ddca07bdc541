#include "backends/kept_reads_store.h"

namespace kvlab::backends {

Status KeptReadsStore::Get(std::string_view key, std::string* value) {
  auto it = kept_.find(key);
  if (it != kept_.end()) {
    if (!it->second.has_value()) return Status::NotFound();
    *value = *it->second;
    return Status::OK();
  }
  Status s = target()->Get(key, value);
  if (keep_) {
    if (s.ok()) {
      KeepRead(key, *value);
    } else if (s.IsNotFound()) {
      KeepRead(key, std::nullopt);
    }
  }
  return s;
}

Status KeptReadsStore::MultiGet(const std::vector<std::string_view>& keys,
                                std::vector<std::optional<std::string>>* values) {
  values->assign(keys.size(), std::nullopt);
  std::vector<std::string_view> rest;
  std::vector<size_t> rest_at;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = kept_.find(keys[i]);
    if (it != kept_.end()) {
      (*values)[i] = it->second;
    } else {
      rest.push_back(keys[i]);
      rest_at.push_back(i);
    }
  }
  if (rest.empty()) return Status::OK();
  std::vector<std::optional<std::string>> found;
  KVLAB_RETURN_IF_ERROR(target()->MultiGet(rest, &found));
  for (size_t j = 0; j < rest.size(); ++j) {
    if (keep_) KeepRead(rest[j], found[j]);
    (*values)[rest_at[j]] = std::move(found[j]);
  }
  return Status::OK();
}

void KeptReadsStore::KeepRead(std::string_view key, const std::optional<std::string>& value) {
  if (value.has_value() && value->size() > kMaxKeptValueBytes) return;
  kept_.emplace(std::string(key), value);
}

void KeptReadsStore::Forget(const WriteBatch::Record& r) {
  if (r.op != WriteBatch::Op::kDeleteRange) {
    kept_.erase(r.key);
  } else if (r.key < r.value) {
    kept_.erase(kept_.lower_bound(r.key), kept_.lower_bound(r.value));
  }
}

Status KeptReadsStore::Put(std::string_view key, std::string_view value) {
  kept_.erase(std::string(key));
  return target()->Put(key, value);
}

Status KeptReadsStore::Delete(std::string_view key) {
  kept_.erase(std::string(key));
  return target()->Delete(key);
}

Status KeptReadsStore::DeleteRange(std::string_view begin, std::string_view end) {
  if (begin < end) kept_.erase(kept_.lower_bound(begin), kept_.lower_bound(end));
  return target()->DeleteRange(begin, end);
}

Status KeptReadsStore::Write(const WriteBatch& batch) {
  // Forgotten whether the write succeeds or not (a failed write costs a re-read, nothing more).
  if (!kept_.empty()) {
    for (const WriteBatch::Record& r : batch.records()) Forget(r);
  }
  return target()->Write(batch);
}

}  // namespace kvlab::backends
