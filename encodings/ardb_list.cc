// List ardb: Ardb's layout (../shared/spec/001_*, 002_*; docs/encodings.md "List ardb").
//
//   key-meta  m# ... -> 05 (KEY_LIST) | 00 | expire | size (u64) | sequential (1) | min | max
//   element   a# ... | key length | key | 06 (KEY_LIST_ELEMENT) | index -> 06 | element
//
// As Ardb's code does (src/db/t_list.cpp), the meta keeps the list's size, its smallest and
// largest element index (both inclusive; KeyMeta::list_head and list_tail hold their encoded
// bytes), and whether the indexes are consecutive integers ("sequential"). A new list's first
// element is at index 0; LPUSH takes min - 1, RPUSH max + 1, so while the list is sequential the
// element at position p is at min + p and LINDEX, LSET and the ends of LPOP/RPOP are point
// operations. LINSERT takes the middle of the two neighbours' indexes (a fraction: no
// renumbering) and, as LREM, makes the list non-sequential for good: positions then walk from
// min, and popping or trimming at the right end reads backwards from max (a reverse scan; on a
// store without one, a forward walk of the whole list).
//
// An index is a double (Ardb's Data holds an int64 or, after LINSERT, a float64, and its
// comparator compares the numbers), stored as 004_*'s order-preserving 8 bytes (score_codec.h)
// so that elements sort in list order under their key's prefix in any bytewise-ordered store.
// Integer indexes are exact up to 2^53 pushes at one end.
//
// Where Ardb's code is wrong, kvlab does not copy it: its push clears the key's TTL (Redis keeps
// it); its LINSERT overwrites a neighbour once 50-odd halvings in one place leave no double
// between them (kvlab then renumbers the whole list to 0..n, sequential again); its LREM writes
// the meta when it removed nothing.
//
// No key-version: DEL, an overwrite and a reaped expiry delete every element in the command's
// batch (OnDelete, O(n)), and so do LTRIM and LREM when they empty the list.
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <cmath>
#include <deque>

#include "encodings/ardb_common.h"
#include "encodings/coding.h"
#include "encodings/kv_reads.h"
#include "encodings/list_encoding.h"
#include "encodings/score_codec.h"

namespace kvlab::encodings {
namespace {

constexpr ArdbTag kTag = ArdbTag::kListElement;
// A push past this index would no longer be an exact integer in a double.
constexpr double kMaxIndex = 9007199254740992.0;  // 2^53
constexpr uint64_t kPointDeletesMax = 1;          // as list_dense.cc

struct Row {
  double index;
  std::string value;
};

double MinOf(const KeyMeta& m) { return OrderedBitsToScore(m.list_head); }
double MaxOf(const KeyMeta& m) { return OrderedBitsToScore(m.list_tail); }
void SetMin(KeyMeta* m, double index) { m->list_head = ScoreToOrderedBits(index); }
void SetMax(KeyMeta* m, double index) { m->list_tail = ScoreToOrderedBits(index); }

// prefix | index: the element at `index`. -0 is stored as +0 (they are the same index).
std::string At(std::string_view prefix, double index) {
  std::string key(prefix);
  PutScore(&key, index == 0 ? 0.0 : index);
  return key;
}

// The first key after the element at `index`: the exclusive upper bound of a scan to it.
std::string After(std::string_view prefix, double index) {
  std::string key = At(prefix, index);
  key.push_back('\0');
  return key;
}

double IndexOf(std::string_view prefix, std::string_view key) {
  return DecodeScore(key.data() + prefix.size());
}

Status Corrupt(std::string_view key, double index) {
  return Status::Corruption("list '" + std::string(key) + "' lacks its element at index " +
                            std::to_string(index));
}

Status Exhausted(std::string_view key) {
  return Status::InvalidArgument("list '" + std::string(key) +
                                 "' has used up its index space at that end (list encode-version "
                                 "ardb allows 2^53 pushes at each end)");
}

class ArdbList final : public ListEncoding {
 public:
  uint8_t version() const override { return ArdbId(KeyType::kList); }

