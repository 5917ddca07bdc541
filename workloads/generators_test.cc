// The generators against their distributions, on fixed seeds: chi-square tests against the
// exact probabilities of each algorithm, and rank-frequency checks against the zipfian law.
#include "workloads/generators.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <thread>
#include <vector>

namespace kvlab::workloads {
namespace {

// The chi-square value that a correct distribution exceeds with probability 1e-4
// (Wilson-Hilferty approximation).
double ChiSquareCritical(size_t dof) {
  const double k = static_cast<double>(dof);
  const double z = 3.719;  // the 1 - 1e-4 quantile of the standard normal
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

// Chi-square of observed counts against expected probabilities; adjacent cells are pooled
// until each expects at least 20 samples. Returns (chi2, degrees of freedom).
std::pair<double, size_t> ChiSquare(const std::vector<uint64_t>& observed,
                                    const std::vector<double>& probability, uint64_t samples) {
  double chi2 = 0;
  size_t cells = 0;
  double o = 0, e = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    o += static_cast<double>(observed[i]);
    e += probability[i] * static_cast<double>(samples);
    if (e >= 20 || i + 1 == observed.size()) {
      chi2 += (o - e) * (o - e) / std::max(e, 1e-9);
      ++cells;
      o = e = 0;
    }
  }
  return {chi2, cells - 1};
}

TEST(Rng, SeedsAndStreamsAreReproducibleAndDistinct) {
  Rng a(Rng::StreamSeed(1, 0)), b(Rng::StreamSeed(1, 0)), c(Rng::StreamSeed(1, 1)),
      d(Rng::StreamSeed(2, 0));
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    EXPECT_NE(x, c.Next());
    EXPECT_NE(x, d.Next());
  }
  Rng r(5);
  for (int i = 0; i < 10000; ++i) {
    const double u = r.NextDouble();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    ASSERT_LT(r.Uniform(7), 7u);
  }
}

TEST(Rng, UniformMatchesItsDistribution) {
  Rng rng(11);
  const uint64_t n = 100, samples = 200000;
  std::vector<uint64_t> counts(n, 0);
  for (uint64_t i = 0; i < samples; ++i) ++counts[rng.Uniform(n)];
  const auto [chi2, dof] = ChiSquare(counts, std::vector<double>(n, 1.0 / n), samples);
  EXPECT_LT(chi2, ChiSquareCritical(dof)) << "dof " << dof;
}

// Reference values from YCSB's Java Utils.fnvhash64 (signed 64-bit arithmetic, Math.abs).
TEST(YcsbFnvHash64, MatchesYcsb) {
  EXPECT_EQ(YcsbFnvHash64(0), 6284781860667377211ull);
  EXPECT_EQ(YcsbFnvHash64(1), 8517097267634966620ull);
  EXPECT_EQ(YcsbFnvHash64(2), 1820151046732198393ull);
  EXPECT_EQ(YcsbFnvHash64(12345), 1792800413050876852ull);
  EXPECT_EQ(YcsbFnvHash64(10000000000ull), 1201321332300452516ull);
  EXPECT_EQ(YcsbFnvHash64(1099511627783ull), 6089181255519459853ull);
}

TEST(Zipfian, ProbabilitiesSumToOneAndHeadIsExactZipf) {
  for (uint64_t n : {1ull, 2ull, 3ull, 10ull, 1000ull}) {
    ZipfianGenerator z(n, 0.99);
    double sum = 0;
    for (uint64_t v = 0; v < n; ++v) sum += z.Probability(v);
    EXPECT_NEAR(sum, 1.0, 1e-9) << n;
    EXPECT_NEAR(z.Probability(0), 1.0 / z.zeta(), 1e-12);
  }
  ZipfianGenerator z(1000, 0.99);
  EXPECT_NEAR(z.Probability(1), std::pow(0.5, 0.99) / z.zeta(), 1e-12);
  EXPECT_NEAR(ZipfianGenerator::Zeta(3, 0.5), 1 + 1 / std::sqrt(2.0) + 1 / std::sqrt(3.0), 1e-12);
}

TEST(Zipfian, MatchesItsDistribution) {
  for (double theta : {0.99, 0.5}) {
    const uint64_t n = 1000, samples = 300000;
    ZipfianGenerator z(n, theta);
    Rng rng(21);
    std::vector<uint64_t> counts(n, 0);
    for (uint64_t i = 0; i < samples; ++i) {
      const uint64_t v = z.Next(rng);
      ASSERT_LT(v, n);
      ++counts[v];
    }
    std::vector<double> p(n);
    for (uint64_t v = 0; v < n; ++v) p[v] = z.Probability(v);
    const auto [chi2, dof] = ChiSquare(counts, p, samples);
    EXPECT_LT(chi2, ChiSquareCritical(dof)) << "theta " << theta << " dof " << dof;

    // Rank-frequency: on a log-log plot, frequency against rank falls with slope -theta.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (uint64_t r = 10; r <= 100; ++r) {
      const double x = std::log(static_cast<double>(r + 1));
      const double y = std::log(static_cast<double>(counts[r]));
      sx += x, sy += y, sxx += x * x, sxy += x * y, ++m;
    }
    const double slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
    EXPECT_NEAR(slope, -theta, 0.1) << "theta " << theta;
  }
}

