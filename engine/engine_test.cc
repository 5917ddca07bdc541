// Engine behaviour beyond single replies (those are checked against Redis by corpus_test):
// the runtime encoding switch, per-key serialization under threads, expiry, key-versions,
// all-or-nothing commands, per-command accounting and storage errors.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "backends/kv_store_wrapper.h"
#include "encodings/coding.h"
#include "encodings/key_meta.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {

using backends::KvStore;
using encodings::KeyMeta;
using encodings::KeyVersionGenerator;
using encodings::SubKeyTag;
using resp::Reply;

namespace {

using testing::EngineHarness;

// The stored key-meta of a key in database 0.
KeyMeta StoredMeta(EngineHarness& e, const std::string& key) {
  std::string bytes;
  EXPECT_TRUE(e.store()->Get(e.engine().codec().MetaKey(0, key), &bytes).ok()) << key;
  KeyMeta meta;
  EXPECT_TRUE(KeyMeta::Decode(bytes, e.engine().registry(), &meta).ok());
  return meta;
}

size_t CountRecordsWithPrefix(KvStore* store, const std::string& prefix) {
  size_t n = 0;
  auto it = store->NewIterator();
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) ++n;
  return n;
}

TEST(EngineSwitch, NewKeysTakeTheConfiguredVersionAndOldKeysKeepTheirs) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG GET hash-encoding"), "[\"hash-encoding\", \"0\"]");
  EXPECT_EQ(e.Run("HSET old a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("CONFIG SET kv.hash.key.meta.version 1"), "OK");
  EXPECT_EQ(e.Run("CONFIG GET kv.hash.key.meta.version"), "[\"kv.hash.key.meta.version\", \"1\"]");
  EXPECT_EQ(e.Run("HSET new a 1 b 2"), "(integer) 2");
  EXPECT_EQ(StoredMeta(e, "old").encode_version, 0);
  EXPECT_EQ(StoredMeta(e, "new").encode_version, 1);

  // The old key still behaves as v0 (exact replies, count in the meta), the new one as v1.
  EXPECT_EQ(e.Run("HSET old a 9 c 3"), "(integer) 1");
  EXPECT_EQ(e.Run("HSET new a 9 c 3"), "(integer) 2");  // blind: pairs given
  EXPECT_EQ(StoredMeta(e, "old").count, 3u);
  EXPECT_EQ(e.Run("HLEN old"), "(integer) 3");
  EXPECT_EQ(e.Run("HLEN new"), "(integer) 3");
  EXPECT_EQ(e.Run("HDEL old a nope"), "(integer) 1");
  EXPECT_EQ(e.Run("HDEL new a nope"), "(integer) 2");
  EXPECT_EQ(e.Run("HGETALL old"), e.Run("HGETALL new"));

  // Switching back changes nothing for either key; a re-created key takes the current version.
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding 0"), "OK");
  EXPECT_EQ(e.Run("HSET new d 4"), "(integer) 1");
  EXPECT_EQ(StoredMeta(e, "new").encode_version, 1);
  EXPECT_EQ(e.Run("DEL new"), "(integer) 1");
  EXPECT_EQ(e.Run("HSET new x 1"), "(integer) 1");
  EXPECT_EQ(StoredMeta(e, "new").encode_version, 0);
}

TEST(EngineSwitch, RejectsVersionsItCannotRun) {
  EngineHarness e;
  for (const char* v : {"-1", "4", "x"}) {
    EXPECT_TRUE(
        e.Run(std::string("CONFIG SET hash-encoding ") + v)
            .starts_with(
                "(error) ERR CONFIG SET failed (possibly related to argument 'hash-encoding') - "));
  }
  EXPECT_EQ(e.Run("CONFIG SET databases 4"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
            "immutable config");
  // Both or neither: a bad second pair leaves the first unapplied.
  EXPECT_TRUE(e.Run("CONFIG SET hash-encoding 1 zset-encoding 9").starts_with("(error)"));
  EXPECT_EQ(e.Run("CONFIG GET hash-encoding"), "[\"hash-encoding\", \"0\"]");
}

struct ConcurrencyParam {
  std::string backend;
  int hash_version;
  int zset_version = 0;
};

class EngineConcurrencyTest : public ::testing::TestWithParam<ConcurrencyParam> {};

// 8 threads write the same keys at once; per-key serialization keeps counts and read-modify-write
// results exact.
TEST_P(EngineConcurrencyTest, SharedKeysEndEqualToTheModel) {
  EngineOptions options;
  options.versions[encodings::KeyType::kHash] = static_cast<uint8_t>(GetParam().hash_version);
  options.versions[encodings::KeyType::kZset] = static_cast<uint8_t>(GetParam().zset_version);
  EngineHarness e(GetParam().backend, options);
  constexpr int kThreads = 8, kOps = 300;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Session session;
      auto run = [&](std::vector<std::string> argv) {
        Reply r = e.engine().Execute(session, argv);
        ASSERT_FALSE(r.is_error()) << r.Describe();
      };
      for (int i = 0; i < kOps; ++i) {
        const std::string id = std::to_string(t) + "-" + std::to_string(i);
        run({"HSET", "h", "f" + id, "v"});
        if (i % 2 == 1) run({"HDEL", "h", "f" + std::to_string(t) + "-" + std::to_string(i - 1)});
        run({"HINCRBY", "counters", "hits", "1"});
        run({"ZADD", "z", std::to_string(i), "m" + id});
        if (i % 3 == 0) run({"ZREM", "z", "m" + id});
        run({"ZINCRBY", "z", "1", "hot"});
      }
    });
  }
  for (auto& t : threads) t.join();
  // Each thread leaves its odd fields (kOps/2) and the members not divisible by 3.
  EXPECT_EQ(e.Run("HLEN h"), "(integer) " + std::to_string(kThreads * kOps / 2));
  EXPECT_EQ(e.Run("HGET counters hits"), "\"" + std::to_string(kThreads * kOps) + "\"");
  EXPECT_EQ(e.Run("ZCARD z"), "(integer) " + std::to_string(kThreads * (kOps - kOps / 3) + 1));
  EXPECT_EQ(e.Run("ZSCORE z hot"), "\"" + std::to_string(kThreads * kOps) + "\"");
  if (GetParam().hash_version == 0) {
    EXPECT_EQ(StoredMeta(e, "h").count, kThreads * kOps / 2u);
  }
  if (GetParam().zset_version == 0) {
    // The score index holds exactly one entry per member: no stale entry survived the races.
    const KeyMeta z = StoredMeta(e, "z");
    EXPECT_EQ(CountRecordsWithPrefix(e.store(), e.engine().codec().SubKeyPrefix(
                                                    SubKeyTag::kScore, 0, "z", z.key_version)),
              z.count);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, EngineConcurrencyTest,
    ::testing::Values(ConcurrencyParam{"memory", 0}, ConcurrencyParam{"memory", 1},
                      ConcurrencyParam{"rocksdb", 0}, ConcurrencyParam{"lmdb", 1},
                      ConcurrencyParam{"wiredtiger", 0}, ConcurrencyParam{"memory", 2, 1},
                      ConcurrencyParam{"rocksdb", 3, 2}, ConcurrencyParam{"memory", 2, 3}),
    [](const auto& info) {
      return info.param.backend + "_hash" + std::to_string(info.param.hash_version) + "_zset" +
             std::to_string(info.param.zset_version);
    });

