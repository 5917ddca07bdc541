// KeyLocks: per-key serialization by lock striping.
//
// A command locks the stripes of all its keys (hash of database and key) in ascending stripe
// order, so two multi-key commands cannot deadlock. Two keys may share a stripe; that only
// serializes commands that could have run in parallel, never the reverse. docs/engine.md says
// why kvlab stripes locks rather than routing a key to one worker thread as Camellia does.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace kvlab {

class KeyLocks {
 public:
  explicit KeyLocks(size_t stripes) : stripes_(stripes), mutexes_(new std::mutex[stripes]) {}

  size_t StripeOf(uint8_t db, std::string_view key) const {
    const size_t h = std::hash<std::string_view>{}(key);
    return (h ^ (static_cast<size_t>(db) * 0x9e3779b97f4a7c15ull)) % stripes_;
  }

  // Holds the stripes of a set of keys until destroyed.
  class Guard {
   public:
    Guard(KeyLocks* locks, std::vector<size_t> stripes)
        : locks_(locks), stripes_(std::move(stripes)) {
      std::sort(stripes_.begin(), stripes_.end());
      stripes_.erase(std::unique(stripes_.begin(), stripes_.end()), stripes_.end());
      for (size_t s : stripes_) locks_->mutexes_[s].lock();
    }
    ~Guard() {
      for (auto it = stripes_.rbegin(); it != stripes_.rend(); ++it) locks_->mutexes_[*it].unlock();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    KeyLocks* locks_;
    std::vector<size_t> stripes_;
  };

 private:
  const size_t stripes_;
  std::unique_ptr<std::mutex[]> mutexes_;
};

}  // namespace kvlab
