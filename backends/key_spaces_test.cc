// KeySpaceMap's routing and clipping, and the backends' refusal to open a store with other key
// spaces than it was written with. The shared suite (kv_store_test, the *_KeySpaces variants)
// checks every backend's behaviour over key spaces against a model.
#include "backends/key_spaces.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "backends/lmdb_store.h"
#include "backends/registry.h"
#include "backends/rocksdb_store.h"
#include "backends/wiredtiger_store.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

KeySpaceMap Map(const std::vector<std::string>& prefixes) {
  KeySpaceMap map;
  Status s = KeySpaceMap::Make(prefixes, &map);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return map;
}

TEST(KeySpaceMap, RefusesEmptyRepeatedAndNestedPrefixes) {
  KeySpaceMap map;
  EXPECT_TRUE(KeySpaceMap::Make({"m#", ""}, &map).IsInvalidArgument());
  EXPECT_TRUE(KeySpaceMap::Make({"m#", "m#"}, &map).IsInvalidArgument());
  Status nested = KeySpaceMap::Make({"m#x", "k#", "m#"}, &map);
  ASSERT_TRUE(nested.IsInvalidArgument());
  EXPECT_EQ(nested.message(), "key spaces: prefix 'm#' starts 'm#x'");
  EXPECT_TRUE(KeySpaceMap::Make({}, &map).ok());
  EXPECT_FALSE(map.partitioned());
  EXPECT_EQ(map.size(), 1u);
}

TEST(KeySpaceMap, RoutesEachKeyToTheSpaceOfItsPrefix) {
  const KeySpaceMap map = Map({"s#", "m#", "k#"});  // sorted inside: k# m# s#
  ASSERT_EQ(map.size(), 4u);
  EXPECT_EQ(map.prefix(map.SpaceOf("m#\x00key")), "m#");
  EXPECT_EQ(map.prefix(map.SpaceOf("k#")), "k#");  // the prefix itself is a key of its space
  EXPECT_EQ(map.prefix(map.SpaceOf("s#zz")), "s#");
  EXPECT_EQ(map.SpaceOf("m"), 0u);   // shorter than the prefix
  EXPECT_EQ(map.SpaceOf("l#"), 0u);  // between two prefixes
  EXPECT_EQ(map.SpaceOf("a"), 0u);   // before them all
  EXPECT_EQ(map.SpaceOf("t"), 0u);   // after them all
  EXPECT_EQ(map.Name(0), "default");
  EXPECT_EQ(map.Name(map.SpaceOf("m#")), "kv_m-23");
}

