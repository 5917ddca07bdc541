// List v0 and kvrocks: 004_*'s dense layout (kvrocks under Kvrocks's key-meta, key_meta.h:
// 0x83 | expire | key-version | size u64 | head | tail). The element at position p is at index head
// + p; the meta's head and tail bound the elements, [head, tail), and count == tail - head.
//
// Point operations by position (LINDEX, LSET, the ends of LPOP/RPOP) know their sub-keys
// without reading: one get, or one multiget. A middle edit (LINSERT, LREM) keeps the indexes
// dense by renumbering the elements on one side of it.
//
// KV operations per command: docs/amplification.md, checked by amplification_test.cc.
#include <algorithm>

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

// Dropping this many elements at one end is point deletes; more is one range delete (a range
// tombstone costs RocksDB's reads a little later; a point delete per element costs the batch
// now). One keeps a capped list's LPUSH + LTRIM free of tombstones.
constexpr uint64_t kPointDeletesMax = 1;

struct Row {
  uint64_t index;
  std::string value;
};

class DenseList final : public ListEncoding {
 public:
  explicit DenseList(uint8_t version) : version_(version) {}
  uint8_t version() const override { return version_; }

  Status Push(KvTxn& txn, KeyHandle* h, ListEnd end,
              const std::vector<std::string_view>& elements) override {
    KVLAB_RETURN_IF_ERROR(CheckRoom(h->meta, elements.size()));
    if (h->is_new) h->meta.list_head = h->meta.list_tail = kMiddle;
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    for (std::string_view e : elements) {
      const uint64_t index = end == ListEnd::kLeft ? --h->meta.list_head : h->meta.list_tail++;
      txn.batch().Put(ElementKey(prefix, index), e);
    }
    h->meta.count += elements.size();
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Pop(KvTxn& txn, KeyHandle* h, ListEnd end, uint64_t count,
             std::vector<std::string>* out) override {
    const uint64_t k = std::min<uint64_t>(count, h->meta.count);
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<std::string> suffixes;
    suffixes.reserve(k);
    for (uint64_t i = 0; i < k; ++i) {
      const uint64_t index =
          end == ListEnd::kLeft ? h->meta.list_head + i : h->meta.list_tail - 1 - i;
      suffixes.push_back(ElementKey("", index));
    }
    std::vector<std::string_view> views(suffixes.begin(), suffixes.end());
    std::vector<std::optional<std::string>> values;
    KVLAB_RETURN_IF_ERROR(ReadPoints(txn.kv(), prefix, views, &values));
    out->clear();
    out->reserve(k);
    for (uint64_t i = 0; i < k; ++i) {
      if (!values[i]) return Corrupt(h->key, IndexOf("", suffixes[i]));
      out->push_back(std::move(*values[i]));
      txn.batch().Delete(prefix + suffixes[i]);
    }
    if (end == ListEnd::kLeft) {
      h->meta.list_head += k;
    } else {
      h->meta.list_tail -= k;
    }
    h->meta.count -= k;
    StoreOrDelete(txn, h);
    return Status::OK();
  }

  Status Range(KvTxn& txn, const KeyHandle& h, uint64_t first, uint64_t last,
               std::vector<std::string>* out) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
    const uint64_t head = h.meta.list_head;
    out->clear();
    if (first == last) {
      std::string v;
      Status s = txn.kv().Get(ElementKey(prefix, head + first), &v);
      if (s.IsNotFound()) return Corrupt(h.key, head + first);
      KVLAB_RETURN_IF_ERROR(s);
      out->push_back(std::move(v));
      return Status::OK();
    }
    const uint64_t take = last - first + 1;
    out->reserve(take);
    KVLAB_RETURN_IF_ERROR(
        ScanRange(txn.kv(), ElementKey(prefix, head + first), ElementKey(prefix, head + last + 1),
                  false, 0, static_cast<int64_t>(take), [&](std::string_view, std::string_view v) {
                    out->emplace_back(v);
                    return true;
                  }));
    if (out->size() != take) return Corrupt(h.key, head + first + out->size());
    return Status::OK();
  }

  Status Set(KvTxn& txn, KeyHandle* h, uint64_t position, std::string_view element) override {
    // Dense indexes: the sub-key is known, the write is blind.
    txn.batch().Put(
        ElementKey(txn.SubKeyPrefix(SubKeyTag::kField, *h), h->meta.list_head + position), element);
    return Status::OK();
  }

  Status Insert(KvTxn& txn, KeyHandle* h, bool after, std::string_view pivot,
                std::string_view element, int64_t* reply) override {
    KVLAB_RETURN_IF_ERROR(CheckRoom(h->meta, 1));
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<Row> before;  // the elements up to the pivot, in order
    bool found = false;
    KVLAB_RETURN_IF_ERROR(ScanAll(txn, *h, prefix, [&](uint64_t index, std::string_view v) {
      before.push_back({index, std::string(v)});
      found = v == pivot;
      return !found;
    }));
    if (!found) {
      *reply = -1;
      return Status::OK();
    }
    // Shift the elements before the insertion point one index to the left (they are the ones
    // already read), and put the new element in the index that frees.
    if (!after) before.pop_back();  // the pivot stays where it is
    for (const Row& r : before) txn.batch().Put(ElementKey(prefix, r.index - 1), r.value);
    const uint64_t slot = h->meta.list_head + before.size() - 1;
    txn.batch().Put(ElementKey(prefix, slot), element);
    --h->meta.list_head;
    ++h->meta.count;
    txn.PutMeta(h);
    *reply = h->meta.count;
    return Status::OK();
  }

