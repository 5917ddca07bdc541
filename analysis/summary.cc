#include "analysis/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kvlab::analysis {

namespace {

// Type-7 quantile of an already sorted, non-empty sample.
double SortedQuantile(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

double Relative(double spread, double median) {
  if (median != 0) return spread / std::fabs(median);
  return spread == 0 ? 0 : std::numeric_limits<double>::infinity();
}

}  // namespace

void CheckSample(std::span<const double> sample, const char* what, bool positive) {
  if (sample.empty()) throw std::invalid_argument(fmt::format("{}: the sample is empty", what));
  for (std::size_t i = 0; i < sample.size(); ++i) {
    if (!std::isfinite(sample[i])) {
      throw std::invalid_argument(
          fmt::format("{}: value {} is not a finite number ({})", what, i, sample[i]));
    }
    if (positive && !(sample[i] > 0)) {
      throw std::invalid_argument(
          fmt::format("{}: value {} is {}, but must be greater than 0", what, i, sample[i]));
    }
  }
}

double Summary::RelativeMad() const { return Relative(mad, median); }
double Summary::RelativeRange() const { return Relative(max - min, median); }

Summary Summarize(std::span<const double> sample) {
  CheckSample(sample, "Summarize");
  std::vector<double> sorted(sample.begin(), sample.end());
  std::sort(sorted.begin(), sorted.end());
  Summary s;
  s.n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.q1 = SortedQuantile(sorted, 0.25);
  s.median = SortedQuantile(sorted, 0.5);
  s.q3 = SortedQuantile(sorted, 0.75);
  s.iqr = s.q3 - s.q1;
  std::vector<double> deviations;
  deviations.reserve(sorted.size());
  for (double v : sorted) deviations.push_back(std::fabs(v - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = SortedQuantile(deviations, 0.5);
  return s;
}

double Quantile(std::span<const double> sample, double p) {
  CheckSample(sample, "Quantile");
  if (!(p >= 0 && p <= 1)) {
    throw std::invalid_argument(fmt::format("Quantile: p = {} is outside [0, 1]", p));
  }
  std::vector<double> sorted(sample.begin(), sample.end());
  std::sort(sorted.begin(), sorted.end());
  return SortedQuantile(sorted, p);
}

std::string FormatSummary(const Summary& s) {
  return fmt::format("median {:.6g} [min {:.6g}, max {:.6g}], MAD {:.1f}%, n={}", s.median, s.min,
                     s.max, 100 * s.RelativeMad(), s.n);
}

}  // namespace kvlab::analysis
