#include "encodings/migrate.h"

#include <string>
#include <vector>

#include "encodings/ardb_common.h"
#include "encodings/hash_encoding.h"
#include "encodings/list_encoding.h"
#include "encodings/registry.h"
#include "encodings/set_encoding.h"
#include "encodings/zset_encoding.h"

namespace kvlab::encodings {

namespace {

// Every element of the key, as its type holds them, and the write that recreates them.
struct Elements {
  std::vector<FieldValue> fields;    // hash
  std::vector<ScoredMember> scored;  // zset
  std::vector<std::string> values;   // set members, list elements in order

  Status Read(KvTxn& txn, TypeEncoding& from, const KeyHandle& h) {
    switch (h.meta.type) {
      case KeyType::kHash:
        return static_cast<HashEncoding&>(from).GetAll(txn, h, HashGetAllPart::kBoth, &fields);
      case KeyType::kZset:
        return static_cast<ZsetEncoding&>(from).RangeByRank(txn, h, 0, -1, false, &scored);
      case KeyType::kSet:
        return static_cast<SetEncoding&>(from).Members(txn, h, &values);
      case KeyType::kList:
        if (h.meta.count == 0) return Status::OK();
        return static_cast<ListEncoding&>(from).Range(txn, h, 0, h.meta.count - 1, &values);
      case KeyType::kString:
        break;
    }
    return Status::InvalidArgument("a string has one encoding: nothing to migrate");
  }

  bool empty() const { return fields.empty() && scored.empty() && values.empty(); }

  Status Write(KvTxn& txn, TypeEncoding& to, KeyHandle* h) const {
    std::vector<std::string_view> views(values.begin(), values.end());
    int64_t ignored = 0;
    switch (h->meta.type) {
      case KeyType::kHash: {
        std::vector<std::pair<std::string_view, std::string_view>> pairs(fields.begin(),
                                                                         fields.end());
        return static_cast<HashEncoding&>(to).Set(txn, h, pairs, &ignored);
      }
      case KeyType::kZset: {
        ZAddResult result;
        return static_cast<ZsetEncoding&>(to).Add(txn, h, ZAddFlags{}, scored, &result);
      }
      case KeyType::kSet:
        return static_cast<SetEncoding&>(to).Add(txn, h, views, &ignored);
      case KeyType::kList:
        return static_cast<ListEncoding&>(to).Push(txn, h, ListEnd::kRight, views);
      case KeyType::kString:
        break;
    }
    return Status::InvalidArgument("a string has one encoding: nothing to migrate");
  }
};

}  // namespace

Status MigrateKey(KvTxn& txn, TypeEncoding& from, TypeEncoding& to, KeyHandle* h) {
  const EncodingSpec* row = txn.registry().Find(h->meta.type, to.version());
  if (row == nullptr) return Status::InvalidArgument("no registry row for the target version");
  Elements elements;
  KVLAB_RETURN_IF_ERROR(elements.Read(txn, from, *h));
  if (elements.empty()) {
    return Status::Corruption("key '" + std::string(h->key) + "' is live with no elements");
  }
  // The old key goes as under an overwrite (SET over a hash): its meta is replaced below.
  KVLAB_RETURN_IF_ERROR(from.OnDelete(txn, *h));
  KeyHandle fresh;
  fresh.key = h->key;
  fresh.meta = txn.NewMeta(h->meta.type, to.version());
  fresh.meta.expire_ms = h->meta.expire_ms;
  fresh.is_new = true;
  // An Ardb key's records carry no key-version: records an earlier Ardb incarnation left
  // behind (a blind SET over it) would become the new key's elements. Creating one purges them
  // first (ardb_common.h); it must read the store for that, before its range is served from the
  // batch below (where the store's records are out of view).
  if (row->eager_delete) KVLAB_RETURN_IF_ERROR(PurgeArdbKey(txn, fresh));
  std::vector<std::string> prefixes;
  for (SubKeyTag tag : row->sub_keys) prefixes.push_back(txn.SubKeyPrefix(tag, fresh));
  KVLAB_RETURN_IF_ERROR(
      txn.WriteShadowed(prefixes, [&] { return elements.Write(txn, to, &fresh); }));
  // What the version keeps outside KV follows the expiry, as for COPY (zset v3's store zset).
  if (fresh.meta.has_expire()) {
    KVLAB_RETURN_IF_ERROR(to.OnExpire(txn, fresh, KeyMeta::kNoExpire));
  }
  *h = fresh;
  return Status::OK();
}

}  // namespace kvlab::encodings
