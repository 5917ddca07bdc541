// `kvlab gc` as a user runs it (build/kvlab in a child process): refuses what it cannot collect,
// reports its pass in one line, and, SIGKILLed in the middle of a pass and run again, leaves a
// consistent store with every live key intact and no garbage.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <thread>

#include "backends/registry.h"
#include "encodings/key_codec.h"
#include "engine/engine.h"
#include "flags/conventions.h"
#include "testing/child_run.h"
#include "testing/gc_test_util.h"
#include "testing/kv_test_util.h"

namespace kvlab::cli {
namespace {

using testing::Kvlab;
using testing::ReadFile;

// Opens the RocksDB store in dir as `kvlab` does (same format record), with an engine over it.
struct OpenEngine {
  explicit OpenEngine(const std::string& dir, bool ttl_index = false) {
    backends::StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = dir;
    engine::EngineOptions options;
    options.keys.ttl_index = ttl_index;
    spec.format = encodings::StoreFormatRecord(options.keys);
    const Status s = backends::OpenStore(spec, &store);
    EXPECT_TRUE(s.ok()) << s.ToString();
    engine = std::make_unique<engine::Engine>(store->store(), options);
  }
  ~OpenEngine() {
    engine.reset();
    store->Close();
  }
  resp::Reply Exec(std::vector<std::string> argv) { return engine->Execute(session, argv); }

