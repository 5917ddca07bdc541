// docs/amplification.md is exact: every row's formulas equal the counters of the command, at
// several collection sizes, on the memory and RocksDB backends; and the table covers every
// command for every encode-version the engine runs.
#include <gtest/gtest.h>

#include <set>

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
  for (const AmplificationRow& row : rows) {
    std::vector<int> versions = row.versions;
    if (versions.empty()) versions.push_back(0);
    for (int version : versions) {
      for (int64_t n : {3, 10, 50}) {
        SCOPED_TRACE("docs/amplification.md:" + std::to_string(row.line) + " `" + row.command +
                     "` " + row.type + " v" + std::to_string(version) + " n=" + std::to_string(n));
        testing::EngineHarness& e = row.no_reverse_scan ? without_reverse : with_reverse;
        ASSERT_EQ(e.Run("FLUSHALL"), "OK");
        ASSERT_EQ(e.Run("SELECT 0"), "OK");
        const std::string v = std::to_string(version);
        ASSERT_EQ(e.Run("CONFIG SET hash-encoding " + (row.type == "hash" ? v : "0")), "OK");
        ASSERT_EQ(e.Run("CONFIG SET zset-encoding " + (row.type == "zset" ? v : "0")), "OK");
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

INSTANTIATE_TEST_SUITE_P(Backends, AmplificationTest, ::testing::Values("memory", "rocksdb"));

// Every command of the command table has a row, and every hash and zset command has a row for
// every encode-version the engine runs.
TEST(AmplificationTable, CoversEveryCommandAndVersion) {
  const auto rows = Rows();
  std::set<std::string> covered;  // "command" and "command/type/version"
  for (const AmplificationRow& row : rows) {
    std::string name = row.command.substr(0, row.command.find(' '));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    covered.insert(name);
    for (int v : row.versions) covered.insert(name + "/" + row.type + "/" + std::to_string(v));
  }
  testing::EngineHarness e;
  for (const CommandSpec& spec : CommandTable::Get().all()) {
    if (spec.flags & kCmdAboutServer) continue;  // no data: see command_table.h
    const std::string name(spec.name);
    EXPECT_TRUE(covered.count(name)) << "no row for " << name;
    const bool hash = spec.group == "hash", zset = spec.group == "sorted-set";
    if (!hash && !zset) continue;
    for (int v = 0; v <= 3; ++v) {
      const bool runs = hash ? e.engine().hash_encoding(static_cast<uint8_t>(v)) != nullptr
                             : e.engine().zset_encoding(static_cast<uint8_t>(v)) != nullptr;
      if (!runs) continue;
      EXPECT_TRUE(covered.count(name + "/" + (hash ? "hash/" : "zset/") + std::to_string(v)))
          << "no row for " << name << " on " << (hash ? "hash" : "zset") << " v" << v;
    }
  }
}

}  // namespace
}  // namespace kvlab::engine
