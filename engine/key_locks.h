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

namespace kvlab::engine {

class KeyLocks {
 public:
  explicit KeyLocks(size_t stripes) : stripes_(stripes), mutexes_(new std::mutex[stripes]) {}

  size_t stripes() const { return stripes_; }

  size_t StripeOf(uint8_t db, std::string_view key) const {
    const size_t h = std::hash<std::string_view>{}(key);
    return (h ^ (static_cast<size_t>(db) * 0x9e3779b97f4a7c15ull)) % stripes_;
  }

  // Holds the stripes of a set of keys until destroyed. Add every stripe, then Lock().
  class Guard {
   public:
    explicit Guard(KeyLocks* locks) : locks_(locks) {}
    ~Guard() {
      for (size_t i = locked_; i-- > 0;) locks_->mutexes_[data()[i]].unlock();
    }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

    void Add(size_t stripe) {
      if (count_ == kInline) overflow_.assign(inline_, inline_ + kInline);
      if (count_ < kInline) {
        inline_[count_] = stripe;
      } else {
        overflow_.push_back(stripe);
      }
      ++count_;
    }
    // Locks the stripes added, in ascending order, each once.
    void Lock() {
      size_t* first = data();
      std::sort(first, first + count_);
      count_ = static_cast<size_t>(std::unique(first, first + count_) - first);
      for (locked_ = 0; locked_ < count_; ++locked_) locks_->mutexes_[first[locked_]].lock();
    }

   private:
    // Most commands have one key: no allocation up to kInline keys.
    static constexpr size_t kInline = 8;
    size_t* data() { return overflow_.empty() ? inline_ : overflow_.data(); }

    KeyLocks* locks_;
    size_t inline_[kInline];
    std::vector<size_t> overflow_;
    size_t count_ = 0;
    size_t locked_ = 0;
  };

 private:
  const size_t stripes_;
  std::unique_ptr<std::mutex[]> mutexes_;
};

}  // namespace kvlab::engine
