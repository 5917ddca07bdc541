// The zset algebra's STORE forms over every combination of source and destination
// encode-versions: the destination takes the configured version and holds exactly the result,
// whatever versions the sources and the old destination had, including a destination that is
// also a source and a zset v3 one whose store zset must go.
#include <gtest/gtest.h>

#include "encodings/key_meta.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {
namespace {

using encodings::KeyMeta;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;
using testing::EngineHarness;

KeyMeta StoredMeta(EngineHarness& e, const std::string& key) {
  std::string bytes;
  EXPECT_TRUE(e.store()->Get(e.engine().codec().MetaKey(0, key), &bytes).ok()) << key;
  KeyMeta meta;
  EXPECT_TRUE(KeyMeta::Decode(bytes, e.engine().registry(), &meta).ok());
  return meta;
}

void UseVersion(EngineHarness& e, int v) {
  ASSERT_EQ(e.Run("CONFIG SET zset-encoding " + std::to_string(v)), "OK");
}

TEST(ZsetAlgebra, EverySourceAndDestinationVersion) {
  EngineHarness e;
  const std::string long_a = "long-member-name-a", long_b = "long-member-name-b";
  for (int va = 0; va < 4; ++va) {
    for (int vb = 0; vb < 4; ++vb) {
      for (int vd = 0; vd < 4; ++vd) {
        SCOPED_TRACE("a v" + std::to_string(va) + ", b v" + std::to_string(vb) + ", dst v" +
                     std::to_string(vd));
        ASSERT_EQ(e.Run("FLUSHALL"), "OK");
        UseVersion(e, va);
        ASSERT_EQ(e.Run("ZADD a 1 x 2 y 3 " + long_a), "(integer) 3");
        UseVersion(e, vb);
        ASSERT_EQ(e.Run("ZADD b 10 x 20 " + long_b + " 30 z"), "(integer) 3");
        // The destination exists first, in another version than the one it will get.
        UseVersion(e, (vd + 1) % 4);
        ASSERT_EQ(e.Run("ZADD d 5 old"), "(integer) 1");
        UseVersion(e, vd);

        EXPECT_EQ(e.Run("ZUNIONSTORE d 2 a b WEIGHTS 1 2"), "(integer) 5");
        EXPECT_EQ(StoredMeta(e, "d").encode_version, vd);
        EXPECT_EQ(e.Run("ZRANGE d 0 -1 WITHSCORES"),
                  "[\"y\", \"2\", \"long-member-name-a\", \"3\", \"x\", \"21\", "
                  "\"long-member-name-b\", \"40\", \"z\", \"60\"]");
        EXPECT_EQ(e.Run("ZSCORE d old"), "(nil)");
        EXPECT_EQ(e.Run("ZCARD d"), "(integer) 5");
        EXPECT_EQ(e.Run("ZRANK d long-member-name-b"), "(integer) 3");

        // The destination as a source of itself.
        EXPECT_EQ(e.Run("ZINTERSTORE d 2 d a AGGREGATE MAX"), "(integer) 3");
        EXPECT_EQ(e.Run("ZRANGE d 0 -1 WITHSCORES"),
                  "[\"y\", \"2\", \"long-member-name-a\", \"3\", \"x\", \"21\"]");
        EXPECT_EQ(e.Run("ZDIFFSTORE d 2 d b"), "(integer) 2");
        EXPECT_EQ(e.Run("ZRANGE d 0 -1 WITHSCORES"),
                  "[\"y\", \"2\", \"long-member-name-a\", \"3\"]");
        EXPECT_EQ(e.Run("ZRANGESTORE d d 1 1"), "(integer) 1");
        EXPECT_EQ(e.Run("ZRANGE d 0 -1 WITHSCORES"), "[\"long-member-name-a\", \"3\"]");
        // An empty result deletes it.
        EXPECT_EQ(e.Run("ZDIFFSTORE d 2 d d"), "(integer) 0");
        EXPECT_EQ(e.Run("EXISTS d"), "(integer) 0");
        // The sources are untouched.
        EXPECT_EQ(e.Run("ZRANGE a 0 -1 WITHSCORES"),
                  "[\"x\", \"1\", \"y\", \"2\", \"long-member-name-a\", \"3\"]");
        EXPECT_EQ(e.Run("ZCARD b"), "(integer) 3");
        // No zset v3 store zset is left behind by the replaced destinations: only the sources'.
        std::vector<Reply> keys;
        TierCounts ignored;
        ASSERT_TRUE(
            e.engine().tier()->Pipeline(TierRole::kStore, {{"KEYS", "c#*"}}, &keys, &ignored).ok());
        EXPECT_EQ(keys[0].elements().size(), static_cast<size_t>((va == 3) + (vb == 3)));
      }
    }
  }
}

// An error anywhere writes nothing: the destination keeps its value and type.
TEST(ZsetAlgebra, ErrorsLeaveTheDestination) {
  EngineHarness e;
  for (int v = 0; v < 4; ++v) {
    SCOPED_TRACE("v" + std::to_string(v));
    ASSERT_EQ(e.Run("FLUSHALL"), "OK");
    UseVersion(e, v);
    ASSERT_EQ(e.Run("ZADD d 1 keep"), "(integer) 1");
    ASSERT_EQ(e.Run("ZADD a 1 x"), "(integer) 1");
    ASSERT_EQ(e.Run("SET s v"), "OK");
    EXPECT_EQ(e.Run("ZUNIONSTORE d 2 a s"),
              "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    EXPECT_EQ(e.Run("ZUNIONSTORE d 2 a a WEIGHTS 1 nope"),
              "(error) ERR weight value is not a float");
    EXPECT_EQ(e.Run("ZRANGESTORE d a 0 -1 WITHSCORES"), "(error) ERR syntax error");
    EXPECT_EQ(e.Run("ZRANGE d 0 -1 WITHSCORES"), "[\"keep\", \"1\"]");
    // A STORE over a string replaces it by a zset.
    EXPECT_EQ(e.Run("ZUNIONSTORE s 1 a"), "(integer) 1");
    EXPECT_EQ(e.Run("TYPE s"), "zset");
  }
}

}  // namespace
}  // namespace kvlab::engine
