// The GEO commands on every zset encode-version: Redis's own expected replies (tests/unit/geo.tcl
// of Redis 7.0, which pins scores, distances and geohashes), and the search as a range scan: a
// GEOSEARCH reads the score ranges of its cells, so points far away cost it nothing.
// The differential cases against a real redis-server are conformance/cases/geo*.txt.
#include <gtest/gtest.h>

#include "engine/geohash.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {
namespace {

using testing::EngineHarness;

const char* kNyc =
    "GEOADD nyc -73.9454966 40.747533 \"lic market\" -73.9733487 40.7648057 \"central park "
    "n/q/r\" -73.9903085 40.7362513 \"union square\" -74.0131604 40.7126674 \"wtc one\" "
    "-73.7858139 40.6428986 \"jfk\" -73.9375699 40.7498929 \"q4\" -73.9564142 40.7480973 4545";

std::vector<std::string> ZsetVersions(EngineHarness& e) {
  std::vector<std::string> out;
  const auto& registry = e.engine().registry();
  for (const auto* v : registry.VersionsOf(encodings::KeyType::kZset)) {
    out.emplace_back(v->name);
  }
  return out;
}

TEST(Geo, RedisUnitRepliesOnEveryZsetVersion) {
  EngineHarness e;
  e.SetClockToNow();
  for (const std::string& version : ZsetVersions(e)) {
    SCOPED_TRACE("zset v" + version);
    ASSERT_EQ(e.Run("FLUSHALL"), "OK");
    ASSERT_EQ(e.Run("CONFIG SET zset-encoding " + version), "OK");
    EXPECT_EQ(e.Run(kNyc), "(integer) 7");
    EXPECT_EQ(e.Run("ZRANGE nyc 0 -1 WITHSCORES"),
              "[\"wtc one\", \"1791873972053020\", \"union square\", \"1791875485187452\", "
              "\"central park n/q/r\", \"1791875761332224\", \"4545\", \"1791875796750882\", "
              "\"lic market\", \"1791875804419201\", \"q4\", \"1791875830079666\", \"jfk\", "
              "\"1791895905559723\"]");
    EXPECT_EQ(e.Run("GEORADIUS nyc -73.9798091 40.7598464 3 km withdist asc"),
              "[[\"central park n/q/r\", \"0.7750\"], [\"4545\", \"2.3651\"], [\"union square\", "
              "\"2.7697\"]]");
    EXPECT_EQ(e.Run("GEOSEARCH nyc fromlonlat -73.9798091 40.7598464 bybox 6 6 km asc"),
              "[\"central park n/q/r\", \"4545\", \"union square\", \"lic market\"]");
    EXPECT_EQ(e.Run("GEORADIUS nyc -73.9798091 40.7598464 10 km COUNT 3 ANY"),
              "[\"wtc one\", \"union square\", \"central park n/q/r\"]");
    EXPECT_EQ(e.Run("GEORADIUS nyc -73.9798091 40.7598464 10 km COUNT 2 DESC"),
              "[\"wtc one\", \"q4\"]");
    EXPECT_EQ(e.Run("GEORADIUSBYMEMBER nyc \"wtc one\" 7 km withdist"),
              "[[\"wtc one\", \"0.0000\"], [\"union square\", \"3.2544\"], [\"central park "
              "n/q/r\", \"6.7000\"], [\"4545\", \"6.1975\"], [\"lic market\", \"6.8969\"]]");
    EXPECT_EQ(e.Run("GEOSEARCH nyc frommember \"wtc one\" bybox 14 14 km"),
              "[\"wtc one\", \"union square\", \"central park n/q/r\", \"4545\", \"lic market\", "
              "\"q4\"]");
    EXPECT_EQ(e.Run("GEOADD points -5.6 42.6 test"), "(integer) 1");
    EXPECT_EQ(e.Run("GEOHASH points test nothere"), "[\"ezs42e44yx0\", (nil)]");
    EXPECT_EQ(e.Run("GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"),
              "(integer) 2");
    EXPECT_EQ(e.Run("GEODIST Sicily Palermo Catania km"), "\"166.2742\"");
    EXPECT_EQ(e.Run("GEOSEARCHSTORE d Sicily fromlonlat 15 37 byradius 200 km storedist"),
              "(integer) 2");
    EXPECT_EQ(e.Run("ZRANGE d 0 -1 WITHSCORES"),
              "[\"Catania\", \"56.441257870158204\", \"Palermo\", \"190.44242984775784\"]");
    EXPECT_EQ(e.Run("GEOSEARCH Sicily frommember nothere byradius 1 km"),
              "(error) ERR could not decode requested zset member");
    EXPECT_EQ(e.Run("GEOSEARCH Sicily byradius 1 km asc withdist"),
              "(error) ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH");
    EXPECT_EQ(e.Run("GEOADD Sicily 200 1 x"),
              "(error) ERR invalid longitude,latitude pair 200.000000,1.000000");
  }
}

// A search's cost follows the points in its cells, not the zset's size: 2,000 points on the
// other side of the world add no KV step to a search around Palermo on the KV versions.
TEST(Geo, SearchScansTheCellsRangesOnly) {
  EngineHarness e;
  for (const char* version : {"0", "kvrocks", "ardb"}) {
    SCOPED_TRACE(std::string("zset v") + version);
    ASSERT_EQ(e.Run("FLUSHALL"), "OK");
    ASSERT_EQ(e.Run(std::string("CONFIG SET zset-encoding ") + version), "OK");
    ASSERT_EQ(e.Run("GEOADD g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania"),
              "(integer) 2");
    const std::string search = "GEOSEARCH g FROMLONLAT 14 38 BYRADIUS 200 km ASC";
    CommandCost before;
    EXPECT_EQ(e.Exec(search, &before).Describe(), "[\"Palermo\", \"Catania\"]");
    for (int i = 0; i < 20; ++i) {
      std::string add = "GEOADD g";
      for (int j = 0; j < 100; ++j) {
        add += " " + std::to_string(-170 + (i * 100 + j) % 40) + "." + std::to_string(j) + " " +
               std::to_string(-60 + i) + " far" + std::to_string(i * 100 + j);
      }
      ASSERT_EQ(e.Run(add), "(integer) 100");
    }
    CommandCost after;
    EXPECT_EQ(e.Exec(search, &after).Describe(), "[\"Palermo\", \"Catania\"]");
    EXPECT_EQ(after.kv, before.kv) << before.kv.Describe() << " vs " << after.kv.Describe();
    EXPECT_GT(after.kv.seeks, 1u);  // one per non-empty cell range at least
  }
}

TEST(Geohash, DistanceTextAndScores) {
  EXPECT_EQ(geo::FormatDistance(0), "0.0000");
  EXPECT_EQ(geo::FormatDistance(0.0001), "0.0001");
  EXPECT_EQ(geo::FormatDistance(6.0642951598391699e-05), "0.0001");
  EXPECT_EQ(geo::FormatDistance(0.775), "0.7750");
  EXPECT_EQ(geo::FormatDistance(166274.1516), "166274.1516");
  EXPECT_EQ(geo::ScoreOf(-74.0131604, 40.7126674), 1791873972053020.0);
  double xy[2];
  ASSERT_TRUE(geo::DecodeScore(geo::ScoreOf(13.361389, 38.115556), xy));
  EXPECT_NEAR(xy[0], 13.361389, 1e-5);
  EXPECT_NEAR(xy[1], 38.115556, 1e-5);
}

}  // namespace
}  // namespace kvlab::engine
