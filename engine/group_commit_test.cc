// Group commit of pipelined writes (Engine::Groupable, Engine::ExecuteGroup): which commands may
// join a group, one store write per group, replies and per-command KV counts equal to running
// the commands one by one, an error that discards only its own command, a failed commit that
// fails every reply it carried, and WATCH and blocked clients seeing a group as they see its
// commands. The server's side (gathering a pipeline, SIGKILL) is in server_test and
// server/tests/durability_test.py.
#include <gtest/gtest.h>

#include <random>

#include "backends/counting_store.h"
#include "backends/registry.h"
#include "engine/command_table.h"
#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {

using resp::Reply;
using testing::EngineHarness;

namespace {

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> argv;
  EXPECT_TRUE(resp::SplitArgs(line, &argv)) << line;
  return argv;
}

std::vector<std::vector<std::string>> SplitAll(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& line : lines) out.push_back(Split(line));
  return out;
}

std::string Describe(const std::vector<Reply>& replies) {
  std::string out;
  for (const Reply& r : replies) out += (out.empty() ? "" : " | ") + r.Describe();
  return out;
}

// A write-heavy random command over four keys of every type, strings included, with the
// commands' own errors (WRONGTYPE, not an integer) among them.
std::vector<std::string> RandomWrite(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<const char*> options) {
    return std::string(options.begin()[rng() % options.size()]);
  };
  const std::string key = pick({"a", "b", "c", "d"});
  switch (rng() % 10) {
    case 0:
      return {"INCR", key};
    case 1:
      return {"MSET", key, pick({"1", "x"}), pick({"a", "b", "c", "d"}), "2"};
    case 2:
      return {"LPUSH", key, pick({"p", "q"}), "r"};
    case 3:
      return {"RPOP", key};
    case 4:
      return {"EXPIRE", key, pick({"100", "0"})};
    case 5:
      return {"PERSIST", key};
    case 6:
      return {"RENAME", key, pick({"a", "b", "c", "d"})};
    case 7:
      return {"APPEND", key, "z"};
    case 8:
      return testing::RandomSetCommand(rng);
    default:
      return testing::RandomCommand(rng);
  }
}

// Every key's type, value and expiry, in redis-cli's words.
std::string State(EngineHarness& e) {
  std::string out;
  for (const char* key : {"a", "b", "c", "d"}) {
    const std::string type = e.Run(std::string("TYPE ") + key);
    std::string value;
    if (type == "string") value = e.Run(std::string("GET ") + key);
    if (type == "hash") {
      value = testing::SortedIfUnordered({"HGETALL"}, e.Exec(std::string("HGETALL ") + key));
    }
    if (type == "zset") value = e.Run(std::string("ZRANGE ") + key + " 0 -1 WITHSCORES");
    if (type == "set") {
      value = testing::SortedIfUnordered({"SMEMBERS"}, e.Exec(std::string("SMEMBERS ") + key));
    }
    if (type == "list") value = e.Run(std::string("LRANGE ") + key + " 0 -1");
    out += std::string(key) + ": " + type + " " + value + " ttl " +
           e.Run(std::string("PTTL ") + key) + "\n";
  }
  return out;
}

}  // namespace

