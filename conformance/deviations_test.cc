#include "conformance/deviations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "encodings/hash_encoding.h"
#include "engine/rdb_value.h"

namespace kvlab::conformance {

using resp::Reply;

namespace {

DeviationCatalogue Real() {
  DeviationCatalogue c;
  Status s = DeviationCatalogue::Load(DefaultDeviationCataloguePath(),
                                      encodings::EncodingRegistry::Builtin(), &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

// The versions of a command's keys: hash version h, zset version z.
encodings::EncodingProfile P(int h, int z) {
  encodings::EncodingProfile p;
  p.versions = {{"hash", std::to_string(h)}, {"zset", std::to_string(z)}};
  return p;
}

TEST(Deviations, TheCatalogueLoadsWithUniqueIds) {
  const DeviationCatalogue c = Real();
  ASSERT_FALSE(c.entries().empty());
  std::set<std::string> ids;
  for (const Deviation& d : c.entries()) {
    EXPECT_TRUE(ids.insert(d.id).second) << d.id;
    EXPECT_FALSE(d.reason.empty()) << d.id;
    EXPECT_FALSE(d.commands.empty()) << d.id;
    EXPECT_FALSE(d.versions.empty()) << d.id;
  }
}

TEST(Deviations, ArgumentCountRuleOnlyOnItsCommandVersionAndExactReply) {
  const DeviationCatalogue c = Real();
  const std::vector<std::string> hset = {"HSET", "h", "f1", "v", "f2", "v"};
  // Redis says 1 new field; blind hash v1 says the 2 pairs given.
  EXPECT_EQ(c.Explain(hset, P(1, 0), Reply::Integer(1), Reply::Integer(2)),
            "hash-blind-hset-count");
  EXPECT_EQ(c.Explain(hset, P(0, 0), Reply::Integer(1), Reply::Integer(2)), "");  // v0 is exact
  EXPECT_EQ(c.Explain(hset, P(1, 0), Reply::Integer(1), Reply::Integer(3)), "");  // not the rule
  EXPECT_EQ(c.Explain(hset, P(1, 0), Reply::Error("ERR x"), Reply::Integer(2)), "");
  EXPECT_EQ(c.Explain({"HMSET", "h", "f", "v"}, P(1, 0), Reply::Ok(), Reply::Integer(1)), "");
  const std::vector<std::string> hdel = {"hdel", "h", "a", "b", "c"};
  EXPECT_EQ(c.Explain(hdel, P(1, 0), Reply::Integer(1), Reply::Integer(3)),
            "hash-blind-hdel-count");
  EXPECT_EQ(c.Explain(hdel, P(1, 0), Reply::Integer(1), Reply::Integer(2)), "");
  // The zset version does not matter to a hash entry.
  EXPECT_EQ(c.Explain(hset, P(1, 3), Reply::Integer(1), Reply::Integer(2)),
            "hash-blind-hset-count");
}

TEST(Deviations, NegativeZeroRule) {
  const DeviationCatalogue c = Real();
  const std::vector<std::string> zscore = {"ZSCORE", "z", "m"};
  EXPECT_EQ(c.Explain(zscore, P(0, 0), Reply::Bulk("-0"), Reply::Bulk("0")),
            "zset-negative-zero-score");
  EXPECT_EQ(c.Explain(zscore, P(0, 0), Reply::Bulk("-0"), Reply::Bulk("1")), "");
  EXPECT_EQ(c.Explain(zscore, P(0, 0), Reply::Bulk("0"), Reply::Bulk("-0")), "");
  const Reply redis = Reply::Array({Reply::Bulk("a"), Reply::Bulk("-0")});
  const Reply kvlab = Reply::Array({Reply::Bulk("a"), Reply::Bulk("0")});
  EXPECT_EQ(c.Explain({"ZRANGE", "z", "0", "-1", "WITHSCORES"}, P(0, 0), redis, kvlab),
            "zset-negative-zero-score");
  EXPECT_EQ(c.Explain({"HGET", "z", "m"}, P(0, 0), Reply::Bulk("-0"), Reply::Bulk("0")), "");
}

// The algebra's scores are computed from stored ones: where Redis holds -0, the sign of a zero
// result may differ either way (-1 * -0 is 0 on Redis, -1 * 0 is -0 on kvlab).
TEST(Deviations, AlgebraNegativeZeroRule) {
  const DeviationCatalogue c = Real();
  const Reply neg = Reply::Array({Reply::Bulk("a"), Reply::Bulk("-0")});
  const Reply zero = Reply::Array({Reply::Bulk("a"), Reply::Bulk("0")});
  const std::vector<std::string> zunion = {"ZUNION", "1", "z", "WEIGHTS", "-1", "WITHSCORES"};
  EXPECT_EQ(c.Explain(zunion, P(0, 0), neg, zero), "zset-algebra-negative-zero");
  EXPECT_EQ(c.Explain(zunion, P(0, 3), zero, neg), "zset-algebra-negative-zero");
  EXPECT_EQ(c.Explain({"ZINTER", "1", "z", "WITHSCORES"}, P(0, 1), neg, zero),
            "zset-algebra-negative-zero");
  EXPECT_EQ(c.Explain({"ZDIFF", "1", "z", "WITHSCORES"}, P(0, 2), zero, neg),
            "zset-algebra-negative-zero");
  // Any other difference, or another command: a failure.
  EXPECT_EQ(c.Explain(zunion, P(0, 0), neg, Reply::Array({Reply::Bulk("b"), Reply::Bulk("0")})),
            "");
  EXPECT_EQ(c.Explain(zunion, P(0, 0), zero, Reply::Array({Reply::Bulk("a"), Reply::Bulk("1")})),
            "");
  EXPECT_EQ(c.Explain({"ZSCORE", "z", "a"}, P(0, 0), Reply::Bulk("0"), Reply::Bulk("-0")), "");
}

// The -0 fix: INCR's reply is the computed score, so only an increment of -0 on a member Redis
// holds as -0 (a skiplist zset) still differs; ZINCRBY and ZADD left the read rule.
TEST(Deviations, NegativeZeroIncrementRule) {
  const DeviationCatalogue c = Real();
  const Reply neg = Reply::Bulk("-0"), zero = Reply::Bulk("0");
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "-0", "m"}, P(0, 2), neg, zero),
            "zset-negative-zero-increment");
  EXPECT_EQ(c.Explain({"ZADD", "z", "INCR", "-0.0", "m"}, P(0, 0), neg, zero),
            "zset-negative-zero-increment");
  // Any other increment: exact.
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "0", "m"}, P(0, 0), neg, zero), "");
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "1", "m"}, P(0, 0), neg, zero), "");
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "abc", "m"}, P(0, 0), neg, zero), "");
  // Only "-0" against "0".
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "-0", "m"}, P(0, 0), zero, neg), "");
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "-0", "m"}, P(0, 0), neg, Reply::Bulk("1")), "");
  // The read rule no longer covers the increments.
  EXPECT_EQ(c.Explain({"ZINCRBY", "z", "1", "m"}, P(0, 0), neg, zero), "");
  EXPECT_EQ(c.Explain({"ZADD", "z", "INCR", "1", "m"}, P(0, 0), neg, zero), "");
}