  Status Push(KvTxn& txn, KeyHandle* h, ListEnd end,
              const std::vector<std::string_view>& elements) override {
    KVLAB_RETURN_IF_ERROR(CheckRoom(h->meta, elements.size()));
    if (h->is_new) KVLAB_RETURN_IF_ERROR(PurgeArdbKey(txn, *h));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    KeyMeta& m = h->meta;
    for (std::string_view e : elements) {
      double index = 0;
      if (m.count == 0) {
        m.list_sequential = true;
        SetMin(&m, 0);
        SetMax(&m, 0);
      } else if (end == ListEnd::kLeft) {
        // Ardb: the integer part of min, minus one (min is fractional only after LINSERT).
        index = std::trunc(MinOf(m)) - 1;
        if (index < -kMaxIndex) return Exhausted(h->key);
        SetMin(&m, index);
      } else {
        index = std::trunc(MaxOf(m)) + 1;
        if (index > kMaxIndex) return Exhausted(h->key);
        SetMax(&m, index);
      }
      txn.batch().Put(At(prefix, index), ArdbValue(kTag, e));
      ++m.count;
    }
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Pop(KvTxn& txn, KeyHandle* h, ListEnd end, uint64_t count,
             std::vector<std::string>* out) override {
    KeyMeta& m = h->meta;
    const uint64_t n = m.count;
    const uint64_t k = std::min<uint64_t>(count, n);
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    out->clear();
    out->reserve(k);
    if (m.list_sequential) {
      // The indexes are known: one get, or one multiget.
      std::vector<std::string> suffixes;
      suffixes.reserve(k);
      for (uint64_t i = 0; i < k; ++i) {
        const double index = end == ListEnd::kLeft ? MinOf(m) + static_cast<double>(i)
                                                   : MaxOf(m) - static_cast<double>(i);
        suffixes.push_back(At("", index));
      }
      std::vector<std::string_view> views(suffixes.begin(), suffixes.end());
      std::vector<std::optional<std::string>> values;
      KVLAB_RETURN_IF_ERROR(ReadPoints(txn.kv(), prefix, views, &values));
      for (uint64_t i = 0; i < k; ++i) {
        if (!values[i]) return Corrupt(h->key, IndexOf("", suffixes[i]));
        std::string_view data;
        KVLAB_RETURN_IF_ERROR(StripArdbValue(kTag, *values[i], &data));
        out->emplace_back(data);
        txn.batch().Delete(prefix + suffixes[i]);
      }
      if (k < n) {
        if (end == ListEnd::kLeft) {
          SetMin(&m, MinOf(m) + static_cast<double>(k));
        } else {
          SetMax(&m, MaxOf(m) - static_cast<double>(k));
        }
      }
    } else {
      // The popped elements and, when some remain, the one that becomes the new end.
      std::vector<Row> rows;
      const uint64_t want = std::min(k + 1, n);
      if (end == ListEnd::kLeft) {
        KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, want, &rows));
      } else {
        KVLAB_RETURN_IF_ERROR(ReadRight(txn, *h, prefix, want, &rows));
      }
      if (rows.size() != want) return Corrupt(h->key, end == ListEnd::kLeft ? MinOf(m) : MaxOf(m));
      for (uint64_t i = 0; i < k; ++i) {
        txn.batch().Delete(At(prefix, rows[i].index));
        out->push_back(std::move(rows[i].value));
      }
      if (k < n) {
        if (end == ListEnd::kLeft) {
          SetMin(&m, rows[k].index);
        } else {
          SetMax(&m, rows[k].index);
        }
      }
    }
    m.count -= k;
    if (m.count == 0) {
      txn.DeleteMeta(h->key);  // every element was deleted above
    } else {
      txn.PutMeta(h);
    }
    return Status::OK();
  }

  Status Range(KvTxn& txn, const KeyHandle& h, uint64_t first, uint64_t last,
               std::vector<std::string>* out) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
    out->clear();
    if (h.meta.list_sequential && first == last) {
      const double index = MinOf(h.meta) + static_cast<double>(first);
      std::string v;
      Status s = txn.kv().Get(At(prefix, index), &v);
      if (s.IsNotFound()) return Corrupt(h.key, index);
      KVLAB_RETURN_IF_ERROR(s);
      std::string_view data;
      KVLAB_RETURN_IF_ERROR(StripArdbValue(kTag, v, &data));
      out->emplace_back(data);
      return Status::OK();
    }
    // Sequential: a scan from the first position's index. Otherwise: a walk from min.
    const bool seq = h.meta.list_sequential;
    const uint64_t take = last - first + 1;
    out->reserve(take);
    Status failed;
    KVLAB_RETURN_IF_ERROR(ScanRange(
        txn.kv(), At(prefix, seq ? MinOf(h.meta) + static_cast<double>(first) : MinOf(h.meta)),
        After(prefix, MaxOf(h.meta)), false, seq ? 0 : first, static_cast<int64_t>(take),
        [&](std::string_view, std::string_view v) {
          std::string_view data;
          failed = StripArdbValue(kTag, v, &data);
          if (!failed.ok()) return false;
          out->emplace_back(data);
          return true;
        }));
    KVLAB_RETURN_IF_ERROR(failed);
    if (out->size() != take) return Corrupt(h.key, MinOf(h.meta));
    return Status::OK();
  }

