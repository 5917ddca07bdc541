// The Redis tier never serves what it cannot vouch for: the faults issue's reproductions with
// real redis-servers this test starts, kills and restarts.
// - a key-meta cache switched off and on again (it missed the writes made meanwhile);
// - a cache restarted from an older snapshot (it is not the cache kvlab wrote to);
// - one server as both the cache and the store (the cache's purges would delete zsets);
// - zset v3's store emptied (FLUSHALL, a restart without persistence) or behind KV (a restart
//   from an older snapshot): every command on a lost zset is an error, never an empty set;
// - store writes whose replies never came (the store paused): the key is reconciled, no ghost;
// - FLUSHALL while the store is paused: an error, and KV untouched.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "redis/server_process.h"
#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {

using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using redis::RedisClient;
using redis::RedisServerOptions;
using redis::RedisServerProcess;
using redis::TierRole;
using resp::Reply;
using resp::SplitArgs;

namespace {

using testing::EngineHarness;

EngineOptions WithTier(const RedisServerProcess* cache, const RedisServerProcess* store,
                       int hash_version, int zset_version) {
  EngineOptions o;
  o.versions[encodings::KeyType::kHash] = static_cast<uint8_t>(hash_version);
  o.versions[encodings::KeyType::kZset] = static_cast<uint8_t>(zset_version);
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

RedisServerOptions StoreOptions(bool aof) {
  RedisServerOptions o;
  if (aof) o.persistence = RedisServerOptions::Persistence::kAofEverySec;
  o.extra_args = {"--maxmemory-policy", "noeviction"};
  return o;
}

bool IsLost(const std::string& reply, const std::string& key) {
  return reply.find("the zset store has lost zset '" + key + "'") != std::string::npos;
}

// The reproduction of item 3: FLUSHALL on the store, or a restart without persistence,
// left TYPE z = zset and its TTL, but ZCARD 0, ZRANGE empty and ZADD z 10 a replying 1.
TEST(TierConsistency, AnEmptiedStoreIsAnErrorNeverAnEmptyZset) {
  RedisServerProcess store(StoreOptions(/*aof=*/false));
  ASSERT_TRUE(store.Start().ok());
  EngineHarness e("memory", WithTier(nullptr, &store, 0, 3));
  ASSERT_EQ(e.Run("ZADD z 1 a 2 b"), "(integer) 2");
  ASSERT_EQ(e.Run("EXPIRE z 1000"), "(integer) 1");
  RedisClient admin(store.endpoint());
  Reply ok;
  ASSERT_TRUE(admin.Command({"FLUSHALL"}, &ok).ok());
  EXPECT_EQ(e.Run("TYPE z"), "zset");  // the key-meta is KV's, and still there
  EXPECT_EQ(e.Run("TTL z"), "(integer) 1000");
  for (const std::string cmd :
       {"ZCARD z", "ZRANGE z 0 -1", "ZRANGE z 0 -1 WITHSCORES", "ZREVRANGE z 0 0", "ZSCORE z a",
        "ZMSCORE z a b", "ZRANK z a", "ZRANGEBYSCORE z -inf +inf", "ZCOUNT z -inf +inf",
        "ZLEXCOUNT z - +", "ZRANGEBYLEX z - +", "ZSCAN z 0", "ZADD z 10 a", "ZADD z 3 c",
        "ZINCRBY z 1 a", "ZREM z a", "ZPOPMIN z", "ZREMRANGEBYRANK z 0 -1"}) {
    EXPECT_TRUE(IsLost(e.Run(cmd), "z")) << cmd << ": " << e.Run(cmd);
  }
  // The way out: DEL, after which the key is new.
  EXPECT_EQ(e.Run("DEL z"), "(integer) 1");
  EXPECT_EQ(e.Run("ZADD z 10 a"), "(integer) 1");
  EXPECT_EQ(e.Run("ZRANGE z 0 -1 WITHSCORES"), "[\"a\", \"10\"]");

  // A restart without persistence loses everything too, and is noticed as a restart.
  ASSERT_EQ(e.Run("ZADD w 1 m"), "(integer) 1");
  store.Kill();
  ASSERT_TRUE(store.Start().ok());
  std::string card;
  for (int i = 0; i < 500 && !IsLost(card, "w"); ++i) {
    card = e.Run("ZCARD w");  // the store is back once the tier reconnects
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(IsLost(card, "w")) << card;
  const std::string info = e.Exec("INFO kvlab").str();
  EXPECT_NE(info.find("redis_store_identity_changes:1\r\n"), std::string::npos) << info;
}

// A store restarted from an older snapshot holds fewer members than KV counts: an error too.
TEST(TierConsistency, AStoreBehindKvIsAnErrorNotAShortAnswer) {
  RedisServerProcess store(StoreOptions(/*aof=*/false));
  ASSERT_TRUE(store.Start().ok());
  EngineHarness e("memory", WithTier(nullptr, &store, 0, 3));
  ASSERT_EQ(e.Run("ZADD p 1 a"), "(integer) 1");
  RedisClient admin(store.endpoint());
  Reply ok;
  ASSERT_TRUE(admin.Command({"SAVE"}, &ok).ok());
  ASSERT_EQ(e.Run("ZADD p 2 b"), "(integer) 1");
  store.Kill();
  ASSERT_TRUE(store.Start().ok());  // back with the snapshot: p = {a}
  std::string range;
  for (int i = 0; i < 500 && range.find("holds 1 members") == std::string::npos; ++i) {
    range = e.Run("ZRANGE p 0 -1");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_NE(range.find("the zset store holds 1 members of zset 'p', 1 fewer than its key-meta "
                       "counts (2): the store lost writes"),
            std::string::npos)
      << range;
}

// The 20-second run, shortened: random commands against the model while the store
// restarts twice without persistence. Every reply is the model's, or an error about the zset
// store; never a wrong answer (the issue saw 210).
TEST(TierConsistency, StoreRestartsGiveErrorsNeverWrongAnswers) {
  RedisServerProcess store(StoreOptions(/*aof=*/false));
  ASSERT_TRUE(store.Start().ok());
  EngineHarness e("memory", WithTier(nullptr, &store, 0, 3));
  testing::Model model(/*blind_hash=*/false);
  std::mt19937_64 rng(20);
  int errors = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 700; ++i) {
      const std::vector<std::string> cmd = testing::RandomCommand(rng);
      const Reply got = e.engine().Execute(e.session(), cmd);
      if (got.is_error() && got.str().find("zset store") != std::string::npos) {
        ++errors;  // a zset command, or an EXPIRE or FLUSHDB that reaches the store
        continue;
      }
      ASSERT_EQ(testing::SortedIfUnordered(cmd, got), model.Apply(cmd))
          << "round " << round << ", command " << i << ": " << ::testing::PrintToString(cmd);
    }
    if (round < 2) {
      store.Kill();
      ASSERT_TRUE(store.Start().ok());  // empty
    }
  }
  EXPECT_GT(errors, 0) << "the restarts should have lost zsets";
}

// The reproduction of item 5: ZREM of the last member while the store is paused
// replied an error, the store applied it when it resumed, and a ghost stayed (EXISTS 1,
// ZCARD 0). Now a removal that may empty the zset reads its members first (the paused store
// fails it before anything is written), and a write whose reply never came says it may still
// apply, and its key is reconciled.
TEST(TierConsistency, AStoreWriteThatTimedOutLeavesNoGhost) {
  RedisServerProcess store(StoreOptions(/*aof=*/true));
  ASSERT_TRUE(store.Start().ok());
  EngineOptions options = WithTier(nullptr, &store, 0, 3);
  options.tier_options.timeout = std::chrono::milliseconds(200);
  EngineHarness e("memory", options);
  ASSERT_EQ(e.Run("ZADD z 1 m"), "(integer) 1");
  ASSERT_EQ(e.Run("ZADD x 1 m 2 n"), "(integer) 2");
  ASSERT_EQ(e.Run("ZADD y 1 a"), "(integer) 1");
  store.Pause();
  const std::string zrem = e.Run("ZREM x m");
  EXPECT_NE(zrem.find("may still be applied"), std::string::npos) << zrem;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // past retry_interval
  const std::string last = e.Run("ZREM z m");
  EXPECT_NE(last.find("zset store"), std::string::npos) << last;
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // past retry_interval
  const std::string zadd = e.Run("ZADD y 2 b");
  EXPECT_NE(zadd.find("zset store"), std::string::npos) << zadd;
  store.Resume();
  // EXISTS agrees with ZCARD once the store answers: the late removal applied (the key is
  // gone) or was refused by the fence (the member is still there); never a ghost.
  std::string exists, card;
  for (int i = 0; i < 500; ++i) {
    exists = e.Run("EXISTS z");
    card = e.Run("ZCARD z");
    if ((exists == "(integer) 0" && card == "(integer) 0") ||
        (exists == "(integer) 1" && card == "(integer) 1")) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE((exists == "(integer) 0" && card == "(integer) 0") ||
              (exists == "(integer) 1" && card == "(integer) 1"))
      << "EXISTS " << exists << ", ZCARD " << card;
  // The removal that timed out: x's count is what its store holds, whichever way it went.
  const std::string x_card = e.Run("ZCARD x");
  const Reply x_range = e.Exec("ZRANGE x 0 -1");
  ASSERT_FALSE(x_range.is_error()) << x_range.str();
  EXPECT_EQ(x_card, "(integer) " + std::to_string(x_range.elements().size()));
  EXPECT_EQ(e.Run("EXISTS x"), "(integer) 1");
  // The ZADD that timed out: y's count is what its store holds, whichever way it went.
  const std::string y_card = e.Run("ZCARD y");
  const Reply y_range = e.Exec("ZRANGE y 0 -1");
  ASSERT_FALSE(y_range.is_error()) << y_range.str();
  EXPECT_EQ(y_card, "(integer) " + std::to_string(y_range.elements().size()));
  EXPECT_EQ(e.Run("ZADD y 3 c"), "(integer) 1");
  EXPECT_EQ(e.Run("ZCARD y"), "(integer) " + std::to_string(y_range.elements().size() + 1));
}

// The reproduction of item 6: FLUSHALL while the store is paused replied ERR but had
// emptied KV. Now an error reply means KV is as it was.
TEST(TierConsistency, FlushallThatFailsInTheStoreLeavesKvAlone) {
  RedisServerProcess store(StoreOptions(/*aof=*/true));
  ASSERT_TRUE(store.Start().ok());
  EngineOptions options = WithTier(nullptr, &store, 0, 3);
  options.tier_options.timeout = std::chrono::milliseconds(200);
  EngineHarness e("memory", options);
  ASSERT_EQ(e.Run("SET s v"), "OK");
  ASSERT_EQ(e.Run("HSET h f v"), "(integer) 1");
  ASSERT_EQ(e.Run("ZADD z 1 m"), "(integer) 1");
  store.Pause();
  const std::string flush = e.Run("FLUSHALL");
  store.Resume();
  EXPECT_NE(flush.find("nothing was deleted from KV"), std::string::npos) << flush;
  EXPECT_EQ(e.Run("GET s"), "\"v\"");
  EXPECT_EQ(e.Run("HGET h f"), "\"v\"");
  EXPECT_EQ(e.Run("EXISTS z"), "(integer) 1");
  std::string again;
  for (int i = 0; i < 500 && again != "OK"; ++i) {
    again = e.Run("FLUSHALL");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(again, "OK");
  EXPECT_EQ(e.Run("DBSIZE"), "(integer) 0");
}

}  // namespace
}  // namespace kvlab::engine