// YCSB's scrambled zipfian: a zipfian over 10^10 items, hashed onto n. The expected frequency of
// each of the n items is the sum of the probabilities of the large-space items hashing to it:
// exact for the first 10^5 of them, and the remaining tail (a smooth mass spread over ~10^10
// items) spread evenly.
TEST(ScrambledZipfian, MatchesYcsbScrambling) {
  const uint64_t n = 100, samples = 300000;
  ScrambledZipfianGenerator g(n);
  const ZipfianGenerator& inner = g.inner();
  EXPECT_EQ(inner.items(), ScrambledZipfianGenerator::kYcsbItemCount + 1);
  EXPECT_DOUBLE_EQ(inner.zeta(), ScrambledZipfianGenerator::kYcsbZetan);
  std::vector<double> p(n, 0.0);
  double head = 0;
  for (uint64_t j = 0; j < 100000; ++j) {
    const double pj = inner.Probability(j);
    p[YcsbFnvHash64(j) % n] += pj;
    head += pj;
  }
  for (double& x : p) x += (1 - head) / static_cast<double>(n);

  Rng rng(33);
  std::vector<uint64_t> counts(n, 0);
  for (uint64_t i = 0; i < samples; ++i) {
    const uint64_t v = g.Next(rng);
    ASSERT_LT(v, n);
    ++counts[v];
  }
  const auto [chi2, dof] = ChiSquare(counts, p, samples);
  EXPECT_LT(chi2, ChiSquareCritical(dof)) << "dof " << dof;
  // The hottest item is where item 0 of the large space lands, with about 1/zetan of the draws.
  const uint64_t hottest = std::max_element(counts.begin(), counts.end()) - counts.begin();
  EXPECT_EQ(hottest, YcsbFnvHash64(0) % n);
  EXPECT_NEAR(static_cast<double>(counts[hottest]) / samples, p[hottest], 0.005);
}

TEST(Latest, RecentRecordsFollowZipfian) {
  const uint64_t limit = 1000, samples = 300000;
  LatestGenerator latest(limit);
  ZipfianGenerator reference(limit, 0.99);
  Rng rng(44);
  std::vector<uint64_t> counts(limit, 0);  // by age: 0 is the newest record
  for (uint64_t i = 0; i < samples; ++i) {
    const uint64_t v = latest.Next(rng, limit);
    ASSERT_LT(v, limit);
    ++counts[limit - 1 - v];
  }
  std::vector<double> p(limit);
  for (uint64_t a = 0; a < limit; ++a) p[a] = reference.Probability(a);
  const auto [chi2, dof] = ChiSquare(counts, p, samples);
  EXPECT_LT(chi2, ChiSquareCritical(dof)) << "dof " << dof;

  // As records are inserted the newest one stays the most popular.
  LatestGenerator growing(10);
  for (uint64_t lim = 10; lim < 5000; lim += 7) {
    ASSERT_LT(growing.Next(rng, lim), lim);
  }
  std::map<uint64_t, int> recent;
  for (int i = 0; i < 20000; ++i) ++recent[growing.Next(rng, 5000)];
  EXPECT_EQ(std::max_element(recent.begin(), recent.end(),
                             [](auto& a, auto& b) { return a.second < b.second; })
                ->first,
            4999u);
}

TEST(Chooser, SequentialSplitsAcrossThreadsAndCovers) {
  DistributionSpec seq;
  seq.kind = DistributionSpec::Kind::kSequential;
  Chooser t0(seq, 10, 10, 0, 2), t1(seq, 10, 10, 1, 2);
  Rng rng(1);
  std::vector<uint64_t> got;
  for (int i = 0; i < 5; ++i) got.push_back(t0.Next(rng, 10));
  for (int i = 0; i < 5; ++i) got.push_back(t1.Next(rng, 10));
  std::sort(got.begin(), got.end());
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(got[i], i);
  EXPECT_EQ(t0.Next(rng, 10), 0u);  // wraps around
}

TEST(Chooser, ZipfianStaysBelowTheInsertLimit) {
  DistributionSpec zipf;
  zipf.kind = DistributionSpec::Kind::kZipfian;
  for (bool scrambled : {true, false}) {
    zipf.scrambled = scrambled;
    Chooser c(zipf, 100, 1000, 0, 1);
    Rng rng(9);
    for (uint64_t limit = 100; limit <= 1000; limit += 100) {
      for (int i = 0; i < 1000; ++i) ASSERT_LT(c.Next(rng, limit), limit);
    }
  }
}

