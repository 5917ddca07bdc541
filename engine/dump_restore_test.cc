// DUMP and RESTORE (engine/dump_commands.cc over engine/rdb_value.h and rdb_format.h): the RDB
// building blocks against hand-made blobs, payloads moved between every registry version of
// every type, RESTORE's options and errors, and payloads moved both ways between kvlab and a
// real redis-server (started here on a free loopback port) for every type in every RDB form
// Redis 7.0 writes, byte for byte where Redis's bytes do not depend on its history.
#include <gtest/gtest.h>

#include <memory>

#include "encodings/registry.h"
#include "engine/rdb_format.h"
#include "engine/rdb_value.h"
#include "redis/client.h"
#include "redis/server_process.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {
namespace {

using encodings::EncodingRegistry;
using encodings::KeyType;
using resp::Reply;
using testing::EngineHarness;

// A Redis 7.0 DUMP of the string "hello".
const std::string kHelloPayload("\x00\x05hello\n\x00\x63r\xdfve4 \n", 17);

TEST(RdbFormat, Crc64AndARedisPayload) {
  EXPECT_EQ(rdb::Crc64(0, "123456789"), 0xe9c6d914c4b8d9caULL);
  rdb::Value v;
  ASSERT_EQ(rdb::ParsePayload(kHelloPayload, &v), rdb::ParseResult::kOk);
  EXPECT_EQ(v.type, KeyType::kString);
  EXPECT_EQ(v.str, "hello");
  EXPECT_EQ(rdb::DumpPayload(v, {}), kHelloPayload);
}

TEST(RdbFormat, StringsListpacksZiplistsAndIntsets) {
  // Integer-encoded strings (int8, int16, int32), raw ones, and LZF past 20 bytes.
  for (const std::string& s :
       {std::string("-128"), std::string("32767"), std::string("-2147483648"),
        std::string("2147483648"), std::string("007"), std::string(""), std::string(300, 'x'),
        std::string("abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz")}) {
    rdb::Writer w;
    w.String(s, true);
    rdb::Reader r(w.out());
    std::string back;
    ASSERT_TRUE(r.String(&back)) << s;
    EXPECT_EQ(back, s);
    EXPECT_EQ(r.remaining(), 0u);
  }
  rdb::Writer w;
  w.String("-128", true);
  EXPECT_EQ(w.out(), std::string("\xc0\x80", 2));
  // Every listpack entry encoding, and its back-lengths.
  std::vector<std::string> entries = {"0",
                                      "127",
                                      "128",
                                      "-4096",
                                      "4095",
                                      "-4097",
                                      "32767",
                                      "8388607",
                                      "-8388609",
                                      "9223372036854775807",
                                      "-9223372036854775808",
                                      "01",
                                      "a",
                                      std::string(63, 's'),
                                      std::string(64, 'm'),
                                      std::string(5000, 'l')};
  const std::string lp = rdb::ListpackEncode({entries.begin(), entries.end()});
  std::vector<std::string> back;
  ASSERT_TRUE(rdb::ListpackDecode(lp, &back));
  EXPECT_EQ(back, entries);
  EXPECT_FALSE(rdb::ListpackDecode(lp.substr(0, lp.size() - 1), &back));
  std::string bad = lp;
  bad[bad.size() - 2] ^= 1;  // the last back-length
  EXPECT_FALSE(rdb::ListpackDecode(bad, &back));
  // A ziplist: "a", the immediate 5, "hello", int16 1000.
  const std::string zl(
      "\x1b\x00\x00\x00\x16\x00\x00\x00\x04\x00"
      "\x00\x01\x61"
      "\x03\xf6"
      "\x02\x05hello"
      "\x07\xc0\xe8\x03"
      "\xff",
      27);
  ASSERT_TRUE(rdb::ZiplistDecode(zl, &back));
  EXPECT_EQ(back, (std::vector<std::string>{"a", "5", "hello", "1000"}));
  EXPECT_FALSE(rdb::ZiplistDecode(zl.substr(0, 26), &back));
  // Intsets take the smallest width holding every value.
  const std::string is16 = rdb::IntsetEncode({-3, 7});
  EXPECT_EQ(is16.size(), 8u + 2 * 2);
  const std::string is64 = rdb::IntsetEncode({-3, int64_t{1} << 40});
  EXPECT_EQ(is64.size(), 8u + 2 * 8);
  std::vector<int64_t> ints;
  ASSERT_TRUE(rdb::IntsetDecode(is64, &ints));
  EXPECT_EQ(ints, (std::vector<int64_t>{-3, int64_t{1} << 40}));
  EXPECT_FALSE(rdb::IntsetDecode(rdb::IntsetEncode({7, 7}), &ints));  // not distinct
  // A zipmap (Redis 2.4): {"f": "v"} with one free byte.
  std::vector<std::pair<std::string, std::string>> pairs;
  ASSERT_TRUE(rdb::ZipmapDecode(std::string("\x01\x01"
                                            "f\x01\x01vX\xff",
                                            8),
                                &pairs));
  EXPECT_EQ(pairs, (std::vector<std::pair<std::string, std::string>>{{"f", "v"}}));
}

// A payload around an object of `type` with a correct footer.
std::string Wrap(uint8_t type, const std::string& body) {
  std::string p(1, static_cast<char>(type));
  p += body;
  p += std::string("\x0a\x00", 2);
  const uint64_t crc = rdb::Crc64(0, p);
  for (int i = 0; i < 8; ++i) p.push_back(static_cast<char>(crc >> (8 * i)));
  return p;
}

std::string Exec(EngineHarness& e, std::vector<std::string> argv) {
  return e.engine().Execute(e.session(), argv).Describe();
}

TEST(DumpRestore, OptionsAndErrorsAsRedis) {
  EngineHarness e;
  EXPECT_EQ(e.Run("DUMP nope"), "(nil)");
  EXPECT_EQ(Exec(e, {"RESTORE", "k", "0", kHelloPayload}), "OK");
  EXPECT_EQ(e.Run("GET k"), "\"hello\"");
  EXPECT_EQ(Exec(e, {"RESTORE", "k", "0", kHelloPayload}),
            "(error) BUSYKEY Target key name already exists.");
  EXPECT_EQ(e.Run("RPUSH l a"), "(integer) 1");
  EXPECT_EQ(Exec(e, {"RESTORE", "l", "0", kHelloPayload, "REPLACE"}), "OK");
  EXPECT_EQ(e.Run("GET l"), "\"hello\"");
  EXPECT_EQ(Exec(e, {"RESTORE", "t", "100000", kHelloPayload}), "OK");
  EXPECT_EQ(e.Run("PTTL t"), "(integer) 100000");
  EXPECT_EQ(Exec(e, {"RESTORE", "a", "1", kHelloPayload, "ABSTTL"}), "OK");  // long past
  EXPECT_EQ(e.Run("EXISTS a"), "(integer) 0");
  EXPECT_EQ(Exec(e, {"RESTORE", "t", "1", kHelloPayload, "ABSTTL", "REPLACE"}), "OK");
  EXPECT_EQ(e.Run("EXISTS t"), "(integer) 0");  // replaced by an expired key: deleted
  EXPECT_EQ(Exec(e, {"RESTORE", "i", "0", kHelloPayload, "IDLETIME", "10", "FREQ", "1"}),
            "(error) ERR syntax error");
  EXPECT_EQ(Exec(e, {"RESTORE", "i", "0", kHelloPayload, "IDLETIME", "-1"}),
            "(error) ERR Invalid IDLETIME value, must be >= 0");
  EXPECT_EQ(Exec(e, {"RESTORE", "i", "0", kHelloPayload, "FREQ", "256"}),
            "(error) ERR Invalid FREQ value, must be >= 0 and <= 255");
  EXPECT_EQ(Exec(e, {"RESTORE", "i", "0", kHelloPayload, "FREQ", "x"}),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(Exec(e, {"RESTORE", "i", "0", kHelloPayload, "IDLETIME", "5"}), "OK");
  EXPECT_EQ(Exec(e, {"RESTORE", "j", "-1", kHelloPayload}),
            "(error) ERR Invalid TTL value, must be >= 0");
  EXPECT_EQ(Exec(e, {"RESTORE", "j", "0", "short"}),
            "(error) ERR DUMP payload version or checksum are wrong");
  std::string bad_crc = kHelloPayload;
  bad_crc.back() ^= 1;
  EXPECT_EQ(Exec(e, {"RESTORE", "j", "0", bad_crc}),
            "(error) ERR DUMP payload version or checksum are wrong");
  std::string v11 = kHelloPayload;
  v11[8] = 11;
  EXPECT_EQ(Exec(e, {"RESTORE", "j", "0", v11}),
            "(error) ERR DUMP payload version or checksum are wrong");
  // Well-formed footers around bad objects (as in Redis, an object is read from the whole
  // payload: one cut short reads on into the footer, so these overrun it).
  for (const std::string& p :
       {Wrap(0, "\x40\x64hel"), Wrap(6, "x"), Wrap(15, "x"), Wrap(2, std::string("\x00", 1)),
        Wrap(2, std::string("\x02\x01"
                            "a\x01"
                            "a",
                            5)),
        Wrap(16, "\x05hello"), Wrap(11, std::string("\x08\x02\x00\x00\x00\x00\x00\x00\x00", 9)),
        Wrap(0, std::string("\xc3\x02\x05"
                            "ab",
                            5))}) {
    EXPECT_EQ(Exec(e, {"RESTORE", "j", "0", p}), "(error) ERR Bad data format")
        << Reply::Bulk(p).Describe();
  }
  EXPECT_EQ(e.Run("EXISTS j"), "(integer) 0");
}

struct TypeCase {
  KeyType type;
  std::vector<std::string> fill;  // "%" is the key
  std::string read;
  // Whether Redis's DUMP bytes follow from the value alone (not from its hash order).
  bool exact = true;
};

std::string With(std::string line, const std::string& key) {
  line.replace(line.find('%'), 1, key);
  return line;
}

// Every type in each RDB form DUMP writes: listpack and dict hashes, listpack and skiplist
// zsets, intset and dict sets, one- and many-node lists, integer and raw strings.
std::vector<TypeCase> Cases() {
  const std::string big(70, 'B');
  std::string many_fields = "HSET %", many_members = "ZADD %", many_ints = "SADD %",
              many_elems = "RPUSH %";
  for (int i = 0; i < 600; ++i) {
    many_fields += " f" + std::to_string(i) + " " + std::to_string(i * 7);
    many_members += " " + std::to_string(i * 0.5) + " m" + std::to_string(i);
    many_ints += " " + std::to_string(i * 1000003);
    many_elems += " element-" + std::to_string(i) + "-" + std::string(i % 40, 'e');
  }
  return {
      {KeyType::kString, {"SET % 12345"}, "GET %"},
      {KeyType::kString, {"SET % " + std::string(100, 'z') + "x"}, "GET %"},
      {KeyType::kHash, {"HSET % a 1 b -70000 c hello"}, "HGETALL %"},
      {KeyType::kHash, {"HSET % a 1 long " + big}, "HMGET % a long", false},
      {KeyType::kHash, {many_fields}, "HLEN %", false},
      {KeyType::kZset, {"ZADD % 1 a 2.5 b -inf c 3 d 1e300 e"}, "ZRANGE % 0 -1 WITHSCORES"},
      {KeyType::kZset, {many_members}, "ZRANGE % 0 -1 WITHSCORES"},
      {KeyType::kSet, {"SADD % 5 -3 100000 9999999999"}, "SMISMEMBER % 5 -3 100000 9999999999 1"},
      {KeyType::kSet, {"SADD % a b 01"}, "SMISMEMBER % a b 01 1", false},
      {KeyType::kSet, {many_ints}, "SCARD %", false},
      {KeyType::kList, {"RPUSH % a 1 -5000 " + big}, "LRANGE % 0 -1"},
      {KeyType::kList, {many_elems}, "LRANGE % 0 -1"},
  };
}

// The registry's version names of a type; one unnamed version for strings (no registry type).
std::vector<std::string> VersionNames(const EncodingRegistry& registry, KeyType type) {
  if (type == KeyType::kString) return {""};
  std::vector<std::string> out;
  for (const auto* v : registry.VersionsOf(type)) out.emplace_back(v->name);
  return out;
}

// The CONFIG SET that makes new keys of `type` take `version` (for strings a no-op that
// replies OK).
std::string ConfigLine(const EncodingRegistry& registry, KeyType type, const std::string& version) {
  if (type == KeyType::kString) return "SELECT 0";
  return "CONFIG SET kv." + std::string(registry.FindType(type)->name) + ".key.meta.version " +
         version;
}

TEST(DumpRestore, EveryVersionToEveryVersion) {
  EngineHarness e;
  e.SetClockToNow();  // zset v3's store expiry is judged by a real clock
  const EncodingRegistry& registry = e.engine().registry();
  for (const TypeCase& c : Cases()) {
    const std::vector<std::string> versions = VersionNames(registry, c.type);
    for (const std::string& from : versions) {
      for (const std::string& to : versions) {
        SCOPED_TRACE(c.fill[0].substr(0, 40) + " " + from + " to " + to);
        ASSERT_EQ(e.Run("FLUSHALL"), "OK");
        ASSERT_EQ(e.Run(ConfigLine(registry, c.type, from)), "OK");
        for (const std::string& line : c.fill) e.Run(With(line, "src"));
        const std::string want = e.Run(With(c.read, "src"));
        const Reply dump = e.engine().Execute(e.session(), {"DUMP", "src"});
        ASSERT_EQ(dump.type(), Reply::Type::kBulk) << dump.Describe();
        ASSERT_EQ(e.Run(ConfigLine(registry, c.type, to)), "OK");
        EXPECT_EQ(e.Run("SET dst x"), "OK");
        EXPECT_EQ(Exec(e, {"RESTORE", "dst", "500000", dump.str(), "REPLACE"}), "OK");
        EXPECT_EQ(e.Run(With(c.read, "dst")), want);
        EXPECT_EQ(e.Run("PTTL dst"), "(integer) 500000");
        EXPECT_EQ(e.engine().Execute(e.session(), {"DUMP", "dst"}).str(), dump.str());
      }
    }
  }
}

class DumpRestoreRedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_ = std::make_unique<redis::RedisServerProcess>(redis::RedisServerOptions{});
    const Status s = redis_->Start();
    if (!s.ok()) GTEST_SKIP() << "no redis-server: " << s.ToString();
    client_ = std::make_unique<redis::RedisClient>(redis_->endpoint());
    ASSERT_TRUE(client_->Connect().ok());
  }
  Reply Redis(const std::vector<std::string>& argv) {
    Reply r;
    EXPECT_TRUE(client_->Command(argv, &r).ok());
    return r;
  }
  Reply RedisLine(const std::string& line) {
    std::vector<std::string> argv;
    EXPECT_TRUE(resp::SplitArgs(line, &argv));
    return Redis(argv);
  }

