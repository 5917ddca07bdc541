// The key finder against a real redis-server: for commands whose keys depend on their arguments
// (numkeys, STORE destinations, keywords), written as Redis 7.0's key specs, FindKeys finds the
// keys COMMAND GETKEYS names, refuses what it refuses, and COMMAND INFO's legacy range, flags and
// key specs are Redis's. The rows of the command surface (ZUNIONSTORE, SINTERCARD, LMPOP, ...)
// take their specs from here.
#include "engine/key_specs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engine/command_info.h"
#include "engine/command_table.h"
#include "redis/client.h"
#include "redis/server_process.h"

namespace kvlab::engine {

using redis::RedisClient;
using redis::RedisServerOptions;
using redis::RedisServerProcess;
using resp::Reply;

namespace {

struct Example {
  CommandSpec spec;
  std::vector<std::vector<std::string>> argvs;  // without the command name's case games
};

std::vector<Example> Examples() {
  const std::vector<std::string_view> ow = {"OW", "update"}, ro = {"RO", "access"},
                                      rw_del = {"RW", "access", "delete"};
  std::vector<Example> out;
  out.push_back({{"zunionstore",
                  -4,
                  kCmdWrite,
                  1,
                  1,
                  1,
                  nullptr,
                  "sorted-set",
                  "",
                  "2.0.0",
                  {KeySpec::Range(1, 0, 1, ow), KeySpec::Keynum(2, 0, 1, 1, ro)}},
                 {{"zunionstore", "d", "2", "a", "b"},
                  {"zunionstore", "d", "1", "a", "WEIGHTS", "2"},
                  {"zunionstore", "d", "3", "a", "b"},
                  {"zunionstore", "d", "0", "a"},
                  {"zunionstore", "d", "x", "a"},
                  {"zunionstore", "d", "-1", "a"}}});
  out.push_back({{"zintercard",
                  -3,
                  kCmdReadonly,
                  0,
                  0,
                  0,
                  nullptr,
                  "sorted-set",
                  "",
                  "7.0.0",
                  {KeySpec::Keynum(1, 0, 1, 1, ro)}},
                 {{"zintercard", "2", "a", "b"},
                  {"zintercard", "1", "a", "LIMIT", "3"},
                  {"zintercard", "3", "a", "b"},
                  {"zintercard", "x", "a"}}});
  out.push_back({{"sintercard",
                  -3,
                  kCmdReadonly,
                  0,
                  0,
                  0,
                  nullptr,
                  "set",
                  "",
                  "7.0.0",
                  {KeySpec::Keynum(1, 0, 1, 1, ro)}},
                 {{"sintercard", "2", "a", "b"}, {"sintercard", "1", "a", "LIMIT", "0"}}});
  out.push_back({{"lmpop",
                  -4,
                  kCmdWrite,
                  0,
                  0,
                  0,
                  nullptr,
                  "list",
                  "",
                  "7.0.0",
                  {KeySpec::Keynum(1, 0, 1, 1, rw_del)}},
                 {{"lmpop", "2", "a", "b", "LEFT"}, {"lmpop", "1", "a", "RIGHT", "COUNT", "2"}}});
  out.push_back({{"blmpop",
                  -5,
                  kCmdWrite,
                  0,
                  0,
                  0,
                  nullptr,
                  "list",
                  "",
                  "7.0.0",
                  {KeySpec::Keynum(2, 0, 1, 1, rw_del)}},
                 {{"blmpop", "0", "2", "a", "b", "LEFT"}}});
  // The table's own rows for the zset pops.
  for (const char* name : {"zmpop", "bzmpop"}) {
    const CommandSpec* spec = CommandTable::Get().Find(name);
    EXPECT_NE(spec, nullptr) << name;
    if (spec == nullptr) continue;
    std::vector<std::vector<std::string>> argvs = {{"zmpop", "2", "a", "b", "MIN"},
                                                   {"zmpop", "1", "a", "MAX", "COUNT", "2"},
                                                   {"zmpop", "3", "a", "b", "MIN"},
                                                   {"zmpop", "x", "a", "MIN"}};
    if (std::string_view(name) == "bzmpop") {
      argvs = {{"bzmpop", "0", "2", "a", "b", "MIN"}, {"bzmpop", "1.5", "1", "a", "MAX"}};
    }
    out.push_back({*spec, argvs});
  }
  KeySpec streams;
  streams.keyword = "STREAMS";
  streams.startfrom = 1;
  streams.lastkey = -1;
  streams.keystep = 1;
  streams.limit = 2;
  streams.flags = ro;
  out.push_back(
      {{"xread", -4, kCmdReadonly, 0, 0, 0, nullptr, "stream", "", "5.0.0", {streams}},
       {{"xread", "STREAMS", "a", "b", "0", "0"}, {"xread", "COUNT", "2", "streams", "a", "0"}}});
  return out;
}

// COMMAND GETKEYS's keys, or nullopt when Redis answers with an error.
std::optional<std::vector<std::string>> RedisKeys(RedisClient& redis,
                                                  const std::vector<std::string>& argv) {
  std::vector<std::string> cmd = {"COMMAND", "GETKEYS"};
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  Reply r;
  EXPECT_TRUE(redis.Command(cmd, &r).ok());
  if (r.type() != Reply::Type::kArray) return std::nullopt;
  std::vector<std::string> keys;
  for (const Reply& k : r.elements()) keys.push_back(k.str());
  return keys;
}

class KeySpecsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RedisServerOptions options;
    options.unix_socket = true;
    redis_ = std::make_unique<RedisServerProcess>(options);
    const Status s = redis_->Start();
    if (!s.ok()) GTEST_SKIP() << "no redis-server: " << s.ToString();
    client_ = std::make_unique<RedisClient>(redis_->endpoint());
    ASSERT_TRUE(client_->Connect().ok());
  }

