// The Redis tier never serves what it cannot vouch for: the faults issue's reproductions with
// real redis-servers this test starts, kills and restarts.
// - a key-meta cache switched off and on again (it missed the writes made meanwhile);
// - a cache restarted from an older snapshot (it is not the cache kvlab wrote to);
// - one server as both the cache and the store (the cache's purges would delete zsets).
#include <gtest/gtest.h>

#include <thread>

#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"
#include "redis/server_process.h"

namespace kvlab::engine {

using redis::RedisServerOptions;
using redis::RedisServerProcess;
using resp::Reply;

namespace {

using testing::EngineHarness;

EngineOptions WithTier(const RedisServerProcess* cache, const RedisServerProcess* store,
                       int hash_version, int zset_version) {
  EngineOptions o;
  o.hash_version = static_cast<uint8_t>(hash_version);
  o.zset_version = static_cast<uint8_t>(zset_version);
  if (cache != nullptr) o.tier_options.cache_url = cache->endpoint().ToString();
  if (store != nullptr) o.tier_options.store_url = store->endpoint().ToString();
  o.tier_options.timeout = std::chrono::milliseconds(500);
  o.tier_options.retry_interval = std::chrono::milliseconds(20);
  o.tier_options.log = [](const std::string&) {};
  return o;
}

std::string Sorted(EngineHarness& e, const std::string& line) {
  std::vector<std::string> argv;
  SplitArgs(line, &argv);
  return testing::SortedIfUnordered(argv, e.Exec(line));
}

// Runs `line` until the cache takes part again (the command is not degraded: the tier has
// reconnected after a fault), for at most 10 s, and returns its reply.
std::string Reconnected(EngineHarness& e, const std::string& line) {
  std::string r;
  for (int i = 0; i < 1000; ++i) {
    CommandCost cost;
    std::vector<std::string> argv;
    SplitArgs(line, &argv);
    r = testing::SortedIfUnordered(argv, e.Exec(line, &cost));
    if (cost.tier.degraded == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return r;
}

// The reproduction of item 1: the meta cache misses the writes made while it is off.
TEST(TierConsistency, AMetaCacheSwitchedOffAndOnNeverServesWhatItMissed) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineHarness e("memory", WithTier(&cache, nullptr, 0, 0));
  ASSERT_EQ(e.Run("CONFIG SET kv.key.meta.cache.enable yes"), "OK");
  ASSERT_EQ(e.Run("HSET h a 1"), "(integer) 1");
  ASSERT_EQ(e.Run("SET s old"), "OK");
  ASSERT_EQ(e.Run("ZADD z 1 m"), "(integer) 1");
  ASSERT_EQ(e.Run("HGETALL h"), "[\"a\", \"1\"]");  // fills the meta cache
  ASSERT_EQ(e.Run("GET s"), "\"old\"");
  ASSERT_EQ(e.Run("ZRANGE z 0 -1"), "[\"m\"]");
  ASSERT_EQ(e.Run("CONFIG SET kv.key.meta.cache.enable no"), "OK");
  ASSERT_EQ(e.Run("DEL h"), "(integer) 1");
  ASSERT_EQ(e.Run("HSET h b 2"), "(integer) 1");
  ASSERT_EQ(e.Run("SET s new"), "OK");
  ASSERT_EQ(e.Run("DEL z"), "(integer) 1");
  ASSERT_EQ(e.Run("CONFIG SET kv.key.meta.cache.enable yes"), "OK");
  EXPECT_EQ(e.Run("HGETALL h"), "[\"b\", \"2\"]");
  EXPECT_EQ(e.Run("GET s"), "\"new\"");
  EXPECT_EQ(e.Run("EXISTS z"), "(integer) 0");
  // The next write must not put a stale meta back: the acknowledged b 2 stays.
  EXPECT_EQ(e.Run("HSET h c 3"), "(integer) 1");
  EXPECT_EQ(Sorted(e, "HGETALL h"), "[\"b\", \"2\", \"c\", \"3\"]");
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 2");
}

// The reproduction of item 2: hash v2, zset v1 and the meta cache; the cache is saved,
// written, killed and restarted from the older snapshot.
TEST(TierConsistency, ACacheRestartedFromAnOlderSnapshotIsDetectedAndPurged) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  EngineHarness e("memory", WithTier(&cache, nullptr, 2, 1));
  ASSERT_EQ(e.Run("CONFIG SET kv.key.meta.cache.enable yes"), "OK");
  ASSERT_EQ(e.Run("HSET h f old g 1"), "(integer) 2");
  ASSERT_EQ(e.Run("HSET gone x 1"), "(integer) 1");
  ASSERT_EQ(e.Run("ZADD z 1 m 2 n"), "(integer) 2");
  ASSERT_EQ(e.Run("HGET h f"), "\"old\"");  // field, whole-hash and meta entries cached
  ASSERT_EQ(Sorted(e, "HGETALL h"), "[\"f\", \"old\", \"g\", \"1\"]");
  ASSERT_EQ(e.Run("HGETALL gone"), "[\"x\", \"1\"]");
  ASSERT_EQ(e.Run("ZRANGE z 0 -1 WITHSCORES"), "[\"m\", \"1\", \"n\", \"2\"]");
  RedisClient admin(cache.endpoint());
  Reply ok;
  ASSERT_TRUE(admin.Command({"SAVE"}, &ok).ok());
  ASSERT_EQ(ok.str(), "OK");
  // New values, which the running cache takes (its entries are updated in place).
  ASSERT_EQ(e.Run("HSET h f new"), "(integer) 0");
  ASSERT_EQ(e.Run("HDEL h g"), "(integer) 1");
  ASSERT_EQ(e.Run("ZADD z 5 m"), "(integer) 0");
  ASSERT_EQ(e.Run("DEL gone"), "(integer) 1");
  ASSERT_EQ(e.Run("HGET h f"), "\"new\"");
  cache.Kill();
  ASSERT_TRUE(cache.Start().ok());  // same port and directory: the older snapshot is back

  // Once the tier uses the cache again, every answer is KV's, never the snapshot's.
  EXPECT_EQ(Reconnected(e, "HGET h f"), "\"new\"");
  EXPECT_EQ(Reconnected(e, "HGETALL h"), "[\"f\", \"new\"]");
  EXPECT_EQ(Reconnected(e, "HLEN h"), "(integer) 1");
  EXPECT_EQ(Reconnected(e, "ZRANGE z 0 -1 WITHSCORES"), "[\"n\", \"2\", \"m\", \"5\"]");
  EXPECT_EQ(Reconnected(e, "ZSCORE z m"), "\"5\"");
  EXPECT_EQ(Reconnected(e, "EXISTS gone"), "(integer) 0");
  EXPECT_EQ(Reconnected(e, "HSET gone y 2"), "(integer) 1");
  EXPECT_EQ(Reconnected(e, "HGETALL gone"), "[\"y\", \"2\"]");
  EXPECT_EQ(e.engine().tier()->IdentityChanges(TierRole::kCache), 1u);
  const std::string info = e.Exec("INFO kvlab").str();
  EXPECT_NE(info.find("redis_cache_identity_changes:1\r\n"), std::string::npos) << info;
}

// An engine over a store it does not own, so that two engines can follow each other on one KV
// store, as two kvlab runs on one directory do.
class SharedStore {
 public:
  SharedStore() {
    StoreSpec spec;
    spec.backend = "memory";
    spec.options.dir = scratch_.Sub("store");
    EXPECT_TRUE(OpenStore(spec, &store_).ok());
  }
  std::unique_ptr<Engine> NewEngine(EngineOptions options) {
    return std::make_unique<Engine>(store_->store(), options);
  }

