// docs/amplification.md is exact: every row's formulas equal the counters of the command, at
// several collection sizes, on every backend (memory, RocksDB, LMDB, WiredTiger); and the table
// covers every command for every encode-version the engine runs.
#include <gtest/gtest.h>

#include "engine/command_table.h"
#include "testing/amplification_table.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {

using redis::TierCounts;
using redis::TierRole;
using resp::Reply;
using testing::AmplificationRow;
using testing::DatasetCommands;
using testing::EvaluateOperations;
using testing::LoadAmplificationTable;
using testing::WarmUpCommands;

namespace {

const char* kTablePath = KVLAB_SOURCE_DIR "/docs/amplification.md";

std::vector<AmplificationRow> Rows() {
  std::vector<AmplificationRow> rows;
  Status s = LoadAmplificationTable(kTablePath, &rows);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return rows;
}

class AmplificationTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AmplificationTest, CountersEqualTheFormulas) {
  const auto rows = Rows();
  ASSERT_GT(rows.size(), 80u);
  // One engine per reverse-scan capability, emptied (FLUSHALL) before each measurement: the
  // counts are logical, so reusing the store cannot change them.
  testing::EngineHarness with_reverse(GetParam());
  testing::EngineHarness without_reverse(GetParam(), EngineOptions(), /*no_reverse_scan=*/true);
  EngineOptions indexed;
  indexed.keys.ttl_index = true;
  testing::EngineHarness with_ttl_index(GetParam(), indexed);
  for (const AmplificationRow& row : rows) {
    std::vector<std::string> versions = row.versions;
    if (versions.empty()) versions.push_back("0");
    for (const std::string& version : versions) {
      for (int64_t n : {3, 10, 50}) {
        SCOPED_TRACE("docs/amplification.md:" + std::to_string(row.line) + " `" + row.command +
                     "` " + row.type + " v" + version + " n=" + std::to_string(n));
        testing::EngineHarness& e =
            row.ttl_index ? with_ttl_index : (row.no_reverse_scan ? without_reverse : with_reverse);
        // A row may leave the session inside MULTI, or watching keys.
        e.Run("DISCARD");
        ASSERT_EQ(e.Run("UNWATCH"), "OK");
        ASSERT_EQ(e.Run("FLUSHALL"), "OK");
        ASSERT_EQ(e.Run("SELECT 0"), "OK");
        // The row's version for its type, every other type at its default.
        for (const encodings::TypeSpec& type : e.engine().registry().types()) {
          const std::string v =
              row.type == type.name
                  ? version
                  : std::string(e.engine().registry().DefaultVersion(type.type).name);
          ASSERT_EQ(e.Run("CONFIG SET " + std::string(type.name) + "-encoding " + v), "OK");
        }
        for (const auto& cmd : DatasetCommands(row.dataset, n)) {
          ASSERT_FALSE(e.engine().Execute(e.session(), cmd).is_error());
        }
        if (row.cache == AmplificationRow::CacheState::kWarm) {
          for (const auto& cmd : WarmUpCommands(row.dataset, n)) {
            ASSERT_FALSE(e.engine().Execute(e.session(), cmd).is_error());
          }
        } else if (row.cache == AmplificationRow::CacheState::kCold) {
          std::vector<Reply> flushed;
          TierCounts ignored;
          ASSERT_TRUE(e.engine()
                          .tier()
                          ->Pipeline(TierRole::kCache, {{"FLUSHALL"}}, &flushed, &ignored)
                          .ok());
        }
        CommandCost cost;
        const Reply reply = e.Exec(row.command, &cost);
        EXPECT_FALSE(reply.is_error()) << reply.Describe();
        std::map<std::string, int64_t> expected;
        ASSERT_TRUE(EvaluateOperations(row.operations, n, &expected).ok());
        for (const auto& [name, value] : cost.kv.Fields()) {
          if (std::string_view(name).starts_with("bytes_")) continue;
          const int64_t want = expected.count(name) ? expected.at(name) : 0;
          EXPECT_EQ(static_cast<int64_t>(value), want)
              << name << " (measured: " << cost.kv.Describe() << ")";
        }
        for (const auto& [name, value] : expected) {
          bool known = false;
          for (const auto& f : cost.kv.Fields()) known |= name == f.first;
          EXPECT_TRUE(known) << "unknown KV counter '" << name << "' in the table";
        }
        std::map<std::string, int64_t> expected_tier;
        ASSERT_TRUE(EvaluateOperations(row.tier_operations, n, &expected_tier).ok());
        for (const auto& [name, value] : cost.tier.Fields()) {
          const int64_t want = expected_tier.count(name) ? expected_tier.at(name) : 0;
          EXPECT_EQ(static_cast<int64_t>(value), want) << name << " (Redis tier)";
          expected_tier.erase(name);
        }
        EXPECT_TRUE(expected_tier.empty())
            << "unknown tier counter '"
            << (expected_tier.empty() ? "" : expected_tier.begin()->first) << "'";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AmplificationTest,
                         ::testing::Values("memory", "rocksdb", "lmdb", "wiredtiger"));

// Every command of the command table has a row, and every command of a registry type has a row
// for every version of the type (testing::AmplificationCoverageGaps).
TEST(AmplificationTable, CoversEveryCommandAndVersion) {
  for (const std::string& gap :
       testing::AmplificationCoverageGaps(Rows(), encodings::EncodingRegistry::Builtin())) {
    ADD_FAILURE() << gap;
  }
}

}  // namespace
}  // namespace kvlab::engine
