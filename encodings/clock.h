// Clock: the time source for expiry and key-versions. Tests use a ManualClock so that expiry
// is deterministic; everything else uses SystemClock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace kvlab::encodings {

class Clock {
 public:
  virtual ~Clock() = default;
  // Unix time.
  virtual int64_t NowMicros() const = 0;
  int64_t NowMillis() const { return NowMicros() / 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that moves only when told to. Safe to read and advance from several threads.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t start_micros) : now_(start_micros) {}
  int64_t NowMicros() const override { return now_.load(std::memory_order_relaxed); }
  void AdvanceMillis(int64_t ms) { now_.fetch_add(ms * 1000, std::memory_order_relaxed); }
  void SetMillis(int64_t ms) { now_.store(ms * 1000, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace kvlab::encodings
