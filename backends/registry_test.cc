// Opening by name: bad paths and locked stores get a clear error and change no file.
#include "backends/registry.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;

// Every file under dir with its size and modification time, to prove nothing changed.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> Listing(const std::string& dir) {
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    out[e.path().string()] = {e.is_regular_file() ? e.file_size() : 0, e.last_write_time()};
  }
  return out;
}

StoreSpec SpecFor(const std::string& backend, const std::string& dir) {
  StoreSpec spec;
  spec.backend = backend;
  spec.options.dir = dir;
  return spec;
}

class RegistryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RegistryTest, RefusesADirectoryThatIsNotAStore) {
  ScratchDir scratch;
  const std::string dir = scratch.Sub("other");
  fs::create_directories(dir);
  std::ofstream(dir + "/notes.txt") << "someone else's files";
  const auto before = Listing(dir);
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(SpecFor(GetParam(), dir), &opened);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(GetParam()), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(dir), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("not a kvlab store"), std::string::npos) << s.ToString();
  EXPECT_EQ(Listing(dir), before);
}

TEST_P(RegistryTest, RefusesAStoreOfAnotherBackend) {
  ScratchDir scratch;
  const std::string dir = scratch.Sub("store");
  const std::string other = GetParam() == "memory" ? "lmdb" : "memory";
  {
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(SpecFor(other, dir), &opened).ok());
    ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  }
  const auto before = Listing(dir);
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(SpecFor(GetParam(), dir), &opened);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a " + other + " store"), std::string::npos) << s.ToString();
  EXPECT_EQ(Listing(dir), before);
}

TEST_P(RegistryTest, RefusesAFileAsDirectory) {
  ScratchDir scratch;
  const std::string path = scratch.Sub("file");
  std::ofstream(path) << "x";
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(SpecFor(GetParam(), path), &opened);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a directory"), std::string::npos) << s.ToString();
}

