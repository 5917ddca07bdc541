// Hash v0 (counted), v1 (blind writes) and kvrocks (counted, Kvrocks's key-meta), stored in the
// KV store only.
//
//   key-meta  m# ... -> version | 2 | key-version | expire | [count u32, v0 only]
//             kvrocks: 0x82 | expire (0 = none) | key-version | size u64 (key_meta.h)
//   field     s# ... | key-version | field -> value
//             (kvrocks: 004_*'s DATA_CF sub-key, metadata key prefix | version | field)
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <unordered_map>
#include <unordered_set>

#include "encodings/hash_encoding.h"
#include "encodings/kv_reads.h"

namespace kvlab::encodings {
namespace {

// What v0 and v1 share: the read path.
class KvHashBase : public HashEncoding {
 public:
  explicit KvHashBase(uint8_t version) : version_(version) {}
  uint8_t version() const override { return version_; }

  Status Get(KvTxn& txn, const KeyHandle& h, std::string_view field,
             std::optional<std::string>* value) override {
    std::string v;
    Status s = txn.kv().Get(txn.SubKeyPrefix(SubKeyTag::kField, h).append(field), &v);
    if (s.IsNotFound()) {
      value->reset();
      return Status::OK();
    }
    KVLAB_RETURN_IF_ERROR(s);
    *value = std::move(v);
    return Status::OK();
  }

  Status MultiGet(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& fields,
                  std::vector<std::optional<std::string>>* values) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
    return ReadPoints(txn.kv(), prefix, fields, values);
  }

  Status GetAll(KvTxn& txn, const KeyHandle& h, HashGetAllPart part,
                std::vector<FieldValue>* out) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
    out->clear();
    if (h.is_new) return Status::OK();
    if (h.meta.has_count()) out->reserve(h.meta.count);
    return ScanPrefix(txn.kv(), prefix, [&](std::string_view suffix, std::string_view value) {
      out->emplace_back(part == HashGetAllPart::kValues ? std::string() : std::string(suffix),
                        part == HashGetAllPart::kKeys ? std::string() : std::string(value));
      return true;
    });
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<FieldValue>* out,
              std::optional<std::string>* next) override {
    out->clear();
    next->reset();
    if (h.is_new) return Status::OK();
    return ScanPage(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h), after, count, next,
                    [&](std::string_view field, std::string_view value) {
                      out->emplace_back(std::string(field), std::string(value));
                    });
  }

 protected:
  // The distinct fields of a command, in first-appearance order, each with its last value.
  static std::vector<std::pair<std::string_view, std::string_view>> Distinct(
      const std::vector<std::pair<std::string_view, std::string_view>>& pairs) {
    std::vector<std::pair<std::string_view, std::string_view>> out;
    out.reserve(pairs.size());
    std::unordered_map<std::string_view, size_t> index;
    for (const auto& [field, value] : pairs) {
      auto [it, inserted] = index.emplace(field, out.size());
      if (inserted) {
        out.emplace_back(field, value);
      } else {
        out[it->second].second = value;
      }
    }
    return out;
  }

 private:
  const uint8_t version_;
};

// v0 (and the KV half of v2), and kvrocks: the element count lives in the key-meta, and every
// write first reads which of its fields exist, so that replies and the count stay exact. With
// skip_unchanged (Kvrocks's Hash::MSet), HSET writes no field whose stored value it already
// holds: the read it does anyway tells it.
class CountedHash final : public KvHashBase {
 public:
  CountedHash(uint8_t version, bool skip_unchanged)
      : KvHashBase(version), skip_unchanged_(skip_unchanged) {}

  Status Length(KvTxn&, const KeyHandle& h, uint64_t* length) override {
    *length = h.meta.count;
    return Status::OK();
  }

