// Tests of kvlab::analysis. Reference values come from SciPy 1.10 (scipy.stats.mannwhitneyu)
// and, for the exact tied distribution, from brute-force enumeration of every split (here in
// BruteForceP, independent of the library's dynamic programme).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/mann_whitney.h"
#include "analysis/summary.h"

namespace kvlab::analysis {
namespace {

TEST(Summary, QuartilesAreType7) {
  const std::vector<double> v = {7, 1, 3, 5};  // sorted 1 3 5 7
  const Summary s = Summarize(v);
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 7);
  EXPECT_DOUBLE_EQ(s.median, 4);
  EXPECT_DOUBLE_EQ(s.q1, 2.5);  // h = 0.75: 1 + 0.75 * 2
  EXPECT_DOUBLE_EQ(s.q3, 5.5);
  EXPECT_DOUBLE_EQ(s.iqr, 3);
  EXPECT_DOUBLE_EQ(s.mad, 2);  // deviations 3 1 1 3
  EXPECT_DOUBLE_EQ(Quantile(v, 0.9), 6.4);
}

TEST(Summary, OneValueAndOutliers) {
  const std::vector<double> one = {42};
  const Summary s1 = Summarize(one);
  EXPECT_DOUBLE_EQ(s1.median, 42);
  EXPECT_DOUBLE_EQ(s1.mad, 0);
  EXPECT_DOUBLE_EQ(s1.RelativeMad(), 0);
  // One wild repetition moves neither the median nor the MAD much.
  const std::vector<double> noisy = {100, 101, 99, 100, 5000};
  const Summary s = Summarize(noisy);
  EXPECT_DOUBLE_EQ(s.median, 100);
  EXPECT_DOUBLE_EQ(s.mad, 1);
  EXPECT_DOUBLE_EQ(s.RelativeMad(), 0.01);
  EXPECT_DOUBLE_EQ(s.RelativeRange(), 49.01);
  const std::vector<double> zeros = {0, 0, 1};
  EXPECT_TRUE(std::isinf(Summarize(zeros).RelativeRange()));
}

TEST(Summary, BadInputThrowsWithAMessage) {
  const std::vector<double> empty;
  EXPECT_THROW(Summarize(empty), std::invalid_argument);
  const std::vector<double> nan = {1, std::nan("")};
  try {
    Summarize(nan);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("value 1 is not a finite number"), std::string::npos);
  }
  const std::vector<double> ok = {1, 2};
  EXPECT_THROW(Quantile(ok, 1.5), std::invalid_argument);
}

TEST(MannWhitney, ExactWithoutTiesMatchesScipy) {
  const std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  MannWhitneyResult r = MannWhitneyU(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_DOUBLE_EQ(r.u_x, 0);
  EXPECT_DOUBLE_EQ(r.prob_x_greater, 0);
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  r = MannWhitneyU(b, a);
  EXPECT_DOUBLE_EQ(r.u_x, 9);
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);

  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<double> y = {3.5, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  r = MannWhitneyU(x, y);
  EXPECT_DOUBLE_EQ(r.u_x, 7);
  EXPECT_NEAR(r.p_value, 0.0004871289701011063, 1e-15);
}

TEST(MannWhitney, ExactWithTiesUsesTheConditionalDistribution) {
  // Brute force over all 126 splits (Python, scipy.stats.rankdata): U = 6, p = 0.388888...
  // SciPy's "exact" ignores the ties (0.4127) and its normal approximation gives 0.3749; both
  // are wrong here.
  const std::vector<double> x = {10, 10, 20, 30}, y = {10, 20, 20, 40, 50};
  const MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_TRUE(r.exact);
  EXPECT_TRUE(r.ties);
  EXPECT_DOUBLE_EQ(r.u_x, 6);
  EXPECT_NEAR(r.p_value, 0.3888888888888889, 1e-12);

  const std::vector<double> x2 = {1.1, 2.2, 3.3, 4.4}, y2 = {0.5, 2.2, 2.2, 5.5, 6.6};
  const MannWhitneyResult r2 = MannWhitneyU(x2, y2);
  EXPECT_DOUBLE_EQ(r2.u_x, 9);
  EXPECT_NEAR(r2.p_value, 0.9126984126984127, 1e-12);
}

// p by enumerating every split of the pooled sample (mid-ranks for ties).
double BruteForceP(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> pooled = x;
  pooled.insert(pooled.end(), y.begin(), y.end());
  const std::size_t n = pooled.size();
  std::vector<double> rank(n);
  for (std::size_t i = 0; i < n; ++i) {
    double less = 0, equal = 0;
    for (double v : pooled) {
      if (v < pooled[i]) ++less;
      if (v == pooled[i]) ++equal;
    }
    rank[i] = less + (equal + 1) / 2;
  }
  double observed = 0;
  for (std::size_t i = 0; i < x.size(); ++i) observed += rank[i];
  const double mean = static_cast<double>(x.size() * (n + 1)) / 2;
  double extreme = 0, total = 0;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != x.size()) continue;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (mask & (1u << i)) sum += rank[i];
    }
    ++total;
    if (std::fabs(sum - mean) >= std::fabs(observed - mean) - 1e-9) ++extreme;
  }
  return extreme / total;
}

