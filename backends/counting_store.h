// CountingStore: a KvStore decorator that counts every logical operation exactly.
//
// The counts go to an OpCounters sink, which is safe to update from many threads. Two
// snapshots of a sink subtract to the cost of the work in between. The engine gives each
// command its own sink (a CountingStore is cheap to construct over an existing store), so that
// per-command costs stay exact when many threads run commands at once.
//
// What counts as what:
// - Get: gets += 1, bytes_read += key + value (value only when found).
// - MultiGet: multiget_calls += 1, multiget_keys += n, bytes_read as for Get per key.
// - Put: puts += 1, bytes_written += key + value. Delete: deletes += 1, bytes_written += key.
// - DeleteRange: range_deletes += 1, bytes_written += begin + end.
// - Write: batches += 1, batch_records += its puts, deletes and single deletes (a single
//   delete is a delete), range_deletes += its range deletes, bytes_written += batch bytes.
// - Iterator: seeks += 1 for each Seek, SeekForPrev, SeekToFirst and SeekToLast; nexts and
//   prevs per step; bytes_read += key + value of every entry the iterator lands on.
#pragma once

#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

// A plain snapshot of the counters.
struct OpCounts {
  uint64_t gets = 0;
  uint64_t multiget_calls = 0;
  uint64_t multiget_keys = 0;
  uint64_t puts = 0;
  uint64_t deletes = 0;
  uint64_t range_deletes = 0;
  uint64_t batches = 0;
  uint64_t batch_records = 0;
  uint64_t seeks = 0;
  uint64_t nexts = 0;
  uint64_t prevs = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;

  OpCounts& operator+=(const OpCounts& o);
  OpCounts& operator-=(const OpCounts& o);
  friend OpCounts operator+(OpCounts a, const OpCounts& b) { return a += b; }
  friend OpCounts operator-(OpCounts a, const OpCounts& b) { return a -= b; }
  bool operator==(const OpCounts&) const = default;

  // Point reads: gets plus keys looked up by MultiGet.
  uint64_t point_reads() const { return gets + multiget_keys; }
  // Every counter, by name, in a fixed order (for JSON output and tables).
  std::vector<std::pair<const char*, uint64_t>> Fields() const;
  // "2 gets, 1 seek, 10 nexts": the non-zero operation counters, bytes excluded.
  std::string Describe() const;
};

// Every counter of OpCounts, in declaration order.
inline constexpr uint64_t OpCounts::*kOpCountFields[] = {
    &OpCounts::gets,          &OpCounts::multiget_calls, &OpCounts::multiget_keys,
    &OpCounts::puts,          &OpCounts::deletes,        &OpCounts::range_deletes,
    &OpCounts::batches,       &OpCounts::batch_records,  &OpCounts::seeks,
    &OpCounts::nexts,         &OpCounts::prevs,          &OpCounts::bytes_read,
    &OpCounts::bytes_written,
};
inline constexpr size_t kNumOpCountFields = std::size(kOpCountFields);
static_assert(sizeof(OpCounts) == kNumOpCountFields * sizeof(uint64_t),
              "every OpCounts member must be listed in kOpCountFields");

constexpr size_t OpCountIndex(uint64_t OpCounts::*field) {
  for (size_t i = 0; i < kNumOpCountFields; ++i) {
    if (kOpCountFields[i] == field) return i;
  }
  return kNumOpCountFields;
}

// Thread-safe counters. Relaxed atomics: each counter is exact; a Snapshot taken while other
// threads are counting may mix counts from just before and just after.
class OpCounters {
 public:
  OpCounts Snapshot() const;
  void Add(const OpCounts& delta);
  void Reset();
  // Adds n to one counter, named by its OpCounts member.
  template <uint64_t OpCounts::*field>
  void Increment(uint64_t n = 1) {
    constexpr size_t i = OpCountIndex(field);
    static_assert(i < kNumOpCountFields);
    values_[i].fetch_add(n, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> values_[kNumOpCountFields] = {};
};

// Where a CountingStore counts: shared, thread-safe OpCounters, or a plain OpCounts that only
// one thread uses (the engine's per-command view, where atomics would be wasted).
class CountSink {
 public:
  explicit CountSink(OpCounters* shared) : shared_(shared) {}
  explicit CountSink(OpCounts* local) : local_(local) {}
  template <uint64_t OpCounts::*field>
  void Increment(uint64_t n = 1) {
    if (local_ != nullptr) {
      local_->*field += n;
    } else {
      shared_->Increment<field>(n);
    }
  }

 private:
  OpCounters* shared_ = nullptr;
  OpCounts* local_ = nullptr;
};

class CountingStore final : public KvStoreWrapper {
 public:
  // REQUIRES: base and sink outlive this store and its iterators.
  CountingStore(KvStore* base, OpCounters* sink) : KvStoreWrapper(base), sink_(sink) {}
  // Counts into a plain OpCounts. REQUIRES: one thread at a time uses this store.
  CountingStore(KvStore* base, OpCounts* sink) : KvStoreWrapper(base), sink_(sink) {}

  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const WriteBatch& batch) override;
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override;

  KvStore* base() const { return target(); }

 private:
  CountSink sink_;
};

// Difference b - a of two physical readings, matched by name (a counter missing in `a` counts
// from zero). Gauges subtract too; callers that want the gauge read `b` directly.
PhysicalCounters SubtractPhysical(const PhysicalCounters& b, const PhysicalCounters& a);

}  // namespace kvlab::backends
