#include "analysis/paired.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "analysis/summary.h"

namespace kvlab::analysis {

namespace {

// P(S = s) for S the sum of a random subset of `doubled_ranks` (each member in with probability
// 1/2): the sign-flip distribution of the doubled positive rank sum. Probabilities rather than
// counts, so that 2^60 patterns lose nothing to a double's 53 bits.
std::vector<double> SignFlipDistribution(const std::vector<std::int64_t>& doubled_ranks) {
  std::int64_t total = 0;
  for (std::int64_t r : doubled_ranks) total += r;
  std::vector<double> p(static_cast<std::size_t>(total) + 1, 0.0);
  p[0] = 1;
  std::int64_t reach = 0;
  for (std::int64_t r : doubled_ranks) {
    reach += r;
    // From the top, so that each rank is taken at most once.
    for (std::int64_t s = reach; s >= 0; --s) {
      const double without = p[static_cast<std::size_t>(s)];
      const double with = s >= r ? p[static_cast<std::size_t>(s - r)] : 0.0;
      p[static_cast<std::size_t>(s)] = 0.5 * (without + with);
    }
  }
  return p;
}

// P(T+ <= t) for the signed-rank statistic of n untied pairs: exact up to kSignedRankExactLimit,
// else the normal approximation with continuity correction.
class UntiedSignedRankNull {
 public:
  explicit UntiedSignedRankNull(std::size_t n) : n_(n) {
    if (n > kSignedRankExactLimit) return;
    std::vector<std::int64_t> ranks(n);
    for (std::size_t i = 0; i < n; ++i) ranks[i] = static_cast<std::int64_t>(i + 1);
    const std::vector<double> p = SignFlipDistribution(ranks);
    double running = 0;
    for (double v : p) {
      running += v;
      lower_tail_.push_back(running);
    }
  }

  double LowerTail(double t) const {
    if (t < 0) return 0;
    if (lower_tail_.empty()) {
      const double n = static_cast<double>(n_);
      const double mean = n * (n + 1) / 4;
      const double sd = std::sqrt(n * (n + 1) * (2 * n + 1) / 24);
      return boost::math::cdf(boost::math::normal(), (std::floor(t) + 0.5 - mean) / sd);
    }
    const std::size_t i = static_cast<std::size_t>(std::floor(t));
    return i < lower_tail_.size() ? lower_tail_[i] : 1;
  }