TEST(DistributionSpec, ParsesNames) {
  DistributionSpec d;
  for (const char* name : {"uniform", "zipfian", "latest", "sequential"}) {
    ASSERT_TRUE(DistributionSpec::Parse(name, &d).ok());
    EXPECT_EQ(d.Name(), name);
  }
  EXPECT_TRUE(DistributionSpec::Parse("hotspot", &d).IsInvalidArgument());
}

TEST(InsertCounter, LimitWaitsForTheOldestInsertInFlight) {
  InsertCounter c(10);
  EXPECT_EQ(c.limit(), 10u);
  const uint64_t a = c.Claim(), b = c.Claim(), d = c.Claim();
  EXPECT_EQ(a, 10u);
  EXPECT_EQ(b, 11u);
  c.Acknowledge(b);
  EXPECT_EQ(c.limit(), 10u);  // record 10 is not there yet
  c.Acknowledge(a);
  EXPECT_EQ(c.limit(), 12u);
  c.Acknowledge(d);
  EXPECT_EQ(c.limit(), 13u);
  EXPECT_EQ(c.claimed(), 13u);

  // Under threads every id is handed out once and the limit ends at the total.
  InsertCounter shared(0);
  std::vector<std::thread> threads;
  std::vector<std::vector<uint64_t>> ids(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        const uint64_t id = shared.Claim();
        ids[t].push_back(id);
        ASSERT_LE(shared.limit(), id);
        shared.Acknowledge(id);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<uint64_t> all;
  for (auto& v : ids) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  for (uint64_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i);
  EXPECT_EQ(shared.limit(), 4000u);
}

TEST(EmpiricalDistribution, InterpolatesBetweenItsQuantiles) {
  EmpiricalDistribution d;
  ASSERT_TRUE(EmpiricalDistribution::Make({{0, 1}, {0.5, 11}, {0.9, 51}, {1, 101}}, &d).ok());
  EXPECT_EQ(d.Quantile(0), 1u);
  EXPECT_EQ(d.Quantile(0.25), 6u);
  EXPECT_EQ(d.Quantile(0.5), 11u);
  EXPECT_EQ(d.Quantile(0.7), 31u);
  EXPECT_EQ(d.Quantile(0.95), 76u);
  EXPECT_EQ(d.Quantile(1), 101u);
  // Draws follow it: a draw is below 11 when the interpolated value rounds below it, i.e. is
  // below 10.5, which is u < 0.475 (a binomial's 5 sigma: 0.0125).
  Rng rng(7);
  int below = 0;
  constexpr int kDraws = 40000;
  for (int i = 0; i < kDraws; ++i) below += d.Next(rng) < 11 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(below) / kDraws, 0.475, 0.0125);
}

TEST(EmpiricalDistribution, RefusesBadPoints) {
  EmpiricalDistribution d;
  EXPECT_FALSE(EmpiricalDistribution::Make({{0, 1}}, &d).ok());
  EXPECT_FALSE(EmpiricalDistribution::Make({{0.1, 1}, {1, 2}}, &d).ok());
  EXPECT_FALSE(EmpiricalDistribution::Make({{0, 1}, {0.9, 2}}, &d).ok());
  EXPECT_FALSE(EmpiricalDistribution::Make({{0, 1}, {0.5, 2}, {0.5, 3}, {1, 4}}, &d).ok());
  EXPECT_FALSE(EmpiricalDistribution::Make({{0, 5}, {1, 4}}, &d).ok());
  EXPECT_FALSE(EmpiricalDistribution::Make({{0, -1}, {1, 4}}, &d).ok());
  EXPECT_FALSE(EmpiricalDistribution::Make({{0, 1}, {1, NAN}}, &d).ok());
  EXPECT_TRUE(EmpiricalDistribution::Make({{0, 3}, {1, 3}}, &d).ok());
}

TEST(WeylPoint, ConsecutivePointsCoverTheUnitIntervalEvenly) {
  // Any 1000 consecutive points put between 90 and 110 in each tenth of [0, 1).
  for (uint64_t start : {0ull, 12345ull, 1ull << 35}) {
    std::vector<int> tenths(10);
    for (uint64_t i = start; i < start + 1000; ++i) {
      const double x = WeylPoint(i, 0.3);
      ASSERT_GE(x, 0);
      ASSERT_LT(x, 1);
      ++tenths[static_cast<size_t>(x * 10)];
    }
    for (int n : tenths) {
      EXPECT_GE(n, 90);
      EXPECT_LE(n, 110);
    }
  }
}

}  // namespace
}  // namespace kvlab::workloads