TEST(Deviations, ZscanIntegralScoreRule) {
  const DeviationCatalogue c = Real();
  auto pairs = [](std::vector<std::string> v) {
    std::vector<Reply> e;
    for (std::string& s : v) e.push_back(Reply::Bulk(std::move(s)));
    return Reply::Array(std::move(e));
  };
  const std::vector<std::string> zscan = {"ZSCAN", "z", "0"};
  const Reply redis = pairs({"a", "123456789012345680", "b", "-4000000000000000000", "c", "1"});
  EXPECT_EQ(c.Explain(zscan, P(0, 0), redis,
                      pairs({"a", "1.2345678901234568e+17", "b", "-4e+18", "c", "1"})),
            "zset-zscan-integral-score-text");
  // Either way round: a skiplist zset in Redis ("%.17g") against kvlab's listpack text.
  EXPECT_EQ(c.Explain(zscan, P(0, 0), pairs({"a", "1.2345678901234568e+17", "c", "1"}),
                      pairs({"a", "123456789012345680", "c", "1"})),
            "zset-zscan-integral-score-text");
  // Other scores and members are exact.
  EXPECT_EQ(c.Explain(zscan, P(0, 0), redis,
                      pairs({"a", "1.2345678901234568e+17", "b", "-4e+18", "c", "1.0"})),
            "");
  EXPECT_EQ(c.Explain(zscan, P(0, 0), pairs({"123456789012345680", "1"}),
                      pairs({"1.2345678901234568e+17", "1"})),
            "");
  EXPECT_EQ(c.Explain({"ZRANGE", "z", "0", "-1", "WITHSCORES"}, P(0, 0), redis,
                      pairs({"a", "1.2345678901234568e+17", "b", "-4e+18", "c", "1"})),
            "");
  // A skiplist zset's ZSCAN can show both score-text quirks at once.
  EXPECT_EQ(c.Explain(zscan, P(0, 0), pairs({"a", "1.2345678901234568e+17", "z", "-0", "c", "1"}),
                      pairs({"a", "123456789012345680", "z", "0", "c", "1"})),
            "zset-negative-zero-score+zset-zscan-integral-score-text");
  EXPECT_EQ(c.Explain(zscan, P(0, 0), pairs({"a", "1.2345678901234568e+17", "z", "-0", "c", "1"}),
                      pairs({"a", "123456789012345680", "z", "0", "c", "2"})),
            "");
}

