#include "analysis/change_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "analysis/summary.h"

namespace kvlab::analysis {

namespace {

struct Best {
  std::size_t tau = 0;  // values on the left; 0 = no split possible
  double energy = 0;
};

Best BestSplit(std::span<const double> segment, std::size_t min_segment) {
  const std::vector<double> q = EnergyStatistics(segment, min_segment);
  Best b;
  for (std::size_t tau = min_segment; tau + min_segment <= segment.size(); ++tau) {
    if (b.tau == 0 || q[tau - 1] > b.energy) b = {tau, q[tau - 1]};
  }
  return b;
}

struct Segment {
  std::size_t begin = 0, end = 0;  // [begin, end)
  Best best;
};

double MedianOf(std::span<const double> v) { return Summarize(v).median; }

}  // namespace

std::vector<double> EnergyStatistics(std::span<const double> x, std::size_t min_segment) {
  const std::size_t n = x.size();
  std::vector<double> q(n, 0.0);
  if (min_segment < 2 || n < 2 * min_segment) return q;
  // c[i * (n + 1) + j] = sum of |x_i' - x_j'| over i' < i, j' < j: any block sum in O(1).
  const std::size_t w = n + 1;
  std::vector<double> c(w * w, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double row = 0;
    for (std::size_t j = 0; j < n; ++j) {
      row += std::fabs(x[i] - x[j]);
      c[(i + 1) * w + j + 1] = c[i * w + j + 1] + row;
    }
  }
  auto block = [&](std::size_t r0, std::size_t r1, std::size_t c0, std::size_t c1) {
    return c[r1 * w + c1] - c[r0 * w + c1] - c[r1 * w + c0] + c[r0 * w + c0];
  };
  for (std::size_t tau = min_segment; tau + min_segment <= n; ++tau) {
    const double a = static_cast<double>(tau);
    const double within_left = block(0, tau, 0, tau) / 2;
    double best = -std::numeric_limits<double>::infinity();
    // Matteson and James's second end: the right side runs from tau to kappa, not necessarily to
    // the end, so that a level that changes and changes back (a regression later fixed) stands
    // out as clearly as one that stays.
    for (std::size_t kappa = tau + min_segment; kappa <= n; ++kappa) {
      const double b = static_cast<double>(kappa - tau);
      const double between = block(0, tau, tau, kappa);
      const double within_right = block(tau, kappa, tau, kappa) / 2;
      const double e = 2 * between / (a * b) - within_left / (a * (a - 1) / 2) -
                       within_right / (b * (b - 1) / 2);
      best = std::max(best, a * b / (a + b) * e);
    }
    q[tau - 1] = best;
  }
  return q;
}

std::vector<ChangePoint> EDivisive(std::span<const double> series,
                                   const ChangePointOptions& options) {
  if (options.min_segment < 2) {
    throw std::invalid_argument(
        fmt::format("EDivisive: min_segment = {} must be >= 2", options.min_segment));
  }
  if (!(options.significance > 0 && options.significance < 1)) {
    throw std::invalid_argument(
        fmt::format("EDivisive: significance = {} is outside (0, 1)", options.significance));
  }
  if (options.permutations < 1) throw std::invalid_argument("EDivisive: permutations must be >= 1");
  std::vector<ChangePoint> found;
  if (series.empty()) return found;
  CheckSample(series, "EDivisive: series");
  std::mt19937_64 random(options.seed);
  std::vector<Segment> segments = {{0, series.size(), {}}};
  segments[0].best = BestSplit(series, options.min_segment);
  // Besag-Clifford: stop shuffling once this many shuffles reached the observed energy (p is
  // then above the significance level whatever the remaining shuffles give).
  const double stop_at = options.significance * static_cast<double>(options.permutations + 1);
  std::vector<double> shuffled;
  while (true) {
    std::size_t pick = segments.size();
    for (std::size_t i = 0; i < segments.size(); ++i) {
      if (segments[i].best.tau == 0) continue;
      if (pick == segments.size() || segments[i].best.energy > segments[pick].best.energy) pick = i;
    }
    if (pick == segments.size()) break;
    const Segment seg = segments[pick];
    const std::span<const double> values = series.subspan(seg.begin, seg.end - seg.begin);
    shuffled.assign(values.begin(), values.end());
    // Relative slack: a shuffle equal to the observed order (ties) counts as reaching it.
    const double observed = seg.best.energy * (1 - 1e-12);
    std::size_t reached = 0, made = 0;
    while (made < options.permutations && static_cast<double>(reached) < stop_at) {
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      ++made;
      if (BestSplit(shuffled, options.min_segment).energy >= observed) ++reached;
    }
    const double p = static_cast<double>(reached + 1) / static_cast<double>(made + 1);
    if (p > options.significance) break;
    ChangePoint c;
    c.index = seg.begin + seg.best.tau;
    c.p_value = p;
    c.permutations = made;
    c.energy = seg.best.energy;
    found.push_back(c);
    Segment left{seg.begin, c.index, {}}, right{c.index, seg.end, {}};
    left.best = BestSplit(series.subspan(left.begin, left.end - left.begin), options.min_segment);
    right.best =
        BestSplit(series.subspan(right.begin, right.end - right.begin), options.min_segment);
    segments[pick] = left;
    segments.push_back(right);
  }
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : found[i - 1].index;
    const std::size_t to = i + 1 < found.size() ? found[i + 1].index : series.size();
    found[i].before_median = MedianOf(series.subspan(from, found[i].index - from));
    found[i].after_median = MedianOf(series.subspan(found[i].index, to - found[i].index));
  }
  return found;
}

}  // namespace kvlab::analysis
