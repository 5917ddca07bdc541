#include "analysis/mann_whitney.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/binomial.hpp>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "analysis/summary.h"

namespace kvlab::analysis {

namespace {

// A run of equal values in the pooled, sorted sample: how many, and their mid-rank doubled
// (ranks are 1-based; doubling keeps every rank sum an integer, so "at least as extreme" is an
// exact integer comparison).
struct TieGroup {
  std::size_t size = 0;
  std::int64_t doubled_rank = 0;
  std::size_t from_x = 0;  // members that came from x
};

std::vector<TieGroup> PooledTieGroups(std::span<const double> x, std::span<const double> y) {
  std::vector<std::pair<double, bool>> pooled;  // value, from x
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  std::vector<TieGroup> groups;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    TieGroup g;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) {
      if (pooled[j].second) ++g.from_x;
      ++j;
    }
    g.size = j - i;
    g.doubled_rank = static_cast<std::int64_t>(i + 1) + static_cast<std::int64_t>(j);
    groups.push_back(g);
    i = j;
  }
  return groups;
}

// The permutation distribution of the doubled rank sum of a subset of `k` of the pooled
// observations: result[s] = the number of subsets (as a double, exact: C(40, 20) ~ 1.4e11 is far
// below 2^53) whose doubled rank sum is s.
std::vector<double> DoubledRankSumCounts(const std::vector<TieGroup>& groups, std::size_t k) {
  std::int64_t max_sum = 0;
  for (const TieGroup& g : groups) max_sum += static_cast<std::int64_t>(g.size) * g.doubled_rank;
  const std::size_t width = static_cast<std::size_t>(max_sum) + 1;
  // dp[c * width + s]: ways to take c observations from the groups seen so far with sum s.
  // Sums above the groups seen so far (`reach`) are zero and skipped.
  std::vector<double> dp((k + 1) * width, 0.0), next;
  dp[0] = 1;
  std::size_t seen = 0, reach = 0;
  for (const TieGroup& g : groups) {
    const std::size_t rank = static_cast<std::size_t>(g.doubled_rank);
    seen += g.size;
    reach += g.size * rank;
    if (g.size == 1) {
      // The common case (no tie): in place, from the top so each observation is taken once.
      for (std::size_t c = std::min(k, seen); c >= 1; --c) {
        const double* from = &dp[(c - 1) * width];
        double* to = &dp[c * width];
        for (std::size_t s = reach; s >= rank; --s) to[s] += from[s - rank];
      }
      continue;
    }
    next.assign(dp.size(), 0.0);
    for (std::size_t c = 0; c <= std::min(k, seen); ++c) {
      for (std::size_t j = 0; j <= std::min(g.size, c); ++j) {
        const double ways = boost::math::binomial_coefficient<double>(static_cast<unsigned>(g.size),
                                                                      static_cast<unsigned>(j));
        const std::size_t shift = j * rank;
        const double* from = &dp[(c - j) * width];
        double* to = &next[c * width];
        for (std::size_t s = shift; s <= reach; ++s) to[s] += ways * from[s - shift];
      }
    }
    dp.swap(next);
  }
  return std::vector<double>(dp.begin() + static_cast<std::ptrdiff_t>(k * width), dp.end());
}

// The null distribution of U without ties, for samples of n_x and n_y: exact up to
// kMannWhitneyExactLimit observations, else the normal approximation with continuity correction.
class UntiedNullDistribution {
 public:
  UntiedNullDistribution(std::size_t n_x, std::size_t n_y) : n_x_(n_x), n_y_(n_y) {
    const std::size_t n = n_x + n_y;
    if (n > kMannWhitneyExactLimit) return;
    std::vector<TieGroup> distinct(n);
    for (std::size_t i = 0; i < n; ++i) {
      distinct[i] = {1, static_cast<std::int64_t>(2 * (i + 1)), 0};
    }
    const std::vector<double> counts = DoubledRankSumCounts(distinct, n_x);
    // Doubled rank sum = 2 U + n_x (n_x + 1): U = u at index 2 u + n_x (n_x + 1).
    const std::size_t offset = n_x * (n_x + 1);
    double total = 0;
    for (double c : counts) total += c;
    double running = 0;
    for (std::size_t s = offset; s < counts.size(); s += 2) {
      running += counts[s];
      lower_tail_.push_back(running / total);
    }
  }

  // P(U <= u).
  double LowerTail(double u) const {
    if (u < 0) return 0;
    if (lower_tail_.empty()) {
      const double mean = static_cast<double>(n_x_ * n_y_) / 2;
      const double sd =
          std::sqrt(static_cast<double>(n_x_ * n_y_) * static_cast<double>(n_x_ + n_y_ + 1) / 12);
      return boost::math::cdf(boost::math::normal(), (std::floor(u) + 0.5 - mean) / sd);
    }
    const std::size_t index = static_cast<std::size_t>(std::floor(u));
    return index < lower_tail_.size() ? lower_tail_[index] : 1;
  }