 private:
  testing::ScratchDir scratch_;
  std::unique_ptr<OpenedStore> store_;
};

std::string RunOn(Engine& engine, const std::string& line) {
  std::vector<std::string> argv;
  SplitArgs(line, &argv);
  Session session;
  return engine.Execute(session, argv).Describe();
}

// The reproduction of item 4: the same Redis as --cache-redis and --store-redis lost
// every v3 zset at the next start (the cache purge deleted the store's keys).
TEST(TierConsistency, OneServerAsCacheAndStoreIsRefusedAndLosesNothing) {
  RedisServerOptions store_options;
  store_options.persistence = RedisServerOptions::Persistence::kAofEverySec;
  store_options.extra_args = {"--maxmemory-policy", "noeviction"};
  RedisServerProcess server(store_options);
  ASSERT_TRUE(server.Start().ok());
  SharedStore kv;
  {
    // A first run with a separate (private) cache puts a zset in the store.
    auto first = kv.NewEngine(WithTier(nullptr, &server, 2, 3));
    ASSERT_EQ(RunOn(*first, "ZADD z 1 m 2 n"), "(integer) 2");
  }
  // The next run names the store's server as the cache too.
  auto second = kv.NewEngine(WithTier(&server, &server, 2, 3));
  const Status validate = second->tier()->Validate();
  EXPECT_NE(validate.message().find("name one server"), std::string::npos) << validate.ToString();
  EXPECT_EQ(RunOn(*second, "HSET h f v"), "(integer) 1");  // the cache is refused: KV answers
  EXPECT_EQ(RunOn(*second, "HGET h f"), "\"v\"");
  const std::string range = RunOn(*second, "ZRANGE z 0 -1");
  EXPECT_NE(range.find("one server"), std::string::npos) << range;  // an error, never []
  // The store still holds the zset.
  RedisClient admin(server.endpoint());
  Reply keys;
  ASSERT_TRUE(admin.Command({"KEYS", "c#*"}, &keys).ok());
  EXPECT_EQ(keys.elements().size(), 1u) << keys.Describe();
  // Aliases of one server (another address for it) are caught by its run id.
  EngineOptions aliased = WithTier(&server, &server, 2, 3);
  aliased.tier_options.cache_url = "localhost:" + std::to_string(server.endpoint().port);
  auto third = kv.NewEngine(aliased);
  EXPECT_EQ(RunOn(*third, "HSET h f w"), "(integer) 0");
  EXPECT_EQ(RunOn(*third, "HGET h f"), "\"w\"");
  const Status aliased_validate = third->tier()->Validate();
  EXPECT_NE(aliased_validate.message().find("are one server"), std::string::npos)
      << aliased_validate.ToString();
  ASSERT_TRUE(admin.Command({"KEYS", "c#*"}, &keys).ok());
  EXPECT_EQ(keys.elements().size(), 1u) << keys.Describe();
}

}  // namespace
}  // namespace kvlab::engine
