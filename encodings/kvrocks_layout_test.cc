// The Kvrocks/NeoKV family (004_*): its order-preserving score encoding, its key-meta layout
// beside Camellia's, the registry's rules for its rows, and the versions named "kvrocks" end to
// end through the engine (CONFIG SET by name, 64-bit sizes, both families in one store).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "encodings/coding.h"
#include "encodings/key_meta.h"
#include "encodings/key_version.h"
#include "encodings/registry.h"
#include "encodings/score_codec.h"
#include "testing/engine_test_util.h"

namespace kvlab::encodings {
namespace {

using testing::EngineHarness;

std::string Encoded(double d) {
  std::string out;
  PutScore(&out, d);
  return out;
}

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (!out.empty()) out.push_back(' ');
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

// --- The order-preserving double (004_* section 4.1) -------------------------------------

TEST(OrderedScore, SpecialValuesSortInNumericOrder) {
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> ascending = {
      -inf, -std::numeric_limits<double>::max(), -1.5, -1.0, -tiny, -0.0, 0.0, tiny, 1.0,
      1.5,  std::numeric_limits<double>::max(),  inf};
  for (size_t i = 0; i + 1 < ascending.size(); ++i) {
    EXPECT_LT(Encoded(ascending[i]), Encoded(ascending[i + 1]))
        << ascending[i] << " vs " << ascending[i + 1];
  }
}

TEST(OrderedScore, BytesAreTheSpecs) {
  // Non-negative: the sign bit flipped; negative: every bit inverted.
  EXPECT_EQ(Hex(Encoded(0.0)), "80 00 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encoded(-0.0)), "7f ff ff ff ff ff ff ff");
  EXPECT_EQ(Hex(Encoded(1.5)), "bf f8 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encoded(-2.0)), "3f ff ff ff ff ff ff ff");
  EXPECT_EQ(Hex(Encoded(std::numeric_limits<double>::infinity())), "ff f0 00 00 00 00 00 00");
  EXPECT_EQ(Hex(Encoded(-std::numeric_limits<double>::infinity())), "00 0f ff ff ff ff ff ff");
}

TEST(OrderedScore, RoundTripsEveryBitPattern) {
  std::mt19937_64 rng(21);
  for (double d : {0.0, -0.0, 1.0, -1.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()}) {
    const std::string e = Encoded(d);
    EXPECT_EQ(std::bit_cast<uint64_t>(DecodeScore(e.data())), std::bit_cast<uint64_t>(d)) << d;
  }
  for (int i = 0; i < 10000; ++i) {
    const uint64_t bits = rng();
    const std::string e = Encoded(std::bit_cast<double>(bits));
    EXPECT_EQ(std::bit_cast<uint64_t>(DecodeScore(e.data())), bits);
  }
}

TEST(OrderedScore, RandomDoublesSortAsTheirBytes) {
  std::mt19937_64 rng(4);
  std::vector<double> values;
  while (values.size() < 20000) {
    // Random bit patterns reach every exponent, subnormals and both signs; NaN is never stored.
    const double d = std::bit_cast<double>(rng());
    if (!std::isnan(d)) values.push_back(d);
  }
  std::vector<double> by_bytes = values;
  std::sort(values.begin(), values.end());
  std::sort(by_bytes.begin(), by_bytes.end(),
            [](double a, double b) { return Encoded(a) < Encoded(b); });
  for (size_t i = 0; i < values.size(); ++i) {
    // -0 and 0 compare equal as doubles but not as bytes: compare values, not bits.
    ASSERT_EQ(values[i], by_bytes[i]) << "at " << i;
  }
}

TEST(OrderedScore, NaNNeverReachesTheStore) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET zset-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("ZADD z nan m"), "(error) ERR value is not a valid float");
  EXPECT_EQ(e.Run("ZADD z inf m"), "(integer) 1");
  EXPECT_EQ(e.Run("ZINCRBY z -inf m"), "(error) ERR resulting score is not a number (NaN)");
  EXPECT_EQ(e.Run("ZADD z INCR -inf m"), "(error) ERR resulting score is not a number (NaN)");
  EXPECT_EQ(e.Run("ZSCORE z m"), "\"inf\"");
  EXPECT_EQ(e.Run("ZRANGEBYSCORE z -inf +inf WITHSCORES"), "[\"m\", \"inf\"]");
}

// --- The key-meta layouts ------------------------------------------------------------------

TEST(KvrocksMeta, HashMetaIsTheSpecsBytes) {
  KeyMeta m;
  m.type = KeyType::kHash;
  m.encode_version = KvrocksFlags(KeyType::kHash);
  m.counted = true;
  m.key_version = 0x0102030405060708;
  m.count = 0x1'0000'0002;  // beyond a u32
  EXPECT_EQ(Hex(m.Encode()),
            "82 00 00 00 00 00 00 00 00 01 02 03 04 05 06 07 08 00 00 00 01 00 00 00 02");
  m.expire_ms = 4102444800000;
  const std::string bytes = m.Encode();
  EXPECT_EQ(Hex(bytes.substr(0, 9)), "82 00 00 03 bb 2c c3 d8 00");

  KeyMeta back;
  ASSERT_TRUE(KeyMeta::Decode(bytes, EncodingRegistry::Builtin(), &back).ok());
  EXPECT_EQ(back.type, KeyType::kHash);
  EXPECT_EQ(back.encode_version, 0x82);
  EXPECT_TRUE(back.has_count());
  EXPECT_EQ(back.count, 0x1'0000'0002u);
  EXPECT_EQ(back.key_version, 0x0102030405060708u);
  EXPECT_EQ(back.expire_ms, 4102444800000);
}

TEST(KvrocksMeta, ZeroExpiryMeansNone) {
  KeyMeta m;
  m.type = KeyType::kZset;
  m.encode_version = KvrocksFlags(KeyType::kZset);
  m.counted = true;
  m.count = 3;
  const std::string bytes = m.Encode();
  EXPECT_EQ(Hex(bytes.substr(0, 9)), "85 00 00 00 00 00 00 00 00");
  KeyMeta back;
  ASSERT_TRUE(KeyMeta::Decode(bytes, EncodingRegistry::Builtin(), &back).ok());
  EXPECT_FALSE(back.has_expire());
  EXPECT_EQ(back.count, 3u);
}

TEST(KvrocksMeta, ListMetaKeepsHeadAndTail) {
  KeyMeta m;
  m.type = KeyType::kList;
  m.encode_version = KvrocksFlags(KeyType::kList);
  m.counted = true;
  m.count = 1;
  m.list_head = UINT64_MAX / 2;
  m.list_tail = UINT64_MAX / 2 + 1;
  const std::string bytes = m.Encode();
  ASSERT_EQ(bytes.size(), 41u);
  EXPECT_EQ(Hex(bytes.substr(25)), "7f ff ff ff ff ff ff ff 80 00 00 00 00 00 00 00");
}

TEST(KvrocksMeta, CamelliaIdsNeverHaveTheMarkerBit) {
  for (const EncodingSpec& row : EncodingRegistry::Builtin().rows()) {
    if (row.name == "kvrocks") {
      EXPECT_EQ(row.id, KvrocksFlags(row.type)) << row.name;
      EXPECT_TRUE(row.meta_has_count);
    } else {
      EXPECT_FALSE(IsKvrocksId(row.id)) << row.name;
    }
  }
}

TEST(KvrocksMeta, MalformedMetasAreCorruption) {
  const EncodingRegistry& r = EncodingRegistry::Builtin();
  KeyMeta m;
  m.type = KeyType::kHash;
  m.encode_version = KvrocksFlags(KeyType::kHash);
  m.counted = true;
  const std::string good = m.Encode();
  KeyMeta out;
  ASSERT_TRUE(KeyMeta::Decode(good, r, &out).ok());
  auto with_first = [&](uint8_t b) {
    std::string s = good;
    s[0] = static_cast<char>(b);
    return s;
  };
  EXPECT_TRUE(KeyMeta::Decode(with_first(0x81), r, &out).IsCorruption());  // Kvrocks string
  EXPECT_TRUE(KeyMeta::Decode(with_first(0x80), r, &out).IsCorruption());  // kRedisNone
  EXPECT_TRUE(KeyMeta::Decode(with_first(0x86), r, &out).IsCorruption());  // unknown type
  EXPECT_TRUE(KeyMeta::Decode(with_first(0x92), r, &out).IsCorruption());  // reserved bits
  EXPECT_TRUE(KeyMeta::Decode(good.substr(0, 24), r, &out).IsCorruption());
  EXPECT_TRUE(KeyMeta::Decode(good + "x", r, &out).IsCorruption());
}

TEST(KvrocksMeta, RegistryRefusesBadKvrocksRows) {
  const EncodingRegistry& builtin = EncodingRegistry::Builtin();
  EncodingSpec row = *builtin.Find(KeyType::kHash, "kvrocks");
  row.name = "kvrocks-copy";
  row.color = "#010203";
  EncodingRegistry out;
  // The id must be the hash flags byte, which the real row already has.
  EXPECT_FALSE(builtin.With(row, &out).ok());
  row.id = KvrocksFlags(KeyType::kZset);  // a zset's flags byte on a hash row
  Status s = builtin.With(row, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("Kvrocks flags byte"), std::string::npos) << s.ToString();
  row.id = 0x90;
  EXPECT_FALSE(builtin.With(row, &out).ok());
}

TEST(KeyVersions, CounterIsRandomlySeededAndStaysMonotonic) {
  ManualClock clock(1700000000000000);
  KeyVersionGenerator a(&clock, 5), b(&clock, 2000);
  EXPECT_EQ(a.Next(), (uint64_t{1700000000000000} << 11) + 5);
  EXPECT_EQ(a.Next(), (uint64_t{1700000000000000} << 11) + 6);
  EXPECT_EQ(b.Next() & 2047, 2000u);
  clock.AdvanceMillis(-1);  // the clock steps back: still increasing
  EXPECT_EQ(a.Next(), (uint64_t{1700000000000000} << 11) + 7);
  std::set<uint64_t> seeds;
  for (int i = 0; i < 16; ++i) {
    const uint64_t seed = KeyVersionGenerator(&clock).seed();
    EXPECT_LT(seed, 2048u);
    seeds.insert(seed);
  }
  EXPECT_GT(seeds.size(), 1u);  // 16 draws from 2048 values all equal: p = 2048^-15
}

// --- The versions named "kvrocks", end to end ---------------------------------------------

std::string RawMeta(EngineHarness& e, const std::string& key) {
  std::string bytes;
  EXPECT_TRUE(e.store()->Get(e.engine().codec().MetaKey(0, key), &bytes).ok()) << key;
  return bytes;
}

TEST(KvrocksEngine, TheNameWorksWhereAVersionDoes) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET kv.hash.key.meta.version kvrocks"), "OK");
  EXPECT_EQ(e.Run("CONFIG GET hash-encoding"), "[\"hash-encoding\", \"kvrocks\"]");
  EXPECT_EQ(e.Run("CONFIG SET zset-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("CONFIG GET kv.zset.key.meta.version"),
            "[\"kv.zset.key.meta.version\", \"kvrocks\"]");
  // The known versions are the registry's, in its order (a list written here would have to
  // change with every new version).
  std::string known;
  for (const EncodingSpec* row : EncodingRegistry::Builtin().VersionsOf(KeyType::kHash)) {
    known += (known.empty() ? "" : ", ") + std::string(row->name);
  }
  EXPECT_TRUE(known.starts_with("0, 1, 2, 3, ")) << known;
  EXPECT_NE(known.find(", kvrocks"), std::string::npos) << known;
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding pika"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'hash-encoding') - "
            "unknown hash encode-version 'pika' (known: " +
                known + ")");
  EXPECT_EQ(e.Run("HSET h f v"), "(integer) 1");
  EXPECT_EQ(e.Run("ZADD z 1 m"), "(integer) 1");
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "h")[0]), 0x82);
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "z")[0]), 0x85);
  EXPECT_EQ(RawMeta(e, "h").size(), 25u);

  EncodingProfile profile;
  ASSERT_TRUE(
      ParseEncodingList(EncodingRegistry::Builtin(), "hash=kvrocks,zset=kvrocks", &profile).ok());
  EXPECT_EQ(profile.Label(EncodingRegistry::Builtin()), "hkvrocks zkvrocks");
}