// The optional key-meta cache serves metas from Redis and follows every write.
TEST(EngineMetaCache, ServesMetasAndFollowsWrites) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG SET kv.key.meta.cache.enable yes"), "OK");
  EXPECT_EQ(e.Run("SET s v1"), "OK");
  CommandCost cost;
  EXPECT_EQ(e.Exec("GET s", &cost).Describe(), "\"v1\"");  // miss: KV, then refill
  EXPECT_EQ(cost.tier.cache_misses, 1u);
  EXPECT_EQ(cost.kv.gets, 1u);
  cost = CommandCost();
  EXPECT_EQ(e.Exec("GET s", &cost).Describe(), "\"v1\"");  // hit: no KV read at all
  EXPECT_EQ(cost.tier.cache_hits, 1u);
  EXPECT_EQ(cost.kv.gets, 0u);
  EXPECT_EQ(e.Run("SET s v2"), "OK");  // rewrites the cached meta after the commit
  EXPECT_EQ(e.Run("GET s"), "\"v2\"");
  EXPECT_EQ(e.Run("HSET h f 1"), "(integer) 1");
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 1");
  EXPECT_EQ(e.Run("HSET h g 2"), "(integer) 1");
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 2");  // the count lives in the cached meta
  EXPECT_EQ(e.Run("DEL s h"), "(integer) 2");
  EXPECT_EQ(e.Run("MGET s h"), "[(nil), (nil)]");
  EXPECT_EQ(e.Run("EXPIRE nothing 10"), "(integer) 0");
  EXPECT_EQ(e.Run("SET t x PX 100"), "OK");
  EXPECT_EQ(e.Run("GET t"), "\"x\"");
  e.clock().AdvanceMillis(101);
  EXPECT_EQ(e.Run("GET t"), "(nil)");  // the cached meta carries the expiry
}

