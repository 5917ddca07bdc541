#include "analysis/family.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "analysis/summary.h"

namespace kvlab::analysis {

std::vector<double> HolmAdjust(std::span<const double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0 && p[i] <= 1)) {
      throw std::invalid_argument(fmt::format("HolmAdjust: p[{}] = {} is outside [0, 1]", i, p[i]));
    }
  }
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(m);
  double running = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const double step = std::min(1.0, static_cast<double>(m - j) * p[order[j]]);
    running = std::max(running, step);
    adjusted[order[j]] = running;
  }
  return adjusted;
}

double HolmFirstLevel(double alpha, std::size_t m) {
  return m == 0 ? alpha : alpha / static_cast<double>(m);
}

CommonShift FindCommonShift(std::span<const double> log_ratios, double threshold) {
  if (!(threshold >= 0) || !std::isfinite(threshold)) {
    throw std::invalid_argument(
        fmt::format("FindCommonShift: threshold = {} must be >= 0", threshold));
  }
  CommonShift c;
  c.rows = log_ratios.size();
  if (log_ratios.empty()) return c;
  CheckSample(log_ratios, "FindCommonShift: log ratios");
  const Summary s = Summarize(log_ratios);
  c.ratio = std::exp(s.median);
  c.low = std::exp(s.q1);
  c.high = std::exp(s.q3);
  // |exp(v) - 1| > threshold, the same way as the median.
  for (double v : log_ratios) {
    const bool beyond = s.median > 0   ? std::expm1(v) > threshold
                        : s.median < 0 ? -std::expm1(v) > threshold
                                       : false;
    if (beyond) ++c.beyond_threshold;
  }
  c.present = c.rows >= kCommonShiftMinRows && std::fabs(c.ratio - 1) > threshold;
  return c;
}

}  // namespace kvlab::analysis
