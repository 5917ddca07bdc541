// `kvlab verify` as a user runs it (build/kvlab in a child process), and bits flipped in an
// LMDB store's data.mdb: every reply is the value written or an error naming the key, never a
// wrong value, and verify exits 1 naming the damaged records. Built into gc_cli_test.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "backends/registry.h"
#include "encodings/key_codec.h"
#include "engine/engine.h"
#include "flags/conventions.h"
#include "testing/child_run.h"
#include "testing/kv_test_util.h"

namespace kvlab::cli {
namespace {

using testing::Kvlab;

// An engine over the LMDB store in dir, opened as `kvlab` opens it (same format record);
// `scrub`: StoreSpec::scrub_on_open.
struct LmdbEngine {
  explicit LmdbEngine(const std::string& dir, bool scrub = true) {
    backends::StoreSpec spec;
    spec.backend = "lmdb";
    spec.options.dir = dir;
    spec.scrub_on_open = scrub;
    engine::EngineOptions options;
    spec.format = encodings::StoreFormatRecord(options.keys);
    const Status s = backends::OpenStore(spec, &store);
    EXPECT_TRUE(s.ok()) << s.ToString();
    engine = std::make_unique<engine::Engine>(store->store(), options);
  }
  ~LmdbEngine() {
    engine.reset();
    store->Close();
  }
  resp::Reply Exec(std::vector<std::string> argv) { return engine->Execute(session, argv); }

  std::unique_ptr<backends::OpenedStore> store;
  std::unique_ptr<engine::Engine> engine;
  engine::Session session;
};

std::string StringValue(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "val-%04d-", i);
  return buf + std::string(48, 'x');
}
std::string FieldValue(int h, int f) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "hv-%02d-%02d-", h, f);
  return buf + std::string(48, 'y');
}
std::string Name(const char* prefix, int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%s%04d", prefix, i);
  return buf;
}

constexpr int kStrings = 100;
constexpr int kHashes = 10;
constexpr int kFields = 10;

void Load(const std::string& dir) {
  LmdbEngine e(dir);
  for (int i = 0; i < kStrings; ++i) {
    ASSERT_FALSE(e.Exec({"SET", Name("s", i), StringValue(i)}).is_error());
  }
  for (int h = 0; h < kHashes; ++h) {
    std::vector<std::string> argv = {"HSET", Name("h", h)};
    for (int f = 0; f < kFields; ++f) {
      argv.push_back("f" + std::to_string(f));
      argv.push_back(FieldValue(h, f));
    }
    ASSERT_FALSE(e.Exec(argv).is_error());
  }
  ASSERT_FALSE(e.Exec({"ZADD", "z", "1", "a", "2", "b"}).is_error());
  ASSERT_FALSE(e.Exec({"SADD", "set", "a", "b", "c"}).is_error());
}

// Flips bit 2 of the byte 12 bytes into every occurrence of `needle` in the data file's first
// 64 MB (a small store lives there; the file is a sparse map of 64 GiB). Every one: LMDB copies
// a page on write, so freed pages may hold stale copies beside the live one.
void FlipInValue(const std::string& data_file, const std::string& needle) {
  std::fstream f(data_file, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f) << data_file;
  std::string bytes(64 << 20, '\0');
  f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(f.gcount()));
  f.clear();
  int found = 0;
  for (size_t at = bytes.find(needle); at != std::string::npos; at = bytes.find(needle, at + 1)) {
    ++found;
    f.seekp(static_cast<std::streamoff>(at + 12));
    const char flipped = static_cast<char>(bytes[at + 12] ^ 0x04);
    f.write(&flipped, 1);
  }
  ASSERT_GT(found, 0) << needle;
  ASSERT_TRUE(f.good());
}

// Opens the LMDB store in dir as kvlab does, scrub on; the status.
Status OpenLmdb(const std::string& dir) {
  backends::StoreSpec spec;
  spec.backend = "lmdb";
  spec.options.dir = dir;
  spec.format = encodings::StoreFormatRecord(engine::EngineOptions().keys);
  std::unique_ptr<backends::OpenedStore> opened;
  return backends::OpenStore(spec, &opened);
}

uint64_t Le64(const std::string& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<uint8_t>(b[at + i]);
  return v;
}

