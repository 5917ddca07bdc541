// Tests of the paired comparison, Holm's correction, the common shift and the change points.
// Reference values: SciPy 1.10 (scipy.stats.wilcoxon) for the untied signed-rank test, and
// brute-force enumeration of every sign pattern (Python, itertools.product) for the tied one,
// the Walsh-average interval and its coverage.
#include "analysis/paired.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "analysis/change_point.h"
#include "analysis/family.h"

namespace kvlab::analysis {
namespace {

TEST(SignedRank, ExactWithoutTiesMatchesScipy) {
  // scipy.stats.wilcoxon(d, method='exact'): statistic 3.0 (W-), p = 0.009765625.
  const std::vector<double> d = {0.12, -0.03, 0.08, 0.15, 0.2, 0.05, -0.01, 0.09, 0.11, 0.07};
  const SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_EQ(r.nonzero, 10u);
  EXPECT_DOUBLE_EQ(r.w_plus, 52);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_NEAR(r.p_value, 0.009765625, 1e-12);
}

TEST(SignedRank, TiesUseTheConditionalDistributionOfMidRanks) {
  // Brute force over the 2^10 sign patterns of the mid-ranks: W+ = 49.5, p = 26 / 1024.
  const std::vector<double> d = {1, 2, 2, 3, -1, 4, 5, 5, -2, 6};
  const SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_TRUE(r.ties);
  EXPECT_DOUBLE_EQ(r.w_plus, 49.5);
  EXPECT_NEAR(r.p_value, 26.0 / 1024, 1e-12);
}

TEST(SignedRank, ZerosAreDroppedAndAllZeroIsNotSignificant) {
  const std::vector<double> zeros = {0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(WilcoxonSignedRank(zeros).p_value, 1);
  // Five positive pairs and three identical ones: the five decide, 2 / 2^5.
  const std::vector<double> d = {0.1, 0, 0.2, 0.3, 0, 0.4, 0.5, 0};
  const SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_EQ(r.n, 8u);
  EXPECT_EQ(r.nonzero, 5u);
  EXPECT_NEAR(r.p_value, 2.0 / 32, 1e-12);
}

TEST(SignedRank, NormalApproximationMatchesScipyBeyondTheExactLimit) {
  // x = 0.37 * (1, -2, 3, -4, ..., 69, -70): scipy.stats.wilcoxon(x, correction=True,
  // method='approx') gives p = 0.9207515261637276.
  std::vector<double> x;
  for (int i = 1; i <= 70; ++i) x.push_back(0.37 * i * (i % 2 == 1 ? 1 : -1));
  const SignedRankResult r = WilcoxonSignedRank(x);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.9207515261637276, 1e-9);
}

TEST(SignedRank, MinimumPAndPairsNeeded) {
  EXPECT_DOUBLE_EQ(MinimumSignedRankP(0), 1);
  EXPECT_DOUBLE_EQ(MinimumSignedRankP(1), 1);
  EXPECT_DOUBLE_EQ(MinimumSignedRankP(5), 0.0625);
  EXPECT_DOUBLE_EQ(MinimumSignedRankP(10), 2.0 / 1024);
  EXPECT_EQ(PairsNeeded(0.05), 6u);
  EXPECT_EQ(PairsNeeded(0.01), 8u);
  EXPECT_EQ(PairsNeeded(0.01 / 20), 12u);  // 2^-11 = 0.00049
  EXPECT_THROW(PairsNeeded(0), std::invalid_argument);
  // The bound is attained: every pair the same way.
  const std::vector<double> same_way = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  EXPECT_DOUBLE_EQ(WilcoxonSignedRank(same_way).p_value, MinimumSignedRankP(8));
}

TEST(ComparePaired, EstimateAndIntervalFromWalshAverages) {
  // Brute force (Python): HL estimate exp(median of the 36 Walsh averages) = 1.120908967981437;
  // the largest k with exact coverage >= 0.90 is 6 (coverage 0.921875), interval
  // [1.1103946860735492, 1.132142062770033].
  const std::vector<double> b = {100, 102, 98, 101, 99, 100, 103, 97};
  const std::vector<double> c = {112, 115, 108, 113, 111, 110, 118, 109};
  const PairedRatio r = ComparePaired(b, c, 0.90);
  EXPECT_EQ(r.pairs, 8u);
  EXPECT_NEAR(r.estimate, 1.120908967981437, 1e-12);
  EXPECT_TRUE(r.attainable);
  EXPECT_NEAR(r.confidence, 0.921875, 1e-12);
  EXPECT_NEAR(r.low, 1.1103946860735492, 1e-12);
  EXPECT_NEAR(r.high, 1.132142062770033, 1e-12);
  EXPECT_NEAR(r.test.p_value, MinimumSignedRankP(8), 1e-15);
}

TEST(ComparePaired, MachineDriftCancelsInThePairs) {
  // The machine slows down 3x over the run; both builds ride it, the current one 5% slower in
  // every pair. Unpaired the drift swamps the change; paired it is plain.
  std::vector<double> b, c;
  for (int i = 0; i < 12; ++i) {
    const double machine = 1 + 0.2 * i;
    b.push_back(1000 * machine);
    c.push_back(1050 * machine * (i % 3 == 0 ? 1.01 : 0.995));
  }
  const PairedRatio r = ComparePaired(b, c);
  EXPECT_LT(r.test.p_value, 0.001);
  EXPECT_NEAR(r.estimate, 1.05, 0.01);
  EXPECT_LT(r.low, 1.05);
  EXPECT_GT(r.high, 1.04);
}

TEST(ComparePaired, FourPairsCannotReachNinetyPercent) {
  const std::vector<double> b = {1, 2, 3, 4}, c = {2, 3, 4, 5};
  const PairedRatio r = ComparePaired(b, c, 0.90);
  EXPECT_FALSE(r.attainable);  // 1 - 2/16 = 0.875
  EXPECT_DOUBLE_EQ(r.low, 1.25);
  EXPECT_DOUBLE_EQ(r.high, 2);
}

TEST(ComparePaired, NullCoverageOnSimulatedPairs) {
  // Same build both sides, log-normal noise: the 90% interval holds 1 in about 90% of runs and
  // the test at 0.05 rejects about 5% of them (exact: at most).
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> noise(0, 0.1);
  int covered = 0, rejected = 0;
  const int runs = 2000;
  for (int run = 0; run < runs; ++run) {
    std::vector<double> b, c;
    for (int i = 0; i < 10; ++i) {
      b.push_back(100 * noise(random));
      c.push_back(100 * noise(random));
    }
    const PairedRatio r = ComparePaired(b, c, 0.90);
    if (r.low <= 1 && 1 <= r.high) ++covered;
    if (r.test.p_value <= 0.05) ++rejected;
  }
  EXPECT_NEAR(covered / double(runs), 0.90, 0.025);
  EXPECT_LE(rejected / double(runs), 0.06);
  EXPECT_GE(rejected / double(runs), 0.03);
}

TEST(ComparePaired, BadInputThrows) {
  const std::vector<double> two = {1, 2}, three = {1, 2, 3}, zero = {0, 1};
  EXPECT_THROW(ComparePaired(two, three), std::invalid_argument);
  EXPECT_THROW(ComparePaired(two, zero), std::invalid_argument);
  EXPECT_THROW(ComparePaired(two, two, 1.0), std::invalid_argument);
}

TEST(Holm, AdjustsStepDownAndKeepsOrder) {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02.
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> a = HolmAdjust(p);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_DOUBLE_EQ(a[0], 0.03);
  EXPECT_DOUBLE_EQ(a[1], 0.06);
  EXPECT_DOUBLE_EQ(a[2], 0.06);
  EXPECT_DOUBLE_EQ(a[3], 0.02);
  EXPECT_TRUE(HolmAdjust(std::vector<double>{}).empty());
  EXPECT_DOUBLE_EQ(HolmAdjust(std::vector<double>{0.7, 0.9})[1], 1);
  EXPECT_THROW(HolmAdjust(std::vector<double>{1.5}), std::invalid_argument);
  EXPECT_DOUBLE_EQ(HolmFirstLevel(0.01, 20), 0.0005);
}

TEST(Holm, FamilyWiseRateHoldsWhereUncorrectedRowsFail) {
  // 50 rows of pure noise per run, each with a uniform p: uncorrected at 0.01 nearly 40% of
  // runs flag a row; Holm at 0.01, about 1%.
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(0, 1);
  int raw = 0, holm = 0;
  const int runs = 4000;
  for (int run = 0; run < runs; ++run) {
    std::vector<double> p(50);
    for (double& v : p) v = uniform(random);
    bool any_raw = false, any_holm = false;
    const std::vector<double> a = HolmAdjust(p);
    for (size_t i = 0; i < p.size(); ++i) {
      any_raw = any_raw || p[i] <= 0.01;
      any_holm = any_holm || a[i] <= 0.01;
    }
    raw += any_raw;
    holm += any_holm;
  }
  EXPECT_GT(raw / double(runs), 0.3);
  EXPECT_LE(holm / double(runs), 0.015);
}

TEST(CommonShift, MostRowsTogetherIsOneShiftOneRowIsNot) {
  // 10 rows, 8 of them 40% slower: a machine-wide shift of about +40%.
  std::vector<double> rows(8, std::log(1.4));
  rows.push_back(std::log(1.02));
  rows.push_back(std::log(0.99));
  const CommonShift c = FindCommonShift(rows, 0.10);
  EXPECT_TRUE(c.present);
  EXPECT_NEAR(c.ratio, 1.4, 1e-12);
  EXPECT_EQ(c.beyond_threshold, 8u);
  EXPECT_EQ(c.rows, 10u);
  // One slow command among ten rows: no common shift.
  std::vector<double> one(9, 0.0);
  one.push_back(std::log(1.5));
  EXPECT_FALSE(FindCommonShift(one, 0.10).present);
  // Three rows cannot make a common shift, however far they moved.
  const std::vector<double> few(3, std::log(2.0));
  EXPECT_FALSE(FindCommonShift(few, 0.10).present);
  // Faster everywhere counts too.
  const std::vector<double> faster(6, std::log(0.7));
  const CommonShift f = FindCommonShift(faster, 0.10);
  EXPECT_TRUE(f.present);
  EXPECT_EQ(f.beyond_threshold, 6u);
}

TEST(ChangePoints, EnergyIsLargestAtTheLevelChange) {
  const std::vector<double> x = {10, 11, 10, 9, 10, 20, 21, 19, 20, 20};
  const std::vector<double> q = EnergyStatistics(x, 2);
  size_t best = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] > q[best]) best = i;
  }
  EXPECT_EQ(best + 1, 5u);  // five values on the left
  // The definition, by hand, at tau = 5 with the right side running to the end (kappa = 10,
  // here the best right end: every value after the change is on the new level).
  double between = 0, left = 0, right = 0;
  for (size_t i = 0; i < 5; ++i) {
    for (size_t j = 5; j < 10; ++j) between += std::fabs(x[i] - x[j]);
    for (size_t k = i + 1; k < 5; ++k) left += std::fabs(x[i] - x[k]);
  }
  for (size_t j = 5; j < 10; ++j) {
    for (size_t k = j + 1; k < 10; ++k) right += std::fabs(x[j] - x[k]);
  }
  const double expected = 25.0 / 10 * (2 * between / 25 - left / 10 - right / 10);
  EXPECT_NEAR(q[4], expected, 1e-9);
}

