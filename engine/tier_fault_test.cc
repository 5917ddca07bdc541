// The Redis tier under faults, with real redis-servers this test starts, pauses, kills and
// restarts mid-workload. Every reply is checked against the in-test model of Redis semantics:
// - the cache paused (unreachable, data kept) and resumed: hash v2/v3 and zset v1/v2 keep
//   answering from KV, degraded and counted, and no stale entry is served afterwards, although
//   the resumed cache still holds entries that writes made during the pause could not update;
// - the cache killed and restarted empty: the cache warms again;
// - the cache flushed (evicted) between commands: costs change, answers do not;
// - the store (zset v3) stopped: zset commands fail with a clear error, never a wrong answer,
//   and work again, with their data, once it is back.
#include <gtest/gtest.h>

#include <thread>

#include "redis/server_process.h"
#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {

using redis::RedisClient;
using redis::RedisServerOptions;
using redis::RedisServerProcess;
using redis::TierCounts;
using resp::Reply;

namespace {

using testing::EngineHarness;
using testing::Model;
using testing::RandomCommand;

EngineOptions TierOptions(const RedisServerProcess* cache, const RedisServerProcess* store,
                          int hash_version, int zset_version) {
  EngineOptions o;
  o.versions[encodings::KeyType::kHash] = static_cast<uint8_t>(hash_version);
  o.versions[encodings::KeyType::kZset] = static_cast<uint8_t>(zset_version);
  if (cache != nullptr) o.tier_options.cache_url = cache->endpoint().ToString();
  if (store != nullptr) o.tier_options.store_url = store->endpoint().ToString();
  o.tier_options.timeout = std::chrono::milliseconds(150);
  o.tier_options.retry_interval = std::chrono::milliseconds(20);
  return o;
}

struct Totals {
  TierCounts tier;
  int commands = 0;
  int errors = 0;
};

// Runs n random commands on the engine and the model; every reply must match, except that
// commands on zsets may fail with the store's error when `store_may_fail` (then the model is
// not told about them).
void RunAgainstModel(EngineHarness& e, Model& model, std::mt19937_64& rng, int n, Totals* totals,
                     bool store_may_fail = false) {
  for (int i = 0; i < n; ++i) {
    const std::vector<std::string> cmd = RandomCommand(rng);
    CommandCost cost;
    const Reply got = e.engine().Execute(e.session(), cmd, &cost);
    totals->tier += cost.tier;
    ++totals->commands;
    if (store_may_fail && got.is_error() && got.str().find("zset store") != std::string::npos) {
      ASSERT_EQ(cmd[0][0], 'Z') << got.Describe();
      ++totals->errors;
      continue;
    }
    ASSERT_EQ(testing::SortedIfUnordered(cmd, got), model.Apply(cmd))
        << "command " << i << ": " << ::testing::PrintToString(cmd);
  }
}

struct CacheCase {
  int hash_version;
  int zset_version;
};

class CacheFaultTest : public ::testing::TestWithParam<CacheCase> {};

TEST_P(CacheFaultTest, PausedCacheDegradesAndNeverServesStaleEntries) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineHarness e("memory",
                  TierOptions(&cache, nullptr, GetParam().hash_version, GetParam().zset_version));
  Model model(/*blind_hash=*/GetParam().hash_version == 3);
  std::mt19937_64 rng(99);
  Totals warm, paused, resumed;
  RunAgainstModel(e, model, rng, 1500, &warm);
  EXPECT_GT(warm.tier.cache_hits, 0u);
  EXPECT_EQ(warm.tier.degraded, 0u);

  cache.Pause();
  RunAgainstModel(e, model, rng, 400, &paused);
  EXPECT_GT(paused.tier.degraded, 50u) << "commands should have gone to KV";

  cache.Resume();
  // The tier retries a failed server only after retry_interval; commands in between stay on KV.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  RunAgainstModel(e, model, rng, 1500, &resumed);
  EXPECT_GT(resumed.tier.cache_hits, 0u) << "the cache should warm again";
  EXPECT_EQ(e.engine().tier()->dirty_keys(), 0u) << "dirty entries left behind";
}

TEST_P(CacheFaultTest, KilledCacheIsRebuiltAndEvictionChangesOnlyCosts) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineHarness e("rocksdb",
                  TierOptions(&cache, nullptr, GetParam().hash_version, GetParam().zset_version));
  Model model(/*blind_hash=*/GetParam().hash_version == 3);
  std::mt19937_64 rng(7);
  Totals before, down, after, evicted;
  RunAgainstModel(e, model, rng, 800, &before);
  cache.Kill();
  RunAgainstModel(e, model, rng, 300, &down);
  EXPECT_GT(down.tier.degraded, 0u);
  ASSERT_TRUE(cache.Start().ok());  // same port, empty: no persistence
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  RunAgainstModel(e, model, rng, 800, &after);
  EXPECT_GT(after.tier.cache_hits, 0u);
  EXPECT_EQ(after.tier.degraded, 0u);

  // Eviction between every command: the answers are the model's, and reads miss.
  RedisClient flusher(cache.endpoint());
  Reply ok;
  for (int i = 0; i < 400; ++i) {
    ASSERT_TRUE(flusher.Command({"FLUSHALL"}, &ok).ok());
    RunAgainstModel(e, model, rng, 1, &evicted);
  }
  EXPECT_EQ(evicted.tier.cache_hits, 0u);
  EXPECT_GT(evicted.tier.cache_misses, 20u);
}

