// List v1: sparse indexes, so that middle edits write O(1) records.
//
// Pushes leave kSparseListGap between consecutive elements; head is the first element's index
// and tail the last element's index + 1 (both exact, so LINDEX 0, LINDEX -1 and LSET at either
// end are point operations). LINSERT takes the middle of the gap between the pivot and its
// neighbour; when that gap has closed (24 halvings in one place), it renumbers the elements
// from the insertion point rightwards until their span has room again (a local relabelling,
// as in order-maintenance lists). LREM deletes without renumbering.
//
// The price: a position is no longer head + p, so LINDEX, LSET and LRANGE walk from the head,
// and popping or trimming at the right end reads backwards from the tail (a reverse scan; on a
// store without one, a forward walk of the whole list).
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <algorithm>
#include <deque>

#include "encodings/kv_reads.h"
#include "encodings/list_common.h"
#include "encodings/list_encoding.h"

namespace kvlab::encodings {
namespace {

using list_internal::CheckRoom;
using list_internal::Corrupt;
using list_internal::ElementKey;
using list_internal::IndexOf;
using list_internal::kMiddle;
using list_internal::ScanElements;
using list_internal::StoreOrDelete;

constexpr uint64_t kGap = kSparseListGap;
constexpr uint64_t kPointDeletesMax = 1;  // as list_dense.cc
// A renumbering stops widening its window once the elements in it can be spaced this far
// apart: room for 10 more halvings before the next one there.
constexpr uint64_t kMinSpacing = 1024;

struct Row {
  uint64_t index;
  std::string value;
};

Status Exhausted(std::string_view key) {
  return Status::InvalidArgument("list '" + std::string(key) +
                                 "' has used up its index space at that end (list encode-version "
                                 "1 allows 2^39 pushes at each end)");
}

class SparseList final : public ListEncoding {
 public:
  explicit SparseList(uint8_t version) : version_(version) {}
  uint8_t version() const override { return version_; }

  Status Push(KvTxn& txn, KeyHandle* h, ListEnd end,
              const std::vector<std::string_view>& elements) override {
    KVLAB_RETURN_IF_ERROR(CheckRoom(h->meta, elements.size()));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    KeyMeta& m = h->meta;
    for (std::string_view e : elements) {
      uint64_t index = 0;
      if (m.count == 0) {
        index = kMiddle;
        m.list_head = kMiddle;
        m.list_tail = kMiddle + 1;
      } else if (end == ListEnd::kLeft) {
        if (m.list_head < kGap) return Exhausted(h->key);
        index = m.list_head -= kGap;
      } else {
        if (m.list_tail - 1 > UINT64_MAX - kGap) return Exhausted(h->key);
        index = m.list_tail - 1 + kGap;
        m.list_tail = index + 1;
      }
      txn.batch().Put(ElementKey(prefix, index), e);
      ++m.count;
    }
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Pop(KvTxn& txn, KeyHandle* h, ListEnd end, uint64_t count,
             std::vector<std::string>* out) override {
    const uint64_t n = h->meta.count;
    const uint64_t k = std::min<uint64_t>(count, n);
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    // The popped elements and, when some remain, the one that becomes the new end.
    std::vector<Row> rows;
    const uint64_t want = std::min(k + 1, n);
    if (end == ListEnd::kLeft) {
      KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, want, &rows));
    } else {
      KVLAB_RETURN_IF_ERROR(ReadRight(txn, *h, prefix, want, &rows));
    }
    if (rows.size() != want)
      return Corrupt(h->key, end == ListEnd::kLeft ? h->meta.list_head : h->meta.list_tail - 1);
    out->clear();
    out->reserve(k);
    for (uint64_t i = 0; i < k; ++i) {
      txn.batch().Delete(ElementKey(prefix, rows[i].index));
      out->push_back(std::move(rows[i].value));
    }
    h->meta.count -= static_cast<uint32_t>(k);
    if (k < n) {
      if (end == ListEnd::kLeft) {
        h->meta.list_head = rows[k].index;
      } else {
        h->meta.list_tail = rows[k].index + 1;
      }
    }
    StoreOrDelete(txn, h);
    return Status::OK();
  }