TEST(ChangePoints, FindsTwoLevelChangesAndTheirSizes) {
  std::mt19937_64 random(3);
  std::normal_distribution<double> noise(0, 1);
  std::vector<double> x;
  for (int i = 0; i < 30; ++i) x.push_back((i < 12 ? 100 : i < 22 ? 115 : 100) + noise(random));
  ChangePointOptions o;
  o.significance = 0.01;
  o.permutations = 999;
  const std::vector<ChangePoint> c = EDivisive(x, o);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].index, 12u);
  EXPECT_EQ(c[1].index, 22u);
  EXPECT_NEAR(c[0].after_median / c[0].before_median, 1.15, 0.03);
  EXPECT_NEAR(c[1].after_median / c[1].before_median, 1 / 1.15, 0.03);
  EXPECT_LE(c[0].p_value, 0.01);
  // Reproducible: the same seed gives the same answer.
  const std::vector<ChangePoint> again = EDivisive(x, o);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_DOUBLE_EQ(again[0].p_value, c[0].p_value);
}

TEST(ChangePoints, NoiseAloneRarelyGivesAChangeAndStopsEarly) {
  std::mt19937_64 random(5);
  std::normal_distribution<double> noise(100, 3);
  int with_change = 0;
  const int runs = 100;
  for (int run = 0; run < runs; ++run) {
    std::vector<double> x(25);
    for (double& v : x) v = noise(random);
    ChangePointOptions o;
    o.significance = 0.05;
    o.permutations = 199;
    o.seed = static_cast<uint64_t>(run) + 1;
    const std::vector<ChangePoint> c = EDivisive(x, o);
    with_change += !c.empty();
  }
  EXPECT_LE(with_change, 12);  // about 5%
  // A constant series: no change, and p = 1 at once.
  const std::vector<double> flat(20, 7.0);
  EXPECT_TRUE(EDivisive(flat, {}).empty());
  // Too short for two segments of 3.
  const std::vector<double> short_series = {1, 2, 100, 101, 102};
  EXPECT_TRUE(EDivisive(short_series, {}).empty());
}

TEST(ChangePoints, BadOptionsThrow) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6};
  ChangePointOptions o;
  o.min_segment = 1;
  EXPECT_THROW(EDivisive(x, o), std::invalid_argument);
  o = {};
  o.significance = 0;
  EXPECT_THROW(EDivisive(x, o), std::invalid_argument);
  const std::vector<double> nan = {1, std::nan("")};
  EXPECT_THROW(EDivisive(nan, {}), std::invalid_argument);
}

}  // namespace
}  // namespace kvlab::analysis
