// The scan-triggered range compaction of the RocksDB store (StoreOptions::
// rocksdb_scan_compact_trigger): a scan that stepped over many deleted records asks for the key
// range it walked to be compacted, and this compacts it on a thread of its own.
//
// Why: a churned range (a zset's score index: every re-score deletes one record and writes
// another) fills with tombstones in the memtable, in L0 files and in the levels below, and every
// scan of the range steps over them until a compaction happens to reach them; level compaction
// drops a Delete only at the last level, and a SingleDelete only when it meets its Put. A flush
// (the scan-triggered flush) turns the memtable's into one more L0 file that every read then
// consults. DB::CompactRange over the walked range does both at once: it flushes the memtable
// if it overlaps the range, and compacts the files overlapping the range down to the last level,
// where the SingleDeletes meet their Puts and the Deletes have nothing left to shadow. Scans of
// the range then step over nothing until it churns again. RocksDB 7.8 has no such trigger of its
// own (CompactOnDeletionCollector marks whole files at flush time, by their own density, and
// bought nothing measurable in docs/studies/zset-churn).
//
// Bounds on the work, so that a read-heavy workload over a churned store cannot keep RocksDB
// compacting: one compaction at a time, on one thread; at most one pending request per range
// (a request for a range already pending is dropped) and at most kMaxPending pending in all
// (more are dropped: the next scan asks again); and after each compaction the thread rests
// kRestFactor times as long as the compaction took, so it spends at most 1/(1+kRestFactor) of
// its time compacting. The destructor aborts a running compaction and drops the pending ones.
//
// Only rocksdb_store.cc includes this header: no RocksDB type leaves backends/.
#pragma once

#include <rocksdb/db.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace kvlab::backends {

class RocksDbRangeCompactor {
 public:
  // REQUIRES: `db` outlives this object.
  explicit RocksDbRangeCompactor(rocksdb::DB* db);
  // Aborts a running compaction (DB::DisableManualCompaction), drops the pending ones and joins
  // the thread. REQUIRES: called before the DB is closed.
  ~RocksDbRangeCompactor();
  RocksDbRangeCompactor(const RocksDbRangeCompactor&) = delete;
  RocksDbRangeCompactor& operator=(const RocksDbRangeCompactor&) = delete;

  // Asks for [begin, end] of `cf` to be compacted (an absent bound: that end of the key space).
  // Returns at once; false if the request was dropped (already pending, or too many pending).
  // REQUIRES: `cf` stays valid until this object is destroyed.
  bool Request(rocksdb::ColumnFamilyHandle* cf, std::optional<std::string> begin,
               std::optional<std::string> end);

  // Compactions requested (accepted) and compactions that completed.
  uint64_t requested() const { return requested_.load(std::memory_order_relaxed); }
  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }

 private:
  static constexpr size_t kMaxPending = 16;
  static constexpr int kRestFactor = 4;

  struct Range {
    rocksdb::ColumnFamilyHandle* cf;
    std::optional<std::string> begin;
    std::optional<std::string> end;
    bool operator==(const Range&) const = default;
  };

  void Run();

  rocksdb::DB* const db_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Range> pending_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  std::atomic<uint64_t> requested_{0};
  std::atomic<uint64_t> completed_{0};
  std::thread thread_;  // last: started once everything above is constructed
};

}  // namespace kvlab::backends