TEST(KvrocksEngine, BothFamiliesLiveInOneStore) {
  EngineHarness e;
  EXPECT_EQ(e.Run("HSET camellia a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("HSET kvrocks a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("HSET camellia c 3"), "(integer) 1");  // keeps its family
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "camellia")[0]), 0x00);
  EXPECT_EQ(static_cast<uint8_t>(RawMeta(e, "kvrocks")[0]), 0x82);
  EXPECT_EQ(e.Run("HLEN camellia"), "(integer) 3");
  EXPECT_EQ(e.Run("HLEN kvrocks"), "(integer) 2");
  EXPECT_EQ(e.Run("TYPE kvrocks"), "hash");
  EXPECT_EQ(e.Run("DBSIZE"), "(integer) 2");
  EXPECT_EQ(e.Run("HGETALL kvrocks"), "[\"a\", \"1\", \"b\", \"2\"]");
  EXPECT_EQ(e.Run("EXPIRE kvrocks 100"), "(integer) 1");
  EXPECT_EQ(e.Run("TTL kvrocks"), "(integer) 100");
  EXPECT_EQ(e.Run("PERSIST kvrocks"), "(integer) 1");
  EXPECT_EQ(e.Run("TTL kvrocks"), "(integer) -1");
  EXPECT_EQ(e.Run("HDEL kvrocks a b"), "(integer) 2");
  EXPECT_EQ(e.Run("EXISTS kvrocks"), "(integer) 0");
}

