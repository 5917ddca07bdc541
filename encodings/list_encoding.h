// ListEncoding: the type logic of a Redis list, one implementation per encode-version.
//
// A list is its key-meta plus one sub-key per element (../shared/spec/004_*: Kvrocks/NeoKV's
// list metadata; Ardb's KEY_LIST_ELEMENT in 001_*/002_*). Camellia leaves lists as "todo", so
// the layout is kvlab's:
//
//   key-meta  m# ... -> version | 4 | key-version | expire | count (u32) | head (u64) | tail (u64)
//   element   s# ... | key-version | index (u64 BE) -> element
//
// The index is big-endian, so that elements sort in list order under their key's prefix: a
// range of positions is one forward scan. Elements share the "s#" sub-key kind with hash fields
// and zset members, as 004_*'s DATA_CF does: the key length and key-version in the prefix keep
// them apart.
//
// Versions (docs/encodings.md "List v0", "List v1"):
//   v0  dense (004_* as written): head and tail start at UINT64_MAX/2; LPUSH takes head-1,
//       RPUSH takes tail; the element at position p is at index head+p, so LINDEX, LSET and
//       the start of LRANGE are point operations. LINSERT and LREM in the middle renumber the
//       elements on one side: O(n) writes.
//   v1  sparse: consecutive pushes are kGap (2^24) apart, head is the first element's index and
//       tail the last one's plus 1. LINSERT takes the middle of the gap it lands in (renumbering
//       a few neighbours when that gap has closed) and LREM deletes without renumbering, so
//       middle edits cost O(1) writes; positions are no longer arithmetic, so LINDEX, LSET and
//       LRANGE walk from the head (O(position)), and popping from the right reads backwards
//       (a reverse scan, or a forward walk of the whole list on stores without one).
//
// Every version keeps the element count in the key-meta (LLEN is one get) and deletes the
// key-meta when the list becomes empty: an empty list does not exist. A list holds at most
// 4294967295 elements (the count is a u32).
//
// Common REQUIREs: `h` holds the live key-meta of a list of this encoding's version; for Push
// only, it may be a new one (h->is_new) from KvTxn::NewMeta. Positions are 0-based from the
// left and REQUIRED to be within the list (the commands normalize Redis's negative indexes).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "encodings/type_encoding.h"

namespace kvlab::encodings {

enum class ListEnd : uint8_t { kLeft, kRight };

class ListEncoding : public TypeEncoding {
 public:
  // LPUSH/RPUSH: pushes each element in turn at `end` (LPUSH l a b c leaves c first).
  // Fails with InvalidArgument when the list would pass 4294967295 elements.
  // REQUIRES: !elements.empty().
  virtual Status Push(KvTxn& txn, KeyHandle* h, ListEnd end,
                      const std::vector<std::string_view>& elements) = 0;
  // LPOP/RPOP: removes min(count, length) elements from `end`; *out holds them in pop order.
  // REQUIRES: count >= 1.
  virtual Status Pop(KvTxn& txn, KeyHandle* h, ListEnd end, uint64_t count,
                     std::vector<std::string>* out) = 0;
  // LRANGE and LINDEX: the elements at positions first..last, in order.
  // REQUIRES: first <= last < length.
  virtual Status Range(KvTxn& txn, const KeyHandle& h, uint64_t first, uint64_t last,
                       std::vector<std::string>* out) = 0;
  // LSET. REQUIRES: position < length.
  virtual Status Set(KvTxn& txn, KeyHandle* h, uint64_t position, std::string_view element) = 0;
  // LINSERT: inserts `element` before (or after) the first element equal to `pivot`. *reply is
  // the new length, or -1 when no element equals the pivot.
  virtual Status Insert(KvTxn& txn, KeyHandle* h, bool after, std::string_view pivot,
                        std::string_view element, int64_t* reply) = 0;
  // LREM: removes the first `count` elements equal to `element` (count < 0: the last -count;
  // 0: all). *removed is how many.
  virtual Status Remove(KvTxn& txn, KeyHandle* h, int64_t count, std::string_view element,
                        int64_t* removed) = 0;
  // LTRIM: drops `left` elements from the left and `right` from the right (all of them when
  // left + right >= length).
  virtual Status Trim(KvTxn& txn, KeyHandle* h, uint64_t left, uint64_t right) = 0;
  // LPOS: visits the elements from the left, in order, at most `limit` of them (0: all), until
  // visit(position, element) returns false.
  virtual Status Scan(KvTxn& txn, const KeyHandle& h, uint64_t limit,
                      const std::function<bool(uint64_t, std::string_view)>& visit) = 0;
};

// The gap v1 leaves between consecutive pushes: room for 24 halvings before a renumbering.
inline constexpr uint64_t kSparseListGap = uint64_t{1} << 24;

std::unique_ptr<ListEncoding> NewDenseListEncoding(uint8_t version);   // v0
std::unique_ptr<ListEncoding> NewSparseListEncoding(uint8_t version);  // v1
// kvrocks: v0's logic under Kvrocks's key-meta (flags 0x83, u64 size, head, tail). Kvrocks's
// List::Push, Insert and Rem work as v0 does: pushes extend [head, tail), a middle edit moves the
// elements of its shorter side.
std::unique_ptr<ListEncoding> NewKvrocksListEncoding();
// ardb: Ardb's list (ardb_list.cc): size, sequential flag and min/max index in the key-meta,
// elements under a# at a double index; LINSERT takes a fraction, DEL deletes every element.
std::unique_ptr<ListEncoding> NewArdbListEncoding();

}  // namespace kvlab::encodings
