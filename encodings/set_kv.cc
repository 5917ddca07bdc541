// Set v0 (counted), v1 (blind writes) and kvrocks (counted, Kvrocks's key-meta), stored in the
// KV store only.
//
//   key-meta  m# ... -> version | 5 | key-version | expire | [count u32, v0 only]
//             kvrocks: 0x84 | expire (0 = none) | key-version | size u64 (key_meta.h)
//   member    s# ... | key-version | member -> empty
//             (kvrocks: 004_*'s DATA_CF sub-key, metadata key prefix | version | member)
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <unordered_set>

#include "encodings/kv_reads.h"
#include "encodings/set_encoding.h"

namespace kvlab::encodings {
namespace {

std::vector<std::string_view> Distinct(const std::vector<std::string_view>& members) {
  std::vector<std::string_view> out;
  out.reserve(members.size());
  std::unordered_set<std::string_view> seen;
  for (std::string_view m : members) {
    if (seen.insert(m).second) out.push_back(m);
  }
  return out;
}

// What v0 and v1 share: the read path.
class KvSetBase : public SetEncoding {
 public:
  explicit KvSetBase(uint8_t version) : version_(version) {}
  uint8_t version() const override { return version_; }

  Status Contains(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& members,
                  std::vector<bool>* found) override {
    found->assign(members.size(), false);
    if (h.is_new || members.empty()) return Status::OK();
    std::vector<std::optional<std::string>> values;
    KVLAB_RETURN_IF_ERROR(
        ReadPoints(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h), members, &values));
    for (size_t i = 0; i < values.size(); ++i) (*found)[i] = values[i].has_value();
    return Status::OK();
  }

  Status Members(KvTxn& txn, const KeyHandle& h, std::vector<std::string>* out) override {
    out->clear();
    if (h.is_new) return Status::OK();
    if (h.meta.has_count()) out->reserve(h.meta.count);
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view member, std::string_view) {
                        out->emplace_back(member);
                        return true;
                      });
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<std::string>* out,
              std::optional<std::string>* next) override {
    out->clear();
    next->reset();
    if (h.is_new) return Status::OK();
    return ScanPage(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h), after, count, next,
                    [&](std::string_view member, std::string_view) { out->emplace_back(member); });
  }

 private:
  const uint8_t version_;
};

// v0 (and the KV half of v2): the member count lives in the key-meta, and every write first
// reads which of its members exist, so that replies and the count stay exact.
class CountedSet final : public KvSetBase {
 public:
  using KvSetBase::KvSetBase;

  Status Size(KvTxn&, const KeyHandle& h, uint64_t* size) override {
    *size = h.is_new ? 0 : h.meta.count;
    return Status::OK();
  }

  Status Add(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
             int64_t* reply) override {
    const std::vector<std::string_view> distinct = Distinct(members);
    std::vector<bool> exists(distinct.size(), false);
    // A new key has a fresh key-version: none of its members can exist yet.
    if (!h->is_new) KVLAB_RETURN_IF_ERROR(Contains(txn, *h, distinct, &exists));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    int64_t added = 0;
    std::string sub_key;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (exists[i]) continue;  // a member record has no value: nothing to rewrite
      sub_key.assign(prefix).append(distinct[i]);
      txn.batch().Put(sub_key, "");
      ++added;
    }
    *reply = added;
    if (added == 0 && !h->is_new) return Status::OK();
    if (static_cast<uint64_t>(added) > h->meta.MaxCount() - h->meta.count) {
      return Status::InvalidArgument("a set of this encoding holds at most " +
                                     std::to_string(h->meta.MaxCount()) + " members");
    }
    h->meta.count += static_cast<uint64_t>(added);
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                const RemoveHint& hint, int64_t* reply) override {
    *reply = 0;
    if (h->is_new) return Status::OK();
    const std::vector<std::string_view> distinct = hint.present ? members : Distinct(members);
    std::vector<bool> found(distinct.size(), true);
    if (!hint.present) KVLAB_RETURN_IF_ERROR(Contains(txn, *h, distinct, &found));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    uint64_t removed = 0;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (!found[i]) continue;
      txn.batch().Delete(prefix + std::string(distinct[i]));
      ++removed;
    }
    *reply = removed;
    if (removed == 0) return Status::OK();
    if (removed >= h->meta.count) {
      txn.DeleteMeta(h->key);  // the set is empty: the key no longer exists
      return Status::OK();
    }
    h->meta.count -= removed;
    txn.PutMeta(h);
    return Status::OK();
  }
};

// v1 (and the KV half of v3): no count. Writes are blind, so SADD and SREM cannot know how many
// members they added or removed and reply the number given (the spec's deviation); SCARD counts
// the members with a prefix scan.
class BlindSet final : public KvSetBase {
 public:
  using KvSetBase::KvSetBase;

  Status Size(KvTxn& txn, const KeyHandle& h, uint64_t* size) override {
    *size = 0;
    if (h.is_new) return Status::OK();
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view, std::string_view) {
                        ++*size;
                        return true;
                      });
  }

  Status Add(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
             int64_t* reply) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::string sub_key;
    for (std::string_view m : Distinct(members)) {
      sub_key.assign(prefix).append(m);
      txn.batch().Put(sub_key, "");
    }
    if (h->is_new) txn.PutMeta(h);
    *reply = static_cast<int64_t>(members.size());
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                const RemoveHint& hint, int64_t* reply) override {
    *reply = 0;
    if (h->is_new) return Status::OK();
    *reply = static_cast<int64_t>(members.size());
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::unordered_set<std::string_view> deleted(members.begin(), members.end());
    for (std::string_view m : Distinct(members)) txn.batch().Delete(prefix + std::string(m));
    if (hint.empties) {
      if (*hint.empties) txn.DeleteMeta(h->key);
      return Status::OK();
    }
    bool survivor = false;
    KVLAB_RETURN_IF_ERROR(AnySurvivor(txn.kv(), prefix, deleted, &survivor));
    if (!survivor) txn.DeleteMeta(h->key);
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<SetEncoding> NewCountedSetEncoding(uint8_t version) {
  return std::make_unique<CountedSet>(version);
}

std::unique_ptr<SetEncoding> NewKvrocksSetEncoding() {
  return std::make_unique<CountedSet>(KvrocksFlags(KeyType::kSet));
}

std::unique_ptr<SetEncoding> NewBlindSetEncoding(uint8_t version) {
  return std::make_unique<BlindSet>(version);
}

}  // namespace kvlab::encodings
