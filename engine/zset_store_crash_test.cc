// zset v3 after a process stopped between its store write and the KV commit that follows it
// (docs/engine.md, "Crash recovery: the store-write intent"). A stop is a KV store that takes
// no more writes from some point on, and an engine dropped and replaced by a new one over the
// same KV store and the same store Redis, as a kvlab restarted on its directory: nothing of the
// first engine's memory (its uncertain keys) survives. The faults issue saw every later command
// on such a key fail with "the store lost writes"; now the key's first use makes its meta
// follow the store, an acknowledged write is never lost, and an unacknowledged one is kept
// whole or dropped whole.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "backends/kv_store_wrapper.h"
#include "encodings/registry.h"
#include "redis/client.h"
#include "redis/server_process.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {

using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using encodings::EncodingRegistry;
using encodings::KeyCodec;
using encodings::KeyMeta;
using redis::RedisClient;
using redis::RedisServerOptions;
using redis::RedisServerProcess;
using resp::Reply;
using resp::SplitArgs;

namespace {

// A KV store that stops taking writes after `allowed` more of them (-1: never stops): what the
// store sees of a process killed at that point.
class StoppingStore final : public backends::KvStoreWrapper {
 public:
  explicit StoppingStore(backends::KvStore* base) : KvStoreWrapper(base) {}
  Status Write(const backends::WriteBatch& batch) override {
    if (allowed == 0) return Status::IOError("the process stopped");
    if (allowed > 0) --allowed;
    return target()->Write(batch);
  }
  std::atomic<int> allowed{-1};
};

class ZsetStoreCrash : public ::testing::Test {
 protected:
  void SetUp() override {
    RedisServerOptions o;
    o.persistence = RedisServerOptions::Persistence::kAofEverySec;
    o.extra_args = {"--maxmemory-policy", "noeviction"};
    store_redis_ = std::make_unique<RedisServerProcess>(o);
    ASSERT_TRUE(store_redis_->Start().ok());
    StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch_.Sub("kv");
    ASSERT_TRUE(OpenStore(spec, &kv_).ok());
    stopping_ = std::make_unique<StoppingStore>(kv_->store());
    Restart();
  }

  // A new engine over the same KV store and store Redis: a kvlab restarted on its directory.
  void Restart() {
    engine_.reset();
    stopping_->allowed = -1;
    EngineOptions o;
    o.versions[encodings::KeyType::kZset] = 3;
    o.tier_options.store_url = store_redis_->endpoint().ToString();
    o.tier_options.log = [](const std::string&) {};
    engine_ = std::make_unique<Engine>(stopping_.get(), o);
  }

  std::string Run(const std::string& line) {
    std::vector<std::string> argv;
    SplitArgs(line, &argv);
    return engine_->Execute(session_, argv).Describe();
  }

  // Runs `line` in a process that stops after `allowed` more KV writes, then restarts.
  std::string RunAndStop(const std::string& line, int allowed) {
    stopping_->allowed = allowed;
    std::string reply = Run(line);
    Restart();
    return reply;
  }

  // The key-meta of `key` as KV holds it.
  KeyMeta StoredMeta(const std::string& key) {
    std::string bytes;
    EXPECT_TRUE(kv_->store()->Get(KeyCodec({}).MetaKey(0, key), &bytes).ok());
    KeyMeta meta;
    EXPECT_TRUE(KeyMeta::Decode(bytes, EncodingRegistry::Builtin(), &meta).ok());
    return meta;
  }

  std::string Info(const std::string& field) {
    const std::string info = engine_->Execute(session_, {"INFO", "kvlab"}).str();
    const size_t at = info.find(field + ":");
    if (at == std::string::npos) return "";
    const size_t begin = at + field.size() + 1;
    return info.substr(begin, info.find("\r\n", begin) - begin);
  }

