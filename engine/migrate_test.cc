// Migration on write (docs/engine.md "Migrating keys on write"): a keyspace written under one
// family of encodings, then random reads and writes under another, with the option on and off.
// Replies match the model of Redis's semantics (testing/model_test_util.h) either way; reads
// never change a key's encoding; with the option on, every key a successful write leaves as a
// collection is in the configured family, and with it off no key changes family unless it is
// overwritten or re-created.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>

#include "engine/command_table.h"
#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {
namespace {

using testing::EngineHarness;
using testing::Model;

// Sets the version of new keys of every collection type to the family's row ("0" for
// Camellia's counted v0, "kvrocks", "ardb"; "tier" takes the exact Redis-tier versions: hash v2,
// zset v3, set v2).
void UseFamily(EngineHarness& e, const std::string& family) {
  for (const char* type : {"hash", "zset", "set", "list"}) {
    std::string version = family;
    if (family == "tier") {
      const std::string t = type;
      version = t == "zset" ? "3" : t == "list" ? "0" : "2";
    }
    ASSERT_EQ(e.Run("CONFIG SET kv." + std::string(type) + ".key.meta.version " + version), "OK");
  }
}

// "hash-kvrocks" for kv-hash-kvrocks; "" for an absent key, "string" for a string.
std::string EncodingOf(EngineHarness& e, const std::string& key) {
  resp::Reply r = e.engine().Execute(e.session(), {"OBJECT", "ENCODING", key});
  if (r.type() != resp::Reply::Type::kBulk) return "";
  const std::string name = r.str();
  return name.rfind("kv-", 0) == 0 ? name.substr(3) : name;
}

// The version part of an encoding name ("hash-kvrocks" -> "kvrocks", "hash-v0" -> "0").
std::string VersionOf(const std::string& encoding) {
  const size_t dash = encoding.find('-');
  if (dash == std::string::npos) return "";
  const std::string version = encoding.substr(dash + 1);
  return version.size() > 1 && version[0] == 'v' && std::isdigit(version[1]) ? version.substr(1)
                                                                             : version;
}

std::string FamilyVersion(const std::string& family, const std::string& encoding) {
  if (family != "tier") return family;
  return encoding.rfind("zset", 0) == 0 ? "3" : "2";
}

struct MigrateParam {
  std::string backend;
  std::string from, to;
  bool migrate;
};

class MigrateModelTest : public ::testing::TestWithParam<MigrateParam> {};

TEST_P(MigrateModelTest, WritesMigrateReadsFallBack) {
  const MigrateParam& p = GetParam();
  EngineHarness e(p.backend);
  if (p.from == "tier" || p.to == "tier") e.SetClockToNow();
  Model model(/*blind_hash=*/false);
  std::mt19937_64 rng(7);
  auto random_command = [&] {
    return rng() % 3 == 0 ? testing::RandomSetCommand(rng) : testing::RandomCommand(rng);
  };
  auto check = [&](const std::vector<std::string>& cmd, int i) {
    const std::string want = model.Apply(cmd);
    const std::string got = testing::SortedIfUnordered(cmd, e.engine().Execute(e.session(), cmd));
    EXPECT_EQ(got, want) << "command " << i << ": " << ::testing::PrintToString(cmd);
    return got == want;
  };

  // The keyspace, written under the first family.
  UseFamily(e, p.from);
  for (int i = 0; i < 400; ++i) ASSERT_TRUE(check(random_command(), i));
  ASSERT_EQ(
      e.Run("CONFIG SET kv.encoding.migrate.on.write " + std::string(p.migrate ? "yes" : "no")),
      "OK");
  UseFamily(e, p.to);

  int migrated = 0, kept_old = 0;
  const CommandTable& table = CommandTable::Get();
  for (int i = 0; i < 4000; ++i) {
    const std::vector<std::string> cmd = random_command();
    const CommandSpec* spec = table.Find(cmd[0]);
    ASSERT_NE(spec, nullptr);
    std::vector<size_t> positions;
    ASSERT_TRUE(CommandTable::KeyPositions(*spec, cmd, &positions));
    std::map<std::string, std::string> before;
    for (size_t pos : positions) before[cmd[pos]] = EncodingOf(e, cmd[pos]);
    const bool overwrites = cmd[0] == "SET" || cmd[0] == "DEL" || cmd[0] == "SINTERSTORE";
    // SMOVE from a missing source stops before its destination; the others load every key.
    const bool loads_all = cmd[0] != "SMOVE" && !overwrites;
    const std::string want = model.Apply(cmd);
    const std::string got = testing::SortedIfUnordered(cmd, e.engine().Execute(e.session(), cmd));
    ASSERT_EQ(got, want) << "command " << i << ": " << ::testing::PrintToString(cmd);
    const bool error = got.rfind("(error)", 0) == 0;
    const std::vector<std::string_view> written = CommandTable::WrittenKeys(*spec, cmd);
    for (const auto& [key, was] : before) {
      const std::string now = EncodingOf(e, key);
      const bool is_written = !(spec->flags & kCmdReadonly) &&
                              std::find(written.begin(), written.end(), key) != written.end();
      if (!is_written || error) {
        ASSERT_EQ(now, was) << "command " << i << " changed " << key << ": "
                            << ::testing::PrintToString(cmd);
        continue;
      }
      if (now.empty() || now == "string") continue;
      if (p.migrate && loads_all) {
        ASSERT_EQ(VersionOf(now), FamilyVersion(p.to, now))
            << "command " << i << " left " << key << " in " << now << ": "
            << ::testing::PrintToString(cmd);
        if (!was.empty() && was != now) ++migrated;
      } else if (!p.migrate && !was.empty() && !overwrites &&
                 was.substr(0, was.find('-')) == now.substr(0, now.find('-'))) {
        ASSERT_EQ(now, was) << "command " << i << " migrated " << key << " with the option off";
        if (VersionOf(now) != FamilyVersion(p.to, now)) ++kept_old;
      }
    }
  }
  // Nothing lost: every key's whole value, read back.
  for (const char* key : {"a", "b", "c", "d"}) {
    const std::string type = e.Run(std::string("TYPE ") + key);
    for (const auto& [cmd_type, cmd] :
         std::vector<std::pair<std::string, std::vector<std::string>>>{
             {type, {"TYPE", key}},
             {"hash", {"HGETALL", key}},
             {"zset", {"ZRANGE", key, "0", "-1", "WITHSCORES"}},
             {"set", {"SMEMBERS", key}}}) {
      if (cmd_type == type) EXPECT_TRUE(check(cmd, -1));
    }
  }
  // The test saw what it is about.
  if (p.migrate) {
    EXPECT_GT(migrated, 0);
  } else {
    EXPECT_GT(kept_old, 0);
  }
}

std::vector<MigrateParam> Params() {
  std::vector<MigrateParam> out;
  for (bool migrate : {true, false}) {
    out.push_back({"memory", "0", "kvrocks", migrate});
    out.push_back({"rocksdb", "kvrocks", "ardb", migrate});
    out.push_back({"memory", "ardb", "0", migrate});
  }
  // The Redis-tier versions, whose caches and store are per key-version.
  out.push_back({"memory", "tier", "kvrocks", true});
  out.push_back({"memory", "ardb", "tier", true});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Families, MigrateModelTest, ::testing::ValuesIn(Params()),
                         [](const auto& info) {
                           const MigrateParam& p = info.param;
                           return p.backend + "_" + (p.from == "0" ? "v0" : p.from) + "_to_" +
                                  (p.to == "0" ? "v0" : p.to) + (p.migrate ? "_migrate" : "_keep");
                         });

// Lists, and the expiry, which the random streams do not cover: a write migrates the list with
// its elements in order and its expiry; a read leaves it where it is.
TEST(MigrateTest, ListAndExpiryMoveWithTheWrite) {
  for (const std::string to : {"kvrocks", "ardb"}) {
    EngineHarness e;
    ASSERT_EQ(e.Run("RPUSH l a b c d"), "(integer) 4");
    ASSERT_EQ(e.Run("HSET h f 1 g 2 t x"), "(integer) 3");
    ASSERT_EQ(e.Run("PEXPIRE l 50000"), "(integer) 1");
    ASSERT_EQ(e.Run("PEXPIRE h 70000"), "(integer) 1");
    ASSERT_EQ(e.Run("CONFIG SET migrate-on-write yes"), "OK");
    ASSERT_EQ(e.Run("CONFIG GET kv.encoding.migrate.on.write"),
              "[\"kv.encoding.migrate.on.write\", \"true\"]");
    UseFamily(e, to);
    EXPECT_EQ(e.Run("LRANGE l 0 -1"), "[\"a\", \"b\", \"c\", \"d\"]");
    EXPECT_EQ(e.Run("HGET h f"), "\"1\"");
    EXPECT_EQ(EncodingOf(e, "l"), "list-v0");
    EXPECT_EQ(EncodingOf(e, "h"), "hash-v0");
    EXPECT_EQ(e.Run("LPUSH l z"), "(integer) 5");
    EXPECT_EQ(e.Run("HSET h f 3 k 4"), "(integer) 1");
    EXPECT_EQ(EncodingOf(e, "l"), "list-" + to);
    EXPECT_EQ(EncodingOf(e, "h"), "hash-" + to);
    EXPECT_EQ(e.Run("LRANGE l 0 -1"), "[\"z\", \"a\", \"b\", \"c\", \"d\"]");
    EXPECT_EQ(e.Run("RPOP l 2"), "[\"d\", \"c\"]");
    EXPECT_EQ(e.Run("HGETALL h"), "[\"f\", \"3\", \"g\", \"2\", \"k\", \"4\", \"t\", \"x\"]");
    EXPECT_EQ(e.Run("HLEN h"), "(integer) 4");
    EXPECT_EQ(e.Run("PTTL l"), "(integer) 50000");
    EXPECT_EQ(e.Run("PTTL h"), "(integer) 70000");
    // A write that fails writes nothing: its migration is discarded with it.
    UseFamily(e, "0");
    EXPECT_EQ(e.Run("HINCRBY h t 1"), "(error) ERR hash value is not an integer");
    EXPECT_EQ(EncodingOf(e, "h"), "hash-" + to);
    // The migrated keys expire as they would have.
    e.clock().AdvanceMillis(60000);
    EXPECT_EQ(e.Run("EXISTS l"), "(integer) 0");
    EXPECT_EQ(e.Run("HLEN h"), "(integer) 4");
  }
}

// The commands that carry a key over as it is (RENAME, COPY) and the keyspace ones (EXPIRE,
// DEL) do not migrate; the sources of a STORE form are only read.
TEST(MigrateTest, OnlyTheWrittenKeysOfTypedWritesMigrate) {
  EngineHarness e;
  ASSERT_EQ(e.Run("SADD s1 a b"), "(integer) 2");
  ASSERT_EQ(e.Run("SADD s2 b c"), "(integer) 2");
  ASSERT_EQ(e.Run("CONFIG SET migrate-on-write yes"), "OK");
  UseFamily(e, "kvrocks");
  EXPECT_EQ(e.Run("SINTERSTORE d s1 s2"), "(integer) 1");
  EXPECT_EQ(EncodingOf(e, "s1"), "set-v0");
  EXPECT_EQ(EncodingOf(e, "d"), "set-kvrocks");
  EXPECT_EQ(e.Run("EXPIRE s1 100"), "(integer) 1");
  EXPECT_EQ(e.Run("COPY s1 s3"), "(integer) 1");
  EXPECT_EQ(e.Run("RENAME s3 s4"), "OK");
  EXPECT_EQ(EncodingOf(e, "s1"), "set-v0");
  EXPECT_EQ(EncodingOf(e, "s4"), "set-v0");
  EXPECT_EQ(e.Run("SMOVE s1 s2 a"), "(integer) 1");
  EXPECT_EQ(EncodingOf(e, "s1"), "set-kvrocks");
  EXPECT_EQ(EncodingOf(e, "s2"), "set-kvrocks");
  EXPECT_EQ(e.Run("SMEMBERS s2"), "[\"a\", \"b\", \"c\"]");
  EXPECT_EQ(e.Run("SCARD s1"), "(integer) 1");
  EXPECT_EQ(e.Run("TTL s1"), "(integer) 100");
}

// The cost of the migrating write, exactly (docs/engine.md "Migrating keys on write"): HSET of an
// existing field of a hash of n fields, created in one version, configured in another. The old
// hash is read once (one seek, n steps; Ardb's is read again by its eager delete, whose n deletes
// join the batch); the new one is written whole (n fields and its meta) with the HSET's own
// field and meta; the HSET's read of its field is served from the batch. A new Ardb key first
// purges what an earlier Ardb incarnation may have left under its prefix: one more seek.
TEST(MigrateTest, TheMigratingWriteCostsOneReadAndOneRewriteOfTheKey) {
  struct Case {
    std::string from, to;
    // The counters as a function of n: {seeks, nexts per n, batch_records = a*n + b}.
    uint64_t seeks, nexts_per_n, records_per_n, records_plus;
  };
  for (const Case& c : {Case{"0", "kvrocks", 1, 1, 1, 2}, Case{"kvrocks", "0", 1, 1, 1, 2},
                        Case{"ardb", "kvrocks", 2, 2, 2, 2}, Case{"0", "ardb", 2, 1, 1, 2}}) {
    for (uint64_t n : {3, 10, 50}) {
      EngineHarness e;
      ASSERT_EQ(e.Run("CONFIG SET kv.hash.key.meta.version " + c.from), "OK");
      std::string hset = "HSET h";
      for (uint64_t i = 1; i <= n; ++i) {
        hset += " f" + std::to_string(i) + " v" + std::to_string(i);
      }
      ASSERT_EQ(e.Run(hset), "(integer) " + std::to_string(n));
      ASSERT_EQ(e.Run("CONFIG SET kv.hash.key.meta.version " + c.to), "OK");
      ASSERT_EQ(e.Run("CONFIG SET migrate-on-write yes"), "OK");
      CommandCost cost;
      ASSERT_EQ(e.Exec("HSET h f1 x", &cost).Describe(), "(integer) 0");
      backends::OpCounts want;
      want.gets = 1;
      want.seeks = c.seeks;
      want.nexts = c.nexts_per_n * n;
      want.batches = 1;
      want.batch_records = c.records_per_n * n + c.records_plus;
      EXPECT_EQ(cost.kv.Describe(), want.Describe()) << c.from << " -> " << c.to << ", n=" << n;
      // Then the key is in its new version, and the next write costs what that version's does.
      CommandCost next;
      ASSERT_EQ(e.Exec("HSET h f2 y", &next).Describe(), "(integer) 0");
      EXPECT_EQ(next.kv.seeks, 0u) << c.from << " -> " << c.to;
      EXPECT_EQ(e.Run("HGET h f1"), "\"x\"");
      EXPECT_EQ(e.Run("HLEN h"), "(integer) " + std::to_string(n));
    }
  }
}

}  // namespace
}  // namespace kvlab::engine
