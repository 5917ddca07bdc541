#include "base/memory_value.h"

#include <strings.h>

#include <charconv>
#include <string>

namespace kvlab {

bool ParseMemoryValue(std::string_view text, uint64_t* bytes) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19) return false;
  const std::string unit(text.substr(digits));
  uint64_t multiplier = 0;
  if (unit.empty() || !strcasecmp(unit.c_str(), "b")) {
    multiplier = 1;
  } else if (!strcasecmp(unit.c_str(), "k")) {
    multiplier = 1000;
  } else if (!strcasecmp(unit.c_str(), "kb")) {
    multiplier = 1024;
  } else if (!strcasecmp(unit.c_str(), "m")) {
    multiplier = 1000 * 1000;
  } else if (!strcasecmp(unit.c_str(), "mb")) {
    multiplier = 1024 * 1024;
  } else if (!strcasecmp(unit.c_str(), "g")) {
    multiplier = 1000ull * 1000 * 1000;
  } else if (!strcasecmp(unit.c_str(), "gb")) {
    multiplier = 1024ull * 1024 * 1024;
  } else {
    return false;
  }
  uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || number > UINT64_MAX / multiplier) return false;
  *bytes = number * multiplier;
  return true;
}

}  // namespace kvlab