// data.mdb's first pages, and what its newest meta page says (LMDB 0.9, 64-bit: the layout
// backends/lmdb_scrub.cc reads): the page size is 4096 on this machine, the txnid 128 bytes and
// the main database's root 112 bytes into the meta (after the 16-byte page header).
struct LmdbFile {
  explicit LmdbFile(const std::string& path) : path(path) {
    // The first 64 MB: a small store lives there (the file is a sparse map of 64 GiB).
    std::ifstream f(path, std::ios::binary);
    bytes.resize(64 << 20);
    f.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<size_t>(f.gcount()));
    const uint64_t t0 = Le64(bytes, 16 + 128), t1 = Le64(bytes, 4096 + 16 + 128);
    newest = t1 > t0 ? 1 : 0;
    main_root = Le64(bytes, newest * 4096 + 16 + 112);
  }
  // Flips one bit of the byte at `offset`, in the file.
  void Flip(uint64_t offset, int bit) const {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(offset));
    const char b = static_cast<char>(bytes[offset] ^ (1 << bit));
    f.write(&b, 1);
    ASSERT_TRUE(f.good());
  }
  uint16_t U16(uint64_t at) const {
    return static_cast<uint16_t>(static_cast<uint8_t>(bytes[at]) |
                                 static_cast<uint8_t>(bytes[at + 1]) << 8);
  }

  std::string path;
  std::string bytes;
  int newest = 0;
  uint64_t main_root = 0;
};