  Status Range(KvTxn& txn, const KeyHandle& h, uint64_t first, uint64_t last,
               std::vector<std::string>* out) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
    out->clear();
    if (first == last && (first == 0 || first + 1 == h.meta.count)) {
      // The ends are exact: one get.
      const uint64_t index = first == 0 ? h.meta.list_head : h.meta.list_tail - 1;
      std::string v;
      Status s = txn.kv().Get(ElementKey(prefix, index), &v);
      if (s.IsNotFound()) return Corrupt(h.key, index);
      KVLAB_RETURN_IF_ERROR(s);
      out->push_back(std::move(v));
      return Status::OK();
    }
    const uint64_t take = last - first + 1;
    KVLAB_RETURN_IF_ERROR(ScanRange(
        txn.kv(), ElementKey(prefix, h.meta.list_head), ElementKey(prefix, h.meta.list_tail), false,
        first, static_cast<int64_t>(take), [&](std::string_view, std::string_view v) {
          out->emplace_back(v);
          return true;
        }));
    if (out->size() != take) return Corrupt(h.key, h.meta.list_head);
    return Status::OK();
  }

  Status Set(KvTxn& txn, KeyHandle* h, uint64_t position, std::string_view element) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    uint64_t index = 0;
    if (position == 0) {
      index = h->meta.list_head;
    } else if (position + 1 == h->meta.count) {
      index = h->meta.list_tail - 1;
    } else {
      bool found = false;
      KVLAB_RETURN_IF_ERROR(ScanRange(txn.kv(), ElementKey(prefix, h->meta.list_head),
                                      ElementKey(prefix, h->meta.list_tail), false, position, 1,
                                      [&](std::string_view k, std::string_view) {
                                        index = IndexOf(prefix, k);
                                        found = true;
                                        return true;
                                      }));
      if (!found) return Corrupt(h->key, h->meta.list_head);
    }
    txn.batch().Put(ElementKey(prefix, index), element);
    return Status::OK();
  }

  Status Insert(KvTxn& txn, KeyHandle* h, bool after, std::string_view pivot,
                std::string_view element, int64_t* reply) override {
    KVLAB_RETURN_IF_ERROR(CheckRoom(h->meta, 1));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    // Walk to the pivot, keeping the element before it (BEFORE) or taking the one after it
    // (AFTER): the new element goes between those two.
    std::optional<uint64_t> lo, hi;
    std::optional<uint64_t> previous;
    bool found = false;
    KVLAB_RETURN_IF_ERROR(ScanRange(
        txn.kv(), ElementKey(prefix, h->meta.list_head), ElementKey(prefix, h->meta.list_tail),
        false, 0, static_cast<int64_t>(h->meta.count), [&](std::string_view k, std::string_view v) {
          const uint64_t index = IndexOf(prefix, k);
          if (found) {  // AFTER: the pivot's successor
            hi = index;
            return false;
          }
          if (v == pivot) {
            found = true;
            if (!after) {
              lo = previous;
              hi = index;
              return false;
            }
            lo = index;
          }
          previous = index;
          return true;
        }));
    if (!found) {
      *reply = -1;
      return Status::OK();
    }
    KeyMeta& m = h->meta;
    uint64_t slot = 0;
    if (!lo) {  // before the first element
      if (m.list_head < kGap) return Exhausted(h->key);
      slot = m.list_head -= kGap;
    } else if (!hi) {  // after the last element
      if (*lo > UINT64_MAX - kGap) return Exhausted(h->key);
      slot = *lo + kGap;
      m.list_tail = slot + 1;
    } else if (*hi - *lo >= 2) {
      slot = *lo + (*hi - *lo) / 2;
    } else {
      KVLAB_RETURN_IF_ERROR(Renumber(txn, h, prefix, *lo, *hi, element));
      ++m.count;
      txn.PutMeta(h);
      *reply = m.count;
      return Status::OK();
    }
    txn.batch().Put(ElementKey(prefix, slot), element);
    ++m.count;
    txn.PutMeta(h);
    *reply = m.count;
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, int64_t count, std::string_view element,
                int64_t* removed) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<Row> rows;
    rows.reserve(h->meta.count);
    KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, UINT64_MAX, &rows));
    std::vector<bool> drop(rows.size(), false);
    const uint64_t limit = count == 0  ? UINT64_MAX
                           : count < 0 ? static_cast<uint64_t>(-(count + 1)) + 1
                                       : static_cast<uint64_t>(count);
    uint64_t r = 0;
    for (size_t j = 0; j < rows.size() && r < limit; ++j) {
      const size_t i = count < 0 ? rows.size() - 1 - j : j;
      if (rows[i].value == element) {
        drop[i] = true;
        ++r;
      }
    }
    *removed = static_cast<int64_t>(r);
    if (r == 0) return Status::OK();
    h->meta.count -= static_cast<uint32_t>(r);
    if (h->meta.count == 0) {
      txn.DeleteMeta(h->key);
      return Status::OK();
    }
    std::optional<uint64_t> first, last;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (drop[i]) {
        txn.batch().Delete(ElementKey(prefix, rows[i].index));
      } else {
        if (!first) first = rows[i].index;
        last = rows[i].index;
      }
    }
    h->meta.list_head = *first;
    h->meta.list_tail = *last + 1;
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Trim(KvTxn& txn, KeyHandle* h, uint64_t left, uint64_t right) override {
    if (left + right >= h->meta.count) {
      txn.DeleteMeta(h->key);
      return Status::OK();
    }
    if (left == 0 && right == 0) return Status::OK();
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    KeyMeta& m = h->meta;
    if (left > 0) {
      std::vector<Row> rows;
      KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, left + 1, &rows));
      if (rows.size() != left + 1) return Corrupt(h->key, m.list_head);
      DropRows(txn, prefix, rows, left, m.list_head, rows[left].index);
      m.list_head = rows[left].index;
    }
    const uint64_t kept = m.count - left - right;
    if (right > kPointDeletesMax && kept < right + 1) {
      // Most of the list goes: find the new last element from the left (the kept elements are
      // fewer than those a backward read would pass), and drop the rest as one range.
      std::vector<Row> rows;
      KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, kept, &rows));
      if (rows.size() != kept) return Corrupt(h->key, m.list_head);
      const uint64_t new_tail = rows.back().index + 1;
      txn.batch().DeleteRange(ElementKey(prefix, new_tail), ElementKey(prefix, m.list_tail));
      m.list_tail = new_tail;
    } else if (right > 0) {
      std::vector<Row> rows;
      KVLAB_RETURN_IF_ERROR(ReadRight(txn, *h, prefix, right + 1, &rows));
      if (rows.size() != right + 1) return Corrupt(h->key, m.list_tail - 1);
      DropRows(txn, prefix, rows, right, rows[right].index + 1, m.list_tail);
      m.list_tail = rows[right].index + 1;
    }
    m.count -= static_cast<uint32_t>(left + right);
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, uint64_t limit,
              const std::function<bool(uint64_t, std::string_view)>& visit) override {
    return ScanElements(txn, h, limit, visit);
  }

 private:
  // The first `rows` elements from the left (all when rows >= count), in order. The walk stops
  // on the last one it needs: min(rows, count) - 1 nexts.
  static Status ReadLeft(KvTxn& txn, const KeyHandle& h, const std::string& prefix, uint64_t rows,
                         std::vector<Row>* out) {
    out->clear();
    const auto take = static_cast<int64_t>(std::min<uint64_t>(rows, h.meta.count));
    return ScanRange(txn.kv(), ElementKey(prefix, h.meta.list_head),
                     ElementKey(prefix, h.meta.list_tail), false, 0, take,
                     [&](std::string_view k, std::string_view v) {
                       out->push_back({IndexOf(prefix, k), std::string(v)});
                       return true;
                     });
  }

  // The last `rows` elements, from the right end inwards: a reverse scan from the tail, or,
  // on a store without reverse scan, a forward walk of the whole list.
  static Status ReadRight(KvTxn& txn, const KeyHandle& h, const std::string& prefix, uint64_t rows,
                          std::vector<Row>* out) {
    out->clear();
    const std::string lower = ElementKey(prefix, h.meta.list_head);
    const std::string upper = ElementKey(prefix, h.meta.list_tail);
    if (txn.capabilities().reverse_scan) {
      return ScanRange(txn.kv(), lower, upper, true, 0, static_cast<int64_t>(rows),
                       [&](std::string_view k, std::string_view v) {
                         out->push_back({IndexOf(prefix, k), std::string(v)});
                         return true;
                       });
    }
    std::deque<Row> window;
    KVLAB_RETURN_IF_ERROR(ScanRange(txn.kv(), lower, upper, false, 0, -1,
                                    [&](std::string_view k, std::string_view v) {
                                      window.push_back({IndexOf(prefix, k), std::string(v)});
                                      if (window.size() > rows) window.pop_front();
                                      return true;
                                    }));
    out->assign(std::make_move_iterator(window.rbegin()), std::make_move_iterator(window.rend()));
    return Status::OK();
  }

  // Deletes the first `n` of `rows`, whose indexes all lie in [from, to): point deletes, or
  // one range delete when there are many.
  static void DropRows(KvTxn& txn, const std::string& prefix, const std::vector<Row>& rows,
                       uint64_t n, uint64_t from, uint64_t to) {
    if (n > kPointDeletesMax) {
      txn.batch().DeleteRange(ElementKey(prefix, from), ElementKey(prefix, to));
      return;
    }
    for (uint64_t i = 0; i < n; ++i) txn.batch().Delete(ElementKey(prefix, rows[i].index));
  }

  // The gap between the elements at lo and hi has closed: relabel the new element and the
  // elements from hi rightwards, evenly, until the window's span leaves kMinSpacing between
  // them (or to the end of the list, where the space is open).
  static Status Renumber(KvTxn& txn, KeyHandle* h, const std::string& prefix, uint64_t lo,
                         uint64_t hi, std::string_view element) {
    std::vector<Row> window;
    std::optional<uint64_t> bound;  // the first element right of the window
    KVLAB_RETURN_IF_ERROR(
        ScanRange(txn.kv(), ElementKey(prefix, hi), ElementKey(prefix, h->meta.list_tail), false, 0,
                  -1, [&](std::string_view k, std::string_view v) {
                    const uint64_t index = IndexOf(prefix, k);
                    // window.size() + 1 labels (the new element too) go
                    // strictly between lo and index.
                    if (!window.empty() && (index - lo) / (window.size() + 2) >= kMinSpacing) {
                      bound = index;
                      return false;
                    }
                    window.push_back({index, std::string(v)});
                    return true;
                  }));
    uint64_t step = kGap;
    if (bound) step = (*bound - lo) / (window.size() + 2);
    if (!bound && lo > UINT64_MAX - kGap * (window.size() + 2)) return Exhausted(h->key);
    for (const Row& r : window) txn.batch().Delete(ElementKey(prefix, r.index));
    txn.batch().Put(ElementKey(prefix, lo + step), element);
    for (size_t i = 0; i < window.size(); ++i) {
      txn.batch().Put(ElementKey(prefix, lo + step * (i + 2)), window[i].value);
    }
    if (!bound) h->meta.list_tail = lo + step * (window.size() + 1) + 1;
    return Status::OK();
  }

  const uint8_t version_;
};

}  // namespace

std::unique_ptr<ListEncoding> NewSparseListEncoding(uint8_t version) {
  return std::make_unique<SparseList>(version);
}

}  // namespace kvlab::encodings
