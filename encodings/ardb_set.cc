// Set ardb: Ardb's layout (../shared/spec/001_*, docs/encodings.md "Set ardb").
//
//   key-meta  m# ... -> 07 (KEY_SET) | 00 (format) | expire (0 = none)           key_meta.h
//   member    a# ... | key length | key | 08 (KEY_SET_MEMBER) | member -> 08
//
// No count and no key-version. Replies stay exact: SADD and SREM read the members they write,
// SCARD counts with a scan, SREM checks with a scan whether a member survives (the meta goes
// with the last one), and DEL deletes every member (OnDelete).
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <unordered_set>

#include "encodings/ardb_common.h"
#include "encodings/set_encoding.h"

namespace kvlab::encodings {
namespace {

constexpr ArdbTag kTag = ArdbTag::kSetMember;

std::vector<std::string_view> Distinct(const std::vector<std::string_view>& members) {
  std::vector<std::string_view> out;
  out.reserve(members.size());
  std::unordered_set<std::string_view> seen;
  for (std::string_view m : members) {
    if (seen.insert(m).second) out.push_back(m);
  }
  return out;
}

class ArdbSet final : public SetEncoding {
 public:
  uint8_t version() const override { return ArdbId(KeyType::kSet); }

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
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view member, std::string_view) {
                        out->emplace_back(member);
                        return true;
                      });
  }

  Status Size(KvTxn& txn, const KeyHandle& h, uint64_t* size) override {
    *size = 0;
    if (h.is_new) return Status::OK();
    return ScanPrefix(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kField, h),
                      [&](std::string_view, std::string_view) {
                        ++*size;
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

  Status Add(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
             int64_t* reply) override {
    const std::vector<std::string_view> distinct = Distinct(members);
    std::vector<bool> exists(distinct.size(), false);
    if (h->is_new) {
      KVLAB_RETURN_IF_ERROR(PurgeArdbKey(txn, *h));
    } else {
      KVLAB_RETURN_IF_ERROR(Contains(txn, *h, distinct, &exists));
    }
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    const std::string value = ArdbValue(kTag, "");
    int64_t added = 0;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (exists[i]) continue;  // its record holds nothing but the type: nothing to rewrite
      txn.batch().Put(prefix + std::string(distinct[i]), value);
      ++added;
    }
    *reply = added;
    if (h->is_new && added > 0) txn.PutMeta(h);
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
    std::unordered_set<std::string_view> deleted;
    for (size_t i = 0; i < distinct.size(); ++i) {
      if (!found[i]) continue;
      txn.batch().Delete(prefix + std::string(distinct[i]));
      deleted.insert(distinct[i]);
    }
    *reply = static_cast<int64_t>(deleted.size());
    if (deleted.empty()) return Status::OK();
    if (hint.empties) {
      if (*hint.empties) txn.DeleteMeta(h->key);
      return Status::OK();
    }
    // No count: whether the set is now empty takes a scan, stopped at the first survivor.
    bool survivor = false;
    KVLAB_RETURN_IF_ERROR(AnySurvivor(txn.kv(), prefix, deleted, &survivor));
    if (!survivor) txn.DeleteMeta(h->key);
    return Status::OK();
  }

  // DEL, UNLINK, an overwrite, a reaped expiry: every member goes with the meta.
  Status OnDelete(KvTxn& txn, const KeyHandle& h) override { return PurgeArdbKey(txn, h); }

  // RENAME, COPY: `to` is created, so its prefix is cleared first; then every record is copied.
  Status Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to) override {
    KVLAB_RETURN_IF_ERROR(PurgeArdbKey(to_txn, *to));
    return TypeEncoding::Copy(txn, from, to_txn, to);
  }
};

}  // namespace

std::unique_ptr<SetEncoding> NewArdbSetEncoding() { return std::make_unique<ArdbSet>(); }

}  // namespace kvlab::encodings
