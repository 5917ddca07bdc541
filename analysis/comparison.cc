#include "analysis/comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kvlab::analysis {

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kUnchanged:
      return "unchanged";
    case Verdict::kWorse:
      return "worse";
    case Verdict::kBetter:
      return "better";
    case Verdict::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

Comparison CompareSamples(std::span<const double> baseline, std::span<const double> current,
                          const ComparisonOptions& options) {
  if (!(options.threshold >= 0) || !std::isfinite(options.threshold)) {
    throw std::invalid_argument(
        fmt::format("CompareSamples: threshold = {} must be >= 0", options.threshold));
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    throw std::invalid_argument(
        fmt::format("CompareSamples: alpha = {} is outside (0, 1)", options.alpha));
  }
  CheckSample(baseline, "CompareSamples: baseline");
  CheckSample(current, "CompareSamples: current");

  Comparison c;
  c.baseline = Summarize(baseline);
  c.current = Summarize(current);
  if (c.baseline.median != 0) {
    c.ratio = c.current.median / c.baseline.median;
  } else {
    c.ratio = c.current.median == 0 ? 1 : std::numeric_limits<double>::infinity();
  }
  c.test = MannWhitneyU(current, baseline);
  c.minimum_p = MinimumPValue(current.size(), baseline.size());
  const auto positive = [](std::span<const double> s) {
    return std::all_of(s.begin(), s.end(), [](double v) { return v > 0; });
  };
  if (positive(baseline) && positive(current)) {
    c.has_interval = true;
    c.interval = RatioOfMedians(current, baseline, options.confidence);
  }

  const double change = c.ratio - 1;
  if (c.minimum_p > options.alpha) {
    c.verdict = Verdict::kInconclusive;
    c.reason = fmt::format(
        "n = {} vs {} can reach p = {:.3g} at best, more than alpha {:g}: need {} repetitions",
        current.size(), baseline.size(), c.minimum_p, options.alpha,
        RepetitionsNeeded(options.alpha));
    return c;
  }
  const bool significant = c.test.p_value <= options.alpha;
  const bool large = std::fabs(change) > options.threshold;
  if (significant && large) {
    const bool higher = change > 0;
    const bool worse = higher == (options.direction == Direction::kLowerIsBetter);
    c.verdict = worse ? Verdict::kWorse : Verdict::kBetter;
    c.reason = fmt::format("p = {:.2g} <= {:g} and {:+.1f}% beyond {:g}%", c.test.p_value,
                           options.alpha, 100 * change, 100 * options.threshold);
  } else if (significant) {
    c.verdict = Verdict::kUnchanged;
    c.reason = fmt::format("significant (p = {:.2g}) but {:+.1f}% is within {:g}%", c.test.p_value,
                           100 * change, 100 * options.threshold);
  } else {
    c.verdict = Verdict::kUnchanged;
    c.reason = fmt::format("not significant: p = {:.2g} > {:g} ({:+.1f}%)", c.test.p_value,
                           options.alpha, 100 * change);
  }
  return c;
}

}  // namespace kvlab::analysis
