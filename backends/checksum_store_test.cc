// ChecksumStore: values come back as written, and a damaged record is an error naming its key,
// never a wrong value. Built into registry_test (its format-record cases open LMDB stores
// through the registry), so that it costs no executable of its own.
#include "backends/checksum_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/lmdb_store.h"
#include "backends/memory_store.h"
#include "backends/registry.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;

std::unique_ptr<KvStore> NewMemory() {
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(MemoryStore::Open(StoreOptions(), &store).ok());
  return store;
}

// Flips one bit of the stored record of `key` in the store below the checksums.
void FlipStoredBit(KvStore* raw, std::string_view key, size_t byte, int bit) {
  std::string stored;
  ASSERT_TRUE(raw->Get(key, &stored).ok());
  ASSERT_LT(byte, stored.size());
  stored[byte] = static_cast<char>(stored[byte] ^ (1 << bit));
  ASSERT_TRUE(raw->Put(key, stored).ok());
}

TEST(ChecksumStoreTest, ValuesComeBackAsWrittenAndCarryATrailerBelow) {
  ChecksumStore store(NewMemory());
  ASSERT_TRUE(store.Put("a", "alpha").ok());
  WriteBatch batch;
  batch.Put("b", "");
  batch.Put("c", std::string(1000, 'c'));
  batch.Put("d", "delta");
  batch.Delete("d");
  batch.DeleteRange("x", "z");  // a range's end is not a value: it must not get a trailer
  ASSERT_TRUE(store.Write(batch).ok());

  std::string v;
  ASSERT_TRUE(store.Get("a", &v).ok());
  EXPECT_EQ(v, "alpha");
  ASSERT_TRUE(store.Get("b", &v).ok());
  EXPECT_EQ(v, "");
  EXPECT_TRUE(store.Get("d", &v).IsNotFound());
  std::string raw;
  ASSERT_TRUE(store.target()->Get("a", &raw).ok());
  EXPECT_EQ(raw, ChecksumStore::Encode("a", "alpha"));
  EXPECT_EQ(raw.size(), 5 + ChecksumStore::kTrailerBytes);

  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(store.MultiGet({"a", "b", "c", "d"}, &values).ok());
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0], "alpha");
  EXPECT_EQ(values[1], "");
  EXPECT_EQ(values[2], std::string(1000, 'c'));
  EXPECT_FALSE(values[3].has_value());

  std::vector<std::pair<std::string, std::string>> seen;
  auto it = store.NewIterator({});
  for (it->SeekToLast(); it->Valid(); it->Prev()) seen.emplace_back(it->key(), it->value());
  ASSERT_TRUE(it->status().ok());
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0], std::make_pair(std::string("c"), std::string(1000, 'c')));
  EXPECT_EQ(seen[2], std::make_pair(std::string("a"), std::string("alpha")));
}

TEST(ChecksumStoreTest, AFlippedBitAnywhereInTheRecordIsAnErrorNamingTheKey) {
  ChecksumStore store(NewMemory());
  const std::string value = "val-744-xxxxxxxxxxxxxxxx";
  // Every bit of the value and of the trailer.
  for (size_t byte = 0; byte < value.size() + ChecksumStore::kTrailerBytes; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      ASSERT_TRUE(store.Put("user:\x01key", value).ok());
      FlipStoredBit(store.target(), "user:\x01key", byte, bit);
      std::string v = "untouched";
      const Status s = store.Get("user:\x01key", &v);
      ASSERT_TRUE(s.IsCorruption()) << byte << "." << bit << ": " << s.ToString();
      EXPECT_NE(s.message().find("\"user:\\x01key\""), std::string::npos) << s.message();
      EXPECT_EQ(v, "untouched");
    }
  }
  std::vector<std::optional<std::string>> values;
  EXPECT_TRUE(store.MultiGet({"user:\x01key"}, &values).IsCorruption());
}

TEST(ChecksumStoreTest, ARecordUnderAnotherKeyOrTooShortIsCorrupt) {
  ChecksumStore store(NewMemory());
  // A flip in a stored key moves its record under another name: the key is in the checksum.
  ASSERT_TRUE(store.target()->Put("b", ChecksumStore::Encode("a", "alpha")).ok());
  std::string v;
  EXPECT_TRUE(store.Get("b", &v).IsCorruption());
  ASSERT_TRUE(store.target()->Put("c", "abc").ok());  // shorter than the trailer
  const Status s = store.Get("c", &v);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("shorter"), std::string::npos) << s.message();
}

