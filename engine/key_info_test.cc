// RANDOMKEY, OBJECT and MEMORY over every registry version of every type: MEMORY USAGE is exactly
// the key's live records in the store (and more for the versions with Redis-tier entries), never
// the garbage of a deleted incarnation; OBJECT ENCODING names the key's own version, whatever
// new keys get; RANDOMKEY picks every live key and never an expired one, with and without
// reverse scan.
#include <gtest/gtest.h>

#include <map>

#include "encodings/registry.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {
namespace {

using encodings::EncodingRegistry;
using encodings::KeyType;
using encodings::TierUse;
using testing::EngineHarness;

// Every record of the store, keys and values.
uint64_t StoreBytes(EngineHarness& e) {
  uint64_t bytes = 0;
  auto it = e.store()->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) bytes += it->key().size() + it->value().size();
  EXPECT_TRUE(it->status().ok());
  return bytes;
}

int64_t Usage(EngineHarness& e, const std::string& key) {
  const resp::Reply r = e.Exec("MEMORY USAGE " + key);
  EXPECT_EQ(r.type(), resp::Reply::Type::kInteger) << r.Describe();
  return r.integer();
}

struct TypeCase {
  KeyType type;
  std::string fill;  // "k" is the key
  std::string warm;  // fills the Redis-tier caches of the key, where a version has them
  std::string one;   // a one-element key
};

std::vector<TypeCase> Cases() {
  return {
      {KeyType::kHash, "HSET k a 1 b 2 long-field-name-c 3", "HGETALL k", "HSET k z 9"},
      {KeyType::kZset, "ZADD k 1 a 2 b 3 long-member-name-of-zset-c", "ZRANGE k 0 -1",
       "ZADD k 9 z"},
      {KeyType::kList, "RPUSH k a b c long-element-d", "LRANGE k 0 -1", "RPUSH k z"},
      {KeyType::kSet, "SADD k a b c long-member-name-d", "SMEMBERS k", "SADD k z"},
  };
}

TEST(KeyInfo, MemoryUsageIsTheLiveRecordsOfEveryVersion) {
  EngineHarness e;
  // zset v3 gives its store zset the key's expiry: the store's clock is real.
  e.SetClockToNow();
  const EncodingRegistry& registry = e.engine().registry();
  for (const TypeCase& c : Cases()) {
    const std::string type_name(registry.FindType(c.type)->name);
    for (const auto* version : registry.VersionsOf(c.type)) {
      SCOPED_TRACE(version->DisplayName(*registry.FindType(c.type)));
      ASSERT_EQ(e.Run("FLUSHALL"), "OK");
      ASSERT_EQ(
          e.Run("CONFIG SET kv." + type_name + ".key.meta.version " + std::string(version->name)),
          "OK");
      const uint64_t empty = StoreBytes(e);
      e.Run(c.fill);
      e.Run(c.warm);
      const uint64_t filled = StoreBytes(e);
      ASSERT_GT(filled, empty);
      if (version->tier == TierUse::kNone) {
        EXPECT_EQ(Usage(e, "k"), static_cast<int64_t>(filled - empty));
      } else {
        // The warm-up read filled a cache entry (or the zset v3 store holds the zset).
        EXPECT_GT(Usage(e, "k"), static_cast<int64_t>(filled - empty));
      }
      // A deleted incarnation's sub-keys stay until they are collected; they are not the new
      // key's.
      ASSERT_EQ(e.Run("DEL k"), "(integer) 1");
      const uint64_t garbage = StoreBytes(e);
      e.Run(c.one);
      const uint64_t recreated = StoreBytes(e);
      if (version->tier == TierUse::kNone) {
        EXPECT_EQ(Usage(e, "k"), static_cast<int64_t>(recreated - garbage));
      } else {
        EXPECT_GE(Usage(e, "k"), static_cast<int64_t>(recreated - garbage));
      }
      EXPECT_EQ(e.Run("MEMORY USAGE nokey"), "(nil)");
    }
  }
  ASSERT_EQ(e.Run("FLUSHALL"), "OK");
  const uint64_t empty = StoreBytes(e);
  ASSERT_EQ(e.Run("SET s hello"), "OK");
  EXPECT_EQ(Usage(e, "s"), static_cast<int64_t>(StoreBytes(e) - empty));
}

