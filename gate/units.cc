#include "gate/units.h"

#include <fmt/format.h>

#include <cmath>

namespace kvlab::gate {

std::string ThreeDigits(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "-" : (v > 0 ? "inf" : "-inf");
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e15 || a < 1e-4) return fmt::format("{:.3g}", v);
  // Digits after the point so that 3 significant digits show (none at or above 100).
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, 2 - magnitude);
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string FormatDuration(double ns) {
  if (!std::isfinite(ns)) return ThreeDigits(ns);
  const double a = std::fabs(ns);
  if (a < 1e3) return ThreeDigits(ns) + " ns";
  if (a < 1e6) return ThreeDigits(ns / 1e3) + " µs";
  if (a < 1e9) return ThreeDigits(ns / 1e6) + " ms";
  return ThreeDigits(ns / 1e9) + " s";
}

std::string FormatValue(double value, const std::string& unit) {
  if (unit == "ns") return FormatDuration(value);
  if (unit.ends_with("/s") && std::isfinite(value)) {
    const double a = std::fabs(value);
    if (a >= 1e9) return ThreeDigits(value / 1e9) + "G " + unit;
    if (a >= 1e6) return ThreeDigits(value / 1e6) + "M " + unit;
    if (a >= 1e3) return ThreeDigits(value / 1e3) + "k " + unit;
  }
  return unit.empty() ? ThreeDigits(value) : ThreeDigits(value) + " " + unit;
}

}  // namespace kvlab::gate
