#include "backends/rocksdb_range_compactor.h"

#include <rocksdb/options.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace kvlab::backends {

RocksDbRangeCompactor::RocksDbRangeCompactor(rocksdb::DB* db)
    : db_(db), thread_([this] { Run(); }) {}

RocksDbRangeCompactor::~RocksDbRangeCompactor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    pending_.clear();
  }
  wake_.notify_all();
  // A running CompactRange returns Incomplete at its next check instead of finishing.
  db_->DisableManualCompaction();
  thread_.join();
  db_->EnableManualCompaction();
}

bool RocksDbRangeCompactor::Request(rocksdb::ColumnFamilyHandle* cf,
                                    std::optional<std::string> begin,
                                    std::optional<std::string> end) {
  Range range{cf, std::move(begin), std::move(end)};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || pending_.size() >= kMaxPending) return false;
    if (std::find(pending_.begin(), pending_.end(), range) != pending_.end()) return false;
    pending_.push_back(std::move(range));
  }
  requested_.fetch_add(1, std::memory_order_relaxed);
  wake_.notify_one();
  return true;
}

void RocksDbRangeCompactor::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (stopping_) return;
    const Range range = std::move(pending_.front());
    pending_.pop_front();
    lock.unlock();

    rocksdb::CompactRangeOptions co;
    // Let automatic compactions run beside it, and do not hold the flush of an overlapping
    // memtable back for a write stall to clear.
    co.exclusive_manual_compaction = false;
    co.allow_write_stall = true;
    // Files already in the last level hold no tombstone a compaction could drop (one into the
    // last level drops them all, unless a snapshot still sees them): do not rewrite them alone.
    co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kSkip;
    rocksdb::Slice begin, end;
    if (range.begin) begin = rocksdb::Slice(*range.begin);
    if (range.end) end = rocksdb::Slice(*range.end);
    const auto start = std::chrono::steady_clock::now();
    rocksdb::Status s =
        db_->CompactRange(co, range.cf, range.begin ? &begin : nullptr, range.end ? &end : nullptr);
    const auto took = std::chrono::steady_clock::now() - start;
    if (s.ok()) {
      completed_.fetch_add(1, std::memory_order_relaxed);
    } else if (!s.IsIncomplete()) {
      // Best effort: the range stays as it is until the next scan asks again.
      std::fprintf(stderr, "kvlab: rocksdb: scan-triggered compaction: %s\n", s.ToString().c_str());
    }

    lock.lock();
    // The rest that bounds the share of time spent compacting; the destructor cuts it short.
    wake_.wait_for(lock, took * kRestFactor, [this] { return stopping_; });
    if (stopping_) return;
  }
}

}  // namespace kvlab::backends
