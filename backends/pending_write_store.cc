#include "backends/pending_write_store.h"

#include <algorithm>
#include <iterator>

namespace kvlab::backends {

// Merges the store's iterator (the base) with the pending index (the delta). Invariant while
// positioned: the source not current is at a key past the current key in the direction of
// travel (or exhausted), so that stepping moves only the current source. A base key the delta
// also holds is skipped (the delta decides it), and so is one a pending range hides; a delta
// entry that is a pending Delete is skipped. Changing direction re-seeks both at the current
// key, as RocksDB's merging iterators do.
class PendingWriteStore::OverlayIterator final : public Iterator {
 public:
  OverlayIterator(const PendingWriteStore* store, std::unique_ptr<Iterator> base,
                  const IteratorOptions& options)
      : store_(store),
        base_(std::move(base)),
        lower_(options.lower_bound),
        upper_(options.upper_bound),
        reverse_scan_(store->capabilities().reverse_scan) {}

  bool Valid() const override { return current_ != Source::kNone && status().ok(); }

  void Seek(std::string_view target) override {
    forward_ = true;
    base_->Seek(target);
    std::string_view from = target;
    if (lower_.has_value() && from < *lower_) from = *lower_;
    delta_ = store_->index_.lower_bound(from);
    CheckDeltaForward();
    SettleForward();
  }

  void SeekToFirst() override {
    forward_ = true;
    base_->SeekToFirst();
    delta_ = lower_.has_value() ? store_->index_.lower_bound(*lower_) : store_->index_.begin();
    CheckDeltaForward();
    SettleForward();
  }

  void SeekForPrev(std::string_view target) override {
    if (!ReverseAllowed()) return;
    forward_ = false;
    base_->SeekForPrev(target);
    // The last delta entry <= target and < upper.
    StepDeltaBackFrom(upper_.has_value() && *upper_ <= target ? store_->index_.lower_bound(*upper_)
                                                              : store_->index_.upper_bound(target));
    SettleBackward();
  }

  void SeekToLast() override {
    if (!ReverseAllowed()) return;
    forward_ = false;
    base_->SeekToLast();
    StepDeltaBackFrom(upper_.has_value() ? store_->index_.lower_bound(*upper_)
                                         : store_->index_.end());
    SettleBackward();
  }

  void Next() override {
    if (!Valid()) return;
    if (!forward_) Seek(std::string(key()));  // lands on the current key, now going forward
    if (current_ == Source::kDelta) {
      ++delta_;
      CheckDeltaForward();
    } else {
      base_->Next();
    }
    SettleForward();
  }

  void Prev() override {
    if (!Valid() || !ReverseAllowed()) return;
    if (forward_) SeekForPrev(std::string(key()));
    if (current_ == Source::kDelta) {
      StepDeltaBackFrom(delta_);
    } else {
      base_->Prev();
    }
    SettleBackward();
  }

  std::string_view key() const override {
    return current_ == Source::kDelta ? std::string_view(delta_->first) : base_->key();
  }
  std::string_view value() const override {
    return current_ == Source::kDelta ? std::string_view(*delta_->second) : base_->value();
  }
  Status status() const override {
    if (!status_.ok()) return status_;
    return base_->status();
  }

 private:
  enum class Source { kNone, kBase, kDelta };

  bool ReverseAllowed() {
    if (reverse_scan_) return true;
    status_ = Status::NotSupported(store_->name() + ": reverse iteration is not supported");
    current_ = Source::kNone;
    return false;
  }

  void CheckDeltaForward() {
    delta_valid_ = delta_ != store_->index_.end() &&
                   (!upper_.has_value() || std::string_view(delta_->first) < *upper_);
  }

  // Positions the delta on the entry before `it` (within the lower bound), or exhausts it.
  void StepDeltaBackFrom(Index::const_iterator it) {
    if (it == store_->index_.begin()) {
      delta_valid_ = false;
      return;
    }
    delta_ = std::prev(it);
    delta_valid_ = !lower_.has_value() || std::string_view(delta_->first) >= *lower_;
  }

  void SettleForward() {
    while (true) {
      const bool base_valid = base_->Valid();
      if (base_valid && store_->Hidden(base_->key())) {
        base_->Next();
        continue;
      }
      if (delta_valid_) {
        const int c = base_valid ? std::string_view(delta_->first).compare(base_->key()) : -1;
        if (c <= 0) {
          if (c == 0) base_->Next();  // the delta decides this key
          if (!delta_->second.has_value()) {
            ++delta_;
            CheckDeltaForward();
            continue;
          }
          current_ = Source::kDelta;
          return;
        }
      }
      current_ = base_valid ? Source::kBase : Source::kNone;
      return;
    }
  }

