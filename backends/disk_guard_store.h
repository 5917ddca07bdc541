// DiskGuardStore: refuses writes while the filesystem of a store's directory has less free space
// than a reserve, so that a full disk is an error reply instead of the backend's own failure.
//
// Why a guard in front of the backends: none of kvlab's embedded backends survives running out
// of space by itself (docs/engine.md, "A full disk"). LMDB writes through a memory map and dies
// of SIGBUS when the filesystem cannot back a page; RocksDB 7.8 (Debian's build keeps its
// assertions) aborts in its WAL writer after ENOSPC; WiredTiger 3.2 panics, and every later call,
// reads included, fails until a restart. So the space must be refused before the backend asks
// the filesystem for it. The reserve is what the backend's own background work (RocksDB's
// memtable flushes and compactions, WiredTiger's checkpoints and log files) still needs while
// writes are refused.
//
// The check is cheap: statvfs(2) on the directory, cached. The cached free space is trusted until
// kRecheckInterval has passed or kRecheckBytes have been written through the guard since the
// last statvfs, whichever comes first; the bytes written since are subtracted from it meanwhile.
// While writes are refused the space is checked again at most every kRecheckInterval, so writes
// resume by themselves within that interval of space returning (no restart, no command).
//
// What is refused: Put, Delete, DeleteRange and Write (a delete needs space too: a RocksDB
// tombstone, LMDB's copy-on-write pages, WiredTiger's log record; none returns space to the
// filesystem before a compaction or a checkpoint). Reads, iterators and Flush pass through. A
// refused write applies nothing, so an error reply never hides an applied write.
// The error is a NoSpace Status (the engine replies MISCONF, as Redis does to a write it cannot
// persist) whose message starts with "disk full:" and names the directory, the free space and
// the reserve.
//
// What the backend writes on its own decides how small the reserve may be (DiskNeeds): a
// backend whose background writes are bounded by its settings (WiredTiger: its cache and its
// log files) states the least reserve that covers them, and CheckDiskReserve refuses a smaller
// one when the store opens, naming the minimum, rather than letting the backend panic later.
//
// The guard bounds what kvlab writes; something else filling the filesystem can still take the
// reserve away between two checks. LMDB additionally preallocates the pages a write transaction
// may touch (lmdb_page_budget.h), so it cannot die of SIGBUS even then.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

// How much free space a store keeps on its filesystem: a byte count, or a percentage of the
// filesystem's size. Zero (the default) means no reserve and no guard.
struct DiskReserve {
  uint64_t bytes = 0;
  double percent = 0;  // 0 <= percent < 100; used when non-zero

  bool enabled() const { return bytes > 0 || percent > 0; }
  // The reserve in bytes on a filesystem of `filesystem_bytes`.
  uint64_t BytesOn(uint64_t filesystem_bytes) const;
  // "256 MiB" or "5% of the filesystem", for messages.
  std::string Describe() const;
};

// Parses a reserve as the --disk-reserve flag takes it: "0" (no reserve), a size with an optional
// unit as Redis's memory values take them ("256mb", "1gb", "500000"; k = 1000, kb = 1024), or a
// percentage of the filesystem below 100 ("5%", "0.5%"). Fails with a message that says what was
// expected.
Status ParseDiskReserve(std::string_view text, DiskReserve* out);

// What a backend writes on its own, which the guard's reserve must cover.
struct DiskNeeds {
  // The least reserve that covers what the backend may still write while writes are refused
  // (0: any reserve will do). OpenStore refuses a smaller reserve (CheckDiskReserve).
  uint64_t min_reserve = 0;
  // What min_reserve is made of, for the error that refuses a smaller reserve.
  std::string why;
  // How many times a written byte lands on the disk in the window between two readings of the
  // free space: the guard charges each write this many times its bytes. WiredTiger writes a
  // record to its log and later to its table, and a record larger than its cache is not covered
  // by min_reserve.
  uint64_t copies = 1;
};

// OK when `reserve`, on the filesystem of `dir` (a percentage is taken of its size), is at least
// needs.min_reserve; otherwise InvalidArgument naming the backend, both sizes and needs.why.
Status CheckDiskReserve(const std::string& backend, const std::string& dir,
                        const DiskReserve& reserve, const DiskNeeds& needs);

class DiskGuardStore : public KvStoreWrapper {
 public:
  // The longest time a cached free-space reading is trusted.
  static constexpr std::chrono::milliseconds kRecheckInterval{100};
  // The most bytes written through the guard before the free space is read again.
  static constexpr uint64_t kRecheckBytes = 1 << 20;

  // dir: the store's directory, whose filesystem is checked. REQUIRES: reserve.enabled(),
  // needs.copies >= 1.
  DiskGuardStore(std::unique_ptr<KvStore> target, std::string dir, DiskReserve reserve,
                 DiskNeeds needs = {});

  std::string name() const override { return target()->name(); }
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const WriteBatch& batch) override;

  // Writes refused so far (for INFO-like reports and tests).
  uint64_t refused() const;

 private:
  // OK when a write of `bytes` leaves the reserve free, else the "disk full" error.
  Status Admit(uint64_t bytes);

  const std::string dir_;
  const DiskReserve reserve_;
  const uint64_t copies_;
  mutable std::mutex mu_;
  std::chrono::steady_clock::time_point checked_at_;  // guarded by mu_
  bool checked_ = false;                              // guarded by mu_
  uint64_t free_bytes_ = 0;                           // at the last statvfs; guarded by mu_
  uint64_t reserve_bytes_ = 0;                        // guarded by mu_
  uint64_t written_since_ = 0;                        // guarded by mu_
  uint64_t refused_ = 0;                              // guarded by mu_
  std::string statvfs_error_;                         // guarded by mu_
};

}  // namespace kvlab::backends