  std::unique_ptr<RedisServerProcess> redis_;
  std::unique_ptr<RedisClient> client_;
};

TEST_F(KeySpecsTest, FindsTheKeysRedisFinds) {
  for (const Example& e : Examples()) {
    for (const auto& argv : e.argvs) {
      std::string line;
      for (const auto& a : argv) line += a + " ";
      SCOPED_TRACE(line);
      std::vector<size_t> positions;
      const bool found = CommandTable::KeyPositions(e.spec, argv, &positions);
      const auto want = RedisKeys(*client_, argv);
      if (!want) {
        EXPECT_TRUE(!found || positions.empty()) << "Redis finds no keys";
        continue;
      }
      ASSERT_TRUE(found);
      std::vector<std::string> got;
      for (size_t p : positions) got.push_back(argv[p]);
      EXPECT_EQ(got, *want);
    }
  }
}

TEST_F(KeySpecsTest, CommandInfoDescribesThemAsRedisDoes) {
  for (const Example& e : Examples()) {
    SCOPED_TRACE(std::string(e.spec.name));
    Reply redis_info;
    ASSERT_TRUE(client_->Command({"COMMAND", "INFO", std::string(e.spec.name)}, &redis_info).ok());
    ASSERT_EQ(redis_info.elements().size(), 1u);
    const Reply& want = redis_info.elements()[0];
    const Reply got = CommandInfo(e.spec).AsResp2();  // the client speaks RESP2
    // The legacy range (first, last, step) and the key specs are Redis's.
    for (size_t i : {3u, 4u, 5u, 8u}) {
      EXPECT_EQ(got.elements()[i], want.elements()[i])
          << "element " << i << ": kvlab " << got.elements()[i].Describe() << "\nredis "
          << want.elements()[i].Describe();
    }
    // Redis flags these commands movablekeys.
    const auto& flags = got.elements()[2].elements();
    EXPECT_TRUE(std::any_of(flags.begin(), flags.end(),
                            [](const Reply& f) { return f.str() == "movablekeys"; }));
  }
}

