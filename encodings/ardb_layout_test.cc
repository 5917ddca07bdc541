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
  // An Ardb list's meta is longer (size, sequential, min, max): the other types' 10 bytes are
  // corrupt for a list.
  EXPECT_TRUE(
      KeyMeta::Decode(std::string("\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00", 10), r, &decoded)
          .IsCorruption());
}

TEST(ArdbMeta, ListMetaKeepsSizeSequentialFlagAndMinMax) {
  const EncodingRegistry& r = EncodingRegistry::Builtin();
  const EncodingSpec* row = r.Find(KeyType::kList, "ardb");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->id, 0x45);
  EXPECT_TRUE(row->meta_has_count);
  EXPECT_TRUE(row->eager_delete);
  KeyMeta m;
  m.type = KeyType::kList;
  m.encode_version = ArdbId(KeyType::kList);
  m.counted = true;
  m.count = 3;
  m.list_sequential = true;
  m.list_head = 0x400fffffffffffff;  // -1.0, order-preserving
  m.list_tail = 0xbff0000000000000;  // 1.0
  m.expire_ms = 4102444800000;
  const std::string bytes = m.Encode();
  EXPECT_EQ(bytes, std::string("\x05\x00\x00\x00\x03\xbb\x2c\xc3\xd8\x00"
                               "\x00\x00\x00\x00\x00\x00\x00\x03\x01"
                               "\x40\x0f\xff\xff\xff\xff\xff\xff\xbf\xf0\x00\x00\x00\x00\x00\x00",
                               35));
  KeyMeta back;
  ASSERT_TRUE(KeyMeta::Decode(bytes, r, &back).ok());
  EXPECT_EQ(back.type, KeyType::kList);
  EXPECT_EQ(back.encode_version, 0x45);
  EXPECT_TRUE(back.has_count());
  EXPECT_EQ(back.count, 3u);
  EXPECT_TRUE(back.list_sequential);
  EXPECT_EQ(back.list_head, m.list_head);
  EXPECT_EQ(back.list_tail, m.list_tail);
  EXPECT_EQ(back.expire_ms, 4102444800000);
  std::string flag = bytes;
  flag[18] = 0;
  ASSERT_TRUE(KeyMeta::Decode(flag, r, &back).ok());
  EXPECT_FALSE(back.list_sequential);
  flag[18] = 2;
  EXPECT_TRUE(KeyMeta::Decode(flag, r, &back).IsCorruption());
  EXPECT_TRUE(KeyMeta::Decode(bytes.substr(0, 34), r, &back).IsCorruption());
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