TEST(KeyInfo, ObjectEncodingNamesTheKeysOwnVersion) {
  EngineHarness e;
  e.SetClockToNow();
  const EncodingRegistry& registry = e.engine().registry();
  ASSERT_EQ(e.Run("SET s v"), "OK");
  EXPECT_EQ(e.Run("OBJECT ENCODING s"), "\"kv-string\"");
  EXPECT_EQ(e.Run("OBJECT ENCODING nokey"), "(nil)");
  for (const TypeCase& c : Cases()) {
    const std::string type_name(registry.FindType(c.type)->name);
    const auto versions = registry.VersionsOf(c.type);
    for (const auto* version : versions) {
      SCOPED_TRACE(version->DisplayName(*registry.FindType(c.type)));
      const std::string config = "CONFIG SET kv." + type_name + ".key.meta.version ";
      ASSERT_EQ(e.Run("DEL k"), e.Run("EXISTS k"));
      ASSERT_EQ(e.Run(config + std::string(version->name)), "OK");
      e.Run(c.fill);
      // New keys now get another version; k keeps its own.
      const auto* other = versions.front() == version ? versions.back() : versions.front();
      ASSERT_EQ(e.Run(config + std::string(other->name)), "OK");
      EXPECT_EQ(e.Run("OBJECT ENCODING k"),
                "\"" + encodings::KvEncodingName(type_name, version->name) + "\"");
    }
  }
  EXPECT_EQ(encodings::KvEncodingName("hash", "0"), "kv-hash-v0");
  EXPECT_EQ(encodings::KvEncodingName("zset", "kvrocks"), "kv-zset-kvrocks");
}

// How often each key came back from n draws.
std::map<std::string, int> Draws(EngineHarness& e, int n) {
  std::map<std::string, int> seen;
  for (int i = 0; i < n; ++i) ++seen[e.Run("RANDOMKEY")];
  return seen;
}

class RandomkeyTest : public ::testing::TestWithParam<bool> {};

TEST_P(RandomkeyTest, EveryLiveKeyAndNeverAnExpiredOne) {
  EngineHarness e("memory", {}, /*no_reverse_scan=*/GetParam());
  EXPECT_EQ(e.Run("RANDOMKEY"), "(nil)");
  ASSERT_EQ(e.Run("SET only 1"), "OK");
  EXPECT_EQ(Draws(e, 20), (std::map<std::string, int>{{"\"only\"", 20}}));
  // Keys with long gaps between them (a, m..., zz) and a shared prefix: a database of fewer
  // than 64 keys is sampled uniformly, so each of the 8 keys comes back about 1/8 of 4000 times
  // (binomial standard deviation ~21; the bounds are over 9 of them away).
  ASSERT_EQ(e.Run("MSET a 1 m:1 1 m:2 1 m:3 1 m:10 1 zz 1 zz:long-key-name-after-zz 1"), "OK");
  std::map<std::string, int> seen = Draws(e, 4000);
  EXPECT_EQ(seen.size(), 8u);
  for (const auto& [key, n] : seen) {
    EXPECT_GT(n, 300) << key;
    EXPECT_LT(n, 700) << key;
  }
  // Expired keys are stepped over, even when they are most of the database.
  ASSERT_EQ(e.Run("DEL only"), "(integer) 1");
  for (const char* key : {"a", "m:1", "m:2", "m:3", "zz", "zz:long-key-name-after-zz"}) {
    ASSERT_EQ(e.Run(std::string("PEXPIRE ") + key + " 10"), "(integer) 1");
  }
  e.clock().AdvanceMillis(11);
  seen = Draws(e, 400);
  EXPECT_EQ(seen.size(), 1u);
  EXPECT_GT(seen["\"m:10\""], 0);
  ASSERT_EQ(e.Run("PEXPIRE m:10 10"), "(integer) 1");
  e.clock().AdvanceMillis(11);
  EXPECT_EQ(e.Run("RANDOMKEY"), "(nil)");
  // Only the selected database.
  ASSERT_EQ(e.Run("SELECT 1"), "OK");
  ASSERT_EQ(e.Run("SET other 1"), "OK");
  EXPECT_EQ(e.Run("RANDOMKEY"), "\"other\"");
}

INSTANTIATE_TEST_SUITE_P(ReverseScan, RandomkeyTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "NoReverse" : "Reverse"; });

}  // namespace
}  // namespace kvlab::engine