// The sharpest case: an entry cached before the pause; a write during the pause whose cache
// update is sent but stuck (Redis applies it on resume), then one that is never sent (the tier
// fails fast after a timeout). After the resume the cache holds the first write's value while
// KV holds the second's; only the dirty set stands between the client and the stale value.
TEST(CacheFault, AWriteThatNeverReachedThePausedCacheIsNotServedStale) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineOptions options = TierOptions(&cache, nullptr, 2, 1);
  options.tier_options.retry_interval = std::chrono::milliseconds(500);
  EngineHarness e("memory", options);
  ASSERT_EQ(e.Run("HSET h f 1 g 1"), "(integer) 2");
  ASSERT_EQ(e.Run("ZADD z 1 m 2 n"), "(integer) 2");
  ASSERT_EQ(e.Run("HGET h f"), "\"1\"");                          // fills the field cache
  ASSERT_EQ(e.Run("HGETALL h"), "[\"f\", \"1\", \"g\", \"1\"]");  // and the whole-hash cache
  ASSERT_EQ(e.Run("ZRANGE z 0 -1 WITHSCORES"), "[\"m\", \"1\", \"n\", \"2\"]");  // the zset
  cache.Pause();
  EXPECT_EQ(e.Run("HSET h f 2"), "(integer) 0");  // its cache update times out, queued
  EXPECT_EQ(e.Run("HSET h f 3"), "(integer) 0");  // fails fast: never sent
  EXPECT_EQ(e.Run("ZADD z 5 m"), "(integer) 0");
  EXPECT_EQ(e.Run("HGET h f"), "\"3\"");  // degraded: from KV
  cache.Resume();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  CommandCost cost;
  EXPECT_EQ(e.Exec("HGET h f", &cost).Describe(), "\"3\"");
  EXPECT_EQ(testing::SortedIfUnordered({"HGETALL"}, e.Exec("HGETALL h")),
            "[\"f\", \"3\", \"g\", \"1\"]");
  EXPECT_EQ(e.Run("ZRANGE z 0 -1 WITHSCORES"), "[\"n\", \"2\", \"m\", \"5\"]");
  EXPECT_EQ(e.Run("HGET h f"), "\"3\"");
  EXPECT_EQ(e.engine().tier()->dirty_keys(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Versions, CacheFaultTest,
                         ::testing::Values(CacheCase{2, 1}, CacheCase{3, 2}), [](const auto& info) {
                           return "hash" + std::to_string(info.param.hash_version) + "_zset" +
                                  std::to_string(info.param.zset_version);
                         });

TEST(StoreFault, StoreDownGivesClearErrorsThenWorksAgainWithItsData) {
  RedisServerOptions options;
  options.persistence = RedisServerOptions::Persistence::kAofEverySec;
  options.extra_args = {"--maxmemory-policy", "noeviction"};
  RedisServerProcess store(options);
  ASSERT_TRUE(store.Start().ok());
  EngineHarness e("memory", TierOptions(nullptr, &store, 0, 3));
  Model model(/*blind_hash=*/false);
  std::mt19937_64 rng(3);
  Totals up, down, back;
  RunAgainstModel(e, model, rng, 1500, &up);
  ASSERT_EQ(up.errors, 0);
  EXPECT_GT(up.tier.round_trips, 100u);

  store.Stop();  // a clean stop: the AOF keeps everything acknowledged
  RunAgainstModel(e, model, rng, 300, &down, /*store_may_fail=*/true);
  EXPECT_GT(down.errors, 0);
  // A new zset cannot be created while the store is down, and nothing of it becomes visible.
  const Reply r = e.Exec("ZADD storedown 1 m 2 a-member-of-more-than-15-bytes");
  EXPECT_TRUE(r.str().starts_with("ERR storage error: Unavailable: the zset store (")) << r.str();
  EXPECT_EQ(e.Run("EXISTS storedown"), "(integer) 0");

  ASSERT_TRUE(store.Start().ok());  // same directory and port
  RunAgainstModel(e, model, rng, 1500, &back);
  EXPECT_EQ(back.errors, 0);
}

TEST(StoreFault, AnExternalStoreThatEvictsIsRefused) {
  RedisServerProcess store;  // default policy: noeviction? make it evicting
  ASSERT_TRUE(store.Start().ok());
  RedisClient admin(store.endpoint());
  Reply ok;
  ASSERT_TRUE(admin.Command({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"}, &ok).ok());
  EngineHarness e("memory", TierOptions(nullptr, &store, 0, 3));
  const std::string reply = e.Run("ZADD z 1 m");
  EXPECT_NE(reply.find("must run with maxmemory-policy noeviction"), std::string::npos) << reply;
  EXPECT_EQ(e.Run("EXISTS z"), "(integer) 0");
}

}  // namespace
}  // namespace kvlab::engine