 private:
  std::size_t n_x_, n_y_;
  std::vector<double> lower_tail_;  // exact: [u] = P(U <= u)
};

}  // namespace

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y) {
  CheckSample(x, "MannWhitneyU: x");
  CheckSample(y, "MannWhitneyU: y");
  MannWhitneyResult r;
  r.n_x = x.size();
  r.n_y = y.size();
  const std::size_t n = r.n_x + r.n_y;
  const std::vector<TieGroup> groups = PooledTieGroups(x, y);

  std::int64_t doubled_sum_x = 0;
  double tie_term = 0;  // sum of t^3 - t over tie groups
  for (const TieGroup& g : groups) {
    doubled_sum_x += static_cast<std::int64_t>(g.from_x) * g.doubled_rank;
    const double t = static_cast<double>(g.size);
    tie_term += t * t * t - t;
    if (g.size > 1) r.ties = true;
  }
  const double pairs = static_cast<double>(r.n_x) * static_cast<double>(r.n_y);
  r.u_x = (static_cast<double>(doubled_sum_x) - static_cast<double>(r.n_x * (r.n_x + 1))) / 2;
  r.prob_x_greater = r.u_x / pairs;

  if (groups.size() == 1) {  // every value equal: nothing to tell apart
    r.p_value = 1;
    r.exact = n <= kMannWhitneyExactLimit;
    return r;
  }
  if (n <= kMannWhitneyExactLimit) {
    r.exact = true;
    const std::vector<double> counts = DoubledRankSumCounts(groups, r.n_x);
    const std::int64_t doubled_mean = static_cast<std::int64_t>(r.n_x * (n + 1));
    const std::int64_t observed = std::llabs(doubled_sum_x - doubled_mean);
    double extreme = 0, total = 0;
    for (std::size_t s = 0; s < counts.size(); ++s) {
      total += counts[s];
      if (std::llabs(static_cast<std::int64_t>(s) - doubled_mean) >= observed) extreme += counts[s];
    }
    r.p_value = std::min(1.0, extreme / total);
    return r;
  }
  r.exact = false;
  const double nd = static_cast<double>(n);
  const double variance = pairs / 12 * ((nd + 1) - tie_term / (nd * (nd - 1)));
  const double distance = std::max(0.0, std::fabs(r.u_x - pairs / 2) - 0.5);
  r.p_value = variance <= 0
                  ? 1
                  : std::min(1.0, 2 * boost::math::cdf(boost::math::complement(
                                          boost::math::normal(), distance / std::sqrt(variance))));
  return r;
}

double MinimumPValue(std::size_t n_x, std::size_t n_y) {
  if (n_x == 0 || n_y == 0) return 1;
  const std::size_t n = n_x + n_y;
  // C(n, k) overflows a double past n ~ 1030; the bound is then 0 for any practical purpose.
  if (n > 1000) return 0;
  const double splits = boost::math::binomial_coefficient<double>(static_cast<unsigned>(n),
                                                                  static_cast<unsigned>(n_x));
  return std::min(1.0, 2 / splits);
}

std::size_t RepetitionsNeeded(double alpha) {
  if (!(alpha > 0 && alpha < 1)) {
    throw std::invalid_argument(
        fmt::format("RepetitionsNeeded: alpha = {} is outside (0, 1)", alpha));
  }
  std::size_t n = 1;
  while (MinimumPValue(n, n) > alpha) ++n;
  return n;
}

RatioInterval RatioOfMedians(std::span<const double> numerator, std::span<const double> denominator,
                             double confidence) {
  CheckSample(numerator, "RatioOfMedians: numerator", /*positive=*/true);
  CheckSample(denominator, "RatioOfMedians: denominator", /*positive=*/true);
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument(
        fmt::format("RatioOfMedians: confidence = {} is outside (0, 1)", confidence));
  }
  const std::size_t n_x = numerator.size(), n_y = denominator.size();
  std::vector<double> log_ratios;
  log_ratios.reserve(n_x * n_y);
  for (double a : numerator) {
    for (double b : denominator) log_ratios.push_back(std::log(a) - std::log(b));
  }
  std::sort(log_ratios.begin(), log_ratios.end());
  const std::size_t m = log_ratios.size();
  const double middle =
      m % 2 == 1 ? log_ratios[m / 2] : (log_ratios[m / 2 - 1] + log_ratios[m / 2]) / 2;

  RatioInterval r;
  r.estimate = std::exp(middle);
  r.median_ratio = Summarize(numerator).median / Summarize(denominator).median;

  // Coverage of [R(k), R(m + 1 - k)] is 1 - 2 P(U <= k - 1); it falls as k grows, so the
  // largest k that still covers `confidence` is found by bisection over 1 <= k <= (m + 1) / 2.
  constexpr double kSlack = 1e-9;  // 1 - 0.1 is not exactly 0.9 in binary
  const UntiedNullDistribution null(n_x, n_y);
  auto coverage = [&](std::size_t k) { return 1 - 2 * null.LowerTail(static_cast<double>(k) - 1); };
  std::size_t best_k = 0;
  double best_coverage = coverage(1);
  if (best_coverage + kSlack >= confidence) {
    std::size_t lo = 1, hi = (m + 1) / 2;  // coverage(lo) suffices; find the last k that does
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo + 1) / 2;
      if (coverage(mid) + kSlack >= confidence) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    best_k = lo;
    best_coverage = coverage(lo);
  }
  r.attainable = best_k > 0;
  const std::size_t k = r.attainable ? best_k : 1;
  r.confidence = std::max(0.0, best_coverage);
  r.low = std::exp(log_ratios[k - 1]);
  r.high = std::exp(log_ratios[m - k]);
  r.significant = r.attainable && (log_ratios[k - 1] > 0 || log_ratios[m - k] < 0);
  return r;
}

}  // namespace kvlab::analysis