// The zset pops, the random reads, the HyperLogLog and the bit commands, from the table, against
// Redis 7.0's COMMAND INFO: arity, flags (but "noscript", which the table does not model), legacy
// range, ACL categories and key specs (PFCOUNT's and BITFIELD's with their notes).
TEST_F(KeySpecsTest, ThePopsAndRandomReadsDescribeThemselvesAsRedisDoes) {
  for (const char* name :
       {"zmpop", "bzpopmin", "bzpopmax", "bzmpop", "zrandmember", "hrandfield", "pfadd", "pfcount",
        "pfmerge", "pfdebug", "pfselftest", "bitop", "bitfield", "bitfield_ro"}) {
    SCOPED_TRACE(name);
    const CommandSpec* spec = CommandTable::Get().Find(name);
    ASSERT_NE(spec, nullptr);
    Reply redis_info;
    ASSERT_TRUE(client_->Command({"COMMAND", "INFO", name}, &redis_info).ok());
    ASSERT_EQ(redis_info.elements().size(), 1u);
    const Reply& want = redis_info.elements()[0];
    const Reply got = CommandInfo(*spec).AsResp2();
    std::vector<Reply> redis_flags;
    for (const Reply& f : want.elements()[2].elements()) {
      if (f.str() != "noscript") redis_flags.push_back(f);
    }
    EXPECT_EQ(got.elements()[2], Reply::Array(redis_flags)) << got.elements()[2].Describe();
    for (size_t i : {1u, 3u, 4u, 5u, 6u, 8u}) {
      EXPECT_EQ(got.elements()[i], want.elements()[i])
          << "element " << i << ": kvlab " << got.elements()[i].Describe() << "\nredis "
          << want.elements()[i].Describe();
    }
  }
}

// SORT and SORT_RO, from the table, against Redis 7.0: COMMAND INFO (arity, flags but
// "noscript", legacy range, ACL categories, the "unknown" key specs with their notes), and the keys
// COMMAND GETKEYS names (sortGetKeys: the sorted key and the last STORE destination its skipping
// scan sees).
TEST_F(KeySpecsTest, SortDescribesItselfAndFindsItsKeysAsRedisDoes) {
  for (const char* name : {"sort", "sort_ro"}) {
    SCOPED_TRACE(name);
    const CommandSpec* spec = CommandTable::Get().Find(name);
    ASSERT_NE(spec, nullptr);
    Reply redis_info;
    ASSERT_TRUE(client_->Command({"COMMAND", "INFO", name}, &redis_info).ok());
    ASSERT_EQ(redis_info.elements().size(), 1u);
    const Reply& want = redis_info.elements()[0];
    const Reply got = CommandInfo(*spec).AsResp2();
    std::vector<Reply> redis_flags;
    for (const Reply& f : want.elements()[2].elements()) {
      if (f.str() != "noscript") redis_flags.push_back(f);
    }
    EXPECT_EQ(got.elements()[2], Reply::Array(redis_flags)) << got.elements()[2].Describe();
    for (size_t i : {1u, 3u, 4u, 5u, 6u, 8u}) {
      EXPECT_EQ(got.elements()[i], want.elements()[i])
          << "element " << i << ": kvlab " << got.elements()[i].Describe() << "\nredis "
          << want.elements()[i].Describe();
    }
  }
  const std::vector<std::vector<std::string>> argvs = {
      {"sort", "l"},
      {"sort", "l", "STORE", "d"},
      {"sort", "l", "BY", "w_*", "GET", "#", "store", "d", "LIMIT", "0", "1"},
      {"sort", "l", "STORE", "d1", "STORE", "d2"},
      {"sort", "l", "GET", "store", "STORE", "d"},
      {"sort", "l", "LIMIT", "store", "x", "STORE", "d"},
      {"sort", "l", "STORE"},
      {"sort_ro", "l", "BY", "w_*", "GET", "#"},
      {"sort_ro", "l", "STORE", "d"},
  };
  for (const auto& argv : argvs) {
    std::string line;
    for (const auto& a : argv) line += a + " ";
    SCOPED_TRACE(line);
    const CommandSpec* spec = CommandTable::Get().Find(argv[0]);
    std::vector<size_t> positions;
    ASSERT_TRUE(CommandTable::KeyPositions(*spec, argv, &positions));
    const auto want = RedisKeys(*client_, argv);
    ASSERT_TRUE(want.has_value());
    std::vector<std::string> got;
    for (size_t p : positions) got.push_back(argv[p]);
    EXPECT_EQ(got, *want);
  }
  // The destination the command writes, also where Redis's scan stops short of it.
  const CommandSpec* sort = CommandTable::Get().Find("sort");
  EXPECT_EQ(CommandTable::WrittenKeys(*sort, {"sort", "l", "STORE", "by", "STORE", "d"}),
            (std::vector<std::string_view>{"by", "d"}));
  EXPECT_TRUE(sort->reads_unnamed_keys({"sort", "l", "BY", "w_*"}));
  EXPECT_TRUE(sort->reads_unnamed_keys({"sort", "l", "GET", "o_*->f"}));
  EXPECT_FALSE(sort->reads_unnamed_keys({"sort", "l", "BY", "nosort", "GET", "#"}));
  EXPECT_FALSE(sort->reads_unnamed_keys({"sort", "l", "BY", "nosort", "BY", "w_*"}));
  EXPECT_FALSE(sort->reads_unnamed_keys({"sort", "l", "BY", "w_*", "FOO"}));
}