TEST(GroupCommit, GroupableIsAPlainKeyedWriteOutsideMulti) {
  EngineHarness e;
  Engine& engine = e.engine();
  Session& s = e.session();
  for (const char* line :
       {"SET a 1", "HSET h f v", "ZADD z 1 m", "DEL a b", "MSET a 1 b 2", "LPUSH l x", "SADD s m",
        "EXPIRE a 10", "ZUNIONSTORE d 2 z y", "SORT l STORE d", "SORT l BY nosort GET #"}) {
    EXPECT_TRUE(engine.Groupable(s, Split(line))) << line;
  }
  for (const char* line :
       {"GET a", "HGETALL h", "FLUSHDB", "FLUSHALL", "BLPOP l 1", "MULTI", "EXEC", "SELECT 1",
        "CONFIG SET maxclients 10", "KVLAB.GC", "PING", "SET a", "NOSUCHCOMMAND a", "CLIENT ID",
        // A SORT whose patterns read keys it cannot name runs alone (engine/sort_commands.h).
        "SORT l BY w_* STORE d", "SORT l GET o_*->f"}) {
    EXPECT_FALSE(engine.Groupable(s, Split(line))) << line;
  }
  // Inside MULTI every command is queued, which a group does not do.
  ASSERT_EQ(e.Run("MULTI"), "OK");
  EXPECT_FALSE(engine.Groupable(s, Split("SET a 1")));
  ASSERT_EQ(e.Run("DISCARD"), "OK");
  // A session that must authenticate gets NOAUTH from Execute.
  ASSERT_EQ(e.Run("CONFIG SET requirepass secret"), "OK");
  Session stranger;
  stranger.authenticated = false;
  EXPECT_FALSE(engine.Groupable(stranger, Split("SET a 1")));
  EXPECT_TRUE(engine.Groupable(s, Split("SET a 1")));
}

// The store sees one write for a group; a command's own error discards its writes only; a
// failed commit leaves the store as before and every command of the group says so.
TEST(GroupCommit, OneStoreWritePerGroup) {
  for (const std::string backend : {"memory", "rocksdb", "lmdb", "wiredtiger"}) {
    SCOPED_TRACE(backend);
    testing::CountedWritesEngine e(backend);
    testing::WriteCountingStore& counted = *e.counted;
    Engine& engine = *e.engine;
    Session& s = e.session;
    auto run = [&](const std::string& line) { return e.Run(line); };
    ASSERT_EQ(run("SET str x"), "OK");

    // One write for the group; from INCR a (a key of the SET before it) on, the commands read
    // the group's pending writes.
    counted.writes = 0;
    auto group =
        SplitAll({"SET a 1", "HSET h f v g w", "ZADD z 1 x 2 y", "LPUSH str oops", "RPUSH l p q",
                  "SADD s m", "INCR a", "HDEL h f", "ZREM z x", "INCR str"});
    EXPECT_EQ(Describe(engine.ExecuteGroup(s, group)),
              "OK | (integer) 2 | (integer) 2 | "
              "(error) WRONGTYPE Operation against a key holding the wrong kind of value | "
              "(integer) 2 | (integer) 1 | (integer) 2 | (integer) 1 | (integer) 1 | "
              "(error) ERR value is not an integer or out of range");
    EXPECT_EQ(counted.writes, 1);
    EXPECT_EQ(engine.group_commits(), 1u);
    EXPECT_EQ(engine.group_commit_commands(), group.size());
    EXPECT_EQ(run("MGET a str"), "[\"2\", \"x\"]");
    EXPECT_EQ(run("HGETALL h"), "[\"g\", \"w\"]");
    EXPECT_EQ(run("ZRANGE z 0 -1"), "[\"y\"]");
    EXPECT_EQ(run("LRANGE l 0 -1"), "[\"p\", \"q\"]");
    // Every command on the key of the one before: still one write.
    counted.writes = 0;
    EXPECT_EQ(Describe(engine.ExecuteGroup(s, SplitAll({"INCR a", "INCR a", "INCR a"}))),
              "(integer) 3 | (integer) 4 | (integer) 5");
    EXPECT_EQ(counted.writes, 1);
    EXPECT_EQ(engine.group_commits(), 2u);

    counted.fail_next = true;
    const std::string error = "(error) ERR storage error: IOError: injected write failure";
    EXPECT_EQ(Describe(engine.ExecuteGroup(s, SplitAll({"SET b 1", "DEL a", "ZADD z 3 w"}))),
              error + " | " + error + " | " + error);
    EXPECT_EQ(run("MGET a b"), "[\"5\", (nil)]");
    EXPECT_EQ(run("ZCARD z"), "(integer) 1");
  }
}

