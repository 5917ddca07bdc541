#include "conformance/shrink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace kvlab::conformance {
namespace {

// A test that fails when every position of `culprits` is kept.
auto FailsWithAll(std::set<size_t> culprits) {
  return [culprits](const std::vector<size_t>& kept) {
    return std::all_of(culprits.begin(), culprits.end(), [&](size_t c) {
      return std::find(kept.begin(), kept.end(), c) != kept.end();
    });
  };
}

TEST(Shrink, FindsTheTwoCommandsThatMatter) {
  const ShrinkResult r = ShrinkIndices(40, FailsWithAll({3, 17}), 1000);
  EXPECT_EQ(r.kept, (std::vector<size_t>{3, 17}));
  EXPECT_TRUE(r.complete);
  EXPECT_GT(r.tests, 0u);
}

TEST(Shrink, OneCulpritAndNothingToRemove) {
  EXPECT_EQ(ShrinkIndices(100, FailsWithAll({99}), 1000).kept, (std::vector<size_t>{99}));
  EXPECT_EQ(ShrinkIndices(1, FailsWithAll({0}), 1000).kept, (std::vector<size_t>{0}));
  // Every position is needed: nothing can go.
  const ShrinkResult all = ShrinkIndices(6, FailsWithAll({0, 1, 2, 3, 4, 5}), 1000);
  EXPECT_EQ(all.kept.size(), 6u);
  EXPECT_TRUE(all.complete);
}

TEST(Shrink, ResultIsOneMinimalForRandomCulpritSets) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 50; ++round) {
    const size_t n = 1 + rng() % 200;
    std::set<size_t> culprits;
    for (size_t k = 1 + rng() % 4; k > 0; --k) culprits.insert(rng() % n);
    const ShrinkResult r = ShrinkIndices(n, FailsWithAll(culprits), 100000);
    EXPECT_EQ(std::set<size_t>(r.kept.begin(), r.kept.end()), culprits);
    EXPECT_TRUE(std::is_sorted(r.kept.begin(), r.kept.end()));
  }
}

TEST(Shrink, StopsAtTheBudgetWithAStillFailingSet) {
  auto fails = FailsWithAll({5, 50, 150});
  const ShrinkResult r = ShrinkIndices(200, fails, 3);
  EXPECT_FALSE(r.complete);
  EXPECT_LE(r.tests, 3u);
  EXPECT_TRUE(fails(r.kept));
}

}  // namespace
}  // namespace kvlab::conformance