  std::unique_ptr<backends::OpenedStore> store;
  std::unique_ptr<engine::Engine> engine;
  engine::Session session;
};

TEST(GcCli, RefusesWhatItCannotCollect) {
  testing::ScratchDir dir;
  auto r = Kvlab({"gc", "--backend", "rocksdb"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage);
  EXPECT_NE(r.err.find("give its --dir"), std::string::npos) << r.err;
  r = Kvlab({"gc", "--backend", "rocksdb", "--dir", dir.Sub("nope")}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage);
  EXPECT_NE(r.err.find("no such directory"), std::string::npos) << r.err;
  r = Kvlab({"gc", "--dir", dir.path(), "--batch", "0"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage) << r.err;
}

// Like every subcommand that opens a store, gc takes the backend from the store's marker when
// --backend is not given, and refuses an unusable store as serve does: exit 2, and no Status
// prefix in the message.
TEST(GcCli, ReadsTheStoreMarkerAndRefusesLikeServe) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  {
    OpenEngine e(store);
    ASSERT_FALSE(e.Exec({"HSET", "gone", "a", "1", "b", "2", "c", "3"}).is_error());
    e.Exec({"DEL", "gone"});
  }
  auto r = Kvlab({"gc", "--dir", store, "--quiet"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reclaimed 3 (sub-keys 3, metas 0, tier 0)"), std::string::npos) << r.out;
  r = Kvlab({"gc", "--dir", store, "--mechanism", "compaction", "--quiet"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;

  r = Kvlab({"gc", "--backend", "lmdb", "--dir", store}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage) << r.err;
  EXPECT_NE(r.err.find("is a rocksdb store, not a lmdb store"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("InvalidArgument"), std::string::npos) << r.err;
  std::ofstream(store + "/KVLAB_STORE", std::ios::trunc) << "kvlab-store 2\nbackend lmdb\n";
  for (const char* mechanism : {"scan", "ttl-index"}) {
    r = Kvlab({"gc", "--dir", store, "--mechanism", mechanism}, dir.path());
    EXPECT_EQ(r.exit_code, flags::kExitUsage) << mechanism << "\n" << r.err;
    EXPECT_NE(r.err.find("the directory holds RocksDB files"), std::string::npos) << r.err;
  }
  r = Kvlab({"gc", "--dir", store, "--mechanism", "compaction"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage) << r.err;
  EXPECT_NE(r.err.find("--mechanism compaction needs a RocksDB store: lmdb"), std::string::npos)
      << r.err;
}

TEST(GcCli, KilledMidPassThenRunAgainLosesNothing) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  constexpr int kKeys = 200;
  constexpr int kFields = 200;
  std::map<std::string, size_t> live;  // key -> HLEN
  {
    OpenEngine e(store);
    for (int k = 0; k < kKeys; ++k) {
      std::vector<std::string> argv = {"HSET", "h" + std::to_string(k)};
      for (int f = 0; f < kFields; ++f) {
        argv.push_back("f" + std::to_string(f));
        argv.push_back(std::string(32, 'v'));
      }
      ASSERT_FALSE(e.Exec(argv).is_error());
    }
    for (int k = 0; k < kKeys; ++k) {
      if (k % 2 == 0) {
        e.Exec({"DEL", "h" + std::to_string(k)});
      } else {
        live["h" + std::to_string(k)] = kFields;
      }
    }
    EXPECT_EQ(testing::ScanForGarbage(*e.engine).orphans, uint64_t{kKeys / 2 * kFields});
  }
  // Slow enough (10000 records a second over 40000 records) to be killed midway.
  const pid_t pid = testing::SpawnKvlab(
      {"gc", "--backend", "rocksdb", "--dir", store, "--rate", "10000", "--batch", "100"},
      dir.path());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ReadFile(dir.Sub("stderr")).find("gc: db 0") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_NE(ReadFile(dir.Sub("stderr")).find("gc: db 0"), std::string::npos)
      << ReadFile(dir.Sub("stderr"));
  kill(pid, SIGKILL);
  EXPECT_EQ(testing::Wait(pid), 128 + SIGKILL);
  uint64_t left = 0;
  {
    OpenEngine e(store);
    left = testing::ScanForGarbage(*e.engine).orphans;
    for (const auto& [key, n] : live) {
      EXPECT_EQ(e.Exec({"HLEN", key}).integer(), static_cast<int64_t>(n)) << key;
    }
  }
  EXPECT_LT(left, uint64_t{kKeys / 2 * kFields});  // it had reclaimed some, not all

  // A dry run counts what is left, with its bytes (key + 32-byte value each), and writes nothing.
  const auto dry =
      Kvlab({"gc", "--backend", "rocksdb", "--dir", store, "--quiet", "--dry-run"}, dir.path());
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("gc dry run: scanned "), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("garbage " + std::to_string(left) + " (sub-keys " + std::to_string(left) +
                         ", metas 0, tier 0; "),
            std::string::npos)
      << dry.out;
  const auto r = Kvlab({"gc", "--backend", "rocksdb", "--dir", store, "--quiet"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gc: scanned "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reclaimed " + std::to_string(left) + " (sub-keys " + std::to_string(left) +
                       ", metas 0, tier 0)"),
            std::string::npos)
      << r.out;
  OpenEngine e(store);
  const testing::Garbage g = testing::ScanForGarbage(*e.engine);
  EXPECT_EQ(g.orphans, 0u);
  EXPECT_EQ(g.records, live.size() * (kFields + 1));
  for (const auto& [key, n] : live) {
    const resp::Reply all = e.Exec({"HGETALL", key});
    EXPECT_EQ(all.elements().size(), 2 * n) << key;
  }
}

// --mechanism compaction: one full RocksDB compaction with the filter takes the deleted keys'
// sub-keys and an expired key's meta and sub-keys, keeps every live key, and says so in one
// line; a backend that does not compact is refused.
TEST(GcCli, CompactionMechanismDropsGarbageAndKeepsLiveKeys) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  {
    OpenEngine e(store);
    for (const char* key : {"live", "gone", "expiring"}) {
      ASSERT_FALSE(e.Exec({"HSET", key, "a", "1", "b", "2", "c", "3"}).is_error());
    }
    e.Exec({"DEL", "gone"});
    e.Exec({"PEXPIRE", "expiring", "1"});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto r =
      Kvlab({"gc", "--backend", "lmdb", "--dir", store, "--mechanism", "compaction"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage);
  EXPECT_NE(r.err.find("--mechanism compaction needs a RocksDB store"), std::string::npos) << r.err;

  r = Kvlab({"gc", "--backend", "rocksdb", "--dir", store, "--mechanism", "compaction",
             "--compaction-grace-ms", "0", "--quiet"},
            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // gone's and expiring's three fields, and expiring's meta.
  EXPECT_NE(r.out.find("dropped 7 (sub-keys 6, metas 1)"), std::string::npos) << r.out;
  OpenEngine e(store);
  const testing::Garbage g = testing::ScanForGarbage(*e.engine);
  EXPECT_EQ(g.orphans, 0u);
  EXPECT_EQ(g.expired_metas, 0u);
  EXPECT_EQ(g.records, 4u);  // live's meta and fields
  EXPECT_EQ(e.Exec({"HLEN", "live"}).integer(), 3);
}

// --mechanism ttl-index: the active expiry cycles over the index reap the expired key with its
// sub-keys and delete the stale entry, and leave the deleted key's garbage (not an expiry's) to
// the other mechanisms; a store written without the index is refused with a clear error.
TEST(GcCli, TtlIndexMechanismReapsExpiredKeysWithTheirSubKeys) {
  testing::ScratchDir dir;
  const std::string plain = dir.Sub("plain");
  { OpenEngine e(plain); }
  auto r =
      Kvlab({"gc", "--backend", "rocksdb", "--dir", plain, "--mechanism", "ttl-index"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage) << r.err;
  EXPECT_NE(r.err.find("needs a store written with --ttl-index"), std::string::npos) << r.err;

  const std::string store = dir.Sub("store");
  {
    OpenEngine e(store, /*ttl_index=*/true);
    for (const char* key : {"live", "gone", "expiring"}) {
      ASSERT_FALSE(e.Exec({"HSET", key, "a", "1", "b", "2", "c", "3"}).is_error());
    }
    e.Exec({"DEL", "gone"});
    e.Exec({"PEXPIRE", "expiring", "1"});
    e.Exec({"SET", "s", "x", "PX", "1"});
    e.Exec({"SET", "s", "y"});  // blind: its entry stays, stale
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r = Kvlab({"gc", "--backend", "rocksdb", "--dir", store, "--mechanism", "ttl-index", "--quiet"},
            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("reclaimed 4 (sub-keys 3, metas 1, tier 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; ttl index: 2 entries read, 1 stale deleted"), std::string::npos) << r.out;
  OpenEngine e(store, /*ttl_index=*/true);
  const testing::Garbage g = testing::ScanForGarbage(*e.engine);
  EXPECT_EQ(g.expired_metas, 0u);
  EXPECT_EQ(g.orphans, 3u);  // gone's fields: a DEL, not an expiry
  EXPECT_EQ(e.Exec({"HLEN", "live"}).integer(), 3);
  EXPECT_EQ(e.Exec({"GET", "s"}).str(), "y");
}

}  // namespace
}  // namespace kvlab::cli
