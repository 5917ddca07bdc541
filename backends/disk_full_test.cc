// A full disk (disk_guard_store.h, and LMDB's preallocation in lmdb_page_budget.h): the reserve's
// parsing, the guard on any filesystem, and every persistent backend filled to its reserve on a
// small tmpfs by one and by several writer threads. Linked into kv_store_test.
//
// The tmpfs cases need mount(2) (root, or CAP_SYS_ADMIN); elsewhere they skip with the reason.
// scripts/crash-disk-full runs the full target (20 runs per backend, through kvlab serve).
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>

#include "backends/registry.h"
#include "backends/wiredtiger_store.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;

TEST(DiskReserveTest, ParsesSizesPercentagesAndZero) {
  DiskReserve r;
  ASSERT_TRUE(ParseDiskReserve("256mb", &r).ok());
  EXPECT_EQ(r.bytes, 256u << 20);
  EXPECT_TRUE(r.enabled());
  ASSERT_TRUE(ParseDiskReserve("1G", &r).ok());
  EXPECT_EQ(r.bytes, 1000000000u);
  ASSERT_TRUE(ParseDiskReserve("5%", &r).ok());
  EXPECT_EQ(r.bytes, 0u);
  EXPECT_DOUBLE_EQ(r.percent, 5);
  EXPECT_EQ(r.BytesOn(1000), 50u);
  ASSERT_TRUE(ParseDiskReserve("0", &r).ok());
  EXPECT_FALSE(r.enabled());
}

TEST(DiskReserveTest, RefusesBadValuesSayingWhatIsExpected) {
  for (const char* bad : {"", "mb", "12xb", "-1", "100%", "150%", "%", "x%", "-5%", "1e3%",
                          "99999999999999999999gb"}) {
    DiskReserve r;
    r.bytes = 7;
    const Status s = ParseDiskReserve(bad, &r);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("expected 0 for none, a size"), std::string::npos) << s.message();
    EXPECT_EQ(r.bytes, 7u) << "a refused value changes nothing";
  }
}

// Free bytes of dir's filesystem.
uint64_t FreeBytes(const std::string& dir) {
  struct statvfs vfs;
  if (::statvfs(dir.c_str(), &vfs) != 0) return 0;
  return static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
}