  void SettleBackward() {
    while (true) {
      const bool base_valid = base_->Valid();
      if (base_valid && store_->Hidden(base_->key())) {
        base_->Prev();
        continue;
      }
      if (delta_valid_) {
        const int c = base_valid ? std::string_view(delta_->first).compare(base_->key()) : 1;
        if (c >= 0) {
          if (c == 0) base_->Prev();
          if (!delta_->second.has_value()) {
            StepDeltaBackFrom(delta_);
            continue;
          }
          current_ = Source::kDelta;
          return;
        }
      }
      current_ = base_valid ? Source::kBase : Source::kNone;
      return;
    }
  }

  const PendingWriteStore* const store_;
  std::unique_ptr<Iterator> base_;
  const std::optional<std::string> lower_;
  const std::optional<std::string> upper_;
  const bool reverse_scan_;
  Index::const_iterator delta_;
  bool delta_valid_ = false;
  bool forward_ = true;
  Source current_ = Source::kNone;
  Status status_;
};

PendingWriteStore::PendingWriteStore(KvStore* target, bool read_your_writes)
    : KvStoreWrapper(target), read_your_writes_(read_your_writes) {}

bool PendingWriteStore::Hidden(std::string_view key) const {
  for (const auto& [begin, end] : ranges_) {
    if (begin <= key && key < end) return true;
  }
  return false;
}

Status PendingWriteStore::Get(std::string_view key, std::string* value) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    if (!it->second.has_value()) return Status::NotFound();
    *value = *it->second;
    return Status::OK();
  }
  if (Hidden(key)) return Status::NotFound();
  return target()->Get(key, value);
}

Status PendingWriteStore::MultiGet(const std::vector<std::string_view>& keys,
                                   std::vector<std::optional<std::string>>* values) {
  values->assign(keys.size(), std::nullopt);
  std::vector<std::string_view> rest;
  std::vector<size_t> rest_at;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = index_.find(keys[i]);
    if (it != index_.end()) {
      (*values)[i] = it->second;
    } else if (!Hidden(keys[i])) {
      rest.push_back(keys[i]);
      rest_at.push_back(i);
    }
  }
  if (rest.empty()) return Status::OK();
  std::vector<std::optional<std::string>> found;
  KVLAB_RETURN_IF_ERROR(target()->MultiGet(rest, &found));
  for (size_t j = 0; j < rest.size(); ++j) (*values)[rest_at[j]] = std::move(found[j]);
  return Status::OK();
}

Status PendingWriteStore::Put(std::string_view key, std::string_view value) {
  WriteBatch batch;
  batch.Put(key, value);
  return Write(batch);
}

Status PendingWriteStore::Delete(std::string_view key) {
  WriteBatch batch;
  batch.Delete(key);
  return Write(batch);
}

Status PendingWriteStore::DeleteRange(std::string_view begin, std::string_view end) {
  WriteBatch batch;
  batch.DeleteRange(begin, end);
  return Write(batch);
}

Status PendingWriteStore::Write(const WriteBatch& batch) {
  KVLAB_RETURN_IF_ERROR(ValidateBatch(name(), batch, capabilities().max_key_bytes));
  batch_.Append(batch);
  if (read_your_writes_) {
    for (const WriteBatch::Record& r : batch.records()) IndexRecord(r);
  }
  return Status::OK();
}

void PendingWriteStore::StartReadingYourWrites() {
  if (read_your_writes_) return;
  read_your_writes_ = true;
  for (const WriteBatch::Record& r : batch_.records()) IndexRecord(r);
}

void PendingWriteStore::IndexRecord(const WriteBatch::Record& r) {
  switch (r.op) {
    case WriteBatch::Op::kPut:
      index_.insert_or_assign(r.key, r.value);
      break;
    case WriteBatch::Op::kDelete:
    case WriteBatch::Op::kSingleDelete:
      index_.insert_or_assign(r.key, std::nullopt);
      break;
    case WriteBatch::Op::kDeleteRange:
      if (r.key < r.value) {
        index_.erase(index_.lower_bound(r.key), index_.lower_bound(r.value));
        ranges_.emplace_back(r.key, r.value);
      }
      break;
  }
}

std::unique_ptr<Iterator> PendingWriteStore::NewIterator(const IteratorOptions& options) {
  // Nothing to lay over (nothing pending, or no read-your-writes): the store's own iterator.
  if (index_.empty() && ranges_.empty()) return target()->NewIterator(options);
  return std::make_unique<OverlayIterator>(this, target()->NewIterator(options), options);
}

Status PendingWriteStore::Commit() {
  if (batch_.empty()) return Status::OK();
  Status s = target()->Write(batch_);
  Discard();
  return s;
}

void PendingWriteStore::Discard() {
  batch_.Clear();
  index_.clear();
  ranges_.clear();
}

}  // namespace kvlab::backends
