#include "resp/redis_numbers.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace kvlab::resp {
namespace {

// Redis's MAX_LONG_DOUBLE_CHARS: the buffer size of string2ld and ld2string.
constexpr size_t kMaxLongDoubleChars = 5 * 1024;

}  // namespace

bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  size_t i = 0;
  bool negative = false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  if (s[0] == '-') {
    negative = true;
    if (++i == s.size()) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  const std::string buf(s);  // NUL-terminated for strtod; an embedded NUL ends the parse early
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(buf.c_str(), &end);
  if (static_cast<size_t>(end - buf.c_str()) != buf.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

bool ParseLongDouble(std::string_view s, long double* out) {
  if (s.empty() || s.size() >= kMaxLongDoubleChars) return false;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return false;
  const std::string buf(s);
  char* end = nullptr;
  errno = 0;
  const long double v = std::strtold(buf.c_str(), &end);
  if (static_cast<size_t>(end - buf.c_str()) != buf.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

bool ParseScoreBound(std::string_view s, double* value, bool* exclusive) {
  *exclusive = !s.empty() && s[0] == '(';
  if (*exclusive) s.remove_prefix(1);
  const std::string buf(s);
  char* end = nullptr;
  const double v = std::strtod(buf.c_str(), &end);
  // As in Redis, parsing stops at an embedded NUL, and an empty text reads as 0.
  if (*end != '\0' || std::isnan(v)) return false;
  *value = v;
  return true;
}

std::string FormatDouble(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const int n = std::snprintf(buf, sizeof(buf), "%.17g", v);
  return std::string(buf, static_cast<size_t>(n));
}

std::string FormatListpackScore(double v) {
  // double2ll: the cast is exact within +-LLONG_MAX/2, and the score integral.
  if (v >= static_cast<double>(-LLONG_MAX / 2) && v <= static_cast<double>(LLONG_MAX / 2)) {
    const auto ll = static_cast<long long>(v);
    if (static_cast<double>(ll) == v) return std::to_string(ll);
  }
  return FormatDouble(v);
}

bool FormatLongDoubleHuman(long double v, std::string* out) {
  if (std::isinf(v)) {
    *out = v > 0 ? "inf" : "-inf";
    return true;
  }
  char buf[kMaxLongDoubleChars];
  int n = std::snprintf(buf, sizeof(buf), "%.17Lf", v);
  if (n < 0 || static_cast<size_t>(n) + 1 > sizeof(buf)) return false;
  if (std::memchr(buf, '.', static_cast<size_t>(n)) != nullptr) {
    while (buf[n - 1] == '0') --n;
    if (buf[n - 1] == '.') --n;
  }
  if (n == 2 && buf[0] == '-' && buf[1] == '0') {
    *out = "0";
    return true;
  }
  out->assign(buf, static_cast<size_t>(n));
  return true;
}

}  // namespace kvlab::resp
