// RENAME, COPY (within a database and into another) and MOVE over every registry version of
// every type, onto destinations of every version: the copy keeps the source's encode-version
// (not the configured one) and its expiry, holds exactly the source's elements, and is
// independent of the source afterwards; a replaced destination leaves nothing reachable; zset
// v3's store keeps exactly the live keys' zsets.
#include <gtest/gtest.h>

#include "encodings/key_meta.h"
#include "encodings/registry.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {
namespace {

using encodings::EncodingRegistry;
using encodings::KeyMeta;
using encodings::KeyType;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;
using testing::EngineHarness;

KeyMeta StoredMeta(EngineHarness& e, const std::string& key, uint8_t db = 0) {
  std::string bytes;
  EXPECT_TRUE(e.store()->Get(e.engine().codec().MetaKey(db, key), &bytes).ok()) << key;
  KeyMeta meta;
  EXPECT_TRUE(KeyMeta::Decode(bytes, e.engine().registry(), &meta).ok());
  return meta;
}

// What one type's test needs: how to fill a key, and how to read it whole.
struct TypeCase {
  KeyType type;
  std::string fill;  // "%" is replaced by the key
  std::string read;  // likewise
  std::string grow;  // adds one element
};

std::string With(std::string line, const std::string& key) {
  line.replace(line.find('%'), 1, key);
  return line;
}

std::vector<TypeCase> Cases() {
  return {
      {KeyType::kHash, "HSET % a 1 b 2 long-field-name-c 3", "HGETALL %", "HSET % d 4"},
      {KeyType::kZset, "ZADD % 1 a 2 b 3 long-member-name-c 2.5 bb", "ZRANGE % 0 -1 WITHSCORES",
       "ZADD % 9 z"},
      {KeyType::kList, "RPUSH % a b c long-element-d", "LRANGE % 0 -1", "RPUSH % z"},
      // SMEMBERS's order is the encoding's (a cache's is Redis's): ask for each member instead.
      {KeyType::kSet, "SADD % a b c long-member-name-d", "SMISMEMBER % a b c long-member-name-d z",
       "SADD % z"},
  };
}

size_t StoreZsets(EngineHarness& e) {
  std::vector<Reply> keys;
  TierCounts ignored;
  EXPECT_TRUE(
      e.engine().tier()->Pipeline(TierRole::kStore, {{"KEYS", "c#*"}}, &keys, &ignored).ok());
  return keys.empty() ? 0 : keys[0].elements().size();
}

TEST(KeyMove, EveryVersionOntoEveryDestination) {
  EngineHarness e;
  // zset v3 gives its store zset the key's expiry (PEXPIREAT): the store's clock is real.
  e.SetClockToNow();
  const EncodingRegistry& registry = e.engine().registry();
  for (const TypeCase& c : Cases()) {
    const std::string type_name(registry.FindType(c.type)->name);
    const auto versions = registry.VersionsOf(c.type);
    for (const auto* from : versions) {
      for (const auto* old_dst : versions) {
        SCOPED_TRACE(type_name + " " + std::string(from->name) + " onto " +
                     std::string(old_dst->name));
        ASSERT_EQ(e.Run("FLUSHALL"), "OK");
        const std::string config = "CONFIG SET kv." + type_name + ".key.meta.version ";
        ASSERT_EQ(e.Run(config + std::string(old_dst->name)), "OK");
        e.Run(With(c.fill, "dst"));
        e.Run(With(c.grow, "dst"));
        ASSERT_EQ(e.Run(config + std::string(from->name)), "OK");
        e.Run(With(c.fill, "src"));
        const std::string want = e.Run(With(c.read, "src"));
        ASSERT_EQ(e.Run("PEXPIRE src 500000"), "(integer) 1");
        // New keys now get another version: the copies must keep the source's.
        ASSERT_EQ(e.Run(config + std::string(versions.front() == from ? versions.back()->name
                                                                      : versions.front()->name)),
                  "OK");

        EXPECT_EQ(e.Run("COPY src dst"), "(integer) 0");
        EXPECT_EQ(e.Run("COPY src dst REPLACE"), "(integer) 1");
        EXPECT_EQ(e.Run(With(c.read, "dst")), want);
        EXPECT_EQ(StoredMeta(e, "dst").encode_version, from->id);
        EXPECT_EQ(e.Run("PTTL dst"), "(integer) 500000");
        // Independent: growing the copy leaves the source.
        e.Run(With(c.grow, "dst"));
        EXPECT_EQ(e.Run(With(c.read, "src")), want);
        EXPECT_NE(e.Run(With(c.read, "dst")), want);

        EXPECT_EQ(e.Run("RENAME src moved"), "OK");
        EXPECT_EQ(e.Run(With(c.read, "moved")), want);
        EXPECT_EQ(e.Run("EXISTS src"), "(integer) 0");
        EXPECT_EQ(e.Run("PTTL moved"), "(integer) 500000");
        EXPECT_EQ(StoredMeta(e, "moved").encode_version, from->id);
        // The old name starts empty when re-created.
        e.Run(With(c.grow, "src"));
        EXPECT_NE(e.Run(With(c.read, "src")), want);
        EXPECT_EQ(e.Run("RENAME moved dst"), "OK");
        EXPECT_EQ(e.Run(With(c.read, "dst")), want);
        EXPECT_EQ(e.Run("DEL src"), "(integer) 1");
        // MOVE into database 1, then COPY ... DB 0 and MOVE back: the same elements, version
        // and expiry in the other database, nothing left behind.
        EXPECT_EQ(e.Run("MOVE dst 1"), "(integer) 1");
        EXPECT_EQ(e.Run("EXISTS dst"), "(integer) 0");
        ASSERT_EQ(e.Run("SELECT 1"), "OK");
        EXPECT_EQ(e.Run(With(c.read, "dst")), want);
        EXPECT_EQ(e.Run("PTTL dst"), "(integer) 500000");
        EXPECT_EQ(StoredMeta(e, "dst", 1).encode_version, from->id);
        EXPECT_EQ(e.Run("COPY dst back DB 0"), "(integer) 1");
        EXPECT_EQ(e.Run("MOVE dst 0"), "(integer) 1");
        EXPECT_EQ(e.Run("DBSIZE"), "(integer) 0");
        ASSERT_EQ(e.Run("SELECT 0"), "OK");
        EXPECT_EQ(e.Run(With(c.read, "dst")), want);
        EXPECT_EQ(e.Run(With(c.read, "back")), want);
        EXPECT_EQ(e.Run("PTTL back"), "(integer) 500000");
        EXPECT_EQ(StoredMeta(e, "back").encode_version, from->id);
        EXPECT_EQ(e.Run("DEL back"), "(integer) 1");
        // zset v3: exactly one store zset, dst's, once the old ones are dropped.
        if (c.type == KeyType::kZset) {
          EXPECT_EQ(StoreZsets(e), from->tier == encodings::TierUse::kStore ? 1u : 0u);
        }
      }
    }
  }
}

// A string source or destination: the value and the expiry move; a string replaces a
// collection whole, and a collection a string.
TEST(KeyMove, StringsAndTypeChanges) {
  EngineHarness e;
  ASSERT_EQ(e.Run("SET s hello EX 100"), "OK");
  ASSERT_EQ(e.Run("HSET h f v"), "(integer) 1");
  EXPECT_EQ(e.Run("RENAMENX s h"), "(integer) 0");
  EXPECT_EQ(e.Run("COPY s h REPLACE"), "(integer) 1");
  EXPECT_EQ(e.Run("GET h"), "\"hello\"");
  EXPECT_EQ(e.Run("TTL h"), "(integer) 100");
  EXPECT_EQ(e.Run("HSET h2 f v"), "(integer) 1");
  EXPECT_EQ(e.Run("RENAME h2 s"), "OK");
  EXPECT_EQ(e.Run("TYPE s"), "hash");
  EXPECT_EQ(e.Run("TTL s"), "(integer) -1");
  EXPECT_EQ(e.Run("HGETALL s"), "[\"f\", \"v\"]");
}

}  // namespace
}  // namespace kvlab::engine