// SWAPDB, the persistence commands and RESET against Redis 7.0's COMMAND INFO: arity, the flags the
// table models (Redis's noscript, loading, stale and no_async_loading concern features kvlab
// lacks), legacy range and ACL categories (LASTSAVE: @admin @dangerous without the admin flag).
TEST_F(KeySpecsTest, TheServerCommandsDescribeThemselvesAsRedisDoes) {
  const std::vector<std::string> modelled = {"write",   "readonly", "denyoom",
                                             "admin",   "blocking", "fast",
                                             "no_auth", "no_multi", "movablekeys"};
  for (const char* name : {"swapdb", "save", "bgsave", "bgrewriteaof", "lastsave", "reset"}) {
    SCOPED_TRACE(name);
    const CommandSpec* spec = CommandTable::Get().Find(name);
    ASSERT_NE(spec, nullptr);
    Reply redis_info;
    ASSERT_TRUE(client_->Command({"COMMAND", "INFO", name}, &redis_info).ok());
    ASSERT_EQ(redis_info.elements().size(), 1u);
    const Reply& want = redis_info.elements()[0];
    const Reply got = CommandInfo(*spec).AsResp2();
    std::vector<Reply> redis_flags;
    for (const Reply& f : want.elements()[2].elements()) {
      if (std::find(modelled.begin(), modelled.end(), f.str()) != modelled.end()) {
        redis_flags.push_back(f);
      }
    }
    EXPECT_EQ(got.elements()[2], Reply::Array(redis_flags)) << got.elements()[2].Describe();
    for (size_t i : {1u, 3u, 4u, 5u, 6u}) {
      EXPECT_EQ(got.elements()[i], want.elements()[i])
          << "element " << i << ": kvlab " << got.elements()[i].Describe() << "\nredis "
          << want.elements()[i].Describe();
    }
  }
}

