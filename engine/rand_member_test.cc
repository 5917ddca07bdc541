// ZRANDMEMBER and HRANDFIELD keep Redis's contract on every encode-version: distinct elements
// for a positive count (the whole collection when the count reaches its size), independent draws
// with repeats for a negative one, every element reachable, scores and values that belong to
// their elements. The draws are random; the sizes are chosen so that a correct implementation
// fails with a probability below 1e-40.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "encodings/registry.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {
namespace {

using resp::Reply;
using testing::EngineHarness;

std::vector<std::string> Strings(const Reply& r) {
  std::vector<std::string> out;
  for (const Reply& e : r.elements()) out.push_back(e.str());
  return out;
}

// Every version of the registry (not a list written here, which would skip a new one).
std::vector<std::string> VersionNames(encodings::KeyType type) {
  std::vector<std::string> out;
  for (const encodings::EncodingSpec* row :
       encodings::EncodingRegistry::Builtin().VersionsOf(type)) {
    out.emplace_back(row->name);
  }
  return out;
}

TEST(RandMember, ZsetContractOnEveryVersion) {
  EngineHarness e;
  const std::vector<std::string> versions = VersionNames(encodings::KeyType::kZset);
  ASSERT_GE(versions.size(), 5u);
  for (const std::string& v : versions) {
    SCOPED_TRACE("zset version " + v);
    ASSERT_EQ(e.Run("FLUSHALL"), "OK");
    ASSERT_EQ(e.Run("CONFIG SET zset-encoding " + v), "OK");
    ASSERT_EQ(e.Run("ZADD z 1 a 2 b 3 c 4 d 5 long-member-name-e"), "(integer) 5");
    const std::map<std::string, std::string> scores = {
        {"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"long-member-name-e", "5"}};
    // Negative counts: |count| draws, every member reached, repeats.
    const auto drawn = Strings(e.Exec("ZRANDMEMBER z -1000 WITHSCORES"));
    ASSERT_EQ(drawn.size(), 2000u);
    std::map<std::string, int> seen;
    for (size_t i = 0; i < drawn.size(); i += 2) {
      ASSERT_TRUE(scores.count(drawn[i])) << drawn[i];
      EXPECT_EQ(drawn[i + 1], scores.at(drawn[i]));
      ++seen[drawn[i]];
    }
    EXPECT_EQ(seen.size(), 5u);
    // Positive counts below the size: distinct, a sample that varies between calls.
    std::set<std::string> sampled;
    for (int round = 0; round < 200; ++round) {
      const auto three = Strings(e.Exec("ZRANDMEMBER z 3"));
      ASSERT_EQ(three.size(), 3u);
      EXPECT_EQ(std::set<std::string>(three.begin(), three.end()).size(), 3u);
      sampled.insert(three.begin(), three.end());
    }
    EXPECT_EQ(sampled.size(), 5u);
    // A count at or past the size: the whole zset, in its order.
    EXPECT_EQ(e.Run("ZRANDMEMBER z 9"), e.Run("ZRANGE z 0 -1"));
    // One member, no count: every member comes up.
    std::set<std::string> singles;
    for (int round = 0; round < 500; ++round) singles.insert(e.Exec("ZRANDMEMBER z").str());
    EXPECT_EQ(singles.size(), 5u);
  }
}

TEST(RandMember, HashContractOnEveryVersion) {
  EngineHarness e;
  const std::vector<std::string> versions = VersionNames(encodings::KeyType::kHash);
  ASSERT_GE(versions.size(), 5u);
  for (const std::string& v : versions) {
    SCOPED_TRACE("hash version " + v);
    ASSERT_EQ(e.Run("FLUSHALL"), "OK");
    ASSERT_EQ(e.Run("CONFIG SET hash-encoding " + v), "OK");
    ASSERT_EQ(e.Run("HSET h a 1 b 2 c 3 d 4 e 5"), "(integer) 5");
    // Negative counts: |count| draws with their values, every field reached.
    const auto fields = Strings(e.Exec("HRANDFIELD h -1000 WITHVALUES"));
    ASSERT_EQ(fields.size(), 2000u);
    std::set<std::string> fseen;
    for (size_t i = 0; i < fields.size(); i += 2) {
      EXPECT_EQ(e.Exec("HGET h " + fields[i]).str(), fields[i + 1]);
      fseen.insert(fields[i]);
    }
    EXPECT_EQ(fseen.size(), 5u);
    for (int round = 0; round < 50; ++round) {
      const auto four = Strings(e.Exec("HRANDFIELD h 4"));
      ASSERT_EQ(four.size(), 4u);
      EXPECT_EQ(std::set<std::string>(four.begin(), four.end()).size(), 4u);
    }
    // A count at or past the size: the whole hash, in its order, values with their fields.
    EXPECT_EQ(Strings(e.Exec("HRANDFIELD h 5 WITHVALUES")), Strings(e.Exec("HGETALL h").AsResp2()));
    std::set<std::string> fsingles;
    for (int round = 0; round < 500; ++round) fsingles.insert(e.Exec("HRANDFIELD h").str());
    EXPECT_EQ(fsingles.size(), 5u);
  }
}

// The errors a count form can give, in Redis's order of checks, and the bound of a negative
// count (kvlab builds a reply whole, as SRANDMEMBER does).
TEST(RandMember, CountChecksAndBound) {
  EngineHarness e;
  ASSERT_EQ(e.Run("ZADD z 1 a"), "(integer) 1");
  ASSERT_EQ(e.Run("SET s v"), "OK");
  EXPECT_EQ(e.Run("ZRANDMEMBER s x WITHSCORES"),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(e.Run("ZRANDMEMBER s -9223372036854775808 foo"),
            "(error) ERR value is out of range, value must between -9223372036854775807 and "
            "9223372036854775807");
  EXPECT_EQ(e.Run("HRANDFIELD s 1 WITHSCORES"), "(error) ERR syntax error");
  EXPECT_EQ(e.Run("HRANDFIELD s 4611686018427387904 WITHVALUES"),
            "(error) ERR value is out of range");
  EXPECT_EQ(e.Run("HRANDFIELD s 4611686018427387904"),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(e.Run("ZRANDMEMBER s 0"),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(e.Run("ZRANDMEMBER nokey -99999999999"), "[]");
  EXPECT_EQ(e.Run("ZRANDMEMBER z -99999999999"),
            "(error) ERR count is too large: kvlab replies at most 67108864 random members at "
            "once");
  EXPECT_EQ(e.Run("ZRANDMEMBER z 9223372036854775807"), "[\"a\"]");
}

// RESP3 nests [element, score] pairs, as Redis 7.0 does.
TEST(RandMember, Resp3NestsPairs) {
  EngineHarness e;
  e.session().resp = 3;
  ASSERT_EQ(e.Run("ZADD z 1 a"), "(integer) 1");
  ASSERT_EQ(e.Run("HSET h f v"), "(integer) 1");
  const Reply z = e.Exec("ZRANDMEMBER z -2 WITHSCORES");
  ASSERT_EQ(z.elements().size(), 2u);
  EXPECT_EQ(z.elements()[0].elements().size(), 2u);
  EXPECT_EQ(z.elements()[0].elements()[1].type(), Reply::Type::kDouble);
  const Reply h = e.Exec("HRANDFIELD h 1 WITHVALUES");
  ASSERT_EQ(h.elements().size(), 1u);
  EXPECT_EQ(h.elements()[0].elements()[1].str(), "v");
}

}  // namespace
}  // namespace kvlab::engine