// Another process holds the store: the second open is Busy and changes nothing.
TEST_P(RegistryTest, RefusesAStoreLockedByAnotherProcess) {
  ScratchDir scratch;
  const std::string dir = scratch.Sub("store");
  {
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(SpecFor(GetParam(), dir), &opened).ok());
    ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  }
  int ready[2], release[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(release), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only the lock matters here: take it the way OpenStore does, without a storage engine.
    int fd = ::open((dir + "/KVLAB_STORE").c_str(), O_RDONLY);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) _exit(1);
    char c = 'r';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    if (read(release[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  const auto before = Listing(dir);
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(SpecFor(GetParam(), dir), &opened);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_NE(s.message().find(GetParam() + ": " + dir), std::string::npos) << s.ToString();
  EXPECT_EQ(Listing(dir), before);
  ASSERT_EQ(write(release[1], "x", 1), 1);
  int wstatus;
  waitpid(child, &wstatus, 0);
  EXPECT_EQ(WEXITSTATUS(wstatus), 0);
  // Once released, the store opens and still holds its data.
  ASSERT_TRUE(OpenStore(SpecFor(GetParam(), dir), &opened).ok());
  std::string v;
  EXPECT_TRUE(opened->store()->Get("k", &v).ok());
}

TEST_P(RegistryTest, TemporaryDirectoryIsCreatedAndRemoved) {
  StoreSpec spec;
  spec.backend = GetParam();
  std::unique_ptr<OpenedStore> opened;
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  EXPECT_TRUE(opened->temporary());
  const std::string dir = opened->dir();
  EXPECT_TRUE(fs::is_directory(dir));
  ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  opened->Close();
  EXPECT_FALSE(fs::exists(dir));
}

// The space of a small store is its data: on every backend, a thousand 100-byte values take
// well under 10 MiB of data files after Flush, whatever the backend preallocates for its log
// (WiredTiger: 100 MB log files, which once made every WiredTiger cell 303 MiB).
TEST_P(RegistryTest, DiskUsageSeparatesDataFromLogs) {
  std::unique_ptr<OpenedStore> opened;
  ASSERT_TRUE(OpenStore(SpecFor(GetParam(), ""), &opened).ok());
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(opened->store()->Put("key" + std::to_string(i), std::string(100, 'v')).ok());
  }
  ASSERT_TRUE(opened->store()->Flush().ok());
  const DiskUsage usage = MeasureDiskUsage(GetParam(), opened->dir());
  EXPECT_GT(usage.data_bytes, 100'000u);
  EXPECT_LT(usage.data_bytes, 10u << 20);
  EXPECT_EQ(usage.data_bytes + usage.log_bytes, DirectorySize(opened->dir()));
  opened->Close();
}

TEST(Registry, LogFilesByBackend) {
  EXPECT_TRUE(IsStoreLogFile("wiredtiger", "WiredTigerLog.0000000001"));
  EXPECT_TRUE(IsStoreLogFile("wiredtiger", "WiredTigerPreplog.0000000002"));
  EXPECT_FALSE(IsStoreLogFile("wiredtiger", "kv.wt"));
  EXPECT_FALSE(IsStoreLogFile("wiredtiger", "WiredTiger.wt"));
  EXPECT_TRUE(IsStoreLogFile("rocksdb", "000012.log"));
  EXPECT_TRUE(IsStoreLogFile("rocksdb", "LOG"));
  EXPECT_TRUE(IsStoreLogFile("rocksdb", "LOG.old.1700000000"));
  EXPECT_FALSE(IsStoreLogFile("rocksdb", "000013.sst"));
  EXPECT_FALSE(IsStoreLogFile("rocksdb", "MANIFEST-000005"));
  EXPECT_FALSE(IsStoreLogFile("lmdb", "data.mdb"));
}

// The format record: a store remembers the layout and options it was written with, and refuses
// an opener with others, naming both; a store from before records takes its first opener's.
TEST_P(RegistryTest, KeepsItsFormatRecordAndRefusesAnother) {
  ScratchDir scratch;
  const std::string dir = scratch.Sub("store");
  StoreSpec spec = SpecFor(GetParam(), dir);
  spec.format = {{"layout", "1"}, {"namespace_prefix", "a"}, {"md5_prefix", "no"}};
  {
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(spec, &opened).ok());
    EXPECT_FALSE(opened->format_adopted());
    ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  }
  {
    std::unique_ptr<OpenedStore> opened;
    const Status s = OpenStore(spec, &opened);  // the same record
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  StoreSpec other = spec;
  other.format[1].second = "b";
  const auto before = Listing(dir);
  std::unique_ptr<OpenedStore> opened;
  const Status s = OpenStore(other, &opened);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("written with layout=1 namespace_prefix=a md5_prefix=no"),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(s.message().find("opened with layout=1 namespace_prefix=b md5_prefix=no"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(Listing(dir), before);  // refused without touching a file
  // An opener without a record (a raw KV tool) checks nothing.
  ASSERT_TRUE(OpenStore(SpecFor(GetParam(), dir), &opened).ok());
}

TEST_P(RegistryTest, AStoreWithoutARecordTakesItsFirstOpeners) {
  ScratchDir scratch;
  const std::string dir = scratch.Sub("store");
  {
    // Written as kvlab wrote stores before format records existed: an LMDB store without value
    // checksums (their entry lives in the record; the scrub on open would refuse a v1 marker
    // over records that carry them).
    StoreSpec old = SpecFor(GetParam(), dir);
    old.checksums = false;
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(old, &opened).ok());
    ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  }
  // What kvlab wrote before format records existed.
  std::ofstream(dir + "/KVLAB_STORE", std::ios::trunc)
      << "kvlab-store 1\nbackend " + GetParam() + "\n";
  StoreSpec spec = SpecFor(GetParam(), dir);
  spec.format = {{"layout", "1"}, {"namespace_prefix", ""}, {"md5_prefix", "yes"}};
  {
    std::unique_ptr<OpenedStore> opened;
    const Status s = OpenStore(spec, &opened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(opened->format_adopted());
    std::string v;
    if (opened->store()->capabilities().persistent) {
      EXPECT_TRUE(opened->store()->Get("k", &v).ok());
    }
  }
  spec.format[2].second = "no";
  std::unique_ptr<OpenedStore> opened;
  const Status s = OpenStore(spec, &opened);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("md5_prefix=yes"), std::string::npos) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(AllBackends, RegistryTest, ::testing::ValuesIn(EmbeddedBackendNames()),
                         [](const auto& info) { return info.param; });

// Every backend recognises its own files: with the marker edited to name any other backend, the
// store is refused whichever backend opens it, naming the files found and the marker's backend,
// and nothing is created (the named backend never opens: an etcd marker starts no cluster).
TEST(Registry, AMarkerThatNamesAnotherBackendThanTheFilesIsRefused) {
  ScratchDir scratch;
  const std::vector<std::pair<std::string, std::string>> files_of = {
      {"memory", "memory files (memory.snapshot)"},
      {"rocksdb", "RocksDB files (CURRENT, IDENTITY)"},
      {"lmdb", "LMDB files (data.mdb, lock.mdb)"},
      {"wiredtiger", "WiredTiger files (WiredTiger, WiredTiger.turtle)"},
  };
  ASSERT_EQ(files_of.size(), EmbeddedBackendNames().size());
  for (const auto& [backend, files] : files_of) {
    const std::string dir = scratch.Sub(backend);
    const std::string marker = dir + "/KVLAB_STORE";
    {
      std::unique_ptr<OpenedStore> opened;
      ASSERT_TRUE(OpenStore(SpecFor(backend, dir), &opened).ok());
      ASSERT_TRUE(opened->store()->Put("k", "v").ok());
    }
    // The marker as the store wrote it: its format entries (an LMDB store's "checksums crc32")
    // are the store's, and putting back anything else would open it differently.
    std::string written;
    {
      std::ifstream in(marker);
      written.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    ASSERT_FALSE(written.empty());
    for (const std::string& named : BackendNames()) {
      if (named == backend) continue;
      std::ofstream(marker, std::ios::trunc) << "kvlab-store 2\nbackend " + named + "\n";
      const auto before = Listing(dir);
      for (const std::string& opener : {named, backend}) {
        std::unique_ptr<OpenedStore> opened;
        const Status s = OpenStore(SpecFor(opener, dir), &opened);
        ASSERT_TRUE(s.IsInvalidArgument()) << backend << " named " << named << ": " << s.ToString();
        EXPECT_NE(s.message().find(opener + ": " + dir + ": the directory holds " + files +
                                   " but its KVLAB_STORE marker names " + named + ": "),
                  std::string::npos)
            << s.ToString();
        EXPECT_EQ(Listing(dir), before)
            << backend << " named " << named << ", opened as " << opener;
      }
    }
    // Without a marker, the message says whose files the directory holds.
    fs::remove(marker);
    std::unique_ptr<OpenedStore> opened;
    Status s = OpenStore(SpecFor(backend, dir), &opened);
    EXPECT_NE(s.message().find("not a kvlab store (no KVLAB_STORE file, and the directory is not "
                               "empty: it holds " +
                               files + ")"),
              std::string::npos)
        << s.ToString();
    // The marker put back: the store opens with its data.
    std::ofstream(marker, std::ios::trunc) << written;
    s = OpenStore(SpecFor(backend, dir), &opened);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::string v;
    EXPECT_TRUE(opened->store()->Get("k", &v).ok()) << backend;
    EXPECT_EQ(v, "v");
  }
}

TEST(Registry, UnknownBackendIsAClearError) {
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(SpecFor("leveldb", ""), &opened);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(),
            "unknown backend 'leveldb' (expected memory, rocksdb, lmdb, wiredtiger or etcd)");
}

TEST(Registry, BackendColumnsCarryTheirModifiers) {
  const std::vector<std::string> kinds = {"m#", "s#"};
  StoreSpec spec;
  ASSERT_TRUE(ParseBackendColumn("rocksdb", kinds, &spec).ok());
  EXPECT_EQ(spec.backend, "rocksdb");
  EXPECT_FALSE(spec.no_reverse_scan);
  EXPECT_TRUE(spec.options.key_spaces.empty());
  spec = StoreSpec();
  ASSERT_TRUE(ParseBackendColumn("lmdb:cf:noreverse", kinds, &spec).ok());
  EXPECT_EQ(spec.backend, "lmdb");
  EXPECT_TRUE(spec.no_reverse_scan);
  EXPECT_EQ(spec.options.key_spaces, kinds);
  EXPECT_EQ(BackendOfColumn("lmdb:cf:noreverse"), "lmdb");

  Status s = ParseBackendColumn("rocksdb:cf:cf", kinds, &spec);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("repeated modifier 'cf'"), std::string::npos) << s.message();
  s = ParseBackendColumn("rocksdb:fast", kinds, &spec);
  EXPECT_NE(s.message().find("unknown modifier 'fast'"), std::string::npos) << s.message();
  s = ParseBackendColumn("leveldb:cf", kinds, &spec);
  EXPECT_NE(s.message().find("unknown backend 'leveldb'"), std::string::npos) << s.message();

  // RocksDB's churn settings: SingleDelete on unless :plaindelete, deletion-triggered compaction
  // off unless :dtc; only RocksDB has them.
  spec = StoreSpec();
  ASSERT_TRUE(ParseBackendColumn("rocksdb", kinds, &spec).ok());
  EXPECT_TRUE(spec.options.rocksdb_single_delete);
  EXPECT_FALSE(spec.options.rocksdb_compact_on_deletion);
  ASSERT_TRUE(ParseBackendColumn("rocksdb:plaindelete:dtc", kinds, &spec).ok());
  EXPECT_FALSE(spec.options.rocksdb_single_delete);
  EXPECT_TRUE(spec.options.rocksdb_compact_on_deletion);
  s = ParseBackendColumn("lmdb:dtc", kinds, &spec);
  ASSERT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("modifier 'dtc' applies to rocksdb only"), std::string::npos)
      << s.message();
  // The scan-triggered flush takes its trigger.
  EXPECT_EQ(spec.options.rocksdb_scan_flush_trigger, 0u);
  ASSERT_TRUE(ParseBackendColumn("rocksdb:scanflush=64", kinds, &spec).ok());
  EXPECT_EQ(spec.options.rocksdb_scan_flush_trigger, 64u);
  for (const char* bad : {"rocksdb:scanflush=0", "rocksdb:scanflush=x",
                          "rocksdb:scanflush=", "rocksdb:scanflush=12k"}) {
    s = ParseBackendColumn(bad, kinds, &spec);
    ASSERT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("scanflush= takes a positive count"), std::string::npos)
        << s.message();
  }
  s = ParseBackendColumn("rocksdb:scanflush=8:scanflush=9", kinds, &spec);
  EXPECT_NE(s.message().find("repeated modifier 'scanflush'"), std::string::npos) << s.message();
  s = ParseBackendColumn("wiredtiger:scanflush=8", kinds, &spec);
  EXPECT_NE(s.message().find("applies to rocksdb only"), std::string::npos) << s.message();
}

// A column may carry the remote-store emulation of its own, so that one matrix holds a real
// remote store and its emulation side by side; it replaces --rtt-us/--scan-page for the column.
TEST(Registry, BackendColumnsCarryAnEmulatedRoundTrip) {
  StoreSpec spec;
  spec.remote_latency = true;  // as --rtt-us 50 --scan-page 7 leave it
  spec.remote.round_trip = std::chrono::microseconds(50);
  spec.remote.scan_page_rows = 7;
  ASSERT_TRUE(ParseBackendColumn("lmdb:rtt=2500", {}, &spec).ok());
  EXPECT_EQ(spec.backend, "lmdb");
  EXPECT_TRUE(spec.remote_latency);
  EXPECT_EQ(spec.remote.round_trip.count(), 2500);
  EXPECT_EQ(spec.remote.scan_page_rows, 100u);
  spec = StoreSpec();
  ASSERT_TRUE(ParseBackendColumn("memory:noreverse:rtt=3:page=20", {}, &spec).ok());
  EXPECT_TRUE(spec.no_reverse_scan);
  EXPECT_EQ(spec.remote.round_trip.count(), 3);
  EXPECT_EQ(spec.remote.scan_page_rows, 20u);
  // Without the modifier the column leaves the global emulation alone.
  spec = StoreSpec();
  ASSERT_TRUE(ParseBackendColumn("etcd", {}, &spec).ok());
  EXPECT_FALSE(spec.remote_latency);

  const std::pair<const char*, const char*> bad[] = {
      {"lmdb:rtt=0", "rtt= takes a positive round-trip time"},
      {"lmdb:rtt=", "rtt= takes a positive round-trip time"},
      {"lmdb:rtt=1ms", "rtt= takes a positive round-trip time"},
      {"lmdb:rtt", "rtt= takes a positive round-trip time"},
      {"lmdb:rtt=5:page=0", "page= takes a positive count of rows"},
      {"lmdb:rtt=5:page=2000000", "page= takes a positive count of rows"},
      {"lmdb:page=10", ":page=N sets the emulated remote store's scan page"},
      {"lmdb:rtt=5:rtt=6", "repeated modifier 'rtt'"},
  };
  for (const auto& [column, expected] : bad) {
    const Status s = ParseBackendColumn(column, {}, &spec);
    ASSERT_TRUE(s.IsInvalidArgument()) << column;
    EXPECT_NE(s.message().find(expected), std::string::npos) << column << ": " << s.message();
  }
}

// The key spaces are part of the format record of every opener, raw ones included: a store
// written with them is refused without them, by the registry, whatever the backend.
TEST_P(RegistryTest, KeySpacesArePartOfTheRecord) {
  const bool persistent = GetParam() != "memory";
  ScratchDir scratch;
  StoreSpec spec = SpecFor(GetParam(), scratch.Sub("spaced"));
  spec.options.key_spaces = {"m#", "s#"};
  {
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(spec, &opened).ok());
    ASSERT_TRUE(opened->store()->Put("m#k", "v").ok());
  }
  StoreSpec plain = spec;
  plain.options.key_spaces.clear();
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(plain, &opened);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("written with key spaces m#,s#, and is opened with none"),
            std::string::npos)
      << s.message();
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  std::string v;
  if (persistent) EXPECT_TRUE(opened->store()->Get("m#k", &v).ok());
}

}  // namespace
}  // namespace kvlab::backends