  std::unique_ptr<redis::RedisServerProcess> redis_;
  std::unique_ptr<redis::RedisClient> client_;
};

// Redis's payloads restore in kvlab, in every version, into the value Redis reads; kvlab's
// restore in Redis into the same value, and are Redis's bytes for these histories (values
// built from empty by appending, hash fields in field order, sets of integers).
TEST_F(DumpRestoreRedisTest, PayloadsMoveBothWays) {
  EngineHarness e;
  e.SetClockToNow();
  const EncodingRegistry& registry = e.engine().registry();
  for (const TypeCase& c : Cases()) {
    ASSERT_EQ(RedisLine("FLUSHALL").Describe(), "OK");
    for (const std::string& line : c.fill) RedisLine(With(line, "src"));
    const std::string want = RedisLine(With(c.read, "src")).Describe();
    const Reply dump = Redis({"DUMP", "src"});
    ASSERT_EQ(dump.type(), Reply::Type::kBulk);
    for (const std::string& v : VersionNames(registry, c.type)) {
      SCOPED_TRACE(c.fill[0].substr(0, 40) + " " + v);
      ASSERT_EQ(e.Run("FLUSHALL"), "OK");
      ASSERT_EQ(e.Run(ConfigLine(registry, c.type, v)), "OK");
      EXPECT_EQ(Exec(e, {"RESTORE", "k", "0", dump.str()}), "OK");
      EXPECT_EQ(e.Run(With(c.read, "k")), want);
      const Reply back = e.engine().Execute(e.session(), {"DUMP", "k"});
      ASSERT_EQ(back.type(), Reply::Type::kBulk);
      if (c.exact) {
        EXPECT_EQ(back.str(), dump.str()) << Reply::Bulk(back.str()).Describe();
      }
      EXPECT_EQ(Redis({"RESTORE", "copy", "0", back.str(), "REPLACE"}).Describe(), "OK");
      EXPECT_EQ(RedisLine(With(c.read, "copy")).Describe(), want);
    }
  }
}

}  // namespace
}  // namespace kvlab::engine
