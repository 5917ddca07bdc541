// What list v0 and v1 share: the element sub-key, the middle index both start from, and the
// count bound. Private to list_dense.cc and list_sparse.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "encodings/coding.h"
#include "encodings/kv_txn.h"

namespace kvlab::encodings::list_internal {

// 004_*: head and tail start at UINT64_MAX / 2, so that the list can grow at both ends.
inline constexpr uint64_t kMiddle = UINT64_MAX / 2;

// prefix | index (u64 BE): the element at `index`.
inline std::string ElementKey(std::string_view prefix, uint64_t index) {
  std::string key(prefix);
  PutFixed64BE(&key, index);
  return key;
}

// The index of an element sub-key under `prefix`. REQUIRES: key is prefix | 8 bytes.
inline uint64_t IndexOf(std::string_view prefix, std::string_view key) {
  return DecodeFixed64BE(key.data() + prefix.size());
}

inline Status CheckRoom(const KeyMeta& meta, uint64_t adding) {
  if (uint64_t{meta.count} + adding > UINT32_MAX) {
    return Status::InvalidArgument("a list of this encoding holds at most 4294967295 elements");
  }
  return Status::OK();
}

inline Status Corrupt(std::string_view key, uint64_t index) {
  return Status::Corruption("list '" + std::string(key) + "' lacks its element at index " +
                            std::to_string(index));
}

// Stores the meta of a list that still has elements, or deletes it when it has none.
inline void StoreOrDelete(KvTxn& txn, KeyHandle* h) {
  if (h->meta.count == 0) {
    txn.DeleteMeta(h->key);
  } else {
    txn.PutMeta(h);
  }
}

}  // namespace kvlab::encodings::list_internal