TEST(MannWhitney, ExactAgreesWithEnumerationOnRandomTiedSamples) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t nx = 1 + rng() % 7, ny = 1 + rng() % 7;
    std::vector<double> x(nx), y(ny);
    for (double& v : x) v = static_cast<double>(rng() % 5);  // many ties
    for (double& v : y) v = static_cast<double>(rng() % 5 + rng() % 2);
    const MannWhitneyResult r = MannWhitneyU(x, y);
    ASSERT_NEAR(r.p_value, BruteForceP(x, y), 1e-12) << "trial " << trial;
  }
}

TEST(MannWhitney, NormalApproximationWithTieCorrectionMatchesScipy) {
  const std::vector<double> x = {11, 12, 11, 7, 12, 11, 9, 11, 11, 11, 10, 11, 9,  10, 9, 11, 10, 9,
                                 8,  9,  10, 9, 13, 12, 5, 6,  10, 9,  10, 10, 14, 8,  9, 14, 11};
  const std::vector<double> y = {12, 10, 8,  11, 11, 9,  10, 11, 9,  11, 11, 11, 10, 12,
                                 13, 12, 9,  12, 10, 13, 9,  13, 11, 9,  10, 11, 12, 9,
                                 9,  11, 10, 11, 13, 8,  12, 13, 10, 9,  13, 12};
  const MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u_x, 551);
  EXPECT_NEAR(r.p_value, 0.10828531962184762, 1e-9);
}

TEST(MannWhitney, AllEqualIsNotSignificant) {
  const std::vector<double> x = {5, 5, 5}, y = {5, 5};
  const MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_DOUBLE_EQ(r.p_value, 1);
  EXPECT_DOUBLE_EQ(r.prob_x_greater, 0.5);
}

