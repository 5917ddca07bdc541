#include "workloads/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace kvlab::workloads {
namespace {

// The nearest-rank q-quantile of samples: the value of rank ceil(q * n), 1-based.
uint64_t ExactPercentile(std::vector<uint64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(q * v.size())));
  return v[rank - 1];
}

TEST(LatencyHistogram, BucketsTileTheValuesWithStatedWidth) {
  // Consecutive buckets are contiguous, and no bucket is wider than 2^-7 of its lower bound.
  for (size_t b = 0; b + 1 < 7000; ++b) {
    ASSERT_EQ(LatencyHistogram::BucketUpper(b) + 1, LatencyHistogram::BucketLower(b + 1)) << b;
    const uint64_t lower = LatencyHistogram::BucketLower(b);
    const uint64_t width = LatencyHistogram::BucketUpper(b) - lower + 1;
    if (lower > 0) {
      ASSERT_LE(static_cast<double>(width - 1) / static_cast<double>(lower),
                1.0 / (1 << LatencyHistogram::kSubBucketBits))
          << b;
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = rng() >> (rng() % 64);
    const size_t b = LatencyHistogram::BucketOf(v);
    ASSERT_LE(LatencyHistogram::BucketLower(b), v);
    ASSERT_GE(LatencyHistogram::BucketUpper(b), v);
  }
  EXPECT_EQ(LatencyHistogram::BucketUpper(LatencyHistogram::BucketOf(UINT64_MAX)), UINT64_MAX);
}

TEST(LatencyHistogram, EmptyIsAllZero) {
  LatencyHistogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.Percentile(0.5), 0u);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 256; ++i) {
    for (uint64_t k = 0; k <= i % 3; ++k) {
      h.Record(i);
      v.push_back(i);
    }
  }
  for (double q : {0.0, 0.1, 0.5, 0.9, 0.99, 1.0}) {
    EXPECT_EQ(h.Percentile(q), ExactPercentile(v, q)) << q;
  }
}

// Percentiles of several shapes of latency data stay within the stated relative precision.
TEST(LatencyHistogram, PercentilesWithinStatedPrecision) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> lognormal(9.0, 1.5);  // ~8 us median, long tail
  std::exponential_distribution<double> exponential(1.0 / 50000);
  std::uniform_int_distribution<uint64_t> uniform(1, 10'000'000);
  const std::vector<std::function<uint64_t()>> shapes = {
      [&] { return static_cast<uint64_t>(lognormal(rng)); },
      [&] { return static_cast<uint64_t>(exponential(rng)); },
      [&] { return uniform(rng); },
      // Bimodal: cache hits and misses.
      [&] { return rng() % 10 == 0 ? 2'000'000 + rng() % 500'000 : 800 + rng() % 400; },
  };
  for (size_t s = 0; s < shapes.size(); ++s) {
    LatencyHistogram h;
    std::vector<uint64_t> v;
    double sum = 0;
    for (int i = 0; i < 200000; ++i) {
      const uint64_t x = shapes[s]();
      h.Record(x);
      v.push_back(x);
      sum += static_cast<double>(x);
    }
    for (double q : {0.5, 0.9, 0.99, 0.999, 1.0}) {
      const double exact = static_cast<double>(ExactPercentile(v, q));
      const double got = static_cast<double>(h.Percentile(q));
      EXPECT_LE(std::fabs(got - exact), LatencyHistogram::kRelativePrecision * exact)
          << "shape " << s << " q " << q << " exact " << exact << " got " << got;
    }
    EXPECT_EQ(h.count(), v.size());
    EXPECT_EQ(h.min(), *std::min_element(v.begin(), v.end()));
    EXPECT_EQ(h.max(), *std::max_element(v.begin(), v.end()));
    EXPECT_NEAR(h.mean(), sum / static_cast<double>(v.size()), 1e-6 * h.mean());
  }
}

TEST(LatencyHistogram, MergeEqualsRecordingEverything) {
  std::mt19937_64 rng(3);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 50000; ++i) {
    const uint64_t x = rng() % 1'000'000;
    (i % 3 == 0 ? a : b).Record(x);
    all.Record(x);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) EXPECT_EQ(a.Percentile(q), all.Percentile(q));
  LatencyHistogram empty;
  a.Merge(empty);
  EXPECT_EQ(a.count(), all.count());
  empty.Merge(all);
  EXPECT_EQ(empty.Percentile(0.5), all.Percentile(0.5));
}

}  // namespace
}  // namespace kvlab::workloads
