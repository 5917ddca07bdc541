// Fixed-width big-endian integers and prefix helpers for the byte layouts of kvlab's records.
// Big-endian so that unsigned integers sort in byte order, as the KV store compares keys.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kvlab::encodings {

inline void PutFixed32BE(std::string* dst, uint32_t v) {
  char buf[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                 static_cast<char>(v)};
  dst->append(buf, 4);
}

inline void PutFixed64BE(std::string* dst, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (56 - 8 * i));
  dst->append(buf, 8);
}

// REQUIRES: p points at 4 (resp. 8) readable bytes.
inline uint32_t DecodeFixed32BE(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

inline uint64_t DecodeFixed64BE(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | u[i];
  return v;
}

// The smallest key greater than every key that starts with `prefix`, or "" when there is none
// (the prefix is all 0xff bytes). Used as an exclusive upper bound for prefix scans.
inline std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(out.back());
    if (last != 0xff) {
      ++last;
      return out;
    }
    out.pop_back();
  }
  return out;
}

}  // namespace kvlab::encodings