TEST(VerifyCli, RefusesBadUsage) {
  testing::ScratchDir dir;
  auto r = Kvlab({"verify"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage);
  EXPECT_NE(r.err.find("give its --dir"), std::string::npos) << r.err;
  r = Kvlab({"verify", "--dir", dir.Sub("nope")}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage);
  std::filesystem::create_directories(dir.Sub("plain"));
  std::ofstream(dir.Sub("plain/file")) << "x";
  r = Kvlab({"verify", "--dir", dir.Sub("plain")}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitUsage) << r.err;
  EXPECT_NE(r.err.find("not a kvlab store"), std::string::npos) << r.err;
}

// Clean, then garbage (clean), then a count that differs from the sub-keys (damage).
TEST(VerifyCli, ReportsGarbageAsCleanAndAMissingSubKeyAsDamage) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  Load(store);
  auto r = Kvlab({"verify", "--dir", store}, dir.path());
  ASSERT_EQ(r.exit_code, flags::kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("crc32 verified"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("counts checked against sub-keys for 12 keys"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verify: clean"), std::string::npos) << r.out;

  {
    LmdbEngine e(store);
    ASSERT_EQ(e.Exec({"DEL", Name("h", 0)}).integer(), 1);
  }
  r = Kvlab({"verify", "--dir", store}, dir.path());
  ASSERT_EQ(r.exit_code, flags::kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("sub-keys " + std::to_string(kFields)), std::string::npos) << r.out;

  // One field of h0001 removed below the engine: its meta still counts 10.
  {
    backends::StoreSpec raw;
    raw.backend = "lmdb";
    raw.options.dir = store;
    std::unique_ptr<backends::OpenedStore> opened;
    ASSERT_TRUE(backends::OpenStore(raw, &opened).ok());
    auto it = opened->store()->NewIterator({});
    std::string victim;
    for (it->SeekToFirst(); it->Valid() && victim.empty(); it->Next()) {
      const std::string k(it->key());
      if (k.starts_with("s#") && k.find("h0001") != std::string::npos) victim = k;
    }
    ASSERT_FALSE(victim.empty());
    it.reset();
    ASSERT_TRUE(opened->store()->Delete(victim).ok());
  }
  r = Kvlab({"verify", "--dir", store}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("key \"h0001\" (hash v0): its key-meta counts 10 elements, the store holds "
                       "9 s# records"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verify: DAMAGED"), std::string::npos) << r.out;
}

// A few bits flipped in data.mdb, inside values: no reply is a wrong value, the damaged keys
// reply errors naming them, and verify exits 1 naming each damaged record.
TEST(VerifyCli, FlippedBitsInLmdbAreErrorsNeverWrongValues) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  Load(store);
  const std::string data = store + "/data.mdb";
  FlipInValue(data, StringValue(7));
  FlipInValue(data, StringValue(42));
  FlipInValue(data, FieldValue(3, 5));

  // The scrub on open refuses the store, naming a damaged record.
  const Status refused = OpenLmdb(store);
  ASSERT_TRUE(refused.IsCorruption()) << refused.ToString();
  EXPECT_NE(refused.message().find("checksum mismatch in the record of key"), std::string::npos)
      << refused.message();
  EXPECT_NE(refused.message().find("--scrub-on-open=false"), std::string::npos)
      << refused.message();

  {
    // Opened without the scrub (the user's opt-out): the checksum layer answers errors.
    LmdbEngine e(store, /*scrub=*/false);
    int errors = 0;
    for (int i = 0; i < kStrings; ++i) {
      const resp::Reply r = e.Exec({"GET", Name("s", i)});
      if (r.is_error()) {
        ++errors;
        EXPECT_NE(r.str().find(Name("s", i)), std::string::npos) << r.str();
        EXPECT_NE(r.str().find("checksum mismatch"), std::string::npos) << r.str();
      } else {
        EXPECT_EQ(r.str(), StringValue(i)) << Name("s", i);
      }
    }
    EXPECT_EQ(errors, 2);
    for (int h = 0; h < kHashes; ++h) {
      const resp::Reply r = e.Exec({"HGETALL", Name("h", h)});
      if (h == 3) {
        ASSERT_TRUE(r.is_error()) << Name("h", h);
        EXPECT_NE(r.str().find(Name("h", h)), std::string::npos) << r.str();
        continue;
      }
      ASSERT_FALSE(r.is_error()) << r.str();
      ASSERT_EQ(r.elements().size(), 2u * kFields);
      for (size_t i = 0; i < r.elements().size(); i += 2) {
        const int f = std::stoi(r.elements()[i].str().substr(1));
        EXPECT_EQ(r.elements()[i + 1].str(), FieldValue(h, f));
      }
    }
    // The undamaged fields of h0003 still read exactly.
    EXPECT_EQ(e.Exec({"HGET", Name("h", 3), "f4"}).str(), FieldValue(3, 4));
  }
  const auto r = Kvlab({"verify", "--dir", store, "--max-report", "2"}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("damage: checksum mismatches: 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("s0007"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("... and 1 more"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("lmdb structure: "), std::string::npos) << r.out;
}

// Flips in LMDB's own structures, which value checksums cannot see: a branch page's child
// pointer (records out of reach), a separator key (lookups take the wrong branch) and the older
// meta page's transaction id (LMDB would open the previous commit's state). Each is refused on
// open, naming what is damaged, and kvlab verify reports it (exit 1) without crashing.
TEST(VerifyCli, FlipsInLmdbStructuresAreRefusedOnOpen) {
  testing::ScratchDir dir;
  const std::string golden = dir.Sub("golden");
  Load(golden);
  ASSERT_TRUE(OpenLmdb(golden).ok());  // a sound store passes
  // A copy of the store: its marker, and data.mdb up to its last page (the file is a sparse
  // map of 64 GiB).
  const LmdbFile golden_file(golden + "/data.mdb");
  const uint64_t used = (Le64(golden_file.bytes, golden_file.newest * 4096 + 16 + 120) + 1) * 4096;
  ASSERT_LE(used, golden_file.bytes.size());
  auto copy = [&](const std::string& name) {
    const std::string to = dir.Sub(name);
    std::filesystem::create_directories(to);
    std::filesystem::copy_file(golden + "/KVLAB_STORE", to + "/KVLAB_STORE");
    std::ofstream(to + "/data.mdb", std::ios::binary)
        .write(golden_file.bytes.data(), static_cast<std::streamsize>(used));
    return to;
  };

  const std::string pointer = copy("pointer");
  {
    const LmdbFile file(pointer + "/data.mdb");
    const uint64_t page = file.main_root * 4096;
    ASSERT_EQ(file.U16(page + 10), 1) << "the root of the loaded store is a branch page";
    // Node 1's child page number: its low byte, bit 0.
    file.Flip(page + file.U16(page + 16 + 2), 0);
  }
  Status s = OpenLmdb(pointer);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("LMDB keeps no checksums of its own pages"), std::string::npos)
      << s.message();
  auto r = Kvlab({"verify", "--dir", pointer}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("lmdb structure: DAMAGED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verify: DAMAGED"), std::string::npos) << r.out;

  const std::string separator = copy("separator");
  {
    const LmdbFile file(separator + "/data.mdb");
    const uint64_t page = file.main_root * 4096;
    const uint16_t node = file.U16(page + 16 + 2);
    ASSERT_GT(file.U16(page + node + 6), 2) << "node 1 of the root has a separator key";
    file.Flip(page + node + 8, 6);  // its first byte ('m' or 's': the record kind)
  }
  s = OpenLmdb(separator);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("main database"), std::string::npos) << s.message();

  const std::string meta = copy("meta");
  {
    const LmdbFile file(meta + "/data.mdb");
    // The older meta's txnid, bit 40: it would become the newest, and LMDB would open it.
    file.Flip((1 - file.newest) * 4096 + 16 + 128 + 5, 0);
  }
  s = OpenLmdb(meta);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.message().find("transaction ids"), std::string::npos) << s.message();
}

// An engine over the store of `backend` in dir, opened as `kvlab` opens it (same format record).
struct StoreEngine {
  StoreEngine(const std::string& backend, const std::string& dir) {
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = dir;
    engine::EngineOptions options;
    spec.format = encodings::StoreFormatRecord(options.keys);
    const Status s = backends::OpenStore(spec, &store);
    EXPECT_TRUE(s.ok()) << s.ToString();
    engine = std::make_unique<engine::Engine>(store->store(), options);
  }
  ~StoreEngine() {
    engine.reset();
    store->Close();
  }
  void Ok(std::vector<std::string> argv) {
    const resp::Reply r = engine->Execute(session, argv);
    EXPECT_FALSE(r.is_error()) << argv[0] << ": " << r.str();
  }

  std::unique_ptr<backends::OpenedStore> store;
  std::unique_ptr<engine::Engine> engine;
  engine::Session session;
};

// Every file under dir: its size, allocated blocks, modification time and the bytes of its first
// 16 MB (LMDB's data.mdb is a sparse file of the map size), by relative path.
std::map<std::string, std::string> FilesOf(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    struct stat st;
    EXPECT_EQ(::stat(entry.path().c_str(), &st), 0) << entry.path();
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes(16 << 20, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<size_t>(in.gcount()));
    std::ostringstream id;
    id << st.st_size << " bytes, " << st.st_blocks << " blocks, mtime " << st.st_mtim.tv_sec << "."
       << st.st_mtim.tv_nsec << ", " << std::hash<std::string>()(bytes);
    files[std::filesystem::relative(entry.path(), dir).string()] = id.str();
  }
  return files;
}

// kvlab verify opens every persistent backend read-only: not a byte of the store changes (no
// new MANIFEST, info LOG, log file or checkpoint, no resized data file), only the lock files
// the backends keep their readers in. Before, RocksDB wrote a MANIFEST and a LOG at every open.
TEST(VerifyCli, VerifyingChangesNothingInTheStore) {
  for (const std::string backend : {"rocksdb", "lmdb", "wiredtiger"}) {
    SCOPED_TRACE(backend);
    testing::ScratchDir dir;
    const std::string store = dir.Sub("store");
    {
      StoreEngine e(backend, store);
      for (int i = 0; i < 20; ++i) e.Ok({"SET", Name("s", i), StringValue(i)});
      e.Ok({"HSET", "h", "a", "1", "b", "2"});
    }
    auto lock_file = [](const std::string& name) {
      // Where LMDB keeps its reader table (a reader's pid lands in it); RocksDB's and
      // WiredTiger's lock files hold nothing of the store.
      return name == "lock.mdb" || name == "LOCK" || name == "WiredTiger.lock";
    };
    auto before = FilesOf(store);
    auto r = Kvlab({"verify", "--dir", store}, dir.path());
    ASSERT_EQ(r.exit_code, flags::kExitOk) << r.out << r.err;
    EXPECT_NE(r.out.find("verify: clean"), std::string::npos) << r.out;
    auto after = FilesOf(store);
    for (auto* files : {&before, &after})
      std::erase_if(*files, [&](const auto& f) { return lock_file(f.first); });
    EXPECT_EQ(before, after);

    // Writes through the read-only store are refused, named.
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = store;
    spec.read_only = true;
    std::unique_ptr<backends::OpenedStore> opened;
    ASSERT_TRUE(backends::OpenStore(spec, &opened).ok());
    const Status put = opened->store()->Put("k", "v");
    EXPECT_TRUE(put.IsNotSupported()) << put.ToString();
    EXPECT_NE(put.message().find("read-only"), std::string::npos) << put.message();
    opened.reset();
    after = FilesOf(store);
    std::erase_if(after, [&](const auto& f) { return lock_file(f.first); });
    EXPECT_EQ(before, after);
  }
  // A read-only open creates nothing.
  testing::ScratchDir dir;
  backends::StoreSpec spec;
  spec.backend = "rocksdb";
  spec.options.dir = dir.Sub("none");
  spec.read_only = true;
  std::unique_ptr<backends::OpenedStore> opened;
  const Status s = backends::OpenStore(spec, &opened);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("none")));
}

