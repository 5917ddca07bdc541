// RocksDB's compaction filter with the engine's policy (engine/compaction_policy.h): after a
// full compaction, a scan of the store finds no orphaned sub-key and no meta expired beyond the
// grace period, every live key reads as before, and a key expired within the grace period
// keeps its records until it has passed; on every version of every registry type.
#include "engine/compaction_policy.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "backends/registry.h"
#include "encodings/registry.h"
#include "engine/engine.h"
#include "resp/split_args.h"
#include "testing/gc_test_util.h"
#include "testing/kv_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {
namespace {

constexpr int64_t kGraceMs = 10'000;

// An engine over a RocksDB store whose compactions consult the policy, on a manual clock.
class FilteredEngine {
 public:
  FilteredEngine() : clock_(1700000000000000) {
    CompactionPolicyOptions po;
    po.clock = &clock_;
    po.grace_ms = kGraceMs;
    policy_ = std::make_shared<KeyMetaCompactionPolicy>(po);
    backends::StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch_.Sub("store");
    spec.compaction_filter = policy_;
    const Status s = backends::OpenStore(spec, &store_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    policy_->Attach(store_->store());
    EngineOptions options;
    options.clock = &clock_;
    engine_ = std::make_unique<Engine>(store_->store(), options);
  }

  resp::Reply Exec(const std::string& line) {
    std::vector<std::string> argv;
    EXPECT_TRUE(resp::SplitArgs(line, &argv)) << line;
    return engine_->Execute(session_, argv, nullptr);
  }
  std::string Run(const std::string& line) { return Exec(line).Describe(); }
  void Compact() {
    const Status s = store_->CompactAll();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  Engine& engine() { return *engine_; }
  encodings::ManualClock& clock() { return clock_; }
  const KeyMetaCompactionPolicy& policy() const { return *policy_; }

 private:
  testing::ScratchDir scratch_;
  encodings::ManualClock clock_;
  std::shared_ptr<KeyMetaCompactionPolicy> policy_;
  std::unique_ptr<backends::OpenedStore> store_;
  std::unique_ptr<Engine> engine_;
  Session session_;
};

using testing::FillKey;
using testing::GcCommandsByType;
using testing::GcTypeCommands;

class CompactionFilterMatrix : public ::testing::TestWithParam<testing::GcCell> {};

TEST_P(CompactionFilterMatrix, DropsGarbageAfterTheGracePeriodAndNothingLive) {
  const testing::GcCell& c = GetParam();
  auto commands = GcCommandsByType().find(c.type);
  ASSERT_NE(commands, GcCommandsByType().end())
      << "compaction_policy_test does not know how to fill a " << c.type;
  const GcTypeCommands& t = commands->second;
  FilteredEngine h;
  ASSERT_EQ(h.Run("CONFIG SET kv." + c.type + ".key.meta.version " + c.version), "OK");
  for (const char* key : {"live", "del", "over", "re", "exp", "recent", "ttl"}) {
    const resp::Reply r = h.Exec(FillKey(t.fill, key));
    ASSERT_FALSE(r.is_error()) << r.Describe();
  }
  h.Run("DEL del");
  h.Run("SET over now-a-string");  // a blind overwrite: the old sub-keys are orphans
  h.Run("DEL re");
  h.Exec(FillKey(t.fill, "re"));  // re-created: only the old incarnation's sub-keys are garbage
  h.Run("PEXPIRE exp 100");
  h.Run("PEXPIRE ttl 1000000");
  h.clock().AdvanceMillis(2 * kGraceMs);  // "exp" expired beyond the grace period
  h.Run("PEXPIRE recent 100");
  h.clock().AdvanceMillis(1000);  // "recent" expired within it

  const std::vector<std::string> live = {"live", "re", "ttl", "over"};
  auto contents = [&](const std::string& key) {
    if (key == "over") return h.Run("GET over");
    const std::string read = FillKey(t.read, key);
    return testing::SortedIfUnordered({read.substr(0, read.find(' '))}, h.Exec(read));
  };
  std::map<std::string, std::string> before;
  for (const std::string& key : live) before[key] = contents(key);
  const testing::Garbage dirty = testing::ScanForGarbage(h.engine());
  EXPECT_GT(dirty.orphans, 0u);
  EXPECT_EQ(dirty.expired_metas, 2u);

  h.Compact();
  const auto& registry = h.engine().registry();
  const auto* row = registry.Find(registry.FindType(c.type)->type, c.version);
  ASSERT_NE(row, nullptr);
  const testing::Garbage clean = testing::ScanForGarbage(h.engine());
  // Ardb's records carry no key-version: the filter keeps them (only the collector, under the
  // key's lock, may judge them), so the blind overwrite's records stay.
  EXPECT_EQ(clean.orphans, row->eager_delete ? dirty.orphans : 0u);
  // "recent", within the grace period; and an Ardb key's "exp", left to the reap, which
  // deletes its records with it.
  EXPECT_EQ(clean.expired_metas, row->eager_delete ? 2u : 1u);
  EXPECT_EQ(h.policy().drops().metas, row->eager_delete ? 0u : 1u);
  if (!row->eager_delete && row->tier != encodings::TierUse::kStore) {
    EXPECT_GE(h.policy().drops().sub_keys, 4u * 3);  // del, over, re's first incarnation, exp
  }
  for (const std::string& key : live) EXPECT_EQ(contents(key), before[key]) << key;
  EXPECT_EQ(h.Run("EXISTS exp recent del"), "(integer) 0");

  // Once "recent" is past the grace period too, the next compaction takes it.
  h.clock().AdvanceMillis(2 * kGraceMs);
  h.Compact();
  const testing::Garbage after = testing::ScanForGarbage(h.engine());
  EXPECT_EQ(after.expired_metas, row->eager_delete ? 2u : 0u);
  EXPECT_EQ(after.orphans, row->eager_delete ? dirty.orphans : 0u);
  EXPECT_EQ(h.policy().drops().metas, row->eager_delete ? 0u : 2u);
  for (const char* key : {"live", "re", "over"}) {
    EXPECT_EQ(contents(key), before[key]) << key;
  }
}

INSTANTIATE_TEST_SUITE_P(AllVersions, CompactionFilterMatrix,
                         ::testing::ValuesIn(testing::GcCells({"rocksdb"})), testing::GcCellName);

// Full compactions run back to back while writers create, grow, overwrite, delete and expire
// their own keys, the clock moving on its own: every key then holds what its writer's model
// says, and once the grace period has passed a last compaction leaves no garbage.
TEST(CompactionFilter, ConcurrentWritersDeletesAndExpiriesLoseNothing) {
  FilteredEngine h;
  std::atomic<bool> done{false};
  std::thread clock([&] {
    while (!done) {
      h.clock().AdvanceMillis(1);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  std::atomic<uint64_t> compactions{0};
  std::thread compactor([&] {
    while (!done) {
      h.Compact();
      ++compactions;
    }
  });
  testing::ModelWriters writers;
  writers.Run(h.engine(), h.clock());
  done = true;
  compactor.join();
  clock.join();
  EXPECT_GT(compactions.load(), 0u);

  h.clock().AdvanceMillis(100 + kGraceMs);  // every deadline and its grace period passed
  h.Compact();
  EXPECT_GT(h.policy().drops().sub_keys, 0u);
  const testing::Garbage g = testing::ScanForGarbage(h.engine());
  EXPECT_EQ(g.orphans, 0u);
  EXPECT_EQ(g.expired_metas, 0u);
  writers.ExpectEveryKeyAsModelled(h.engine());
}

TEST(CompactionFilter, IsRefusedWhereTheBackendDoesNotCompact) {
  testing::ScratchDir scratch;
  backends::StoreSpec spec;
  spec.backend = "lmdb";
  spec.options.dir = scratch.Sub("store");
  spec.compaction_filter = std::make_shared<KeyMetaCompactionPolicy>(CompactionPolicyOptions{});
  std::unique_ptr<backends::OpenedStore> opened;
  const Status s = backends::OpenStore(spec, &opened);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("kvlab gc"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kvlab::engine