TEST(MannWhitney, MinimumPValueAndRepetitionsNeeded) {
  EXPECT_NEAR(MinimumPValue(2, 2), 1.0 / 3, 1e-12);
  EXPECT_NEAR(MinimumPValue(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MinimumPValue(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(MinimumPValue(10, 10), 2.0 / 184756, 1e-15);
  EXPECT_DOUBLE_EQ(MinimumPValue(1, 1), 1);
  EXPECT_DOUBLE_EQ(MinimumPValue(0, 4), 1);
  EXPECT_DOUBLE_EQ(MinimumPValue(600, 600), 0);
  // The bound is reached by completely separated samples.
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {6, 7, 8, 9, 10};
  EXPECT_NEAR(MannWhitneyU(a, b).p_value, MinimumPValue(5, 5), 1e-15);
  EXPECT_EQ(RepetitionsNeeded(0.01), 5u);
  EXPECT_EQ(RepetitionsNeeded(0.05), 4u);
  EXPECT_EQ(RepetitionsNeeded(0.10), 3u);
  EXPECT_THROW(RepetitionsNeeded(0), std::invalid_argument);
}

TEST(RatioOfMedians, ThreeRepetitionsSupportAClaimOnlyWhenSeparated) {
  // h2 against h0 in the main job: 19k against 481k ops/s, three repetitions each.
  const std::vector<double> slow = {18.5, 19.0, 19.8}, fast = {470, 481, 495};
  RatioInterval r = RatioOfMedians(slow, fast);
  EXPECT_TRUE(r.attainable);
  EXPECT_NEAR(r.confidence, 0.9, 1e-12);
  EXPECT_TRUE(r.significant);
  EXPECT_DOUBLE_EQ(r.low, 18.5 / 495);  // [min, max] of the 9 pairwise ratios
  EXPECT_DOUBLE_EQ(r.high, 19.8 / 470);
  EXPECT_NEAR(r.estimate, 19.0 / 481, 1e-12);
  EXPECT_DOUBLE_EQ(r.median_ratio, 19.0 / 481);

  // Issue 12's example: h1 vs h0 at a 1.80 median ratio, but h0 ranges over 117k-270k.
  const std::vector<double> h1 = {240, 300, 330}, h0 = {117, 167, 270};
  r = RatioOfMedians(h1, h0);
  EXPECT_NEAR(r.median_ratio, 300.0 / 167, 1e-12);
  EXPECT_TRUE(r.attainable);
  EXPECT_FALSE(r.significant);
  EXPECT_LT(r.low, 1);
  EXPECT_GT(r.high, 1);

  // 95% is beyond 3 vs 3: the widest interval is returned, with its real coverage.
  r = RatioOfMedians(slow, fast, 0.95);
  EXPECT_FALSE(r.attainable);
  EXPECT_FALSE(r.significant);
  EXPECT_NEAR(r.confidence, 0.9, 1e-12);
}

TEST(RatioOfMedians, TwoRepetitionsNeverSupportAClaim) {
  const std::vector<double> a = {10, 11}, b = {100, 101};
  const RatioInterval r = RatioOfMedians(a, b);
  EXPECT_FALSE(r.attainable);
  EXPECT_FALSE(r.significant);
  EXPECT_NEAR(r.confidence, 1 - 2.0 / 6, 1e-12);
  EXPECT_DOUBLE_EQ(r.low, 10.0 / 101);
  EXPECT_DOUBLE_EQ(r.high, 11.0 / 100);
}

TEST(RatioOfMedians, FiveRepetitionsUseTheExactQuantiles) {
  // n = m = 5: P(U <= 4) = 12/252, P(U <= 5) = 19/252, so at 90% k = 5 (coverage 0.9048).
  const std::vector<double> x = {1.0, 1.1, 1.2, 1.3, 1.4}, y = {1.0, 1.05, 1.15, 1.25, 1.35};
  const RatioInterval r = RatioOfMedians(x, y);
  EXPECT_NEAR(r.confidence, 1 - 24.0 / 252, 1e-12);
  std::vector<double> ratios;
  for (double a : x) {
    for (double b : y) ratios.push_back(a / b);
  }
  std::sort(ratios.begin(), ratios.end());
  EXPECT_NEAR(r.low, ratios[4], 1e-12);
  EXPECT_NEAR(r.high, ratios[20], 1e-12);
  EXPECT_NEAR(r.estimate, ratios[12], 1e-12);
  EXPECT_FALSE(r.significant);
}

TEST(RatioOfMedians, CoverageHoldsOnSimulatedLogNormalData) {
  // 2000 pairs of 5 vs 5 samples with a true ratio of 1.3: the 90% interval must contain 1.3
  // in at least ~90% of them (coverage is exact for continuous data under a scale model).
  std::mt19937 rng(11);
  std::lognormal_distribution<double> noise(0, 0.2);
  int covered = 0, significant = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a(5), b(5);
    for (double& v : a) v = 1.3 * noise(rng);
    for (double& v : b) v = noise(rng);
    const RatioInterval r = RatioOfMedians(a, b);
    if (r.low <= 1.3 && 1.3 <= r.high) ++covered;
    if (r.significant) ++significant;
  }
  EXPECT_GE(covered, static_cast<int>(0.88 * trials));
  EXPECT_GT(significant, trials / 2);  // the test has power against a 30% change
}

TEST(RatioOfMedians, AgreesWithTheExactTest) {
  // For untied data the interval excludes 1 exactly when the two-sided test's p is at most one
  // minus the interval's coverage: the report's interval and the gate's test never disagree.
  std::mt19937 rng(5);
  std::lognormal_distribution<double> noise(0, 0.3);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t nx = 3 + rng() % 6, ny = 3 + rng() % 6;
    const double factor = 1 + 0.1 * static_cast<double>(rng() % 8);
    std::vector<double> a(nx), b(ny);
    for (double& v : a) v = factor * noise(rng);
    for (double& v : b) v = noise(rng);
    const RatioInterval r = RatioOfMedians(a, b);
    const double p = MannWhitneyU(a, b).p_value;
    ASSERT_EQ(r.significant, p <= 1 - r.confidence + 1e-12) << "trial " << trial << " p " << p;
  }
}

TEST(RatioOfMedians, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 40; ++i) {
    a.push_back(200 + i);
    b.push_back(100 + i);
  }
  const RatioInterval r = RatioOfMedians(a, b);
  EXPECT_TRUE(r.attainable);
  EXPECT_TRUE(r.significant);
  EXPECT_GE(r.confidence, 0.9 - 1e-9);
  EXPECT_LT(r.confidence, 0.93);
  EXPECT_GT(r.estimate, 1.5);
  EXPECT_LT(r.estimate, 2.1);
}

