// What list v0 and v1 share: the element sub-key, the middle index both start from, and the
// count bound. Private to list_dense.cc and list_sparse.cc.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "encodings/coding.h"
#include "encodings/kv_reads.h"
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
  if (adding > meta.MaxCount() - meta.count) {
    return Status::InvalidArgument("a list of this encoding holds at most " +
                                   std::to_string(meta.MaxCount()) + " elements");
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

// ListEncoding::Scan, the same in both versions (their indexes are in order, dense or not): the
// first `limit` elements (all when 0) from the left, as (position, element). Stops on the last
// one it needs: min(limit, count) - 1 nexts.
inline Status ScanElements(KvTxn& txn, const KeyHandle& h, uint64_t limit,
                           const std::function<bool(uint64_t, std::string_view)>& visit) {
  const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
  uint64_t position = 0;
  return ScanRange(
      txn.kv(), ElementKey(prefix, h.meta.list_head), ElementKey(prefix, h.meta.list_tail), false,
      0, static_cast<int64_t>(limit == 0 ? h.meta.count : std::min<uint64_t>(limit, h.meta.count)),
      [&](std::string_view, std::string_view v) { return visit(position++, v); });
}

}  // namespace kvlab::encodings::list_internal