// Random write streams run as groups of random sizes and one by one, on two engines over fresh
// stores: the same replies, the same final state, and the same KV operations per command.
TEST(GroupCommit, GroupsMatchOneByOne) {
  for (const std::string backend : {"memory", "rocksdb", "lmdb", "wiredtiger"}) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(backend + " seed " + std::to_string(seed));
      EngineHarness one(backend);
      EngineHarness grouped(backend);
      one.session().random.seed(seed);
      grouped.session().random.seed(seed);
      std::mt19937_64 rng(seed);
      std::vector<std::vector<std::string>> pending;  // grouped's gathered commands
      std::vector<std::string> expected;              // one's replies for them
      size_t groups = 0;
      auto flush = [&] {
        if (pending.empty()) return;
        const std::vector<Reply> replies =
            grouped.engine().ExecuteGroup(grouped.session(), pending);
        ASSERT_EQ(replies.size(), pending.size());
        for (size_t i = 0; i < replies.size(); ++i) {
          EXPECT_EQ(testing::SortedIfUnordered(pending[i], replies[i]), expected[i])
              << ::testing::PrintToString(pending[i]);
        }
        pending.clear();
        expected.clear();
        ++groups;
      };
      size_t group_size = 1 + rng() % 16;
      for (int i = 0; i < 1500; ++i) {
        const std::vector<std::string> argv = RandomWrite(rng);
        const std::string want =
            testing::SortedIfUnordered(argv, one.engine().Execute(one.session(), argv));
        if (!grouped.engine().Groupable(grouped.session(), argv)) {
          flush();
          EXPECT_EQ(
              testing::SortedIfUnordered(argv, grouped.engine().Execute(grouped.session(), argv)),
              want)
              << ::testing::PrintToString(argv);
          continue;
        }
        pending.push_back(argv);
        expected.push_back(want);
        if (pending.size() >= group_size) {
          flush();
          group_size = 1 + rng() % 16;
        }
      }
      flush();
      EXPECT_GT(groups, 100u);
      EXPECT_EQ(State(grouped), State(one));
      const CommandTable& table = CommandTable::Get();
      for (size_t c = 0; c < table.all().size(); ++c) {
        EXPECT_EQ(grouped.engine().stats(c).kv.Snapshot().Describe(),
                  one.engine().stats(c).kv.Snapshot().Describe())
            << table.all()[c].name;
        EXPECT_EQ(grouped.engine().stats(c).calls.load(), one.engine().stats(c).calls.load())
            << table.all()[c].name;
      }
    }
  }
}