TEST(KvrocksEngine, ListsKeepHeadAndTailInTheKvrocksMeta) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET list-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("RPUSH l a b c"), "(integer) 3");
  EXPECT_EQ(e.Run("LPUSH l z"), "(integer) 4");
  const std::string meta = RawMeta(e, "l");
  ASSERT_EQ(meta.size(), 41u);
  EXPECT_EQ(static_cast<uint8_t>(meta[0]), 0x83);
  EXPECT_EQ(Hex(meta.substr(25)), "7f ff ff ff ff ff ff fe 80 00 00 00 00 00 00 02");
  EXPECT_EQ(e.Run("LINSERT l BEFORE b m"), "(integer) 5");
  EXPECT_EQ(e.Run("LREM l 1 a"), "(integer) 1");
  EXPECT_EQ(e.Run("LRANGE l 0 -1"), "[\"z\", \"m\", \"b\", \"c\"]");
  EXPECT_EQ(e.Run("LLEN l"), "(integer) 4");
}

TEST(KvrocksEngine, SetsKeepA64BitSizeInTheKvrocksMeta) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET set-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("SADD s a b c a"), "(integer) 3");
  const std::string meta = RawMeta(e, "s");
  ASSERT_EQ(meta.size(), 25u);
  EXPECT_EQ(static_cast<uint8_t>(meta[0]), 0x84);
  EXPECT_EQ(Hex(meta.substr(17)), "00 00 00 00 00 00 00 03");
  EXPECT_EQ(e.Run("SREM s a nope"), "(integer) 1");
  EXPECT_EQ(e.Run("SCARD s"), "(integer) 2");
  // Give the meta a size of 2^32 - 1: the next member counts past Camellia's u32.
  KeyMeta m;
  ASSERT_TRUE(KeyMeta::Decode(RawMeta(e, "s"), e.engine().registry(), &m).ok());
  m.count = UINT32_MAX;
  backends::WriteBatch batch;
  batch.Put(e.engine().codec().MetaKey(0, "s"), m.Encode());
  ASSERT_TRUE(e.store()->Write(batch).ok());
  EXPECT_EQ(e.Run("SADD s new"), "(integer) 1");
  EXPECT_EQ(e.Run("SCARD s"), "(integer) 4294967296");
}

