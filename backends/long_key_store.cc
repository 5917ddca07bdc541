#include "backends/long_key_store.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace kvlab::backends {
namespace {

// A bucket's entries: suffix -> value, in suffix order.
using Bucket = std::map<std::string, std::string, std::less<>>;

void AppendFixed32(std::string* out, uint32_t v) {
  char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
               static_cast<char>(v >> 24)};
  out->append(b, 4);
}

bool ReadPiece(std::string_view* in, std::string_view* piece) {
  if (in->size() < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(in->data());
  const uint32_t n = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
  if (in->size() - 4 < n) return false;
  *piece = in->substr(4, n);
  in->remove_prefix(4 + n);
  return true;
}

std::string EncodeBucket(const Bucket& bucket) {
  std::string out;
  for (const auto& [suffix, value] : bucket) {
    AppendFixed32(&out, static_cast<uint32_t>(suffix.size()));
    out.append(suffix);
    AppendFixed32(&out, static_cast<uint32_t>(value.size()));
    out.append(value);
  }
  return out;
}

// Decodes a bucket record into (suffix, value) views of `data`, in suffix order.
Status DecodeBucket(std::string_view data,
                    std::vector<std::pair<std::string_view, std::string_view>>* out) {
  out->clear();
  while (!data.empty()) {
    std::string_view suffix, value;
    if (!ReadPiece(&data, &suffix) || !ReadPiece(&data, &value) || suffix.empty()) {
      return Status::Corruption("long-key bucket record is malformed");
    }
    out->emplace_back(suffix, value);
  }
  return Status::OK();
}

// Adds each bucket's new record to `out`, or its deletion when the bucket became empty.
void AddBucketWrites(const std::map<std::string, Bucket>& buckets, WriteBatch* out) {
  for (const auto& [bucket_key, bucket] : buckets) {
    if (bucket.empty()) {
      out->Delete(bucket_key);
    } else {
      out->Put(bucket_key, EncodeBucket(bucket));
    }
  }
}

// The base key of the bucket that holds `key`, whose first short_max bytes are its prefix.
std::string BucketKeyOf(std::string_view key, size_t short_max) {
  std::string out(key.substr(0, short_max));
  out.push_back('\0');
  return out;
}

Status LoadBucket(KvStore* base, const std::string& bucket_key, Bucket* bucket) {
  bucket->clear();
  std::string data;
  Status s = base->Get(bucket_key, &data);
  if (s.IsNotFound()) return Status::OK();
  KVLAB_RETURN_IF_ERROR(s);
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  KVLAB_RETURN_IF_ERROR(DecodeBucket(data, &entries));
  for (const auto& [suffix, value] : entries) bucket->emplace(suffix, value);
  return Status::OK();
}

// Iterates the base store, expanding each bucket record into its keys, within the caller's
// bounds.
class LongKeyIterator final : public Iterator {
 public:
  LongKeyIterator(KvStore* base, size_t short_max, const IteratorOptions& options)
      : short_max_(short_max), lower_(options.lower_bound), upper_(options.upper_bound) {
    // The base bounds must include the buckets the caller's bounds cut through: a long lower
    // bound starts at its bucket; a long upper bound ends after its bucket. Entries of those
    // buckets outside the caller's bounds are dropped when a bucket is loaded.
    IteratorOptions base_options;
    if (lower_) {
      base_options.lower_bound =
          lower_->size() > short_max_ ? BucketKeyOf(*lower_) : std::string(*lower_);
    }
    if (upper_) {
      base_options.upper_bound =
          upper_->size() > short_max_ ? BucketKeyOf(*upper_) + '\0' : std::string(*upper_);
    }
    base_ = base->NewIterator(base_options);
  }

  bool Valid() const override { return status_.ok() && valid_; }
  Status status() const override { return status_.ok() ? base_->status() : status_; }

  void Seek(std::string_view target) override {
    if (target.size() <= short_max_) {
      base_->Seek(target);
      LoadForward();
      return;
    }
    const std::string bucket_key = BucketKeyOf(target);
    base_->Seek(bucket_key);
    if (base_->Valid() && base_->key() == bucket_key) {
      if (!Decode()) return;
      const std::string_view suffix = target.substr(short_max_);
      size_t i = 0;
      while (i < entries_.size() && entries_[i].first < suffix) ++i;
      if (!SettleForward(i)) {
        base_->Next();
        LoadForward();
      }
      return;
    }
    LoadForward();
  }

  void SeekForPrev(std::string_view target) override {
    if (target.size() <= short_max_) {
      base_->SeekForPrev(target);
      LoadBackward();
      return;
    }
    const std::string bucket_key = BucketKeyOf(target);
    base_->SeekForPrev(bucket_key);
    if (base_->Valid() && base_->key() == bucket_key) {
      if (!Decode()) return;
      const std::string_view suffix = target.substr(short_max_);
      size_t n = 0;  // entries <= suffix
      while (n < entries_.size() && entries_[n].first <= suffix) ++n;
      if (!SettleBackward(static_cast<int64_t>(n) - 1)) {
        base_->Prev();
        LoadBackward();
      }
      return;
    }
    LoadBackward();
  }

  void SeekToFirst() override {
    base_->SeekToFirst();
    LoadForward();
  }
  void SeekToLast() override {
    base_->SeekToLast();
    LoadBackward();
  }

  void Next() override {
    if (in_bucket_ && SettleForward(index_ + 1)) return;
    base_->Next();
    LoadForward();
  }

  void Prev() override {
    if (in_bucket_ && SettleBackward(static_cast<int64_t>(index_) - 1)) return;
    base_->Prev();
    LoadBackward();
  }

  std::string_view key() const override {
    return in_bucket_ ? std::string_view(key_) : base_->key();
  }
  std::string_view value() const override {
    return in_bucket_ ? entries_[index_].second : base_->value();
  }

 private:
  std::string BucketKeyOf(std::string_view key) const {
    return backends::BucketKeyOf(key, short_max_);
  }
  bool IsBucketRecord(std::string_view base_key) const { return base_key.size() == short_max_ + 1; }

  // Decodes the bucket the base iterator is on.
  bool Decode() {
    bucket_data_.assign(base_->value());
    prefix_.assign(base_->key().substr(0, short_max_));
    Status s = DecodeBucket(bucket_data_, &entries_);
    if (!s.ok()) {
      status_ = s;
      valid_ = false;
      return false;
    }
    return true;
  }

  // The base iterator is on a record (or invalid); positions on its first entry within bounds,
  // moving the base forward past buckets with none.
  void LoadForward() {
    while (base_->Valid()) {
      if (!IsBucketRecord(base_->key())) {
        in_bucket_ = false;
        valid_ = true;
        return;
      }
      if (!Decode() || SettleForward(0)) return;
      base_->Next();
    }
    in_bucket_ = false;
    valid_ = false;
  }

  void LoadBackward() {
    while (base_->Valid()) {
      if (!IsBucketRecord(base_->key())) {
        in_bucket_ = false;
        valid_ = true;
        return;
      }
      if (!Decode() || SettleBackward(static_cast<int64_t>(entries_.size()) - 1)) return;
      base_->Prev();
    }
    in_bucket_ = false;
    valid_ = false;
  }

  // In the decoded bucket, positions on the first entry at or after i within bounds and returns
  // true; also returns true (invalid) when an entry is past the upper bound, which ends the
  // iteration. Returns false when the bucket has nothing more: the caller moves the base on.
  bool SettleForward(size_t i) {
    for (; i < entries_.size(); ++i) {
      key_ = prefix_;
      key_.append(entries_[i].first);
      if (upper_ && key_ >= *upper_) return End();
      if (!lower_ || key_ >= *lower_) return PositionAt(i);
    }
    in_bucket_ = false;
    return false;
  }

  // The mirror image: the last entry at or before i within bounds.
  bool SettleBackward(int64_t i) {
    for (; i >= 0; --i) {
      key_ = prefix_;
      key_.append(entries_[static_cast<size_t>(i)].first);
      if (lower_ && key_ < *lower_) return End();
      if (!upper_ || key_ < *upper_) return PositionAt(static_cast<size_t>(i));
    }
    in_bucket_ = false;
    return false;
  }

  bool PositionAt(size_t i) {
    in_bucket_ = true;
    valid_ = true;
    index_ = i;
    return true;
  }
  bool End() {
    in_bucket_ = false;
    valid_ = false;
    return true;
  }

  const size_t short_max_;
  const std::optional<std::string> lower_, upper_;
  std::unique_ptr<Iterator> base_;
  Status status_;
  bool valid_ = false;
  bool in_bucket_ = false;
  std::string bucket_data_;
  std::string prefix_;
  std::vector<std::pair<std::string_view, std::string_view>> entries_;
  size_t index_ = 0;
  std::string key_;
};

}  // namespace