TEST(ChecksumStoreTest, AnIteratorStopsAtADamagedRecordWithItsStatus) {
  ChecksumStore store(NewMemory());
  for (const char* k : {"a", "b", "c", "d"}) ASSERT_TRUE(store.Put(k, std::string("v") + k).ok());
  FlipStoredBit(store.target(), "c", 0, 3);
  std::vector<std::string> keys;
  auto it = store.NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) keys.emplace_back(it->key());
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(it->status().IsCorruption());
  EXPECT_NE(it->status().message().find("\"c\""), std::string::npos);
  it->Seek("c");
  EXPECT_FALSE(it->Valid());

  std::vector<std::string> bad;
  uint64_t records = 0;
  ASSERT_TRUE(
      store.Scrub([&](std::string_view k, const Status&) { bad.emplace_back(k); }, &records).ok());
  EXPECT_EQ(records, 4u);
  EXPECT_EQ(bad, std::vector<std::string>{"c"});
}

std::string Marker(const std::string& dir) {
  std::ifstream in(std::filesystem::path(dir) / "KVLAB_STORE");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ChecksumStoreTest, ANewLmdbStoreHasChecksumsAndAnOldOneKeepsOpeningWithout) {
  ScratchDir scratch;
  StoreSpec spec;
  spec.backend = "lmdb";
  spec.options.dir = scratch.Sub("new");
  spec.format = {{"layout", "1"}};
  std::unique_ptr<OpenedStore> opened;
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  ASSERT_NE(opened->checksums(), nullptr);
  // A key over LMDB's 511 bytes lives in a long-key bucket, which carries the checksum too.
  const std::string long_key(700, 'k');
  ASSERT_TRUE(opened->store()->Put(long_key, "long").ok());
  ASSERT_TRUE(opened->store()->Put("short", "value").ok());
  opened.reset();
  EXPECT_NE(Marker(spec.options.dir).find("format checksums crc32\n"), std::string::npos);
  // Reopened by the same opener: the record matches (the checksums entry is the store's).
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  ASSERT_NE(opened->checksums(), nullptr);
  std::string v;
  ASSERT_TRUE(opened->store()->Get(long_key, &v).ok());
  EXPECT_EQ(v, "long");
  // Damage the short record below the checksums: an error, not "value" with a flipped bit.
  FlipStoredBit(opened->checksums()->target(), "short", 2, 5);
  const Status s = opened->store()->Get("short", &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  opened.reset();

  // A store written without checksums (as every LMDB store was before them) opens as it was.
  StoreSpec old = spec;
  old.options.dir = scratch.Sub("old");
  old.checksums = false;
  ASSERT_TRUE(OpenStore(old, &opened).ok());
  EXPECT_EQ(opened->checksums(), nullptr);
  ASSERT_TRUE(opened->store()->Put("k", "plain").ok());
  opened.reset();
  EXPECT_EQ(Marker(old.options.dir).find("checksums"), std::string::npos);
  old.checksums = true;
  ASSERT_TRUE(OpenStore(old, &opened).ok());
  EXPECT_EQ(opened->checksums(), nullptr);
  ASSERT_TRUE(opened->store()->Get("k", &v).ok());
  EXPECT_EQ(v, "plain");
  opened.reset();

  // The memory backend is exempt.
  StoreSpec memory;
  ASSERT_TRUE(OpenStore(memory, &opened).ok());
  EXPECT_EQ(opened->checksums(), nullptr);
}

// The records witness that a store keeps checksums: a marker edited to drop the entry would
// serve every value with its 4 checksum bytes appended, and is refused by the scrub on open; a
// marker that gained the entry over a store without checksums is refused too.
TEST(ChecksumStoreTest, AMarkerThatDisagreesWithTheRecordsIsRefused) {
  ScratchDir scratch;
  for (const bool written_with : {true, false}) {
    StoreSpec spec;
    spec.backend = "lmdb";
    spec.options.dir = scratch.Sub(written_with ? "with" : "without");
    spec.checksums = written_with;
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(spec, &opened).ok());
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(opened->store()->Put("key" + std::to_string(i), "value").ok());
    }
    opened.reset();
    std::string text = Marker(spec.options.dir);
    if (written_with) {
      text.erase(text.find("format checksums crc32\n"), 23);
    } else {
      text += "format checksums crc32\n";
    }
    std::ofstream(std::filesystem::path(spec.options.dir) / "KVLAB_STORE", std::ios::trunc) << text;
    const Status s = OpenStore(spec, &opened);
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.message().find(written_with ? "has no \"format checksums crc32\" line"
                                            : "was added by hand"),
              std::string::npos)
        << s.message();
  }
}

TEST(ChecksumStoreTest, AnUnknownChecksumKindIsRefused) {
  ScratchDir scratch;
  StoreSpec spec;
  spec.backend = "lmdb";
  spec.options.dir = scratch.Sub("s");
  std::unique_ptr<OpenedStore> opened;
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  opened.reset();
  std::string text = Marker(spec.options.dir);
  text.replace(text.find("crc32"), 5, "xxh64");
  std::ofstream(std::filesystem::path(spec.options.dir) / "KVLAB_STORE", std::ios::trunc) << text;
  const Status s = OpenStore(spec, &opened);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("xxh64"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kvlab::backends