  Status Remove(KvTxn& txn, KeyHandle* h, int64_t count, std::string_view element,
                int64_t* removed) override {
    const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, *h);
    std::vector<Row> rows;
    rows.reserve(h->meta.count);
    KVLAB_RETURN_IF_ERROR(ScanAll(txn, *h, prefix, [&](uint64_t index, std::string_view v) {
      rows.push_back({index, std::string(v)});
      return true;
    }));
    const std::vector<bool> drop = Matches(rows, count, element);
    const uint64_t r = std::count(drop.begin(), drop.end(), true);
    *removed = static_cast<int64_t>(r);
    if (r == 0) return Status::OK();
    h->meta.count -= r;
    if (h->meta.count == 0) {
      txn.DeleteMeta(h->key);  // the sub-keys become unreachable with the key-version
      return Status::OK();
    }
    // Close the holes by moving the survivors of the shorter side: those after the first
    // removed element one way, or those before the last removed one the other way.
    const size_t first = std::find(drop.begin(), drop.end(), true) - drop.begin();
    const size_t last = drop.rend() - std::find(drop.rbegin(), drop.rend(), true) - 1;
    const size_t right_movers =
        rows.size() - first - std::count(drop.begin() + first, drop.end(), true);
    const size_t left_movers = last - std::count(drop.begin(), drop.begin() + last, true);
    if (right_movers <= left_movers) {
      uint64_t next = rows[first].index;
      for (size_t i = first; i < rows.size(); ++i) {
        if (!drop[i]) txn.batch().Put(ElementKey(prefix, next++), rows[i].value);
      }
      DeleteIndexes(txn, prefix, next, h->meta.list_tail);
      h->meta.list_tail = next;
    } else {
      uint64_t next = rows[last].index + 1;
      for (size_t i = last + 1; i-- > 0;) {
        if (!drop[i]) txn.batch().Put(ElementKey(prefix, --next), rows[i].value);
      }
      DeleteIndexes(txn, prefix, h->meta.list_head, next);
      h->meta.list_head = next;
    }
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
    DeleteIndexes(txn, prefix, h->meta.list_head, h->meta.list_head + left);
    DeleteIndexes(txn, prefix, h->meta.list_tail - right, h->meta.list_tail);
    h->meta.list_head += left;
    h->meta.list_tail -= right;
    h->meta.count -= left + right;
    txn.PutMeta(h);
    return Status::OK();
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, uint64_t limit,
              const std::function<bool(uint64_t, std::string_view)>& visit) override {
    return ScanElements(txn, h, limit, visit);
  }

 private:
  // Visits every element from the left as (index, element) until visit returns false.
  template <typename Visitor>
  static Status ScanAll(KvTxn& txn, const KeyHandle& h, const std::string& prefix,
                        Visitor&& visit) {
    // Taking exactly count rows stops on the last element: count - 1 nexts.
    return ScanRange(
        txn.kv(), ElementKey(prefix, h.meta.list_head), ElementKey(prefix, h.meta.list_tail), false,
        0, static_cast<int64_t>(h.meta.count),
        [&](std::string_view k, std::string_view v) { return visit(IndexOf(prefix, k), v); });
  }

  // Deletes the elements at indexes [from, to): point deletes, or one range delete.
  static void DeleteIndexes(KvTxn& txn, const std::string& prefix, uint64_t from, uint64_t to) {
    if (from >= to) return;
    if (to - from > kPointDeletesMax) {
      txn.batch().DeleteRange(ElementKey(prefix, from), ElementKey(prefix, to));
      return;
    }
    for (uint64_t i = from; i < to; ++i) txn.batch().Delete(ElementKey(prefix, i));
  }

 public:
  // LREM's choice: which of `rows` go, given Redis's count (> 0: the first count matches,
  // < 0: the last -count, 0: all).
  static std::vector<bool> Matches(const std::vector<Row>& rows, int64_t count,
                                   std::string_view element) {
    std::vector<bool> drop(rows.size(), false);
    const uint64_t limit = count == 0  ? UINT64_MAX
                           : count < 0 ? static_cast<uint64_t>(-(count + 1)) + 1
                                       : static_cast<uint64_t>(count);
    uint64_t taken = 0;
    for (size_t j = 0; j < rows.size() && taken < limit; ++j) {
      const size_t i = count < 0 ? rows.size() - 1 - j : j;
      if (rows[i].value == element) {
        drop[i] = true;
        ++taken;
      }
    }
    return drop;
  }

 private:
  const uint8_t version_;
};

}  // namespace

std::unique_ptr<ListEncoding> NewDenseListEncoding(uint8_t version) {
  return std::make_unique<DenseList>(version);
}

std::unique_ptr<ListEncoding> NewKvrocksListEncoding() {
  return std::make_unique<DenseList>(KvrocksFlags(KeyType::kList));
}

}  // namespace kvlab::encodings