 private:
  std::size_t n_;
  std::vector<double> lower_tail_;  // [t] = P(T+ <= t)
};

}  // namespace

SignedRankResult WilcoxonSignedRank(std::span<const double> differences) {
  CheckSample(differences, "WilcoxonSignedRank: differences");
  SignedRankResult r;
  r.n = differences.size();
  std::vector<std::pair<double, bool>> nonzero;  // |d|, positive
  for (double d : differences) {
    if (d != 0) nonzero.emplace_back(std::fabs(d), d > 0);
  }
  r.nonzero = nonzero.size();
  if (nonzero.empty()) return r;  // p = 1: nothing leans either way
  std::sort(nonzero.begin(), nonzero.end());
  // Doubled mid-ranks (integers), by tie group.
  std::vector<std::int64_t> doubled(nonzero.size());
  double tie_term = 0;  // sum of t^3 - t over tie groups
  for (std::size_t i = 0; i < nonzero.size();) {
    std::size_t j = i;
    while (j < nonzero.size() && nonzero[j].first == nonzero[i].first) ++j;
    const std::int64_t rank2 = static_cast<std::int64_t>(i + 1 + j);
    for (std::size_t k = i; k < j; ++k) doubled[k] = rank2;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    if (j - i > 1) r.ties = true;
    i = j;
  }
  std::int64_t observed2 = 0, total2 = 0;
  for (std::size_t i = 0; i < nonzero.size(); ++i) {
    total2 += doubled[i];
    if (nonzero[i].second) observed2 += doubled[i];
  }
  r.w_plus = static_cast<double>(observed2) / 2;
  const std::size_t n = nonzero.size();
  if (n <= kSignedRankExactLimit) {
    r.exact = true;
    const std::vector<double> p = SignFlipDistribution(doubled);
    // |2 S - total| >= |2 observed - total|: "at least as far from the mean total / 2".
    const std::int64_t distance = std::llabs(2 * observed2 - total2);
    double extreme = 0;
    for (std::size_t s = 0; s < p.size(); ++s) {
      if (std::llabs(2 * static_cast<std::int64_t>(s) - total2) >= distance) extreme += p[s];
    }
    r.p_value = std::min(1.0, extreme);
    return r;
  }
  r.exact = false;
  const double nd = static_cast<double>(n);
  const double mean = nd * (nd + 1) / 4;
  const double variance = nd * (nd + 1) * (2 * nd + 1) / 24 - tie_term / 48;
  const double distance = std::max(0.0, std::fabs(r.w_plus - mean) - 0.5);
  r.p_value = variance <= 0
                  ? 1
                  : std::min(1.0, 2 * boost::math::cdf(boost::math::complement(
                                          boost::math::normal(), distance / std::sqrt(variance))));
  return r;
}

double MinimumSignedRankP(std::size_t n) {
  if (n == 0) return 1;
  return std::min(1.0, std::ldexp(1.0, 1 - static_cast<int>(std::min<std::size_t>(n, 1100))));
}

std::size_t PairsNeeded(double alpha) {
  if (!(alpha > 0 && alpha < 1)) {
    throw std::invalid_argument(fmt::format("PairsNeeded: alpha = {} is outside (0, 1)", alpha));
  }
  std::size_t n = 1;
  while (MinimumSignedRankP(n) > alpha) ++n;
  return n;
}

PairedRatio ComparePaired(std::span<const double> baseline, std::span<const double> current,
                          double confidence) {
  CheckSample(baseline, "ComparePaired: baseline", /*positive=*/true);
  CheckSample(current, "ComparePaired: current", /*positive=*/true);
  if (baseline.size() != current.size()) {
    throw std::invalid_argument(
        fmt::format("ComparePaired: {} baseline values but {} current ones: pairs need both",
                    baseline.size(), current.size()));
  }
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument(
        fmt::format("ComparePaired: confidence = {} is outside (0, 1)", confidence));
  }
  const std::size_t n = baseline.size();
  std::vector<double> d(n), ratios(n);
  for (std::size_t i = 0; i < n; ++i) {
    d[i] = std::log(current[i]) - std::log(baseline[i]);
    ratios[i] = current[i] / baseline[i];
  }
  PairedRatio r;
  r.pairs = n;
  r.test = WilcoxonSignedRank(d);
  r.median_ratio = Summarize(ratios).median;
  std::vector<double> walsh;
  walsh.reserve(n * (n + 1) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i; j < n; ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());
  const std::size_t m = walsh.size();
  r.estimate = std::exp(m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2);

  // Coverage of [W(k), W(m + 1 - k)] is 1 - 2 P(T+ <= k - 1); it falls as k grows: the largest
  // k that still covers `confidence`, by bisection over 1 <= k <= (m + 1) / 2.
  constexpr double kSlack = 1e-9;
  const UntiedSignedRankNull null(n);
  auto coverage = [&](std::size_t k) { return 1 - 2 * null.LowerTail(static_cast<double>(k) - 1); };
  std::size_t best = 0;
  if (coverage(1) + kSlack >= confidence) {
    std::size_t lo = 1, hi = (m + 1) / 2;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo + 1) / 2;
      if (coverage(mid) + kSlack >= confidence) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    best = lo;
  }
  r.attainable = best > 0;
  const std::size_t k = r.attainable ? best : 1;
  r.confidence = std::max(0.0, coverage(k));
  r.low = std::exp(walsh[k - 1]);
  r.high = std::exp(walsh[m - k]);
  return r;
}

}  // namespace kvlab::analysis