  testing::ScratchDir scratch_;
  std::unique_ptr<RedisServerProcess> store_redis_;
  std::unique_ptr<OpenedStore> kv_;
  std::unique_ptr<StoppingStore> stopping_;
  std::unique_ptr<Engine> engine_;
  Session session_;
};

const std::string kLong = "a-member-name-of-more-than-15-bytes";

// The intent's bytes (docs/encodings.md): after the count, 01 and the intent count; only in
// the metas of a version whose data is in the store.
TEST(StoreWriteIntent, EncodesAfterTheCountAndOnlyStoreVersionsDecodeIt) {
  const EncodingRegistry& registry = EncodingRegistry::Builtin();
  KeyMeta meta;
  meta.encode_version = 3;
  meta.type = encodings::KeyType::kZset;
  meta.counted = true;
  meta.key_version = 0x0102030405060708;
  meta.count = 2;
  meta.intent_count = 3;
  const std::string bytes = meta.Encode();
  ASSERT_EQ(bytes.size(), 27u);
  EXPECT_EQ(bytes.substr(18), std::string("\0\0\0\2\1\0\0\0\3", 9));
  KeyMeta back;
  ASSERT_TRUE(KeyMeta::Decode(bytes, registry, &back).ok());
  EXPECT_EQ(back.count, 2u);
  EXPECT_EQ(back.intent_count, std::optional<uint32_t>(3));
  meta.intent_count.reset();
  ASSERT_TRUE(KeyMeta::Decode(meta.Encode(), registry, &back).ok());
  EXPECT_FALSE(back.intent_count.has_value());

  std::string other_tag = bytes;
  other_tag[22] = 2;
  EXPECT_TRUE(KeyMeta::Decode(other_tag, registry, &back).IsCorruption());
  std::string v1 = bytes;  // zset v1 keeps its data in KV: no intent
  v1[0] = 1;
  EXPECT_TRUE(KeyMeta::Decode(v1, registry, &back).IsCorruption());
}

// The reproduction: the store written, the KV commit never made. The intent (the first
// of the two KV writes) is there, so the key follows the store at its first use: the
// unacknowledged addition is kept whole, with its long member's i#, and the key works on.
TEST_F(ZsetStoreCrash, AnAdditionStoppedBeforeItsCommitIsKept) {
  ASSERT_EQ(Run("ZADD z 1 a 2 b"), "(integer) 2");
  const std::string stopped = RunAndStop("ZADD z 3 c 4 " + kLong, /*allowed=*/1);
  EXPECT_NE(stopped.find("the process stopped"), std::string::npos) << stopped;
  const KeyMeta left = StoredMeta("z");
  EXPECT_EQ(left.count, 2u);
  ASSERT_TRUE(left.intent_count.has_value());
  EXPECT_EQ(*left.intent_count, 4u);

  EXPECT_EQ(Run("ZCARD z"), "(integer) 4");
  EXPECT_EQ(Run("ZRANGE z 0 -1 WITHSCORES"),
            "[\"a\", \"1\", \"b\", \"2\", \"c\", \"3\", \"" + kLong + "\", \"4\"]");
  EXPECT_EQ(Info("zset_store_reconciled"), "1");
  const KeyMeta after = StoredMeta("z");
  EXPECT_EQ(after.count, 4u);
  EXPECT_FALSE(after.intent_count.has_value());
  EXPECT_EQ(Run("ZADD z 5 e"), "(integer) 1");
  EXPECT_EQ(Run("ZCARD z"), "(integer) 5");
}

// A removal the store applied and KV never committed is kept too, down to an empty zset (the
// key then goes); acknowledged members stay.
TEST_F(ZsetStoreCrash, ARemovalStoppedBeforeItsCommitIsKept) {
  ASSERT_EQ(Run("ZADD z 1 a 2 b 3 " + kLong), "(integer) 3");
  RunAndStop("ZREM z a " + kLong + " nope", 1);
  EXPECT_EQ(Run("ZRANGE z 0 -1"), "[\"b\"]");
  EXPECT_EQ(Run("ZCARD z"), "(integer) 1");
  RunAndStop("ZPOPMIN z", 1);
  EXPECT_EQ(Run("EXISTS z"), "(integer) 0");
  EXPECT_EQ(Run("ZADD z 7 x"), "(integer) 1");
  EXPECT_EQ(Run("ZRANGE z 0 -1 WITHSCORES"), "[\"x\", \"7\"]");
}

// A write whose intent reached KV but not the store (the process stopped before sending it):
// nothing changed, and the intent goes at the key's first use.
TEST_F(ZsetStoreCrash, AnIntentWithoutItsStoreWriteChangesNothing) {
  ASSERT_EQ(Run("ZADD z 1 a 2 b"), "(integer) 2");
  KeyMeta meta = StoredMeta("z");
  meta.intent_count = 3;
  ASSERT_TRUE(kv_->store()->Put(KeyCodec({}).MetaKey(0, "z"), meta.Encode()).ok());
  Restart();
  EXPECT_EQ(Run("ZRANGE z 0 -1"), "[\"a\", \"b\"]");
  EXPECT_FALSE(StoredMeta("z").intent_count.has_value());
}

// Writes through a pipeline group and an EXEC: their intent reaches KV at once, not with the
// group's or the transaction's write, which commits after the store write.
TEST_F(ZsetStoreCrash, AGroupOrATransactionStoppedBeforeItsCommitIsKept) {
  ASSERT_EQ(Run("ZADD z 1 a"), "(integer) 1");
  stopping_->allowed = 1;
  std::vector<std::vector<std::string>> group = {{"ZADD", "z", "2", kLong}, {"SET", "s", "v"}};
  engine_->ExecuteGroup(session_, group);
  Restart();
  EXPECT_EQ(Run("ZRANGE z 0 -1"), "[\"a\", \"" + kLong + "\"]");
  EXPECT_EQ(Run("EXISTS s"), "(integer) 0");  // the group's KV write never landed

  ASSERT_EQ(Run("MULTI"), "OK");
  ASSERT_EQ(Run("SET t v"), "QUEUED");
  ASSERT_EQ(Run("ZREM z a"), "QUEUED");
  RunAndStop("EXEC", 1);
  EXPECT_EQ(Run("ZRANGE z 0 -1"), "[\"" + kLong + "\"]");
  EXPECT_EQ(Run("EXISTS t"), "(integer) 0");
}

// In one process, with the key-meta cache on: a removal that empties the zset deletes the meta
// before its store write, and an addition leaves its intent, both outside the command's batch.
// When the commit then fails, the cached meta is not served again: the key is gone for EXISTS
// too, and a count reconciled.
TEST_F(ZsetStoreCrash, TheKeyMetaCacheNeverServesTheMetaFromBeforeAFailedCommit) {
  RedisServerProcess cache;
  ASSERT_TRUE(cache.Start().ok());
  engine_.reset();
  EngineOptions o;
  o.versions[encodings::KeyType::kZset] = 3;
  o.tier_options.store_url = store_redis_->endpoint().ToString();
  o.tier_options.cache_url = cache.endpoint().ToString();
  o.tier_options.log = [](const std::string&) {};
  engine_ = std::make_unique<Engine>(stopping_.get(), o);
  ASSERT_EQ(Run("CONFIG SET kv.key.meta.cache.enable yes"), "OK");
  ASSERT_EQ(Run("ZADD z 1 a 2 b"), "(integer) 2");
  ASSERT_EQ(Run("ZADD y 1 a"), "(integer) 1");
  ASSERT_EQ(Run("EXISTS z y"), "(integer) 2");  // both metas cached
  stopping_->allowed = 1;
  EXPECT_NE(Run("ZPOPMIN z 2").find("the process stopped"), std::string::npos);
  stopping_->allowed = 1;
  EXPECT_NE(Run("ZADD y 2 b").find("the process stopped"), std::string::npos);
  stopping_->allowed = -1;
  EXPECT_EQ(Run("EXISTS z"), "(integer) 0");
  EXPECT_EQ(Run("ZCARD y"), "(integer) 2");
  EXPECT_EQ(Run("ZRANGE y 0 -1"), "[\"a\", \"b\"]");
  engine_.reset();  // before the cache server goes
}

// A write of several chunks is one MULTI/EXEC in the store: a process that stops after it
// keeps all of it, never part.
TEST_F(ZsetStoreCrash, AWriteOfSeveralChunksIsKeptWhole) {
  ASSERT_EQ(Run("ZADD z 0 first"), "(integer) 1");
  std::string zadd = "ZADD z";
  for (int i = 0; i < 2500; ++i) zadd += " " + std::to_string(i) + " m" + std::to_string(i);
  RunAndStop(zadd, 1);
  EXPECT_EQ(Run("ZCARD z"), "(integer) 2501");
  EXPECT_EQ(Run("ZSCORE z m2499"), "\"2499\"");
}

// A store that disagrees beyond what an intent accounts for is an error that names the
// direction it saw, on every command, and nothing is reconciled.
TEST_F(ZsetStoreCrash, ADisagreementSaysWhichWay) {
  ASSERT_EQ(Run("ZADD z 1 a 2 b"), "(integer) 2");
  ASSERT_EQ(Run("ZADD y 1 a 2 b"), "(integer) 2");
  RedisClient admin(store_redis_->endpoint());
  Reply keys, r;
  ASSERT_TRUE(admin.Command({"KEYS", "c#*"}, &keys).ok());
  ASSERT_EQ(keys.elements().size(), 2u);
  for (const Reply& k : keys.elements()) {
    const bool z = k.str().find("{z}") != std::string::npos;
    ASSERT_TRUE(admin
                    .Command(z ? std::vector<std::string>{"ZADD", k.str(), "3", "000"}
                               : std::vector<std::string>{"ZREM", k.str(), std::string("\0a", 2)},
                             &r)
                    .ok());
  }
  for (const std::string line : {"ZRANGE z 0 -1", "ZCARD z", "ZADD z 9 q"}) {
    const std::string reply = Run(line);
    EXPECT_NE(reply.find("holds 3 members of zset 'z', 1 more than its key-meta counts (2)"),
              std::string::npos)
        << line << ": " << reply;
  }
  for (const std::string line : {"ZRANGE y 0 -1", "ZREM y b"}) {
    const std::string reply = Run(line);
    EXPECT_NE(reply.find("holds 1 members of zset 'y', 1 fewer than its key-meta counts (2)"),
              std::string::npos)
        << line << ": " << reply;
  }
  // An intent that does not reach as far as the store: still a disagreement.
  KeyMeta meta = StoredMeta("y");
  meta.intent_count = 3;
  ASSERT_TRUE(kv_->store()->Put(KeyCodec({}).MetaKey(0, "y"), meta.Encode()).ok());
  Restart();
  const std::string reply = Run("ZRANGE y 0 -1");
  EXPECT_NE(reply.find("1 fewer than"), std::string::npos) << reply;
  EXPECT_EQ(Info("zset_store_reconciled"), "0");
}

}  // namespace
}  // namespace kvlab::engine
