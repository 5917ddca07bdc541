// Numbers as people read them: times in the unit that fits (850 ns, 15.7 µs, 15.7 ms, 1.57 s),
// rates with a thousands suffix (12.3k ops/s), everything to 3 significant digits. The gate's
// reports and `kvlab report` print timings this way; counters keep their exact digits.
#pragma once

#include <string>

namespace kvlab::gate {

// 3 significant digits, no exponent below 1e15: "1.57", "15.7", "157", "1570", "0.00123".
std::string ThreeDigits(double v);

// `ns` nanoseconds: "850 ns", "2.42 µs", "15.7 ms", "1.57 s"; "inf", "-" for non-finite.
std::string FormatDuration(double ns);

// A value of `unit`: "ns" as FormatDuration, rates ("ops/s", "calls/s", and any ".../s") with k,
// M, G suffixes ("12.3k ops/s"), anything else as ThreeDigits followed by the unit.
std::string FormatValue(double value, const std::string& unit);

}  // namespace kvlab::gate