TEST(KeySpaceMap, ClipsRangesToASpaceAndFindsTheSoleSpace) {
  const KeySpaceMap map = Map({"m#", std::string("\xff\xff", 2)});
  const size_t m = map.SpaceOf("m#"), ff = map.SpaceOf(std::string("\xff\xff", 2));
  std::optional<std::string> b, e;
  ASSERT_TRUE(map.Clip(m, "a", "z", &b, &e));
  EXPECT_EQ(*b, "m#");
  EXPECT_EQ(*e, "m$");
  ASSERT_TRUE(map.Clip(m, "m#k", std::nullopt, &b, &e));
  EXPECT_EQ(*b, "m#k");
  EXPECT_EQ(*e, "m$");
  EXPECT_FALSE(map.Clip(m, "n", "z", &b, &e));
  EXPECT_FALSE(map.Clip(m, "a", "m#", &b, &e));  // the end is exclusive
  // The default space's part is the range itself.
  ASSERT_TRUE(map.Clip(0, "a", "z", &b, &e));
  EXPECT_EQ(*b, "a");
  EXPECT_EQ(*e, "z");
  // A prefix of 0xff bytes has no successor: its space runs to the end of the keyspace.
  ASSERT_TRUE(map.Clip(ff, "a", std::nullopt, &b, &e));
  EXPECT_EQ(*b, std::string("\xff\xff", 2));
  EXPECT_FALSE(e.has_value());

  EXPECT_EQ(map.SoleSpace("m#a", "m#b"), m);
  EXPECT_EQ(map.SoleSpace("m#", "m$"), m);
  EXPECT_EQ(map.SoleSpace("m#a", "m%"), std::nullopt);  // reaches past the space
  EXPECT_EQ(map.SoleSpace("a", "b"), std::nullopt);     // the default space, and maybe others
  EXPECT_EQ(map.SoleSpace("m#a", std::nullopt), std::nullopt);
  EXPECT_EQ(PrefixSuccessor(std::string("a\xff", 2)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\xff", 1)), std::nullopt);
}

class KeySpacesReopenTest : public ::testing::TestWithParam<std::string> {};

// A store written with key spaces and opened without them (or the other way round) would show
// part of its records: every persistent backend refuses, naming what it found.
TEST_P(KeySpacesReopenTest, ADifferentSetOfSpacesIsRefused) {
  testing::ScratchDir scratch;
  StoreSpec spec;
  spec.backend = GetParam();
  spec.options.dir = scratch.Sub("spaced");
  spec.options.key_spaces = {"m#", "s#"};
  {
    std::unique_ptr<OpenedStore> opened;
    ASSERT_TRUE(OpenStore(spec, &opened).ok());
    EXPECT_NE(opened->store()->capabilities().key_space_kind, KeySpaceKind::kPrefix);
    EXPECT_EQ(opened->store()->capabilities().key_space_count, 3u);
    ASSERT_TRUE(opened->store()->Put("m#k", "meta").ok());
    ASSERT_TRUE(opened->store()->Put("x", "default").ok());
  }
  StoreSpec plain = spec;
  plain.options.key_spaces.clear();
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(plain, &opened);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  // Reopened as written, everything is there.
  ASSERT_TRUE(OpenStore(spec, &opened).ok());
  std::string v;
  ASSERT_TRUE(opened->store()->Get("m#k", &v).ok());
  EXPECT_EQ(v, "meta");
  opened.reset();

  StoreSpec other = plain;
  other.options.dir = scratch.Sub("plain");
  ASSERT_TRUE(OpenStore(other, &opened).ok());
  ASSERT_TRUE(opened->store()->Put("m#k", "meta").ok());
  opened.reset();
  other.options.key_spaces = {"m#", "s#"};
  s = OpenStore(other, &opened);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// Below the registry's record check, each backend refuses on its own what it can see: RocksDB
// and WiredTiger a store whose column families or tables differ, LMDB a store of records opened
// with named databases.
TEST_P(KeySpacesReopenTest, TheBackendItselfRefusesWhatItCanSee) {
  using OpenFn = Status (*)(const StoreOptions&, std::unique_ptr<KvStore>*);
  const OpenFn open = GetParam() == "rocksdb" ? static_cast<OpenFn>(&OpenRocksDbStore)
                      : GetParam() == "lmdb"  ? &OpenLmdbStore
                                              : &OpenWiredTigerStore;
  testing::ScratchDir scratch;
  StoreOptions plain;
  plain.dir = scratch.Sub("plain");
  std::filesystem::create_directories(plain.dir);
  {
    std::unique_ptr<KvStore> store;
    ASSERT_TRUE(open(plain, &store).ok());
    ASSERT_TRUE(store->Put("m#k", "meta").ok());
  }
  StoreOptions spaced = plain;
  spaced.key_spaces = {"m#"};
  std::unique_ptr<KvStore> store;
  Status s = open(spaced, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  if (GetParam() == "lmdb") return;  // a store of named databases opened plain: see registry.h
  spaced.dir = scratch.Sub("spaced");
  std::filesystem::create_directories(spaced.dir);
  ASSERT_TRUE(open(spaced, &store).ok());
  store.reset();
  plain.dir = spaced.dir;
  s = open(plain, &store);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(Persistent, KeySpacesReopenTest,
                         ::testing::Values("rocksdb", "lmdb", "wiredtiger"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kvlab::backends
