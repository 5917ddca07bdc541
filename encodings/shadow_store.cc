#include "encodings/shadow_store.h"

namespace kvlab::encodings {

using backends::IteratorOptions;
using backends::WriteBatch;

namespace {

// The records of a map within [lower, upper), in either direction.
class MapIterator : public backends::Iterator {
 public:
  using Map = std::map<std::string, std::string, std::less<>>;
  MapIterator(const Map* map, std::string lower, std::string upper, bool reverse_scan)
      : map_(map),
        lower_(std::move(lower)),
        upper_(std::move(upper)),
        reverse_scan_(reverse_scan),
        it_(map->end()) {}

  bool Valid() const override { return status_.ok() && it_ != map_->end(); }
  void Seek(std::string_view target) override {
    it_ = map_->lower_bound(std::max(target, std::string_view(lower_)));
    Clamp();
  }
  void SeekForPrev(std::string_view target) override {
    if (!Reverse()) return;
    // The last key <= target, and below the upper bound.
    auto it =
        target < std::string_view(upper_) ? map_->upper_bound(target) : map_->lower_bound(upper_);
    it_ = it == map_->begin() ? map_->end() : std::prev(it);
    Clamp();
  }
  void SeekToFirst() override { Seek(lower_); }
  void SeekToLast() override {
    if (!Reverse()) return;
    auto it = map_->lower_bound(upper_);
    it_ = it == map_->begin() ? map_->end() : std::prev(it);
    Clamp();
  }
  void Next() override {
    ++it_;
    Clamp();
  }
  void Prev() override {
    if (!Reverse()) return;
    it_ = it_ == map_->begin() ? map_->end() : std::prev(it_);
    Clamp();
  }
  std::string_view key() const override { return it_->first; }
  std::string_view value() const override { return it_->second; }
  Status status() const override { return status_; }

 private:
  // Leaves the iterator invalid when it is outside the bounds.
  void Clamp() {
    if (it_ != map_->end() && (it_->first < lower_ || it_->first >= upper_)) it_ = map_->end();
  }
  bool Reverse() {
    if (reverse_scan_) return true;
    status_ = Status::NotSupported("reverse scan");
    it_ = map_->end();
    return false;
  }

  const Map* map_;
  const std::string lower_, upper_;
  const bool reverse_scan_;
  Map::const_iterator it_;
  Status status_;
};

}  // namespace

void ShadowStore::AddRange(std::string begin, std::string end) {
  ranges_.emplace_back(std::move(begin), std::move(end));
}

bool ShadowStore::Shadowed(std::string_view key) const {
  for (const auto& [begin, end] : ranges_) {
    if (key >= begin && key < end) return true;
  }
  return false;
}

void ShadowStore::ApplyOne(const WriteBatch::Record& r) {
  switch (r.op) {
    case WriteBatch::Op::kPut:
      if (Shadowed(r.key)) records_.insert_or_assign(r.key, r.value);
      break;
    case WriteBatch::Op::kDelete:
    case WriteBatch::Op::kSingleDelete:
      records_.erase(r.key);
      break;
    case WriteBatch::Op::kDeleteRange:
      if (r.key < r.value) {
        records_.erase(records_.lower_bound(r.key), records_.lower_bound(r.value));
      }
      break;
  }
}

void ShadowStore::Apply(const std::vector<WriteBatch::Record>& records, size_t first) {
  for (size_t i = first; i < records.size(); ++i) ApplyOne(records[i]);
}

Status ShadowStore::Get(std::string_view key, std::string* value) {
  if (!Shadowed(key)) return base_->Get(key, value);
  auto it = records_.find(key);
  if (it == records_.end()) return Status::NotFound();
  *value = it->second;
  return Status::OK();
}

Status ShadowStore::MultiGet(const std::vector<std::string_view>& keys,
                             std::vector<std::optional<std::string>>* values) {
  values->assign(keys.size(), std::nullopt);
  std::vector<std::string_view> from_base;
  std::vector<size_t> where;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!Shadowed(keys[i])) {
      from_base.push_back(keys[i]);
      where.push_back(i);
    } else if (auto it = records_.find(keys[i]); it != records_.end()) {
      (*values)[i] = it->second;
    }
  }
  if (from_base.empty()) return Status::OK();
  std::vector<std::optional<std::string>> got;
  KVLAB_RETURN_IF_ERROR(base_->MultiGet(from_base, &got));
  for (size_t j = 0; j < where.size(); ++j) (*values)[where[j]] = std::move(got[j]);
  return Status::OK();
}

Status ShadowStore::Put(std::string_view key, std::string_view value) {
  KVLAB_RETURN_IF_ERROR(base_->Put(key, value));
  ApplyOne({WriteBatch::Op::kPut, std::string(key), std::string(value)});
  return Status::OK();
}

Status ShadowStore::Delete(std::string_view key) {
  KVLAB_RETURN_IF_ERROR(base_->Delete(key));
  ApplyOne({WriteBatch::Op::kDelete, std::string(key), std::string()});
  return Status::OK();
}

Status ShadowStore::DeleteRange(std::string_view begin, std::string_view end) {
  KVLAB_RETURN_IF_ERROR(base_->DeleteRange(begin, end));
  ApplyOne({WriteBatch::Op::kDeleteRange, std::string(begin), std::string(end)});
  return Status::OK();
}

Status ShadowStore::Write(const WriteBatch& batch) {
  KVLAB_RETURN_IF_ERROR(base_->Write(batch));
  Apply(batch.records(), 0);
  return Status::OK();
}

std::unique_ptr<backends::Iterator> ShadowStore::NewIterator(const IteratorOptions& options) {
  if (options.lower_bound && options.upper_bound) {
    for (const auto& [begin, end] : ranges_) {
      if (*options.lower_bound >= begin && *options.upper_bound <= end) {
        return std::make_unique<MapIterator>(&records_, *options.lower_bound, *options.upper_bound,
                                             base_->capabilities().reverse_scan);
      }
    }
  }
  return base_->NewIterator(options);
}

}  // namespace kvlab::encodings