// A registry of hash v0 and v1, v1 listing deviation "x".
const encodings::EncodingRegistry& Small() {
  static const encodings::EncodingRegistry* const registry = [] {
    auto* r = new encodings::EncodingRegistry();
    auto v = [](uint8_t id, const char* name, const char* color,
                std::vector<std::string_view> deviations) {
      return encodings::EncodingSpec{
          encodings::KeyType::kHash,
          id,
          name,
          "",
          color,
          true,
          encodings::TierUse::kNone,
          false,
          {encodings::SubKeyTag::kField},
          std::move(deviations),
          [](const encodings::EncodingDeps&) {
            return std::unique_ptr<encodings::TypeEncoding>(encodings::NewCountedHashEncoding(0));
          }};
    };
    EXPECT_TRUE(encodings::EncodingRegistry::Make(
                    {{encodings::KeyType::kHash, "hash", "h", "hash"}},
                    {v(0, "0", "#000000", {}), v(1, "1", "#111111", {"x"})}, r)
                    .ok());
    return r;
  }();
  return *registry;
}

// The keyspace entries (type "any"): every version, only their subcommand, only their rule.
TEST(Deviations, IntrospectionRulesHoldOnlyForTheirSubcommandAndShape) {
  const DeviationCatalogue c = Real();
  const encodings::EncodingProfile p = P(2, 0);
  const std::vector<std::string> encoding = {"object", "ENCODING", "h"};
  EXPECT_EQ(c.Explain(encoding, p, Reply::Bulk("listpack"), Reply::Bulk("kv-hash-v2")),
            "object-encoding-names-kv-encoding");
  EXPECT_EQ(c.Explain(encoding, p, Reply::Bulk("embstr"), Reply::Bulk("kv-string")),
            "object-encoding-names-kv-encoding");
  // Another version's name, a type not in the profile, or a nil from Redis: a failure.
  EXPECT_EQ(c.Explain(encoding, p, Reply::Bulk("listpack"), Reply::Bulk("kv-hash-v0")), "");
  EXPECT_EQ(c.Explain(encoding, p, Reply::Bulk("listpack"), Reply::Bulk("kv-list-v0")), "");
  EXPECT_EQ(c.Explain(encoding, p, Reply::Nil(), Reply::Bulk("kv-hash-v2")), "");
  // Each rule only on its subcommand.
  EXPECT_EQ(
      c.Explain({"OBJECT", "REFCOUNT", "s"}, p, Reply::Integer(2147483647), Reply::Integer(1)),
      "object-refcount-one");
  EXPECT_EQ(c.Explain({"OBJECT", "FREQ", "s"}, p, Reply::Integer(2), Reply::Integer(1)), "");
  EXPECT_EQ(c.Explain({"OBJECT", "REFCOUNT", "s"}, p, Reply::Integer(1), Reply::Integer(2)), "");
  EXPECT_EQ(c.Explain({"OBJECT", "IDLETIME", "s"}, p, Reply::Integer(0),
                      Reply::Error("ERR kvlab keeps no access time")),
            "object-idletime-untracked");
  EXPECT_EQ(c.Explain({"OBJECT", "IDLETIME", "s"}, p, Reply::Integer(0), Reply::Error("ERR x")),
            "");
  EXPECT_EQ(c.Explain({"memory", "usage", "h"}, p, Reply::Integer(72), Reply::Integer(40)),
            "memory-usage-store-bytes");
  EXPECT_EQ(c.Explain({"memory", "usage", "h"}, p, Reply::Integer(72), Reply::Integer(0)), "");
  EXPECT_EQ(c.Explain({"memory", "usage", "h"}, p, Reply::Nil(), Reply::Integer(40)), "");
  EXPECT_EQ(c.Explain({"memory", "stats"}, p, Reply::Array(),
                      Reply::Error("ERR kvlab does not support MEMORY stats")),
            "memory-allocator-reports-unsupported");
  EXPECT_EQ(c.Explain({"memory", "purge"}, p, Reply::Ok(),
                      Reply::Error("ERR kvlab does not support MEMORY purge")),
            "");
}