// One list workout, on a store with and without reverse scans: the replies are Redis's (as
// redis-server 7.0 gives them), and the records are exactly the list's elements.
void ListWorkout(bool no_reverse_scan) {
  EngineHarness e("memory", {}, no_reverse_scan);
  EXPECT_EQ(e.Run("CONFIG SET list-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("RPUSH l b c d"), "(integer) 3");
  EXPECT_EQ(e.Run("LPUSH l a"), "(integer) 4");
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "l")[18]), 1) << "sequential";
  EXPECT_EQ(e.Run("LINDEX l 2"), "\"c\"");
  EXPECT_EQ(e.Run("LSET l 1 B"), "OK");
  // LINSERT takes a fraction and clears the flag; positions then walk.
  EXPECT_EQ(e.Run("LINSERT l BEFORE c x"), "(integer) 5");
  EXPECT_EQ(e.Run("LINSERT l AFTER d y"), "(integer) 6");
  EXPECT_EQ(e.Run("LINSERT l BEFORE a z"), "(integer) 7");
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "l")[18]), 0) << "not sequential";
  EXPECT_EQ(e.Run("LRANGE l 0 -1"), "[\"z\", \"a\", \"B\", \"x\", \"c\", \"d\", \"y\"]");
  EXPECT_EQ(e.Run("LINDEX l 3"), "\"x\"");
  EXPECT_EQ(e.Run("LINDEX l -1"), "\"y\"");
  EXPECT_EQ(e.Run("LSET l 3 X"), "OK");
  EXPECT_EQ(e.Run("LPOS l c"), "(integer) 4");
  EXPECT_EQ(e.Run("LRANGE l -3 -2"), "[\"c\", \"d\"]");
  // Pushes after fractional ends, pops from both ends.
  EXPECT_EQ(e.Run("RPUSH l e"), "(integer) 8");
  EXPECT_EQ(e.Run("LPUSH l w"), "(integer) 9");
  EXPECT_EQ(e.Run("RPOP l 2"), "[\"e\", \"y\"]");
  EXPECT_EQ(e.Run("LPOP l"), "\"w\"");
  EXPECT_EQ(e.Run("LMOVE l l RIGHT LEFT"), "\"d\"");
  EXPECT_EQ(e.Run("LRANGE l 0 -1"), "[\"d\", \"z\", \"a\", \"B\", \"X\", \"c\"]");
  EXPECT_EQ(e.Run("LREM l -1 z"), "(integer) 1");
  EXPECT_EQ(e.Run("LTRIM l 1 -2"), "OK");
  EXPECT_EQ(e.Run("LRANGE l 0 -1"), "[\"a\", \"B\", \"X\"]");
  EXPECT_EQ(ArdbRecords(e).size(), 3u);
  // The TTL survives a push (Ardb's push clears it; Redis's does not).
  EXPECT_EQ(e.Run("EXPIRE l 100"), "(integer) 1");
  EXPECT_EQ(e.Run("RPUSH l f"), "(integer) 4");
  EXPECT_EQ(e.Run("TTL l"), "(integer) 100");
  // Emptying the list deletes its records: by pops, by LREM, by LTRIM, by DEL.
  EXPECT_EQ(e.Run("LTRIM l 5 1"), "OK");
  EXPECT_EQ(e.Run("EXISTS l"), "(integer) 0");
  EXPECT_TRUE(ArdbRecords(e).empty());
  EXPECT_EQ(e.Run("RPUSH l a a"), "(integer) 2");
  EXPECT_EQ(e.Run("LINSERT l AFTER a b"), "(integer) 3");
  EXPECT_EQ(e.Run("LREM l 0 a"), "(integer) 2");
  EXPECT_EQ(e.Run("RPOP l"), "\"b\"");
  EXPECT_TRUE(ArdbRecords(e).empty());
  EXPECT_EQ(e.Run("RPUSH l a b c"), "(integer) 3");
  EXPECT_EQ(e.Run("DEL l"), "(integer) 1");
  EXPECT_TRUE(ArdbRecords(e).empty());
}

TEST(ArdbEngine, ListRepliesStayRedisWithAndWithoutReverseScan) {
  ListWorkout(false);
  ListWorkout(true);
}

TEST(ArdbEngine, ListInsertsInOnePlaceRenumberInsteadOfOverwriting) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET list-encoding ardb"), "OK");
  EXPECT_EQ(e.Run("RPUSH l a b"), "(integer) 2");
  // Each insert halves the gap before b: after some 52 the doubles run out, and Ardb would
  // overwrite b's neighbour. kvlab renumbers the list to 0..n and goes on.
  std::string expected = "[\"a\"";
  for (int i = 0; i < 70; ++i) {
    EXPECT_EQ(e.Run("LINSERT l BEFORE b x" + std::to_string(i)),
              "(integer) " + std::to_string(i + 3));
    expected += ", \"x" + std::to_string(i) + "\"";
  }
  expected += ", \"b\"]";
  EXPECT_EQ(e.Run("LRANGE l 0 -1"), expected);
  EXPECT_EQ(e.Run("LLEN l"), "(integer) 72");
  EXPECT_EQ(ArdbRecords(e).size(), 72u);
  EXPECT_EQ(e.Run("LINDEX l 70"), "\"x69\"");
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
