// The Ardb family (001_*, 002_*): its key-meta beside Camellia's and Kvrocks's, the registry's
// rules for its rows, and the versions named "ardb" end to end: eager deletion (no record of a
// deleted, overwritten or expired key ever reappears), the collector leaving a# alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "encodings/key_meta.h"
#include "encodings/registry.h"
#include "engine/collector.h"
#include "testing/engine_test_util.h"

namespace kvlab::encodings {
namespace {

using testing::EngineHarness;

std::string RawMeta(EngineHarness& e, const std::string& key) {
  std::string bytes;
  EXPECT_TRUE(e.store()->Get(e.engine().codec().MetaKey(0, key), &bytes).ok()) << key;
  return bytes;
}

// Every a# record of database 0, as keys.
std::vector<std::string> ArdbRecords(EngineHarness& e) {
  std::vector<std::string> out;
  const std::string prefix = e.engine().codec().SubKeyDbPrefix(SubKeyTag::kArdb, 0);
  backends::IteratorOptions io;
  io.lower_bound = prefix;
  std::string upper = prefix;
  upper.back()++;
  io.upper_bound = upper;
  auto it = e.store()->NewIterator(io);
  for (it->Seek(prefix); it->Valid(); it->Next()) out.emplace_back(it->key());
  return out;
}

TEST(ArdbMeta, BytesAreTypeFormatAndExpiry) {
  const EncodingRegistry& r = EncodingRegistry::Builtin();
  KeyMeta m;
  m.type = KeyType::kHash;
  m.encode_version = ArdbId(KeyType::kHash);
  ASSERT_EQ(m.encode_version, 0x43);
  EXPECT_EQ(m.Encode(), std::string("\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10));
  m.expire_ms = 4102444800000;
  const std::string bytes = m.Encode();
  EXPECT_EQ(bytes, std::string("\x03\x00\x00\x00\x03\xbb\x2c\xc3\xd8\x00", 10));
  KeyMeta back;
  ASSERT_TRUE(KeyMeta::Decode(bytes, r, &back).ok());
  EXPECT_EQ(back.type, KeyType::kHash);
  EXPECT_EQ(back.encode_version, 0x43);
  EXPECT_EQ(back.expire_ms, 4102444800000);
  EXPECT_EQ(back.key_version, 0u);
  EXPECT_FALSE(back.has_count());
  EXPECT_EQ(ArdbId(KeyType::kSet), 0x47);
  EXPECT_EQ(ArdbId(KeyType::kZset), 0x49);
}

TEST(ArdbMeta, TheThreeLayoutsStayApart) {
  const EncodingRegistry& r = EncodingRegistry::Builtin();
  // Camellia's hash v3 starts with 03, as Ardb's hash does: the second byte tells them apart.
  KeyMeta camellia;
  camellia.type = KeyType::kHash;
  camellia.encode_version = 3;
  KeyMeta decoded;
  ASSERT_TRUE(KeyMeta::Decode(camellia.Encode(), r, &decoded).ok());
  EXPECT_EQ(decoded.encode_version, 3);
  EXPECT_FALSE(decoded.ardb_layout());
  // An Ardb id in Camellia's layout, an unknown Ardb type, a wrong length: corruption.
  std::string bad = camellia.Encode();
  bad[0] = 0x43;
  EXPECT_TRUE(KeyMeta::Decode(bad, r, &decoded).IsCorruption());
  EXPECT_TRUE(
      KeyMeta::Decode(std::string("\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10), r, &decoded)
          .IsCorruption());
  EXPECT_TRUE(KeyMeta::Decode(std::string("\x03\x00\x00", 3), r, &decoded).IsCorruption());
  // No Ardb list row: its meta does not decode.
  EXPECT_TRUE(
      KeyMeta::Decode(std::string("\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10), r, &decoded)
          .IsCorruption());
}

TEST(ArdbMeta, RegistryRefusesBadArdbRows) {
  const EncodingRegistry& builtin = EncodingRegistry::Builtin();
  const EncodingSpec* ardb = builtin.Find(KeyType::kHash, "ardb");
  ASSERT_NE(ardb, nullptr);
  EXPECT_TRUE(ardb->eager_delete);
  EXPECT_EQ(builtin.LazySubKeyTags(),
            (std::vector<SubKeyTag>{SubKeyTag::kIndex, SubKeyTag::kScore, SubKeyTag::kField}));
  EncodingSpec row = *ardb;
  row.name = "other";
  row.color = "#010203";
  row.id = 0x44;  // not 0x40 | KEY_HASH
  EncodingRegistry out;
  EXPECT_FALSE(builtin.With(row, &out).ok());
  row.id = 0x05;
  EXPECT_FALSE(builtin.With(row, &out).ok()) << "a Camellia id that deletes eagerly";
  row = *builtin.Find(KeyType::kHash, "0");
  row.name = "other";
  row.color = "#010203";
  row.id = 5;
  row.sub_keys = {SubKeyTag::kArdb};
  EXPECT_FALSE(builtin.With(row, &out).ok()) << "a lazy row writing a#";
}

TEST(ArdbEngine, DelDeletesEveryRecordAndNothingReappears) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("CONFIG SET zset-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("CONFIG SET set-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("HSET h a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("ZADD z 1 a 2 b"), "(integer) 2");
  EXPECT_EQ(e.Run("SADD s a b"), "(integer) 2");
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "h")[0]), 0x03);
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "z")[0]), 0x09);
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "s")[0]), 0x07);
  EXPECT_EQ(ArdbRecords(e).size(), 2u + 4u + 2u);
  EXPECT_EQ(e.Run("DEL h z s"), "(integer) 3");
  EXPECT_TRUE(ArdbRecords(e).empty());
  EXPECT_EQ(e.Run("HSET h c 3"), "(integer) 1");
  EXPECT_EQ(e.Run("HGETALL h"), "[\"c\", \"3\"]");
}