TEST(KvrocksEngine, SizesBeyondFourBillionStayExact) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("HSET h f v"), "(integer) 1");
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding 0"), "OK");
  EXPECT_EQ(e.Run("HSET h0 f v"), "(integer) 1");
  // Give both metas a size of 2^32 - 1 (as if that many fields were stored).
  for (const char* key : {"h", "h0"}) {
    KeyMeta m;
    ASSERT_TRUE(KeyMeta::Decode(RawMeta(e, key), e.engine().registry(), &m).ok());
    m.count = UINT32_MAX;
    backends::WriteBatch batch;
    batch.Put(e.engine().codec().MetaKey(0, key), m.Encode());
    ASSERT_TRUE(e.store()->Write(batch).ok());
  }
  EXPECT_EQ(e.Run("HSET h g v"), "(integer) 1");
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 4294967296");
  EXPECT_EQ(e.Run("HSET h0 g v"),
            "(error) ERR a hash of this encoding holds at most 4294967295 fields");
  EXPECT_EQ(e.Run("HLEN h0"), "(integer) 4294967295");
}

TEST(KvrocksEngine, HsetOfAnUnchangedValueWritesNothing) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding kvrocks"), "OK");
  EXPECT_EQ(e.Run("HSET h f v g w"), "(integer) 2");
  engine::CommandCost cost;
  EXPECT_EQ(e.Exec("HSET h f v", &cost).Describe(), "(integer) 0");
  EXPECT_EQ(cost.kv.batches, 0u);
  EXPECT_EQ(e.Exec("HSET h f v g x", &cost).Describe(), "(integer) 0");
  EXPECT_EQ(cost.kv.batch_records, 1u);  // only g
  EXPECT_EQ(e.Run("HGETALL h"), "[\"f\", \"v\", \"g\", \"x\"]");
}

}  // namespace
}  // namespace kvlab::encodings
