// `kvlab verify` as a user runs it (build/kvlab in a child process), and bits flipped in an
// LMDB store's data.mdb: every reply is the value written or an error naming the key, never a
// wrong value, and verify exits 1 naming the damaged records. Built into gc_cli_test.
#include <gtest/gtest.h>

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

// An engine over the LMDB store in dir, opened as `kvlab` opens it (same format record).
struct LmdbEngine {
  explicit LmdbEngine(const std::string& dir) {
    backends::StoreSpec spec;
    spec.backend = "lmdb";
    spec.options.dir = dir;
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

  {
    LmdbEngine e(store);
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
}

}  // namespace
}  // namespace kvlab::cli
