// Set v2 and v3 under cache faults, with a real redis-server this test starts, pauses, kills,
// restarts and flushes mid-workload (as tier_fault_test.cc does for hash and zset). Every reply is
// checked against the in-test model of Redis semantics (testing/model_test_util.h): a cache loss
// costs time, never data or a wrong reply.
#include <gtest/gtest.h>

#include <thread>

#include "redis/server_process.h"
#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {

using redis::RedisClient;
using redis::RedisServerProcess;
using redis::TierCounts;
using resp::Reply;

namespace {

using testing::EngineHarness;
using testing::Model;
using testing::RandomSetCommand;

EngineOptions SetTierOptions(const RedisServerProcess& cache, int set_version) {
  EngineOptions o;
  o.versions[encodings::KeyType::kSet] = static_cast<uint8_t>(set_version);
  o.tier_options.cache_url = cache.endpoint().ToString();
  o.tier_options.timeout = std::chrono::milliseconds(150);
  o.tier_options.retry_interval = std::chrono::milliseconds(20);
  return o;
}

// Runs n random set commands on the engine and the model; every reply must match.
void RunAgainstModel(EngineHarness& e, Model& model, std::mt19937_64& rng, int n,
                     TierCounts* totals) {
  for (int i = 0; i < n; ++i) {
    const std::vector<std::string> cmd = RandomSetCommand(rng);
    CommandCost cost;
    const Reply got = e.engine().Execute(e.session(), cmd, &cost);
    *totals += cost.tier;
    ASSERT_EQ(testing::SortedIfUnordered(cmd, got), model.Apply(cmd))
        << "command " << i << ": " << ::testing::PrintToString(cmd);
  }
}

class SetCacheFaultTest : public ::testing::TestWithParam<int> {};

TEST_P(SetCacheFaultTest, PausedCacheDegradesAndNeverServesStaleEntries) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineHarness e("memory", SetTierOptions(cache, GetParam()));
  Model model(/*blind_hash=*/false, /*blind_set=*/GetParam() == 3);
  std::mt19937_64 rng(11);
  TierCounts warm, paused, resumed;
  RunAgainstModel(e, model, rng, 1500, &warm);
  EXPECT_GT(warm.cache_hits, 0u);
  EXPECT_EQ(warm.degraded, 0u);

  cache.Pause();
  RunAgainstModel(e, model, rng, 300, &paused);
  EXPECT_GT(paused.degraded, 30u) << "commands should have gone to KV";

  cache.Resume();
  // The tier retries a failed server only after retry_interval; commands in between stay on KV.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  RunAgainstModel(e, model, rng, 1500, &resumed);
  EXPECT_GT(resumed.cache_hits, 0u) << "the cache should warm again";
  EXPECT_EQ(e.engine().tier()->dirty_keys(), 0u) << "dirty entries left behind";
}

TEST_P(SetCacheFaultTest, KilledCacheIsRebuiltAndEvictionChangesOnlyCosts) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineHarness e("rocksdb", SetTierOptions(cache, GetParam()));
  Model model(/*blind_hash=*/false, /*blind_set=*/GetParam() == 3);
  std::mt19937_64 rng(5);
  TierCounts before, down, settle, after, evicted;
  RunAgainstModel(e, model, rng, 800, &before);
  cache.Kill();
  RunAgainstModel(e, model, rng, 300, &down);
  EXPECT_GT(down.degraded, 0u);
  ASSERT_TRUE(cache.Start().ok());  // same port, empty: no persistence
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // The first command back may still find an entry marked dirty while the cache was down (it is
  // read from KV, counted degraded, and purged); after that the cache serves again.
  RunAgainstModel(e, model, rng, 50, &settle);
  RunAgainstModel(e, model, rng, 800, &after);
  EXPECT_GT(after.cache_hits, 0u);
  EXPECT_EQ(after.degraded, 0u);

  // Eviction between every command: the answers are the model's, and reads miss.
  RedisClient flusher(cache.endpoint());
  Reply ok;
  for (int i = 0; i < 400; ++i) {
    ASSERT_TRUE(flusher.Command({"FLUSHALL"}, &ok).ok());
    RunAgainstModel(e, model, rng, 1, &evicted);
  }
  EXPECT_EQ(evicted.cache_hits, 0u);
  EXPECT_GT(evicted.cache_misses, 20u);
}

// A whole-set entry cached before the pause; a write during the pause whose cache update is sent
// but stuck (Redis applies it on resume), then one that is never sent. After the resume the cache
// holds the first write's set while KV holds both; only the dirty set stands between the client
// and the stale entry.
TEST_P(SetCacheFaultTest, AWriteThatNeverReachedThePausedCacheIsNotServedStale) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineOptions options = SetTierOptions(cache, GetParam());
  options.tier_options.retry_interval = std::chrono::milliseconds(500);
  EngineHarness e("memory", options);
  ASSERT_EQ(e.Run("SADD s a b"), "(integer) 2");
  ASSERT_EQ(testing::SortedIfUnordered({"SMEMBERS"}, e.Exec("SMEMBERS s")), "[\"a\", \"b\"]");
  cache.Pause();
  EXPECT_EQ(e.Run("SADD s c"), "(integer) 1");       // its cache update times out, queued
  EXPECT_EQ(e.Run("SREM s a"), "(integer) 1");       // fails fast: never sent
  EXPECT_EQ(e.Run("SISMEMBER s a"), "(integer) 0");  // degraded: from KV
  cache.Resume();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(testing::SortedIfUnordered({"SMEMBERS"}, e.Exec("SMEMBERS s")), "[\"b\", \"c\"]");
  EXPECT_EQ(e.Run("SISMEMBER s a"), "(integer) 0");
  EXPECT_EQ(e.Run("SCARD s"), "(integer) 2");
  EXPECT_EQ(e.engine().tier()->dirty_keys(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Versions, SetCacheFaultTest, ::testing::Values(2, 3),
                         [](const auto& info) { return "set" + std::to_string(info.param); });

}  // namespace
}  // namespace kvlab::engine
