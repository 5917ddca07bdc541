#include <gtest/gtest.h>

#include "engine/engine_test_util.h"

namespace kvlab {
namespace {

TEST(EngineSmoke, Basics) {
  testing::EngineHarness e;
  EXPECT_EQ(e.Run("SET k v"), "OK");
  EXPECT_EQ(e.Run("GET k"), "\"v\"");
  EXPECT_EQ(e.Run("HSET h a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("HGETALL h"), "[\"a\", \"1\", \"b\", \"2\"]");
  EXPECT_EQ(e.Run("ZADD z 1 a 2 b -1 c"), "(integer) 3");
  EXPECT_EQ(e.Run("ZRANGE z 0 -1 WITHSCORES"), "[\"c\", \"-1\", \"a\", \"1\", \"b\", \"2\"]");
  EXPECT_EQ(e.Run("GET h"),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

}  // namespace
}  // namespace kvlab