// DUMP: Redis's payload of a hash whose fields came in another order, or of a list cut into
// nodes otherwise, is explained when kvlab's bytes are its canonical serialization of the same
// value; another value, or bytes that are not that serialization, fail.
TEST(Deviations, DumpCanonicalFormRule) {
  const DeviationCatalogue c = Real();
  const encodings::EncodingProfile p = P(0, 0);
  namespace rdb = engine::rdb;
  rdb::Value redis_hash;
  redis_hash.type = encodings::KeyType::kHash;
  redis_hash.pairs = {{"b", "2"}, {"a", "1"}};  // insertion order
  rdb::Value kvlab_hash = redis_hash;
  kvlab_hash.pairs = {{"a", "1"}, {"b", "2"}};
  const Reply redis = Reply::Bulk(rdb::DumpPayload(redis_hash, {}));
  const Reply kvlab = Reply::Bulk(rdb::DumpPayload(kvlab_hash, {}));
  ASSERT_NE(redis, kvlab);
  EXPECT_EQ(c.Explain({"DUMP", "h"}, p, redis, kvlab), "dump-canonical-form");
  EXPECT_EQ(c.Explain({"GET", "h"}, p, redis, kvlab), "");
  rdb::Value other = kvlab_hash;
  other.pairs[1].second = "3";
  EXPECT_EQ(c.Explain({"DUMP", "h"}, p, redis, Reply::Bulk(rdb::DumpPayload(other, {}))), "");
  // The same value in a dict form kvlab would not write for it: a failure.
  rdb::DumpOptions dict;
  dict.hash_max_listpack_entries = 0;
  EXPECT_EQ(c.Explain({"DUMP", "h"}, p, redis, Reply::Bulk(rdb::DumpPayload(kvlab_hash, dict))),
            "");
  EXPECT_EQ(c.Explain({"DUMP", "h"}, p, redis, Reply::Bulk("garbage")), "");
  EXPECT_EQ(c.Explain({"DUMP", "h"}, p, Reply::Nil(), kvlab), "");
  // A list keeps its order.
  rdb::Value list;
  list.type = encodings::KeyType::kList;
  list.elements = {"b", "a"};
  rdb::Value sorted = list;
  sorted.elements = {"a", "b"};
  EXPECT_EQ(c.Explain({"DUMP", "l"}, p, Reply::Bulk(rdb::DumpPayload(list, {})),
                      Reply::Bulk(rdb::DumpPayload(sorted, {}))),
            "");
}

// SORT of a set BY a constant without STORE: the same members (or GET groups) in another order
// is explained on every set version; a sorted form, a STORE, a cutting LIMIT, another set of
// members, or a list or zset key (no set version in the profile) is not.
TEST(Deviations, UnsortedSetOrderRule) {
  const DeviationCatalogue c = Real();
  auto b = [](std::initializer_list<const char*> items) {
    std::vector<Reply> out;
    for (const char* i : items) out.push_back(Reply::Bulk(i));
    return Reply::Array(std::move(out));
  };
  const Reply redis = b({"9", "10", "100"}), kvlab = b({"10", "100", "9"});
  for (const char* version : {"0", "1", "2", "3", "ardb", "kvrocks"}) {
    SCOPED_TRACE(version);
    encodings::EncodingProfile set;
    set.versions = {{"set", std::string(version)}};
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "nosort"}, set, redis, kvlab),
              "sort-set-unsorted-order");
    EXPECT_EQ(c.Explain({"sort_ro", "s", "by", "w", "DESC"}, set, redis, kvlab),
              "sort-set-unsorted-order");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k", "LIMIT", "-2", "-1"}, set, redis, kvlab),
              "sort-set-unsorted-order");
    // Redis sorts nothing once a BY has no '*', whatever BY follows.
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k", "BY", "w_*"}, set, redis, kvlab),
              "sort-set-unsorted-order");
    // GET groups move together.
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k", "GET", "#", "GET", "w_*"}, set,
                        b({"a", "1", "b", "2"}), b({"b", "2", "a", "1"})),
              "sort-set-unsorted-order");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k", "GET", "#", "GET", "w_*"}, set,
                        b({"a", "1", "b", "2"}), b({"a", "2", "b", "1"})),
              "");
    EXPECT_EQ(c.Explain({"SORT", "s"}, set, redis, kvlab), "");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "w_*"}, set, redis, kvlab), "");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k", "STORE", "d"}, set, redis, kvlab), "");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k", "LIMIT", "0", "2"}, set, b({"9", "10"}),
                        b({"10", "100"})),
              "");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k"}, set, redis, b({"10", "100", "8"})), "");
    EXPECT_EQ(c.Explain({"SORT", "s", "BY", "k"}, set, redis, redis), "");
  }
  EXPECT_EQ(c.Explain({"SORT", "l", "BY", "nosort"}, P(0, 0), redis, kvlab), "");
}

