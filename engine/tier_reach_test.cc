// A Redis-tier version whose tier cannot be reached never runs silently as itself: CONFIG SET of
// the version fails with the server and the reason, unless the engine was told to allow a
// degraded tier; and INFO's cache_degraded_total is the sum of the commands' cache_degraded.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "testing/engine_test_util.h"

namespace kvlab::engine {

using resp::Reply;

namespace {

using testing::EngineHarness;

EngineOptions UnreachableTier(const std::string& cache, const std::string& store,
                              bool allow_degraded) {
  EngineOptions o;
  o.tier_options.cache_url = cache;
  o.tier_options.store_url = store;
  o.tier_options.timeout = std::chrono::milliseconds(200);
  o.allow_degraded_tier = allow_degraded;
  return o;
}

// Port 1 on loopback: nothing listens there, connections are refused at once.
constexpr const char* kNobody = "127.0.0.1:1";

TEST(TierReach, ConfigSetOfACacheVersionNamesTheUnreachableCache) {
  EngineHarness e("memory", UnreachableTier(kNobody, "", false));
  for (const char* v : {"2", "3"}) {
    const std::string reply = e.Run(std::string("CONFIG SET kv.hash.key.meta.version ") + v);
    EXPECT_NE(reply.find("hash encode-version " + std::string(v) +
                         " needs its Redis tier: the Redis cache (127.0.0.1:1) cannot be reached"),
              std::string::npos)
        << reply;
  }
  EXPECT_EQ(e.engine().new_key_version(encodings::KeyType::kHash), 0);
  const std::string zset = e.Run("CONFIG SET zset-encoding 1");
  EXPECT_NE(zset.find("zset encode-version 1 needs its Redis tier: the Redis cache (127.0.0.1:1)"),
            std::string::npos)
      << zset;
  // KV-only versions need nothing.
  EXPECT_EQ(e.Run("CONFIG SET kv.hash.key.meta.version 1"), "OK");
  EXPECT_EQ(e.Run("CONFIG SET kv.zset.key.meta.version 0"), "OK");
}

TEST(TierReach, ConfigSetOfZsetV3NamesTheUnreachableStore) {
  EngineHarness e("memory", UnreachableTier("", kNobody, false));
  const std::string reply = e.Run("CONFIG SET kv.zset.key.meta.version 3");
  EXPECT_NE(reply.find("zset encode-version 3 needs its Redis tier: the Redis store (127.0.0.1:1)"),
            std::string::npos)
      << reply;
  EXPECT_EQ(e.engine().new_key_version(encodings::KeyType::kZset), 0);
}

TEST(TierReach, AnAddressThatIsNotOneIsNamed) {
  EngineHarness e("memory", UnreachableTier("bogus", "", false));
  const std::string reply = e.Run("CONFIG SET kv.hash.key.meta.version 2");
  EXPECT_NE(reply.find("the Redis cache (bogus) cannot be reached"), std::string::npos) << reply;
}

// The value of `field` in each "kvstat_<command>:..." line, and cache_degraded_total.
std::map<std::string, uint64_t> DegradedCounts(const std::string& info) {
  std::map<std::string, uint64_t> out;
  std::istringstream lines(info);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("cache_degraded_total:")) out["total"] = std::stoull(line.substr(21));
    if (!line.starts_with("kvstat_")) continue;
    const size_t at = line.find("cache_degraded=");
    if (at == std::string::npos) continue;
    out[line.substr(7, line.find(':') - 7)] = std::stoull(line.substr(at + 15));
  }
  return out;
}

TEST(TierReach, AllowedDegradedTierIsCountedAndTotalsAgree) {
  EngineHarness e("memory", UnreachableTier(kNobody, "", true));
  ASSERT_EQ(e.Run("CONFIG SET kv.hash.key.meta.version 2"), "OK");
  ASSERT_EQ(e.Run("HSET h f v g w"), "(integer) 2");
  EXPECT_EQ(e.Run("HGET h f"), "\"v\"");  // from KV: right, but degraded
  EXPECT_EQ(e.Run("HGETALL h"), "[\"f\", \"v\", \"g\", \"w\"]");
  const Reply info = e.Exec("INFO kvlab");
  const std::map<std::string, uint64_t> counts = DegradedCounts(info.str());
  ASSERT_TRUE(counts.count("total")) << info.str();
  uint64_t sum = 0;
  for (const auto& [name, n] : counts) sum += name == "total" ? 0 : n;
  EXPECT_GT(counts.at("hget"), 0u) << info.str();
  EXPECT_EQ(counts.at("total"), sum) << info.str();
}

}  // namespace
}  // namespace kvlab::engine
