// The order-preserving encoding of zset scores (004_*, NeoKV and Kvrocks):
//
//   bits = IEEE-754 bits of the double
//   negative (sign bit set): bits = ~bits        non-negative: bits ^= 1 << 63
//   stored as 8 bytes, big-endian
//
// so that, compared as bytes, -inf < negatives < -0 < +0 < positives < +inf. Camellia stored the
// raw IEEE bits, which sorts negatives after positives and in reverse: a defect kvlab does not
// copy. kvlab never stores -0: the engine turns a -0 score into +0 before it reaches an
// encoding (see docs/encodings.md), so that 0 and -0 tie and order by member, as in Redis.
// NaN is never stored: Redis rejects it before any write.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "encodings/coding.h"

namespace kvlab::encodings {

inline uint64_t ScoreToOrderedBits(double score) {
  uint64_t bits = std::bit_cast<uint64_t>(score);
  return (bits & (uint64_t{1} << 63)) ? ~bits : bits ^ (uint64_t{1} << 63);
}

inline double OrderedBitsToScore(uint64_t ordered) {
  uint64_t bits = (ordered & (uint64_t{1} << 63)) ? ordered ^ (uint64_t{1} << 63) : ~ordered;
  return std::bit_cast<double>(bits);
}

inline void PutScore(std::string* dst, double score) {
  PutFixed64BE(dst, ScoreToOrderedBits(score));
}

// REQUIRES: p points at 8 readable bytes.
inline double DecodeScore(const char* p) { return OrderedBitsToScore(DecodeFixed64BE(p)); }

}  // namespace kvlab::encodings