TEST(EngineExpiry, ExpiredKeysAreAbsentToEveryCommand) {
  EngineHarness e;
  EXPECT_EQ(e.Run("HSET h a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("PEXPIRE h 100"), "(integer) 1");
  e.clock().AdvanceMillis(100);
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 2");  // expired only once time is past it
  e.clock().AdvanceMillis(1);
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 0");
  EXPECT_EQ(e.Run("EXISTS h"), "(integer) 0");
  EXPECT_EQ(e.Run("TTL h"), "(integer) -2");
  EXPECT_EQ(e.Run("KEYS *"), "[]");
  EXPECT_EQ(e.Run("DBSIZE"), "(integer) 0");
  EXPECT_EQ(e.Run("SET h s"), "OK");  // a new key over the expired one
  EXPECT_EQ(e.Run("TYPE h"), "string");
  EXPECT_EQ(e.Run("DEL h"), "(integer) 1");
  EXPECT_EQ(e.Run("HSET h c 3"), "(integer) 1");
  EXPECT_EQ(e.Run("HGETALL h"), "[\"c\", \"3\"]");  // the expired incarnation's fields are gone
}

TEST(EngineKeyVersions, RecreatedKeysNeverSeeOldSubKeysEvenWithAStoppedClock) {
  EngineHarness e;  // the manual clock does not move during this test
  std::set<uint64_t> versions;
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(e.Run("HSET h f" + std::to_string(i) + " v"), "(integer) 1");
    EXPECT_EQ(e.Run("HLEN h"), "(integer) 1");
    EXPECT_TRUE(versions.insert(StoredMeta(e, "h").key_version).second);
    EXPECT_EQ(e.Run("DEL h"), "(integer) 1");
  }
  EXPECT_EQ(*versions.begin() >> KeyVersionGenerator::kCounterBits,
            static_cast<uint64_t>(e.clock().NowMicros()));
}

TEST(EngineAtomicity, AnErrorReplyWritesNothing) {
  EngineHarness e;
  EXPECT_EQ(e.Run("ZADD z inf m"), "(integer) 1");
  CommandCost cost;
  EXPECT_EQ(e.Exec("ZADD z INCR -inf m", &cost).Describe(),
            "(error) ERR resulting score is not a number (NaN)");
  EXPECT_EQ(cost.kv.batches, 0u);
  EXPECT_EQ(e.Run("ZSCORE z m"), "\"inf\"");
  EXPECT_EQ(e.Run("HSET h n 9223372036854775807"), "(integer) 1");
  EXPECT_EQ(e.Exec("HINCRBY h n 1", &cost).Describe(),
            "(error) ERR increment or decrement would overflow");
  EXPECT_EQ(cost.kv.batches, 0u);
}

// maxmemory bounds the process's resident memory (redis_server_params.h): over it, the commands
// Redis refuses with OOM are refused, whatever the policy (kvlab evicts nothing); reads,
// DISCARD and an EXEC of reads still run. 1 byte is always exceeded, 0 is no limit.
TEST(EngineMaxmemory, OverTheLimitDenyoomCommandsGetRedisOomError) {
  EngineHarness e;
  const std::string oom = "(error) OOM command not allowed when used memory > 'maxmemory'.";
  EXPECT_EQ(e.Run("SET k v"), "OK");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory 1 maxmemory-policy ALLKEYS-LRU"), "OK");
  EXPECT_EQ(e.Run("CONFIG GET maxmemory*"),
            "[\"maxmemory\", \"1\", \"maxmemory-policy\", \"allkeys-lru\"]");
  EXPECT_EQ(e.Run("SET k w"), oom);
  EXPECT_EQ(e.Run("RPUSH l a"), oom);
  EXPECT_EQ(e.Run("GET k"), "\"v\"");
  EXPECT_EQ(e.Run("DEL k"), "(integer) 1");  // no denyoom: frees memory, as in Redis
  // Inside MULTI every command but EXEC and DISCARD is refused, and flags the transaction.
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("GET k"), oom);
  EXPECT_EQ(e.Run("DISCARD"), "OK");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory 0"), "OK");
  // A transaction queued under the limit: its EXEC is refused when one queued command may
  // grow the dataset, and runs when none does.
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET x 1"), "QUEUED");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory 1"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[OK, OK]");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory 0"), "OK");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("SET y 1"), "QUEUED");
  EXPECT_EQ(e.Run("GET x"), "QUEUED");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory 1"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[OK, \"1\", OK]");
  EXPECT_EQ(e.Run("SET z 1"), oom);
  // Redis's validation texts.
  EXPECT_EQ(e.Run("CONFIG SET maxmemory bla"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument "
            "must be a memory value");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory-policy lru"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
            "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
            "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction");
  EXPECT_EQ(e.Run("CONFIG SET maxmemory 0"), "OK");
  EXPECT_EQ(e.Run("SET z 1"), "OK");
  // The kept parameters: Redis's names, aliases, ranges and canonical values.
  EXPECT_EQ(e.Run("CONFIG SET lua-time-limit 10 list-compress-depth 2 aof-use-rdb-preamble NO"),
            "OK");
  EXPECT_EQ(e.Run("CONFIG GET busy-reply-threshold"), "[\"busy-reply-threshold\", \"10\"]");
  EXPECT_EQ(e.Run("CONFIG GET aof-use-rdb-preamble"), "[\"aof-use-rdb-preamble\", \"no\"]");
  EXPECT_EQ(e.Run("CONFIG SET list-compress-depth -1"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'list-compress-depth') - "
            "argument must be between 0 and 2147483647 inclusive");
  EXPECT_EQ(e.Run("CONFIG SET aof-use-rdb-preamble maybe"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'aof-use-rdb-preamble') "
            "- argument must be 'yes' or 'no'");
}

