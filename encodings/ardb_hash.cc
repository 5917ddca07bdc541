// Hash ardb: Ardb's layout (../shared/spec/001_*, docs/encodings.md "Hash ardb").
//
//   key-meta  m# ... -> 03 (KEY_HASH) | 00 (format) | expire (0 = none)          key_meta.h
//   field     a# ... | key length | key | 04 (KEY_HASH_FIELD) | field -> 04 | value
//
// No count and no key-version. Replies stay exact: HSET and HDEL read the fields they write (to
// count the new and the removed ones), HLEN counts the fields with a scan, HDEL checks with a
// scan whether any field survives (the meta goes with the last one), and DEL deletes every field
// (OnDelete). The meta is written only when the hash is created; EXPIRE rewrites it.
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <unordered_map>
#include <unordered_set>

#include "encodings/ardb_common.h"
#include "encodings/hash_encoding.h"

namespace kvlab::encodings {
namespace {

constexpr ArdbTag kTag = ArdbTag::kHashField;

class ArdbHash final : public HashEncoding {
 public:
  uint8_t version() const override { return ArdbId(KeyType::kHash); }

  Status Get(KvTxn& txn, const KeyHandle& h, std::string_view field,
             std::optional<std::string>* value) override {
    std::vector<std::optional<std::string>> values;
    KVLAB_RETURN_IF_ERROR(MultiGet(txn, h, {field}, &values));
    *value = std::move(values[0]);
    return Status::OK();
  }

  Status MultiGet(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& fields,
                  std::vector<std::optional<std::string>>* values) override {
    KVLAB_RETURN_IF_ERROR(
        ReadPoints(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h), fields, values));
    for (auto& v : *values) {
      if (!v) continue;
      std::string_view data;
      KVLAB_RETURN_IF_ERROR(StripArdbValue(kTag, *v, &data));
      v = std::string(data);
    }
    return Status::OK();
  }

  Status GetAll(KvTxn& txn, const KeyHandle& h, HashGetAllPart part,
                std::vector<FieldValue>* out) override {
    out->clear();
    if (h.is_new) return Status::OK();
    Status bad;
    Status s = ScanPrefix(
        txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
        [&](std::string_view field, std::string_view stored) {
          std::string_view value;
          bad = StripArdbValue(kTag, stored, &value);
          if (!bad.ok()) return false;
          out->emplace_back(part == HashGetAllPart::kValues ? std::string() : std::string(field),
                            part == HashGetAllPart::kKeys ? std::string() : std::string(value));
          return true;
        });
    return bad.ok() ? s : bad;
  }

  Status Length(KvTxn& txn, const KeyHandle& h, uint64_t* length) override {
    *length = 0;
    if (h.is_new) return Status::OK();
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view, std::string_view) {
                        ++*length;
                        return true;
                      });
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<FieldValue>* out,
              std::optional<std::string>* next) override {
    out->clear();
    next->reset();
    if (h.is_new) return Status::OK();
    Status bad;
    Status s = ScanPage(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h), after, count, next,
                        [&](std::string_view field, std::string_view stored) {
                          std::string_view value;
                          if (bad.ok()) bad = StripArdbValue(kTag, stored, &value);
                          out->emplace_back(std::string(field), std::string(value));
                        });
    return bad.ok() ? s : bad;
  }

  Status Set(KvTxn& txn, KeyHandle* h,
             const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
             int64_t* reply) override {
    // The distinct fields, in first-appearance order, each with its last value.
    std::vector<std::pair<std::string_view, std::string_view>> distinct;
    std::unordered_map<std::string_view, size_t> index;
    for (const auto& [field, value] : pairs) {
      auto [it, inserted] = index.emplace(field, distinct.size());
      if (inserted) {
        distinct.emplace_back(field, value);
      } else {
        distinct[it->second].second = value;
      }
    }
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<bool> exists(distinct.size(), false);
    if (h->is_new) {
      KVLAB_RETURN_IF_ERROR(PurgeArdbKey(txn, *h));
    } else {
      std::vector<std::string_view> fields;
      fields.reserve(distinct.size());
      for (const auto& fv : distinct) fields.push_back(fv.first);
      std::vector<std::optional<std::string>> found;
      KVLAB_RETURN_IF_ERROR(ReadPoints(txn.kv(), prefix, fields, &found));
      for (size_t i = 0; i < found.size(); ++i) exists[i] = found[i].has_value();
    }
    int64_t added = 0;
    for (size_t i = 0; i < distinct.size(); ++i) {
      txn.batch().Put(prefix + std::string(distinct[i].first), ArdbValue(kTag, distinct[i].second));
      if (!exists[i]) ++added;
    }
    *reply = added;
    if (h->is_new) txn.PutMeta(h);
    return Status::OK();
  }

  Status Put(KvTxn& txn, KeyHandle* h, std::string_view field, std::string_view value,
             bool) override {
    if (h->is_new) KVLAB_RETURN_IF_ERROR(PurgeArdbKey(txn, *h));
    txn.batch().Put(txn.SubKeyPrefix(SubKeyTag::kField, *h).append(field), ArdbValue(kTag, value));
    if (h->is_new) txn.PutMeta(h);
    return Status::OK();
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
    std::unordered_set<std::string_view> deleted;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (!found[i]) continue;
      txn.batch().Delete(prefix + std::string(distinct[i]));
      deleted.insert(distinct[i]);
    }
    *reply = static_cast<int64_t>(deleted.size());
    if (deleted.empty()) return Status::OK();
    // No count: whether the hash is now empty takes a scan, stopped at the first survivor.
    bool survivor = false;
    KVLAB_RETURN_IF_ERROR(AnySurvivor(txn.kv(), prefix, deleted, &survivor));
    if (!survivor) txn.DeleteMeta(h->key);
    return Status::OK();
  }

  // DEL, UNLINK, an overwrite, a reaped expiry: every field goes with the meta.
  Status OnDelete(KvTxn& txn, const KeyHandle& h) override { return PurgeArdbKey(txn, h); }

  // RENAME, COPY: `to` is created, so its prefix is cleared first; then every record is copied.
  Status Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to) override {
    KVLAB_RETURN_IF_ERROR(PurgeArdbKey(to_txn, *to));
    return TypeEncoding::Copy(txn, from, to_txn, to);
  }
};

}  // namespace

std::unique_ptr<HashEncoding> NewArdbHashEncoding() { return std::make_unique<ArdbHash>(); }

}  // namespace kvlab::encodings