// DUMP, RESTORE and MIGRATE against Redis 7.0's COMMAND INFO: arity, the modelled flags, legacy
// range, ACL categories (RESTORE, MIGRATE: @dangerous without the admin flag) and key specs
// (MIGRATE's KEYS form: a keyword spec flagged incomplete).
TEST_F(KeySpecsTest, DumpAndRestoreDescribeThemselvesAsRedisDoes) {
  const std::vector<std::string> modelled = {"write", "readonly", "denyoom",
                                             "admin", "fast",     "movablekeys"};
  for (const char* name : {"dump", "restore", "migrate"}) {
    SCOPED_TRACE(name);
    const CommandSpec* spec = CommandTable::Get().Find(name);
    ASSERT_NE(spec, nullptr);
    Reply redis_info;
    ASSERT_TRUE(client_->Command({"COMMAND", "INFO", name}, &redis_info).ok());
    ASSERT_EQ(redis_info.elements().size(), 1u);
    const Reply& want = redis_info.elements()[0];
    const Reply got = CommandInfo(*spec).AsResp2();
    std::vector<Reply> redis_flags;
    for (const Reply& f : want.elements()[2].elements()) {
      if (std::find(modelled.begin(), modelled.end(), f.str()) != modelled.end()) {
        redis_flags.push_back(f);
      }
    }
    EXPECT_EQ(got.elements()[2], Reply::Array(redis_flags)) << got.elements()[2].Describe();
    for (size_t i : {1u, 3u, 4u, 5u, 6u, 8u}) {
      EXPECT_EQ(got.elements()[i], want.elements()[i])
          << "element " << i << ": kvlab " << got.elements()[i].Describe() << "\nredis "
          << want.elements()[i].Describe();
    }
  }
}

// MIGRATE's keys as Redis's migrateGetKeys finds them: the key argument, or with KEYS after an
// empty key argument everything after KEYS (an AUTH password spelled "keys" included).
TEST_F(KeySpecsTest, MigrateFindsItsKeysAsRedisDoes) {
  const CommandSpec* spec = CommandTable::Get().Find("migrate");
  ASSERT_NE(spec, nullptr);
  const std::vector<std::vector<std::string>> argvs = {
      {"migrate", "h", "1", "k", "0", "100"},
      {"migrate", "h", "1", "k", "0", "100", "COPY", "REPLACE"},
      {"migrate", "h", "1", "", "0", "100", "KEYS", "a", "b", "a"},
      {"migrate", "h", "1", "", "0", "100", "copy", "keys", "a"},
      {"migrate", "h", "1", "k", "0", "100", "KEYS", "a"},
      {"migrate", "h", "1", "", "0", "100", "AUTH", "KEYS", "a"},
      {"migrate", "h", "1", "", "0", "100", "AUTH2", "u", "p", "KEYS", "a", "KEYS"},
      {"migrate", "h", "1", "", "0", "100"},
  };
  for (const auto& argv : argvs) {
    std::string line;
    for (const auto& a : argv) line += a + " ";
    SCOPED_TRACE(line);
    std::vector<size_t> positions;
    ASSERT_TRUE(CommandTable::KeyPositions(*spec, argv, &positions));
    std::vector<std::string> got;
    for (size_t p : positions) got.push_back(argv[p]);
    const auto want = RedisKeys(*client_, argv);
    if (!want) {
      EXPECT_TRUE(got.empty() || got == std::vector<std::string>{""}) << "Redis finds no keys";
      continue;
    }
    EXPECT_EQ(got, *want);
  }
}

// The table's own commands keep their legacy ranges: every key FindKeys finds for them is the
// one (first, last, step) names.
TEST(KeySpecs, LegacyRangesOfTheTable) {
  const CommandSpec* mset = CommandTable::Get().Find("mset");
  ASSERT_NE(mset, nullptr);
  std::vector<size_t> positions;
  ASSERT_TRUE(CommandTable::KeyPositions(*mset, {"MSET", "a", "1", "b", "2"}, &positions));
  EXPECT_EQ(positions, (std::vector<size_t>{1, 3}));
  const CommandSpec* ping = CommandTable::Get().Find("ping");
  ASSERT_TRUE(CommandTable::KeyPositions(*ping, {"PING"}, &positions));
  EXPECT_TRUE(positions.empty());
  EXPECT_FALSE(CommandTable::HasKeys(*ping));
}

}  // namespace
}  // namespace kvlab::engine