TEST(EngineAccounting, EachCommandGetsItsOwnCountsUnderThreads) {
  EngineHarness e;
  EXPECT_EQ(e.Run("SET k v"), "OK");
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    Session s;
    while (!stop) e.engine().Execute(s, {"HSET", "busy", "f", "v"});
  });
  for (int i = 0; i < 2000; ++i) {
    CommandCost cost;
    ASSERT_EQ(e.Exec("GET k", &cost).Describe(), "\"v\"");
    ASSERT_EQ(cost.kv.Describe(), "1 gets");
  }
  stop = true;
  writer.join();
}

TEST(EngineErrors, ACorruptKeyMetaIsAClearErrorNotACrash) {
  EngineHarness e;
  ASSERT_TRUE(e.store()->Put(e.engine().codec().MetaKey(0, "bad"), "\x07\x09junk").ok());
  EXPECT_EQ(e.Run("GET bad"),
            "(error) ERR storage error: Corruption: key 'bad': key-meta of 6 bytes is too short");
  EXPECT_EQ(e.Run("GET other"), "(nil)");
}

// A full disk (the disk-space guard refuses the write) is a MISCONF error, as Redis replies to a
// write it cannot persist, naming the cause; reads keep working, and an EXEC whose one write is
// refused replies the error for each of its commands.
TEST(EngineErrors, AFullDiskIsAMisconfErrorAndReadsKeepWorking) {
  testing::ScratchDir scratch;
  backends::StoreSpec spec;
  spec.backend = "lmdb";
  spec.options.dir = scratch.Sub("store");
  std::unique_ptr<backends::OpenedStore> opened;
  ASSERT_TRUE(backends::OpenStore(spec, &opened).ok());
  {
    Engine engine(opened->store(), EngineOptions{});
    Session session;
    ASSERT_EQ(engine.Execute(session, {"SET", "k", "v"}).Describe(), "OK");
  }
  opened.reset();
  spec.disk_reserve.percent = 99.99;  // more than this filesystem has free
  ASSERT_TRUE(backends::OpenStore(spec, &opened).ok());
  Engine engine(opened->store(), EngineOptions{});
  Session session;
  const std::string set = engine.Execute(session, {"SET", "k", "w"}).Describe();
  EXPECT_TRUE(set.starts_with("(error) MISCONF disk full: lmdb: " + spec.options.dir + " has "))
      << set;
  EXPECT_NE(set.find("writes are refused until space returns; reads still work"), std::string::npos)
      << set;
  EXPECT_EQ(engine.Execute(session, {"GET", "k"}).Describe(), "\"v\"");
  ASSERT_EQ(engine.Execute(session, {"MULTI"}).Describe(), "OK");
  ASSERT_EQ(engine.Execute(session, {"INCR", "n"}).Describe(), "QUEUED");
  ASSERT_EQ(engine.Execute(session, {"GET", "k"}).Describe(), "QUEUED");
  const std::string exec = engine.Execute(session, {"EXEC"}).Describe();
  EXPECT_TRUE(exec.starts_with("[(error) MISCONF disk full: lmdb: ")) << exec;
  EXPECT_EQ(engine.Execute(session, {"EXISTS", "n"}).Describe(), "(integer) 0");
}