TEST(ArdbEngine, BlindOverwritesAndExpiriesNeverResurrectRecords) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("CONFIG SET set-encoding ardb"), "OK");
  // SET overwrites blindly: the hash's fields stay behind until the name is an Ardb key again.
  EXPECT_EQ(e.Run("HSET k old 1"), "(integer) 1");
  EXPECT_EQ(e.Run("SET k v"), "OK");
  EXPECT_EQ(e.Run("DEL k"), "(integer) 1");
  EXPECT_EQ(e.Run("SADD k m"), "(integer) 1");
  EXPECT_EQ(e.Run("SMEMBERS k"), "[\"m\"]");
  EXPECT_EQ(ArdbRecords(e).size(), 1u);
  // An expired hash is absent; re-created, it holds only its new field.
  EXPECT_EQ(e.Run("HSET x old 1"), "(integer) 1");
  EXPECT_EQ(e.Run("PEXPIRE x 10"), "(integer) 1");
  e.clock().AdvanceMillis(20);
  EXPECT_EQ(e.Run("HLEN x"), "(integer) 0");
  EXPECT_EQ(e.Run("HSET x new 2"), "(integer) 1");
  EXPECT_EQ(e.Run("HGETALL x"), "[\"new\", \"2\"]");
  EXPECT_EQ(e.Run("TTL x"), "(integer) -1");
  // RENAME onto an Ardb key deletes its records; the source's go too.
  EXPECT_EQ(e.Run("HSET y f 1 g 2"), "(integer) 2");
  EXPECT_EQ(e.Run("HSET w z 9"), "(integer) 1");
  EXPECT_EQ(e.Run("RENAME w y"), "OK");
  EXPECT_EQ(e.Run("HGETALL y"), "[\"z\", \"9\"]");
  EXPECT_EQ(e.Run("HSET w q 1"), "(integer) 1");
  EXPECT_EQ(e.Run("HGETALL w"), "[\"q\", \"1\"]");
}

TEST(ArdbEngine, TheCollectorReapsExpiredKeysWithTheirRecordsAndLeavesLiveOnes) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET zset-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("ZADD live 1 a 2 b"), "(integer) 2");
  EXPECT_EQ(e.Run("ZADD gone 1 a"), "(integer) 1");
  EXPECT_EQ(e.Run("PEXPIRE gone 10"), "(integer) 1");
  e.clock().AdvanceMillis(20);
  engine::GcStats stats;
  ASSERT_TRUE(engine::Collector(&e.engine()).RunPass(engine::GcOptions(), &stats).ok());
  EXPECT_EQ(stats.reclaimed_metas, 1u);
  EXPECT_EQ(stats.reclaimed_sub_keys, 0u);
  EXPECT_EQ(ArdbRecords(e).size(), 4u);  // live's two members, two records each
  EXPECT_EQ(e.Run("ZRANGE live 0 -1 WITHSCORES"), "[\"a\", \"1\", \"b\", \"2\"]");
  EXPECT_EQ(e.Run("ZCARD live"), "(integer) 2");
}

}  // namespace
}  // namespace kvlab::encodings