LongKeyStore::LongKeyStore(std::unique_ptr<KvStore> base)
    : KvStoreWrapper(std::move(base)), short_max_(target()->capabilities().max_key_bytes - 1) {}

Capabilities LongKeyStore::capabilities() const {
  Capabilities c = target()->capabilities();
  c.max_key_bytes = Capabilities().max_key_bytes;
  // A long DeleteRange bound visits its keys; short bounds use the base's DeleteRange as is.
  return c;
}

Status LongKeyStore::Get(std::string_view key, std::string* value) {
  if (!IsLong(key)) return target()->Get(key, value);
  std::string data;
  KVLAB_RETURN_IF_ERROR(target()->Get(BucketKeyOf(key, short_max_), &data));
  std::vector<std::pair<std::string_view, std::string_view>> entries;
  KVLAB_RETURN_IF_ERROR(DecodeBucket(data, &entries));
  const std::string_view suffix = key.substr(short_max_);
  auto it = std::lower_bound(entries.begin(), entries.end(), suffix,
                             [](const auto& e, std::string_view s) { return e.first < s; });
  if (it == entries.end() || it->first != suffix) return Status::NotFound();
  value->assign(it->second);
  return Status::OK();
}

Status LongKeyStore::MultiGet(const std::vector<std::string_view>& keys,
                              std::vector<std::optional<std::string>>* values) {
  bool any_long = false;
  for (std::string_view k : keys) any_long = any_long || IsLong(k);
  if (!any_long) return target()->MultiGet(keys, values);
  values->assign(keys.size(), std::nullopt);
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string v;
    Status s = Get(keys[i], &v);
    if (s.ok()) {
      (*values)[i] = std::move(v);
    } else if (!s.IsNotFound()) {
      return s;
    }
  }
  return Status::OK();
}