// Commands of a group that share a key keep what they read of the store for each other
// (backends/kept_reads_store.h): a pipeline of HSETs and ZADDs on one key, as redis-benchmark
// sends them, reads the key-meta from the store once. Every command's own counts stay those it
// has alone (HSET of an existing field: gets=2), the replies too.
TEST(GroupCommit, CommandsOnOneKeyReadItsMetaOnce) {
  for (const std::string backend : {"memory", "rocksdb", "lmdb", "wiredtiger"}) {
    SCOPED_TRACE(backend);
    kvlab::testing::ScratchDir scratch;
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = scratch.Sub("store");
    std::unique_ptr<backends::OpenedStore> store;
    ASSERT_TRUE(backends::OpenStore(spec, &store).ok());
    backends::OpCounts below;  // what reaches the store, under the engine
    backends::CountingStore counted(store->store(), &below);
    Engine engine(&counted, EngineOptions{});
    Session s;
    std::vector<std::string> hsets, zadds;
    for (int i = 0; i < 8; ++i) {
      hsets.push_back("HSET h f" + std::to_string(i) + " v");
      zadds.push_back("ZADD z 0 m" + std::to_string(i));
    }
    auto one_by_one = [&] {
      for (const auto& argv : SplitAll(hsets)) engine.Execute(s, argv);
      for (const auto& argv : SplitAll(zadds)) engine.Execute(s, argv);
    };
    const CommandTable& table = CommandTable::Get();
    const auto& hset_stats = engine.stats(table.IndexOf(*table.Find("hset"))).kv;
    const auto& zadd_stats = engine.stats(table.IndexOf(*table.Find("zadd"))).kv;
    one_by_one();  // new fields and members
    const backends::OpCounts hset0 = hset_stats.Snapshot(), zadd0 = zadd_stats.Snapshot();
    one_by_one();  // existing ones: what each command costs alone
    const backends::OpCounts hset1 = hset_stats.Snapshot(), zadd1 = zadd_stats.Snapshot();
    EXPECT_EQ((hset1 - hset0).Describe(), "16 gets, 8 batches, 8 batch_records");
    EXPECT_EQ((zadd1 - zadd0).Describe(), "16 gets");

    // The same as groups: the meta once, each field or member once (ZADD of an unchanged score
    // writes nothing), and every command's own counts as alone.
    below = {};
    EXPECT_EQ(Describe(engine.ExecuteGroup(s, SplitAll(hsets))),
              "(integer) 0 | (integer) 0 | (integer) 0 | (integer) 0 | "
              "(integer) 0 | (integer) 0 | (integer) 0 | (integer) 0");
    EXPECT_EQ(below.point_reads(), 1u + 8u);
    EXPECT_EQ(below.batches, 1u);
    below = {};
    EXPECT_EQ(Describe(engine.ExecuteGroup(s, SplitAll(zadds))),
              "(integer) 0 | (integer) 0 | (integer) 0 | (integer) 0 | "
              "(integer) 0 | (integer) 0 | (integer) 0 | (integer) 0");
    EXPECT_EQ(below.point_reads(), 1u + 8u);
    EXPECT_EQ(hset_stats.Snapshot() - hset1, hset1 - hset0);
    EXPECT_EQ(zadd_stats.Snapshot() - zadd1, zadd1 - zadd0);

    // A field written in the group is read back from the pending write, not a kept read.
    EXPECT_EQ(Describe(engine.ExecuteGroup(
                  s, SplitAll({"HSET h f0 new", "HINCRBY h n 1", "HINCRBY h n 1", "HDEL h f1"}))),
              "(integer) 0 | (integer) 1 | (integer) 2 | (integer) 1");
    EXPECT_EQ(engine.Execute(s, Split("HGET h f0")).Describe(), "\"new\"");
    EXPECT_EQ(engine.Execute(s, Split("HLEN h")).Describe(), "(integer) 8");
  }
}

// A group's writes reach WATCH as its commands' would, and a group waits for another client's
// EXEC on its keys and the reverse (both hold the keys' locks for their whole run).
TEST(GroupCommit, WatchSeesAGroupsWrites) {
  EngineHarness e;
  Session watcher;
  auto run_watcher = [&](const std::string& line) {
    return e.engine().Execute(watcher, Split(line)).Describe();
  };
  ASSERT_EQ(run_watcher("WATCH b"), "OK");
  ASSERT_EQ(run_watcher("MULTI"), "OK");
  ASSERT_EQ(run_watcher("SET b mine"), "QUEUED");
  e.engine().ExecuteGroup(e.session(), SplitAll({"SET a 1", "HSET b f v"}));
  EXPECT_EQ(run_watcher("EXEC"), "(nil array)");
  EXPECT_EQ(e.Run("TYPE b"), "hash");
  // A key the group did not write leaves the transaction alone.
  ASSERT_EQ(run_watcher("WATCH c"), "OK");
  ASSERT_EQ(run_watcher("MULTI"), "OK");
  ASSERT_EQ(run_watcher("SET c mine"), "QUEUED");
  e.engine().ExecuteGroup(e.session(), SplitAll({"SET a 2", "DEL b"}));
  EXPECT_EQ(run_watcher("EXEC"), "[OK]");
}

}  // namespace kvlab::engine