TEST(Deviations, EveryRegistryRowsDeviationIsCatalogued) {
  const DeviationCatalogue c = Real();
  for (const encodings::EncodingSpec& row : encodings::EncodingRegistry::Builtin().rows()) {
    for (std::string_view id : row.deviations) {
      const auto it = std::find_if(c.entries().begin(), c.entries().end(),
                                   [&](const Deviation& d) { return d.id == id; });
      ASSERT_NE(it, c.entries().end()) << id;
      EXPECT_NE(std::find(it->versions.begin(), it->versions.end(), std::string(row.name)),
                it->versions.end());
    }
  }
}

TEST(Deviations, LoadRejectsMalformedCatalogues) {
  const std::string dir = std::filesystem::temp_directory_path() / "kvlab-deviations-test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/d.json";
  const std::string good_entry =
      R"({"id":"x","type":"hash","commands":["hset"],"rule":"integer_argument_count","first_argument":2,"step":2,"reason":"r"})";
  const std::vector<std::string> bad = {
      "not json",
      R"({"schema_version":1,"deviations":[)" + good_entry + "]}",
      // no entry for the registry's "x"
      R"({"schema_version":2,"deviations":[]})",
      // a type the registry does not have
      R"({"schema_version":2,"deviations":[{"id":"x","type":"list","commands":["a"],"rule":"integer_argument_count","reason":"r"}]})",
      // versions are the registry's to say
      R"({"schema_version":2,"deviations":[{"id":"x","type":"hash","versions":[1],"commands":["a"],"rule":"integer_argument_count","reason":"r"}]})",
      // an entry no row lists
      R"({"schema_version":2,"deviations":[)" + good_entry +
          R"(,{"id":"y","type":"hash","commands":["a"],"rule":"integer_argument_count","reason":"r"}]})",
      R"({"schema_version":2,"deviations":[{"id":"x","type":"hash","commands":["a"],"rule":"anything_goes","reason":"r"}]})",
      R"({"schema_version":2,"deviations":[{"id":"x","type":"hash","commands":["a"],"rule":"integer_argument_count","step":0,"reason":"r"}]})",
      R"({"schema_version":2,"deviations":[{"id":"x"}]})",
  };
  for (const std::string& text : bad) {
    std::ofstream(path) << text;
    DeviationCatalogue c;
    EXPECT_FALSE(DeviationCatalogue::Load(path, Small(), &c).ok()) << text;
  }
  std::ofstream(path) << R"({"schema_version":2,"deviations":[)" + good_entry + "]}";
  DeviationCatalogue c;
  const Status s = DeviationCatalogue::Load(path, Small(), &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.entries()[0].versions, std::vector<std::string>{"1"});
  EXPECT_EQ(
      c.Explain({"HSET", "h", "a", "1", "b", "2"}, P(1, 0), Reply::Integer(1), Reply::Integer(2)),
      "x");
  EXPECT_EQ(
      c.Explain({"HSET", "h", "a", "1", "b", "2"}, P(0, 0), Reply::Integer(1), Reply::Integer(2)),
      "");
  EXPECT_FALSE(DeviationCatalogue::Load(dir + "/missing.json", Small(), &c).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kvlab::conformance