Status LongKeyStore::Put(std::string_view key, std::string_view value) {
  if (!IsLong(key)) return target()->Put(key, value);
  WriteBatch batch;
  batch.Put(key, value);
  return Write(batch);
}

Status LongKeyStore::Delete(std::string_view key) {
  if (!IsLong(key)) return target()->Delete(key);
  WriteBatch batch;
  batch.Delete(key);
  return Write(batch);
}

Status LongKeyStore::Write(const WriteBatch& batch) {
  bool any_long = false;
  for (const auto& r : batch.records()) {
    any_long =
        any_long || IsLong(r.key) || (r.op == WriteBatch::Op::kDeleteRange && IsLong(r.value));
  }
  if (!any_long) return target()->Write(batch);
  KVLAB_RETURN_IF_ERROR(ValidateBatch(name(), batch, capabilities().max_key_bytes));

  std::lock_guard<std::mutex> lock(bucket_mu_);
  return WriteLocked(batch);
}

Status LongKeyStore::WriteLocked(const WriteBatch& batch) {
  std::map<std::string, Bucket> buckets;  // bucket key -> its entries after the batch
  WriteBatch out;
  // Short-bounded ranges deleted so far: a bucket inside one starts empty when loaded later.
  std::vector<std::pair<std::string, std::string>> ranges;
  std::set<std::string> written;  // keys this batch put, for long-bounded ranges
  for (const auto& r : batch.records()) {
    if (r.op == WriteBatch::Op::kDeleteRange) {
      if (!(r.key < r.value)) continue;
      if (!IsLong(r.key) && !IsLong(r.value)) {
        // Buckets lie wholly inside or outside the range (see the header): the base deletes
        // them, and the ones this batch loaded are emptied so that their final write agrees.
        out.DeleteRange(r.key, r.value);
        ranges.emplace_back(r.key, r.value);
        for (auto& [bucket_key, bucket] : buckets) {
          if (r.key <= bucket_key && bucket_key < r.value) bucket.clear();
        }
        continue;
      }
      // A long bound cuts through a bucket: delete the range's keys one by one, those stored
      // before the batch and those the batch put.
      IteratorOptions options;
      options.lower_bound = r.key;
      options.upper_bound = r.value;
      LongKeyIterator it(target(), short_max_, options);
      WriteBatch deletes;
      for (it.SeekToFirst(); it.Valid(); it.Next()) deletes.Delete(it.key());
      KVLAB_RETURN_IF_ERROR(it.status());
      for (auto w = written.lower_bound(r.key); w != written.end() && *w < r.value; ++w) {
        deletes.Delete(*w);
      }
      for (const auto& d : deletes.records()) {
        if (!IsLong(d.key)) {
          out.Delete(d.key);
          continue;
        }
        KVLAB_RETURN_IF_ERROR(ApplyToBucket(d, ranges, &buckets));
      }
      continue;
    }
    if (r.op == WriteBatch::Op::kPut) written.insert(r.key);
    if (!IsLong(r.key)) {
      if (r.op == WriteBatch::Op::kPut) {
        out.Put(r.key, r.value);
      } else {
        out.Delete(r.key);
      }
      continue;
    }
    KVLAB_RETURN_IF_ERROR(ApplyToBucket(r, ranges, &buckets));
  }
  AddBucketWrites(buckets, &out);
  return target()->Write(out);
}