// The count check covers every version whose count KV can check: the four list layouts (dense,
// sparse, Kvrocks's, Ardb's a# records) and the cache-tier versions, whose elements all live in
// KV (hash v2, zset v1 and v2, set v2). One element record removed below the engine from each,
// and one added to another: each is named, with the direction.
TEST(VerifyCli, CountsOfListsArdbAndCacheTierVersionsAreChecked) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  const std::vector<std::pair<std::string, std::string>> keys = {
      {"list dense", "list=0"},   {"list sparse", "list=1"}, {"list kvrocks", "list=kvrocks"},
      {"list ardb", "list=ardb"}, {"hash cached", "hash=2"}, {"zset cached", "zset=1"},
      {"zset refs", "zset=2"},    {"set cached", "set=2"},   {"hash extra", "hash=2"}};
  {
    StoreEngine e("memory", store);
    for (const auto& [key, version] : keys) {
      const std::string type = version.substr(0, version.find('='));
      e.Ok({"CONFIG", "SET", "kv." + type + ".key.meta.version", version.substr(type.size() + 1)});
      if (type == "list") e.Ok({"RPUSH", key, "a", "b", "c", "d"});
      if (type == "hash") e.Ok({"HSET", key, "a", "1", "b", "2", "c", "3"});
      if (type == "zset") e.Ok({"ZADD", key, "1", "a", "2", "b", "3", std::string(300, 'c')});
      if (type == "set") e.Ok({"SADD", key, "a", "b", "c"});
    }
  }
  auto r = Kvlab({"verify", "--dir", store}, dir.path());
  ASSERT_EQ(r.exit_code, flags::kExitOk) << r.out << r.err;
  EXPECT_NE(r.out.find("counts checked against sub-keys for 9 keys"), std::string::npos) << r.out;

  {
    backends::StoreSpec raw;
    raw.backend = "memory";
    raw.options.dir = store;
    std::unique_ptr<backends::OpenedStore> opened;
    ASSERT_TRUE(backends::OpenStore(raw, &opened).ok());
    std::map<std::string, std::string> victims;  // key -> its first element record
    auto it = opened->store()->NewIterator({});
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string k(it->key());
      if (!k.starts_with("s#") && !k.starts_with("a#")) continue;
      for (const auto& key : keys) {
        // The key as sub-keys hold it, after its length (so "set cached" is not "zset cached").
        std::string needle(4, '\0');
        needle[3] = static_cast<char>(key.first.size());
        needle += key.first;
        if (k.find(needle) != std::string::npos && !victims.contains(key.first)) {
          victims[key.first] = k;
        }
      }
    }
    it.reset();
    ASSERT_EQ(victims.size(), keys.size());
    for (const auto& [key, record] : victims) {
      const Status s = key == "hash extra" ? opened->store()->Put(record + "x", "1")
                                           : opened->store()->Delete(record);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
  }
  r = Kvlab({"verify", "--dir", store}, dir.path());
  EXPECT_EQ(r.exit_code, flags::kExitFailed) << r.out << r.err;
  EXPECT_NE(r.out.find("damage: counts that differ from the sub-keys: 9"), std::string::npos)
      << r.out;
  for (const char* line :
       {"key \"list dense\" (list v0): its key-meta counts 4 elements, the store holds 3 s# "
        "records of its key-version (fewer)",
        "key \"list sparse\" (list v1): its key-meta counts 4",
        "key \"list kvrocks\" (list vkvrocks): its key-meta counts 4",
        "key \"list ardb\" (list vardb): its key-meta counts 4 elements, the store holds 3 a# "
        "records of the key (fewer)",
        "key \"hash cached\" (hash v2): its key-meta counts 3 elements, the store holds 2",
        "key \"zset cached\" (zset v1): its key-meta counts 3",
        "key \"zset refs\" (zset v2): its key-meta counts 3",
        "key \"set cached\" (set v2): its key-meta counts 3",
        "key \"hash extra\" (hash v2): its key-meta counts 3 elements, the store holds 4 s# "
        "records of its key-version (more)"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
}

}  // namespace
}  // namespace kvlab::cli