  Status Set(KvTxn& txn, KeyHandle* h,
             const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
             int64_t* reply) override {
    const auto distinct = Distinct(pairs);
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<bool> exists(distinct.size(), false);
    std::vector<bool> unchanged(distinct.size(), false);
    if (!h->is_new) {
      // A new key has a fresh key-version: none of its fields can exist yet.
      std::vector<std::string_view> fields;
      fields.reserve(distinct.size());
      for (const auto& fv : distinct) fields.push_back(fv.first);
      std::vector<std::optional<std::string>> found;
      KVLAB_RETURN_IF_ERROR(ReadPoints(txn.kv(), prefix, fields, &found));
      for (size_t i = 0; i < found.size(); ++i) {
        exists[i] = found[i].has_value();
        if (skip_unchanged_ && exists[i] && *found[i] == distinct[i].second) unchanged[i] = true;
      }
    }
    int64_t added = 0;
    std::string sub_key;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (unchanged[i]) continue;
      sub_key.assign(prefix).append(distinct[i].first);
      txn.batch().Put(sub_key, distinct[i].second);
      if (!exists[i]) ++added;
    }
    KVLAB_RETURN_IF_ERROR(AddToCount(txn, h, added));
    *reply = added;
    return Status::OK();
  }

  Status Put(KvTxn& txn, KeyHandle* h, std::string_view field, std::string_view value,
             bool existed) override {
    txn.batch().Put(txn.SubKeyPrefix(SubKeyTag::kField, *h).append(field), value);
    return AddToCount(txn, h, existed ? 0 : 1);
  }

  Status Delete(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& fields,
                int64_t* reply) override {
    *reply = 0;
    if (h->is_new) return Status::OK();
    std::vector<std::string_view> distinct;
    std::unordered_set<std::string_view> seen;
    for (std::string_view f : fields) {
      if (seen.insert(f).second) distinct.push_back(f);
    }
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<std::optional<std::string>> found;
    KVLAB_RETURN_IF_ERROR(ReadPoints(txn.kv(), prefix, distinct, &found));
    uint64_t removed = 0;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (!found[i]) continue;
      txn.batch().Delete(prefix + std::string(distinct[i]));
      ++removed;
    }
    *reply = static_cast<int64_t>(removed);
    if (removed == 0) return Status::OK();
    if (removed >= h->meta.count) {
      txn.DeleteMeta(h->key);  // the hash is empty: the key no longer exists
      return Status::OK();
    }
    h->meta.count -= removed;
    txn.PutMeta(h);
    return Status::OK();
  }

 private:
  static Status AddToCount(KvTxn& txn, KeyHandle* h, int64_t added) {
    if (added == 0 && !h->is_new) return Status::OK();
    if (static_cast<uint64_t>(added) > h->meta.MaxCount() - h->meta.count) {
      return Status::InvalidArgument("a hash of this encoding holds at most " +
                                     std::to_string(h->meta.MaxCount()) + " fields");
    }
    h->meta.count += static_cast<uint64_t>(added);
    txn.PutMeta(h);
    return Status::OK();
  }

  const bool skip_unchanged_;
};

// v1 (and the KV half of v3): no count. Writes are blind, so HSET and HDEL cannot know how many
// fields they added or removed and reply the number given (the spec's deviation); HLEN counts
// the fields with a prefix scan.
class BlindHash final : public KvHashBase {
 public:
  using KvHashBase::KvHashBase;

  Status Length(KvTxn& txn, const KeyHandle& h, uint64_t* length) override {
    *length = 0;
    if (h.is_new) return Status::OK();
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view, std::string_view) {
                        ++*length;
                        return true;
                      });
  }

  Status Set(KvTxn& txn, KeyHandle* h,
             const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
             int64_t* reply) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::string sub_key;
    for (const auto& [field, value] : pairs) {
      sub_key.assign(prefix).append(field);
      txn.batch().Put(sub_key, value);
    }
    if (h->is_new) txn.PutMeta(h);
    *reply = static_cast<int64_t>(pairs.size());
    return Status::OK();
  }

  Status Put(KvTxn& txn, KeyHandle* h, std::string_view field, std::string_view value,
             bool) override {
    txn.batch().Put(txn.SubKeyPrefix(SubKeyTag::kField, *h).append(field), value);
    if (h->is_new) txn.PutMeta(h);
    return Status::OK();
  }

  Status Delete(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& fields,
                int64_t* reply) override {
    *reply = static_cast<int64_t>(fields.size());
    if (h->is_new) {
      *reply = 0;
      return Status::OK();
    }
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::unordered_set<std::string_view> deleted(fields.begin(), fields.end());
    for (std::string_view f : deleted) txn.batch().Delete(prefix + std::string(f));
    bool survivor = false;
    KVLAB_RETURN_IF_ERROR(AnySurvivor(txn.kv(), prefix, deleted, &survivor));
    if (!survivor) txn.DeleteMeta(h->key);
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<HashEncoding> NewCountedHashEncoding(uint8_t version) {
  return std::make_unique<CountedHash>(version, /*skip_unchanged=*/false);
}

std::unique_ptr<HashEncoding> NewKvrocksHashEncoding() {
  return std::make_unique<CountedHash>(KvrocksFlags(KeyType::kHash), /*skip_unchanged=*/true);
}

std::unique_ptr<HashEncoding> NewBlindHashEncoding(uint8_t version) {
  return std::make_unique<BlindHash>(version);
}

}  // namespace kvlab::encodings
