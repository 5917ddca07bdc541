#include "engine/key_locks.h"

#include <algorithm>
#include <functional>

namespace kvlab::engine {

StripeLock::StripeLock() {
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&lock_, &attr);
  pthread_rwlockattr_destroy(&attr);
}

StripeLock::~StripeLock() { pthread_rwlock_destroy(&lock_); }

KeyLocks::KeyLocks(size_t stripes, size_t large_command_keys)
    : stripes_(stripes), large_command_keys_(large_command_keys), locks_(new StripeLock[stripes]) {}

uint64_t KeyLocks::KeyHash(uint8_t db, std::string_view key) {
  const uint64_t h = std::hash<std::string_view>{}(key);
  return h ^ (static_cast<uint64_t>(db) * 0x9e3779b97f4a7c15ull);
}

void KeyLocks::Guard::LockStripes() {
  stripes_held_.clear();
  for (uint64_t h : hashes_) stripes_held_.push_back(h % locks_->stripes_);
  std::sort(stripes_held_.begin(), stripes_held_.end());
  stripes_held_.resize_down(static_cast<size_t>(
      std::unique(stripes_held_.begin(), stripes_held_.end()) - stripes_held_.begin()));
  for (size_t s : stripes_held_) locks_->locks_[s].Lock(mode_);
}

void KeyLocks::Guard::UnlockStripes() {
  size_t* s = stripes_held_.data();
  for (size_t i = stripes_held_.size(); i-- > 0;) locks_->locks_[s[i]].Unlock();
  stripes_held_.clear();
}

void KeyLocks::Guard::Lock() {
  if (hashes_.size() > locks_->large_command_keys_) {
    locks_->BeginLarge(this);
    large_ = true;
    return;
  }
  for (;;) {
    LockStripes();
    // The common case: no large command runs, and this is one load.
    if (!locks_->large_active_.load()) return;
    uint64_t generation = 0;
    if (!locks_->ConflictsWithLarge(hashes_.data(), hashes_.size(), mode_, &generation)) return;
    UnlockStripes();
    locks_->WaitLargeEnded(generation);
  }
}

void KeyLocks::Guard::LockEverything() {
  locks_->large_mu_.lock();
  everything_ = true;
  for (size_t s = 0; s < locks_->stripes_; ++s) {
    stripes_held_.push_back(s);
    // In the guard's mode: FLUSHDB's is exclusive; a reader of keys it cannot name beforehand
    // (SORT_RO with patterns) shares every stripe with other readers.
    locks_->locks_[s].Lock(mode_);
  }
}

void KeyLocks::Guard::Release() {
  if (large_) {
    locks_->EndLarge();
    large_ = false;
  }
  UnlockStripes();
  if (everything_) {
    locks_->large_mu_.unlock();
    everything_ = false;
  }
}

bool KeyLocks::ConflictsWithLarge(const uint64_t* hashes, size_t n, LockMode mode,
                                  uint64_t* generation) {
  std::lock_guard lock(registry_mu_);
  if (!large_active_.load()) return false;
  // Readers do not conflict with a large reader.
  if (!large_exclusive_ && mode == LockMode::kShared) return false;
  for (size_t i = 0; i < n; ++i) {
    if (large_keys_.count(hashes[i]) != 0) {
      *generation = large_generation_;
      return true;
    }
  }
  return false;
}

void KeyLocks::WaitLargeEnded(uint64_t generation) {
  std::unique_lock lock(registry_mu_);
  registry_cv_.wait(lock, [&] { return large_generation_ != generation; });
}

void KeyLocks::BeginLarge(Guard* guard) {
  large_mu_.lock();
  large_commands_.fetch_add(1, std::memory_order_relaxed);
  auto& hashes = guard->hashes_;
  {
    std::lock_guard lock(registry_mu_);
    large_keys_.reserve(hashes.size());
    large_keys_.insert(hashes.begin(), hashes.end());
    large_exclusive_ = guard->mode_ == LockMode::kExclusive;
    // Published before the barrier below: an ordinary command that takes one of these stripes
    // after the barrier passed it sees the set.
    large_active_.store(true);
  }
  // The barrier: every ordinary command that locked one of these stripes before the set was
  // published (and so may not have seen it) finishes first.
  std::vector<size_t> stripes;
  stripes.reserve(std::min(hashes.size(), stripes_));
  for (uint64_t h : hashes) stripes.push_back(h % stripes_);
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  for (size_t s : stripes) {
    locks_[s].Lock(guard->mode_);
    locks_[s].Unlock();
  }
}

void KeyLocks::EndLarge() {
  {
    std::lock_guard lock(registry_mu_);
    large_active_.store(false);
    std::unordered_set<uint64_t>().swap(large_keys_);  // a million keys' worth: give it back
    ++large_generation_;
  }
  registry_cv_.notify_all();
  large_mu_.unlock();
}

}  // namespace kvlab::engine