TEST(RatioOfMedians, RejectsNonPositiveValues) {
  const std::vector<double> a = {1, 0}, b = {1, 2};
  EXPECT_THROW(RatioOfMedians(a, b), std::invalid_argument);
  EXPECT_THROW(RatioOfMedians(b, b, 1.0), std::invalid_argument);
}

TEST(CompareSamples, ThirtyPercentSlowerOverTenRepetitionsIsWorse) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> noise(0.97, 1.03);
  std::vector<double> base, slow, same;
  for (int i = 0; i < 10; ++i) {
    base.push_back(1000 * noise(rng));
    slow.push_back(1300 * noise(rng));
    same.push_back(1000 * noise(rng));
  }
  ComparisonOptions opt;
  Comparison c = CompareSamples(base, slow, opt);
  EXPECT_EQ(c.verdict, Verdict::kWorse) << c.reason;
  EXPECT_LT(c.test.p_value, 1e-4);
  EXPECT_TRUE(c.interval.significant);
  c = CompareSamples(base, same, opt);
  EXPECT_EQ(c.verdict, Verdict::kUnchanged) << c.reason;
  // Throughput: higher is better, so the same numbers are an improvement.
  opt.direction = Direction::kHigherIsBetter;
  EXPECT_EQ(CompareSamples(base, slow, opt).verdict, Verdict::kBetter);
}

TEST(CompareSamples, SignificantButSmallIsUnchanged) {
  const std::vector<double> base = {100, 100.1, 100.2, 100.3, 100.4, 100.5};
  const std::vector<double> cur = {105, 105.1, 105.2, 105.3, 105.4, 105.5};
  const Comparison c = CompareSamples(base, cur, ComparisonOptions{});
  EXPECT_LT(c.test.p_value, 0.01);
  EXPECT_EQ(c.verdict, Verdict::kUnchanged);
  EXPECT_NE(c.reason.find("within 10%"), std::string::npos) << c.reason;
}

TEST(CompareSamples, TooFewRepetitionsAreInconclusiveNeverUnchanged) {
  const std::vector<double> base = {100, 101}, cur = {200, 201};
  const Comparison c = CompareSamples(base, cur, ComparisonOptions{});
  EXPECT_EQ(c.verdict, Verdict::kInconclusive);
  EXPECT_NE(c.reason.find("need 5 repetitions"), std::string::npos) << c.reason;
  EXPECT_EQ(VerdictName(c.verdict), "inconclusive");
  ComparisonOptions bad;
  bad.alpha = 0;
  EXPECT_THROW(CompareSamples(base, cur, bad), std::invalid_argument);
}

TEST(CompareSamples, ZeroMediansAndZeroValues) {
  const std::vector<double> zeros = {0, 0, 0, 0, 0}, ones = {1, 1, 1, 1, 1};
  const Comparison c = CompareSamples(zeros, ones, ComparisonOptions{});
  EXPECT_TRUE(std::isinf(c.ratio));
  EXPECT_FALSE(c.has_interval);
  EXPECT_EQ(c.verdict, Verdict::kWorse);
  EXPECT_EQ(CompareSamples(zeros, zeros, ComparisonOptions{}).verdict, Verdict::kUnchanged);
}

}  // namespace
}  // namespace kvlab::analysis