  Status Set(KvTxn& txn, KeyHandle* h, uint64_t position, std::string_view element) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    if (h->meta.list_sequential) {
      // The index is known: the write is blind.
      txn.batch().Put(At(prefix, MinOf(h->meta) + static_cast<double>(position)),
                      ArdbValue(kTag, element));
      return Status::OK();
    }
    std::optional<std::string> key;
    KVLAB_RETURN_IF_ERROR(ScanRange(txn.kv(), At(prefix, MinOf(h->meta)),
                                    After(prefix, MaxOf(h->meta)), false, position, 1,
                                    [&](std::string_view k, std::string_view) {
                                      key.emplace(k);
                                      return true;
                                    }));
    if (!key) return Corrupt(h->key, MinOf(h->meta));
    txn.batch().Put(*key, ArdbValue(kTag, element));
    return Status::OK();
  }

  Status Insert(KvTxn& txn, KeyHandle* h, bool after, std::string_view pivot,
                std::string_view element, int64_t* reply) override {
    KVLAB_RETURN_IF_ERROR(CheckRoom(h->meta, 1));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    // Walk to the pivot, keeping the index before it (BEFORE) or taking the one after it
    // (AFTER): the new element goes between those two.
    std::optional<double> lo, hi, previous;
    bool found = false;
    Status failed;
    KVLAB_RETURN_IF_ERROR(
        ScanRange(txn.kv(), At(prefix, MinOf(h->meta)), After(prefix, MaxOf(h->meta)), false, 0,
                  static_cast<int64_t>(h->meta.count), [&](std::string_view k, std::string_view v) {
                    const double index = IndexOf(prefix, k);
                    if (found) {  // AFTER: the pivot's successor
                      hi = index;
                      return false;
                    }
                    std::string_view data;
                    failed = StripArdbValue(kTag, v, &data);
                    if (!failed.ok()) return false;
                    if (data == pivot) {
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
    KVLAB_RETURN_IF_ERROR(failed);
    if (!found) {
      *reply = -1;
      return Status::OK();
    }
    KeyMeta& m = h->meta;
    double index = 0;
    if (!lo) {  // before the first element
      index = *hi - 1;
    } else if (!hi) {  // after the last element
      index = *lo + 1;
    } else {
      index = *lo + (*hi - *lo) / 2;  // Ardb: (lo + hi) / 2, which can overflow to infinity
    }
    if (std::abs(index) > kMaxIndex || (lo && index <= *lo) || (hi && index >= *hi)) {
      // No double left between the neighbours (or past an end): renumber.
      KVLAB_RETURN_IF_ERROR(Renumber(txn, h, prefix, lo, element));
    } else {
      txn.batch().Put(At(prefix, index), ArdbValue(kTag, element));
      if (index < MinOf(m)) SetMin(&m, index);
      if (index > MaxOf(m)) SetMax(&m, index);
      m.list_sequential = false;
    }
    ++m.count;
    txn.PutMeta(h);
    *reply = static_cast<int64_t>(m.count);
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, int64_t count, std::string_view element,
                int64_t* removed) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<Row> rows;
    KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, h->meta.count, &rows));
    if (rows.size() != h->meta.count) return Corrupt(h->key, MinOf(h->meta));
    const uint64_t limit = count == 0  ? UINT64_MAX
                           : count < 0 ? static_cast<uint64_t>(-(count + 1)) + 1
                                       : static_cast<uint64_t>(count);
    std::vector<bool> drop(rows.size(), false);
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
    std::optional<double> first, last;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (drop[i]) {
        txn.batch().Delete(At(prefix, rows[i].index));
      } else {
        if (!first) first = rows[i].index;
        last = rows[i].index;
      }
    }
    KeyMeta& m = h->meta;
    m.count -= r;
    if (m.count == 0) {
      txn.DeleteMeta(h->key);
      return Status::OK();
    }
    SetMin(&m, *first);
    SetMax(&m, *last);
    m.list_sequential = false;  // as Ardb: a hole anywhere breaks min + p
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Trim(KvTxn& txn, KeyHandle* h, uint64_t left, uint64_t right) override {
    KeyMeta& m = h->meta;
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    if (left + right >= m.count) {
      // Every element goes: one range delete over [min, max], no read.
      txn.batch().DeleteRange(At(prefix, MinOf(m)), After(prefix, MaxOf(m)));
      txn.DeleteMeta(h->key);
      return Status::OK();
    }
    if (left == 0 && right == 0) return Status::OK();
    if (m.list_sequential) {
      const double min = MinOf(m);
      const double max = MaxOf(m);
      DeleteIndexes(txn, prefix, min, left);
      DeleteIndexes(txn, prefix, max - static_cast<double>(right) + 1, right);
      SetMin(&m, min + static_cast<double>(left));
      SetMax(&m, max - static_cast<double>(right));
    } else {
      if (left > 0) {
        std::vector<Row> rows;
        KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, left + 1, &rows));
        if (rows.size() != left + 1) return Corrupt(h->key, MinOf(m));
        DropRows(txn, prefix, rows, left, MinOf(m), rows[left].index);
        SetMin(&m, rows[left].index);
      }
      if (right > 0) {
        std::vector<Row> rows;
        KVLAB_RETURN_IF_ERROR(ReadRight(txn, *h, prefix, right + 1, &rows));
        if (rows.size() != right + 1) return Corrupt(h->key, MaxOf(m));
        // rows[right] is the new max; rows[0..right) lie after it.
        if (right > kPointDeletesMax) {
          txn.batch().DeleteRange(After(prefix, rows[right].index), After(prefix, MaxOf(m)));
        } else {
          for (uint64_t i = 0; i < right; ++i) txn.batch().Delete(At(prefix, rows[i].index));
        }
        SetMax(&m, rows[right].index);
      }
    }
    m.count -= left + right;
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, uint64_t limit,
              const std::function<bool(uint64_t, std::string_view)>& visit) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
    uint64_t position = 0;
    Status failed;
    KVLAB_RETURN_IF_ERROR(ScanRange(
        txn.kv(), At(prefix, MinOf(h.meta)), After(prefix, MaxOf(h.meta)), false, 0,
        static_cast<int64_t>(limit == 0 ? h.meta.count : std::min<uint64_t>(limit, h.meta.count)),
        [&](std::string_view, std::string_view v) {
          std::string_view data;
          failed = StripArdbValue(kTag, v, &data);
          if (!failed.ok()) return false;
          return visit(position++, data);
        }));
    return failed;
  }

  // DEL, UNLINK, an overwrite, a reaped expiry: every element goes with the meta.
  Status OnDelete(KvTxn& txn, const KeyHandle& h) override { return PurgeArdbKey(txn, h); }

  // RENAME, COPY: `to` is created, so its prefix is cleared first; then every record is copied
  // (the indexes, and so the meta's min and max, stay as they are).
  Status Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to) override {
    KVLAB_RETURN_IF_ERROR(PurgeArdbKey(to_txn, *to));
    return TypeEncoding::Copy(txn, from, to_txn, to);
  }

 private:
  static Status CheckRoom(const KeyMeta& meta, uint64_t adding) {
    if (adding > meta.MaxCount() - meta.count) {
      return Status::InvalidArgument("a list of this encoding holds at most " +
                                     std::to_string(meta.MaxCount()) + " elements");
    }
    return Status::OK();
  }

  // The first `rows` elements from the left (all when rows >= count), in order, their type
  // bytes checked. The walk stops on the last one it needs: min(rows, count) - 1 nexts.
  static Status ReadLeft(KvTxn& txn, const KeyHandle& h, const std::string& prefix, uint64_t rows,
                         std::vector<Row>* out) {
    out->clear();
    const auto take = static_cast<int64_t>(std::min<uint64_t>(rows, h.meta.count));
    Status failed;
    KVLAB_RETURN_IF_ERROR(ScanRange(txn.kv(), At(prefix, MinOf(h.meta)),
                                    After(prefix, MaxOf(h.meta)), false, 0, take,
                                    [&](std::string_view k, std::string_view v) {
                                      std::string_view data;
                                      failed = StripArdbValue(kTag, v, &data);
                                      if (!failed.ok()) return false;
                                      out->push_back({IndexOf(prefix, k), std::string(data)});
                                      return true;
                                    }));
    return failed;
  }

  // The last `rows` elements, from the right end inwards: a reverse scan from max (Ardb's
  // iterate_total_order and Prev), or, on a store without reverse scan, a forward walk of the
  // whole list.
  static Status ReadRight(KvTxn& txn, const KeyHandle& h, const std::string& prefix, uint64_t rows,
                          std::vector<Row>* out) {
    out->clear();
    const std::string lower = At(prefix, MinOf(h.meta));
    const std::string upper = After(prefix, MaxOf(h.meta));
    Status failed;
    if (txn.capabilities().reverse_scan) {
      KVLAB_RETURN_IF_ERROR(ScanRange(txn.kv(), lower, upper, true, 0, static_cast<int64_t>(rows),
                                      [&](std::string_view k, std::string_view v) {
                                        std::string_view data;
                                        failed = StripArdbValue(kTag, v, &data);
                                        if (!failed.ok()) return false;
                                        out->push_back({IndexOf(prefix, k), std::string(data)});
                                        return true;
                                      }));
      return failed;
    }
    std::deque<Row> window;
    KVLAB_RETURN_IF_ERROR(ScanRange(txn.kv(), lower, upper, false, 0, -1,
                                    [&](std::string_view k, std::string_view v) {
                                      std::string_view data;
                                      failed = StripArdbValue(kTag, v, &data);
                                      if (!failed.ok()) return false;
                                      window.push_back({IndexOf(prefix, k), std::string(data)});
                                      if (window.size() > rows) window.pop_front();
                                      return true;
                                    }));
    KVLAB_RETURN_IF_ERROR(failed);
    out->assign(std::make_move_iterator(window.rbegin()), std::make_move_iterator(window.rend()));
    return Status::OK();
  }

  // Deletes the `n` consecutive integer indexes from `from`: point deletes, or one range delete.
  static void DeleteIndexes(KvTxn& txn, const std::string& prefix, double from, uint64_t n) {
    if (n == 0) return;
    if (n > kPointDeletesMax) {
      txn.batch().DeleteRange(At(prefix, from), At(prefix, from + static_cast<double>(n)));
      return;
    }
    for (uint64_t i = 0; i < n; ++i) txn.batch().Delete(At(prefix, from + static_cast<double>(i)));
  }

  // Deletes the first `n` of `rows`, whose indexes all lie in [from, to): point deletes, or one
  // range delete when there are many.
  static void DropRows(KvTxn& txn, const std::string& prefix, const std::vector<Row>& rows,
                       uint64_t n, double from, double to) {
    if (n > kPointDeletesMax) {
      txn.batch().DeleteRange(At(prefix, from), At(prefix, to));
      return;
    }
    for (uint64_t i = 0; i < n; ++i) txn.batch().Delete(At(prefix, rows[i].index));
  }

  // LINSERT found no index between the neighbours: rewrite the whole list at 0..count, the new
  // element right after the element at `lo` (first when there is none), sequential again. Rare
  // (after 50-odd insertions in one place), O(n) reads and writes.
  static Status Renumber(KvTxn& txn, KeyHandle* h, const std::string& prefix,
                         std::optional<double> lo, std::string_view element) {
    std::vector<Row> rows;
    KVLAB_RETURN_IF_ERROR(ReadLeft(txn, *h, prefix, h->meta.count, &rows));
    if (rows.size() != h->meta.count) return Corrupt(h->key, MinOf(h->meta));
    for (const Row& r : rows) txn.batch().Delete(At(prefix, r.index));
    double next = 0;
    if (!lo) txn.batch().Put(At(prefix, next++), ArdbValue(kTag, element));
    for (const Row& r : rows) {
      txn.batch().Put(At(prefix, next++), ArdbValue(kTag, r.value));
      if (lo && r.index == *lo) txn.batch().Put(At(prefix, next++), ArdbValue(kTag, element));
    }
    SetMin(&h->meta, 0);
    SetMax(&h->meta, next - 1);
    h->meta.list_sequential = true;
    return Status::OK();
  }
};

}  // namespace

std::unique_ptr<ListEncoding> NewArdbListEncoding() { return std::make_unique<ArdbList>(); }

}  // namespace kvlab::encodings
