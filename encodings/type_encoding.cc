// TypeEncoding's default keyspace behaviour (type_encoding.h).
#include "encodings/type_encoding.h"

#include "encodings/kv_reads.h"
#include "encodings/registry.h"

namespace kvlab::encodings {

Status TypeEncoding::Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to) {
  const EncodingSpec* row = txn.registry().Find(from.meta.type, from.meta.encode_version);
  if (row == nullptr) {
    return Status::InvalidArgument("no registry row for the key's encode-version");
  }
  for (SubKeyTag tag : row->sub_keys) {
    const std::string from_prefix = txn.SubKeyPrefix(tag, from);
    const std::string to_prefix = to_txn.SubKeyPrefix(tag, *to);
    // The puts land in the batch, not in the store: the scan never sees them.
    KVLAB_RETURN_IF_ERROR(
        ScanPrefix(txn.kv(), from_prefix, [&](std::string_view suffix, std::string_view value) {
          to_txn.batch().Put(to_prefix + std::string(suffix), value);
          return true;
        }));
  }
  to_txn.PutMeta(to);
  return Status::OK();
}

Status TypeEncoding::KvFootprint(
    KvTxn& txn, const KeyHandle& h, KeyFootprint* out,
    const std::function<void(SubKeyTag, std::string_view)>* each_record) {
  const EncodingSpec* row = txn.registry().Find(h.meta.type, h.meta.encode_version);
  if (row == nullptr) {
    return Status::InvalidArgument("no registry row for the key's encode-version");
  }
  out->meta_bytes += txn.codec().MetaKey(txn.db(), h.key).size() + h.meta.Encode().size();
  for (SubKeyTag tag : row->sub_keys) {
    const std::string prefix = txn.SubKeyPrefix(tag, h);
    KVLAB_RETURN_IF_ERROR(
        ScanPrefix(txn.kv(), prefix, [&](std::string_view suffix, std::string_view value) {
          ++out->sub_key_records;
          out->sub_key_bytes += prefix.size() + suffix.size() + value.size();
          if (each_record != nullptr) (*each_record)(tag, suffix);
          return true;
        }));
  }
  return Status::OK();
}

}  // namespace kvlab::encodings