// The guard on the test machine's own filesystem: a reserve above its free space refuses every
// write kind, naming the cause, and lets reads through; a small reserve lets writes through.
TEST(DiskGuardTest, RefusesEveryWriteKindBelowTheReserveAndKeepsReads) {
  ScratchDir scratch;
  StoreSpec spec;
  spec.backend = "rocksdb";
  spec.options.dir = scratch.Sub("store");
  std::unique_ptr<OpenedStore> opened;
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  ASSERT_EQ(opened->disk_guard(), nullptr) << "no reserve, no guard";
  ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  opened.reset();

  spec.disk_reserve.bytes = FreeBytes(scratch.path()) + (uint64_t{1} << 40);
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  ASSERT_NE(opened->disk_guard(), nullptr);
  KvStore* store = opened->store();
  WriteBatch batch;
  batch.Put("a", "1");
  for (const Status& s : {store->Put("k", "w"), store->Delete("k"), store->DeleteRange("a", "z"),
                          store->Write(batch)}) {
    EXPECT_TRUE(s.IsNoSpace()) << s.ToString();
    EXPECT_EQ(s.message().rfind("disk full: rocksdb: ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find("--disk-reserve"), std::string::npos) << s.message();
  }
  EXPECT_EQ(opened->disk_guard()->refused(), 4u);
  std::string value;
  ASSERT_TRUE(store->Get("k", &value).ok());
  EXPECT_EQ(value, "v") << "a refused write applied nothing";
  opened.reset();

  spec.disk_reserve.bytes = 1;
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  EXPECT_TRUE(opened->store()->Put("k", "w").ok());
}

// WiredTiger panics when its own writes meet a full disk, so a reserve below what it may write
// while writes are refused (its cache, two log files, its metadata) is refused at open, naming
// the minimum, before any file is written; at the minimum the store opens.
TEST(DiskGuardTest, RefusesAWiredTigerReserveBelowWhatItWritesOnItsOwn) {
  ScratchDir scratch;
  StoreSpec spec;
  spec.backend = "wiredtiger";
  spec.options.dir = scratch.Sub("store");
  spec.options.cache_bytes = 8 << 20;
  const DiskNeeds needs = WiredTigerDiskNeeds(spec.options);
  // 8 MiB of cache, two 2 MiB log files (a quarter of the cache) and 4 MiB of metadata.
  EXPECT_EQ(needs.min_reserve, 16u << 20);
  EXPECT_EQ(needs.copies, 2u);
  spec.disk_reserve.bytes = needs.min_reserve - (1 << 20);
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(spec, &opened);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  for (const char* part : {"wiredtiger: a disk reserve of 15.0 MiB (--disk-reserve) is below the "
                           "16.0 MiB",
                           "its cache of 8 MiB (--cache-mb)", "log files of 2 MiB",
                           "use --disk-reserve 16mb or more"}) {
    EXPECT_NE(s.message().find(part), std::string::npos) << part << " in " << s.message();
  }
  EXPECT_FALSE(std::filesystem::exists(spec.options.dir + "/WiredTiger")) << "refused before open";

  // A percentage is taken of the filesystem's size.
  struct statvfs vfs;
  ASSERT_EQ(::statvfs(scratch.path().c_str(), &vfs), 0);
  const double filesystem = static_cast<double>(vfs.f_blocks) * vfs.f_frsize;
  spec.disk_reserve.bytes = 0;
  spec.disk_reserve.percent = static_cast<double>(needs.min_reserve) / 2 / filesystem * 100;
  s = OpenStore(spec, &opened);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("% of the filesystem ("), std::string::npos) << s.message();

  spec.disk_reserve.percent = 0;
  spec.disk_reserve.bytes = needs.min_reserve;
  s = OpenStore(spec, &opened);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_NE(opened->disk_guard(), nullptr);
}

TEST(DiskGuardTest, NoGuardOnTheMemoryBackend) {
  StoreSpec spec;
  spec.backend = "memory";
  spec.disk_reserve.percent = 99;
  std::unique_ptr<OpenedStore> opened;
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  EXPECT_EQ(opened->disk_guard(), nullptr);
  EXPECT_TRUE(opened->store()->Put("k", "v").ok());
}

// A tmpfs of `mb` MiB mounted on a fresh directory, unmounted (lazily, should a file still be
// open) and removed at the end. skip says why when the machine does not allow mounting.
class Tmpfs {
 public:
  explicit Tmpfs(int mb) : dir_(scratch_.Sub("tmpfs")) {
    std::filesystem::create_directories(dir_);
    const std::string data = "size=" + std::to_string(mb) + "m";
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, data.c_str()) != 0) {
      skip_ = std::string("cannot mount a tmpfs here (") + std::strerror(errno) +
              "; needs root or CAP_SYS_ADMIN): the disk-full cases run only where mounting is "
              "allowed";
      return;
    }
    mounted_ = true;
  }
  ~Tmpfs() {
    if (mounted_ && ::umount2(dir_.c_str(), 0) != 0) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  const std::string& skip() const { return skip_; }
  const std::string& dir() const { return dir_; }

 private:
  ScratchDir scratch_;
  std::string dir_;
  std::string skip_;
  bool mounted_ = false;
};

// Writes a file of `bytes` bytes (filler that takes space away, freed later).
bool WriteFiller(const std::string& path, uint64_t bytes) {
  std::ofstream out(path, std::ios::binary);
  const std::string block(1 << 16, 'f');
  for (uint64_t done = 0; done < bytes && out; done += block.size())
    out.write(block.data(), block.size());
  out.flush();
  return static_cast<bool>(out);
}

