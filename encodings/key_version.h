// KeyVersionGenerator: unique, monotonic key-versions (the 004_* scheme).
//
//   version = (Unix time in microseconds << 11) + counter        (53 + 11 bits)
//
// Each Next() returns max(previous + 1, (now << 11) + seed): strictly increasing within a
// process even when the clock stalls or steps back, and, across restarts, above every version
// issued before as long as the clock did not go back by more than the time since the last
// version. The seed (0-2047) is random per generator, as 004_* seeds its counter at start-up, so
// that two processes writing one store in the same microsecond (a follower promoted while the
// old leader still writes) are unlikely to issue the same version. Camellia used the creation
// time in ms, so a key deleted and re-created within one millisecond could see its old sub-keys
// again; this generator never repeats a version.
#pragma once

#include <atomic>
#include <cstdint>
#include <random>

#include "encodings/clock.h"

namespace kvlab::encodings {

class KeyVersionGenerator {
 public:
  static constexpr int kCounterBits = 11;

  // REQUIRES: clock outlives the generator; seed < 2^kCounterBits.
  KeyVersionGenerator(const Clock* clock, uint64_t seed) : clock_(clock), seed_(seed) {}
  // A random seed.
  explicit KeyVersionGenerator(const Clock* clock) : KeyVersionGenerator(clock, RandomSeed()) {}

  uint64_t seed() const { return seed_; }

  uint64_t Next() {
    const uint64_t floor = (static_cast<uint64_t>(clock_->NowMicros()) << kCounterBits) + seed_;
    uint64_t last = last_.load(std::memory_order_relaxed);
    uint64_t next;
    do {
      next = last + 1 > floor ? last + 1 : floor;
    } while (!last_.compare_exchange_weak(last, next, std::memory_order_relaxed));
    return next;
  }

 private:
  static uint64_t RandomSeed() {
    std::random_device rd;
    return rd() & ((uint64_t{1} << kCounterBits) - 1);
  }

  const Clock* clock_;
  const uint64_t seed_;
  std::atomic<uint64_t> last_{0};
};

}  // namespace kvlab::encodings