// LMDB itself takes keys of at most 511 bytes; Redis keys, fields and members longer than
// that reach it through its LongKeyStore layer and behave as on any backend.
TEST(EngineKeys, LongKeysFieldsAndMembersOnLmdb) {
  EngineHarness e("lmdb");
  const std::string key(600, 'k'), field(1000, 'f'), member(700, 'm');
  EXPECT_EQ(e.Run("HSET " + key + " " + field + " v short w"), "(integer) 2");
  EXPECT_EQ(e.Run("HGET " + key + " " + field), "\"v\"");
  EXPECT_EQ(e.Run("HLEN " + key), "(integer) 2");
  EXPECT_EQ(e.Run("HKEYS " + key), "[\"" + field + "\", \"short\"]");  // in byte order
  EXPECT_EQ(e.Run("ZADD z 2 " + member + " 1 a 3 b"), "(integer) 3");
  EXPECT_EQ(e.Run("ZRANGE z 0 -1"), "[\"a\", \"" + member + "\", \"b\"]");
  EXPECT_EQ(e.Run("ZADD l 0 z 0 " + member + " 0 a"), "(integer) 3");
  EXPECT_EQ(e.Run("ZREVRANGEBYLEX l + -"), "[\"z\", \"" + member + "\", \"a\"]");
  EXPECT_EQ(e.Run("DBSIZE"), "(integer) 3");
  EXPECT_EQ(e.Run("DEL " + key), "(integer) 1");
  EXPECT_EQ(e.Run("EXISTS " + key), "(integer) 0");
}

TEST(EngineOptions, NamespacePrefixSeparatesDatabasesAndEngines) {
  EngineOptions a_options, b_options;
  a_options.keys.ns_prefix = "a";
  b_options.keys.ns_prefix = "b";
  EngineHarness e("memory", a_options);
  Engine other(e.store(), b_options);
  Session s;
  EXPECT_EQ(e.Run("SET k 1"), "OK");
  EXPECT_EQ(other.Execute(s, {"GET", "k"}).Describe(), "(nil)");
  EXPECT_EQ(other.Execute(s, {"SET", "k", "2"}).Describe(), "OK");
  EXPECT_EQ(e.Run("GET k"), "\"1\"");
  EXPECT_EQ(e.Run("FLUSHALL"), "OK");
  EXPECT_EQ(other.Execute(s, {"GET", "k"}).Describe(), "\"2\"");
}

// A store that runs servers of its own, as the etcd backend's private cluster does.
class StoreWithServers : public backends::KvStoreWrapper {
 public:
  using KvStoreWrapper::KvStoreWrapper;
  std::vector<backends::PrivateServer> PrivateServers() const override {
    return {{"etcd_member0", "running", 0}, {"etcd_member1", "restarting", 2}};
  }
};

// INFO kvlab shows the servers the store runs for itself as their supervisor sees them, in the
// Redis tier's style (<name>_state, <name>_restarts), through the engine's own decorators.
TEST(EngineInfo, ShowsTheServersTheStoreRuns) {
  EngineHarness e;
  EXPECT_EQ(e.Exec("INFO kvlab").str().find("etcd_member"), std::string::npos);
  StoreWithServers store(e.store());
  Engine engine(&store, EngineOptions());
  Session s;
  const std::string info = engine.Execute(s, {"INFO", "kvlab"}).str();
  EXPECT_NE(info.find("\r\netcd_member0_state:running\r\netcd_member0_restarts:0\r\n"
                      "etcd_member1_state:restarting\r\netcd_member1_restarts:2\r\n"),
            std::string::npos)
      << info;
}

}  // namespace
}  // namespace kvlab::engine