class DiskFullTest : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

// Fills a 24 MiB tmpfs (4 MiB of it a filler file) through the guard with `threads` writers
// until every writer is refused; checks that each refusal names the disk, that reads work, that
// writes resume once the filler is deleted, and that every acknowledged write is there after
// a reopen.
TEST_P(DiskFullTest, FullDiskRefusesWritesKeepsReadsAndResumes) {
  const auto& [backend, threads] = GetParam();
  Tmpfs tmpfs(24);
  if (!tmpfs.skip().empty()) GTEST_SKIP() << tmpfs.skip();
  const std::string filler = tmpfs.dir() + "/filler";
  ASSERT_TRUE(WriteFiller(filler, 4 << 20));
  StoreSpec spec;
  spec.backend = backend;
  spec.options.dir = tmpfs.dir() + "/store";
  // The reserve covers what the backend writes on its own while writes are refused: WiredTiger
  // evicts and checkpoints the dirty part of its cache (1 MiB here) and switches to a new log
  // file (1 MiB), 7 MiB with its metadata (WiredTigerDiskNeeds); RocksDB's memtable (64 MiB)
  // never fills on this small disk (docs/engine.md, "A full disk").
  spec.options.cache_bytes = 1 << 20;
  spec.disk_reserve.bytes = 8 << 20;
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(spec, &opened);
  ASSERT_TRUE(s.ok()) << s.ToString();
  KvStore* store = opened->store();

  // Values of random bytes, so that no backend compresses them away.
  std::mt19937_64 rng(42);
  std::string value(4096, '\0');
  for (char& c : value) c = static_cast<char>(rng());
  std::mutex mu;
  std::vector<std::string> acked;
  std::vector<std::string> errors;
  std::vector<std::thread> writers;
  for (int t = 0; t < threads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0;; ++i) {
        const std::string key = "t" + std::to_string(t) + "-" + std::to_string(i);
        WriteBatch batch;
        batch.Put(key, value);
        batch.Put(key + "-meta", std::to_string(i));
        const Status w = store->Write(batch);
        std::lock_guard lock(mu);
        if (!w.ok()) {
          errors.push_back(w.ToString());
          return;
        }
        acked.push_back(key);
      }
    });
  }
  for (std::thread& w : writers) w.join();
  ASSERT_EQ(errors.size(), static_cast<size_t>(threads));
  for (const std::string& e : errors) EXPECT_EQ(e.rfind("NoSpace: disk full: ", 0), 0u) << e;
  ASSERT_GT(acked.size(), 100u) << "the store took almost nothing before the disk filled";

  // Reads keep working on the full disk.
  std::string got;
  for (const std::string& key : acked) {
    ASSERT_TRUE(store->Get(key, &got).ok()) << key;
    ASSERT_EQ(got, value) << key;
  }
  // Space returns: writes resume by themselves (the guard reads the space again within its
  // interval; polled, not timed).
  ASSERT_EQ(::unlink(filler.c_str()), 0);
  Status resumed;
  for (int attempt = 0; attempt < 200; ++attempt) {
    resumed = store->Put("after", "space returned");
    if (resumed.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(resumed.ok()) << resumed.ToString();

  // Nothing acknowledged is lost across a close and a reopen.
  opened.reset();
  s = OpenStore(spec, &opened);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (const std::string& key : acked) {
    ASSERT_TRUE(opened->store()->Get(key, &got).ok()) << key;
    ASSERT_EQ(got, value) << key;
  }
  ASSERT_TRUE(opened->store()->Get("after", &got).ok());
  opened.reset();
}

INSTANTIATE_TEST_SUITE_P(Backends, DiskFullTest,
                         ::testing::Combine(::testing::ValuesIn(PersistentEmbeddedBackendNames()),
                                            ::testing::Values(1, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "_writers";
                         });

}  // namespace
}  // namespace kvlab::backends