Status LongKeyStore::ApplyToBucket(const WriteBatch::Record& r,
                                   const std::vector<std::pair<std::string, std::string>>& ranges,
                                   std::map<std::string, Bucket>* buckets) {
  std::string bucket_key = BucketKeyOf(r.key, short_max_);
  auto it = buckets->find(bucket_key);
  if (it == buckets->end()) {
    it = buckets->emplace(bucket_key, Bucket()).first;
    const bool deleted = std::any_of(ranges.begin(), ranges.end(), [&](const auto& range) {
      return range.first <= bucket_key && bucket_key < range.second;
    });
    if (!deleted) KVLAB_RETURN_IF_ERROR(LoadBucket(target(), bucket_key, &it->second));
  }
  std::string suffix(r.key.substr(short_max_));
  if (r.op == WriteBatch::Op::kPut) {
    it->second[std::move(suffix)] = r.value;
  } else {
    it->second.erase(suffix);
  }
  return Status::OK();
}

Status LongKeyStore::DeleteRange(std::string_view begin, std::string_view end) {
  std::lock_guard<std::mutex> lock(bucket_mu_);
  // With short bounds every bucket lies wholly inside or outside [begin, end) (see the header).
  if (!IsLong(begin) && !IsLong(end)) return target()->DeleteRange(begin, end);
  if (begin >= end) return Status::OK();
  // A long bound cuts through a bucket: delete the range's keys one by one, in one batch.
  IteratorOptions options;
  options.lower_bound = std::string(begin);
  options.upper_bound = std::string(end);
  LongKeyIterator it(target(), short_max_, options);
  WriteBatch deletes;
  for (it.SeekToFirst(); it.Valid(); it.Next()) deletes.Delete(it.key());
  KVLAB_RETURN_IF_ERROR(it.status());
  return deletes.empty() ? Status::OK() : WriteLocked(deletes);
}

std::unique_ptr<Iterator> LongKeyStore::NewIterator(const IteratorOptions& options) {
  return std::make_unique<LongKeyIterator>(target(), short_max_, options);
}

}  // namespace kvlab::backends
