// KeyLocks: per-key serialization, by lock striping for ordinary commands and by key
// registration for commands over very many keys.
//
// A command locks the keys it names before its first read and holds them until its last write
// (its KV commit and the Redis-tier steps after it). Two modes:
// - shared, for read-only commands: any number of readers of a key run at once;
// - exclusive, for commands that write: alone on their keys.
//
// Ordinary commands (up to `large_command_keys` keys) lock the stripes of their keys (a hash of
// database and key picks one of `stripes` reader-writer locks) in ascending stripe order, so two
// multi-key commands cannot deadlock. Two keys may share a stripe; that only serializes commands
// that could have run in parallel, never the reverse.
//
// A large command (a DEL or MGET of a million keys) would take every stripe and stall unrelated
// keys that share them for the whole command. Instead it registers the exact keys it touches
// (their 64-bit hashes) and holds no stripe while it runs:
//   1. large commands run one at a time (they are rare; FLUSHDB/FLUSHALL exclude them too);
//   2. it publishes its key set, then passes each of its stripes once (lock, unlock), which waits
//      out every ordinary command that locked that stripe before the set was published;
//   3. an ordinary command, once it holds its stripes, checks the published set (one atomic load
//      when no large command runs); if one of its keys is there and the modes conflict, it
//      releases its stripes, waits for the large command to end, and starts over.
// So an ordinary command on a key of the large command waits for it, as it must; one on any
// other key never does (a 64-bit hash collision can only add a wait, never remove one).
//
// FLUSHDB and FLUSHALL lock everything: no large command, and every stripe exclusively.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace kvlab::engine {

enum class LockMode : uint8_t { kShared, kExclusive };

// A reader-writer lock that prefers writers, so that a stream of readers of a hot key cannot
// starve a writer (std::shared_mutex on glibc prefers readers).
class StripeLock {
 public:
  StripeLock();
  ~StripeLock();
  StripeLock(const StripeLock&) = delete;
  StripeLock& operator=(const StripeLock&) = delete;
  void Lock(LockMode mode) {
    if (mode == LockMode::kExclusive) {
      pthread_rwlock_wrlock(&lock_);
    } else {
      pthread_rwlock_rdlock(&lock_);
    }
  }
  void Unlock() { pthread_rwlock_unlock(&lock_); }

 private:
  pthread_rwlock_t lock_;
};

class KeyLocks {
 public:
  KeyLocks(size_t stripes, size_t large_command_keys);
  KeyLocks(const KeyLocks&) = delete;
  KeyLocks& operator=(const KeyLocks&) = delete;

  size_t stripes() const { return stripes_; }
  size_t large_command_keys() const { return large_command_keys_; }
  // The 64-bit hash of a key of a database, and the stripe it falls in.
  static uint64_t KeyHash(uint8_t db, std::string_view key);
  size_t StripeOf(uint8_t db, std::string_view key) const { return KeyHash(db, key) % stripes_; }
  // Large commands run and ran so far, for INFO.
  uint64_t large_commands() const { return large_commands_.load(std::memory_order_relaxed); }

  // Holds one command's locks until destroyed. Add every key, then Lock() once (or
  // LockEverything() for FLUSHDB/FLUSHALL and SORT with patterns).
  class Guard {
   public:
    Guard(KeyLocks* locks, LockMode mode) : locks_(locks), mode_(mode) {}
    ~Guard() { Release(); }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

    void Add(uint8_t db, std::string_view key) { hashes_.push_back(KeyHash(db, key)); }
    // Locks the keys added: their stripes, or, past large_command_keys, their registration.
    void Lock();
    // Every key of every database, in the guard's mode (FLUSHDB's: exclusive); one such guard
    // at a time (large_mu_), and no large command meanwhile.
    void LockEverything();

   private:
    friend class KeyLocks;
    // A vector that holds its first few elements inline: most commands have one key, and
    // locking them allocates nothing.
    template <typename T>
    class SmallVector {
     public:
      void push_back(T v) {
        if (size_ == kInline) heap_.assign(inline_, inline_ + kInline);
        if (size_ < kInline) {
          inline_[size_] = v;
        } else {
          heap_.push_back(v);
        }
        ++size_;
      }
      T* data() { return size_ > kInline ? heap_.data() : inline_; }
      T* begin() { return data(); }
      T* end() { return data() + size_; }
      size_t size() const { return size_; }
      void resize_down(size_t n) {
        size_ = n;
        if (n <= kInline && !heap_.empty()) {
          std::copy(heap_.begin(), heap_.begin() + static_cast<ptrdiff_t>(n), inline_);
          heap_.clear();
        } else if (n > kInline) {
          heap_.resize(n);
        }
      }
      void clear() {
        size_ = 0;
        heap_.clear();
      }

     private:
      static constexpr size_t kInline = 8;
      T inline_[kInline];
      std::vector<T> heap_;
      size_t size_ = 0;
    };

    void LockStripes();
    void UnlockStripes();
    void Release();

    KeyLocks* locks_;
    const LockMode mode_;
    SmallVector<uint64_t> hashes_;
    SmallVector<size_t> stripes_held_;  // ascending, distinct; locked in mode_
    bool large_ = false;                // registered as the running large command
    bool everything_ = false;           // LockEverything
  };

 private:
  // Whether a running large command conflicts with an ordinary command on these keys; if so,
  // *generation identifies it. REQUIRES: the caller holds the keys' stripes.
  bool ConflictsWithLarge(const uint64_t* hashes, size_t n, LockMode mode, uint64_t* generation);
  // Waits until the large command of `generation` has ended.
  void WaitLargeEnded(uint64_t generation);
  void BeginLarge(Guard* guard);
  void EndLarge();

  const size_t stripes_;
  const size_t large_command_keys_;
  std::unique_ptr<StripeLock[]> locks_;

  std::mutex large_mu_;  // held by the running large command, and by LockEverything
  std::atomic<bool> large_active_{false};
  std::mutex registry_mu_;
  std::condition_variable registry_cv_;
  std::unordered_set<uint64_t> large_keys_;  // the running large command's key hashes
  bool large_exclusive_ = false;
  uint64_t large_generation_ = 0;
  std::atomic<uint64_t> large_commands_{0};
};

}  // namespace kvlab::engine
