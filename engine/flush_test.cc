// FLUSHDB and FLUSHALL are one atomic write: their range deletes (the key-metas and every sub-key
// kind) go into the command's batch. A fault injected between two of the ranges fails the whole
// write, so the keyspace is untouched and the reply is the error; nothing is half-flushed.
// SWAPDB rewrites both databases' records in one such batch: the same fault leaves both as they
// were.
#include <gtest/gtest.h>

#include "backends/kv_store_wrapper.h"
#include "engine/engine.h"
#include "testing/kv_test_util.h"

namespace kvlab::engine {

using backends::KvStore;
using backends::KvStoreWrapper;
using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using backends::WriteBatch;
using resp::Reply;

namespace {

// Fails the second range delete it is asked for, whether as a DeleteRange call or as a record
// of a batch (then the whole batch fails, as an atomic write must): a fault between two ranges.
class FailsBetweenRanges final : public KvStoreWrapper {
 public:
  explicit FailsBetweenRanges(KvStore* base) : KvStoreWrapper(base) {}
  bool armed = false;
  int range_deletes = 0;

  Status DeleteRange(std::string_view begin, std::string_view end) override {
    if (Fault()) return Status::IOError("injected fault between ranges");
    return target()->DeleteRange(begin, end);
  }
  Status Write(const WriteBatch& batch) override {
    for (const auto& r : batch.records()) {
      if (r.op == WriteBatch::Op::kDeleteRange && Fault()) {
        return Status::IOError("injected fault between ranges");
      }
    }
    return target()->Write(batch);
  }

 private:
  bool Fault() { return armed && ++range_deletes == 2; }
};

class FlushTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    StoreSpec spec;
    spec.backend = GetParam();
    spec.options.dir = scratch_.Sub("store");
    const Status s = OpenStore(spec, &opened_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    faulty_ = std::make_unique<FailsBetweenRanges>(opened_->store());
    EngineOptions options;
    // Hash v0 and zset v0: every KV record kind (m#, s#, k#); no Redis tier needed.
    engine_ = std::make_unique<Engine>(faulty_.get(), options);
  }

  std::string Run(std::vector<std::string> argv) {
    return engine_->Execute(session_, argv).Describe();
  }

  void Fill() {
    ASSERT_EQ(Run({"SET", "s", "v"}), "OK");
    ASSERT_EQ(Run({"HSET", "h", "f1", "1", "f2", "2"}), "(integer) 2");
    ASSERT_EQ(Run({"ZADD", "z", "1", "a", "2", "b"}), "(integer) 2");
    ASSERT_EQ(Run({"SELECT", "1"}), "OK");
    ASSERT_EQ(Run({"SET", "other", "db"}), "OK");
    ASSERT_EQ(Run({"SELECT", "0"}), "OK");
  }

  size_t Records() {
    size_t n = 0;
    auto it = opened_->store()->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
    return n;
  }

  testing::ScratchDir scratch_;
  std::unique_ptr<OpenedStore> opened_;
  std::unique_ptr<FailsBetweenRanges> faulty_;
  std::unique_ptr<Engine> engine_;
  Session session_;
};

TEST_P(FlushTest, AFaultBetweenRangesLeavesEverything) {
  Fill();
  const size_t before = Records();
  ASSERT_GT(before, 5u);
  for (const char* command : {"FLUSHDB", "FLUSHALL"}) {
    SCOPED_TRACE(command);
    faulty_->armed = true;
    faulty_->range_deletes = 0;
    const std::string reply = Run({command});
    EXPECT_TRUE(reply.starts_with("(error) ERR storage error: IOError: injected fault")) << reply;
    EXPECT_EQ(Records(), before);
    EXPECT_EQ(Run({"GET", "s"}), "\"v\"");
    EXPECT_EQ(Run({"HGETALL", "h"}), "[\"f1\", \"1\", \"f2\", \"2\"]");
    EXPECT_EQ(Run({"ZRANGE", "z", "0", "-1", "WITHSCORES"}), "[\"a\", \"1\", \"b\", \"2\"]");
    EXPECT_EQ(Run({"DBSIZE"}), "(integer) 3");
  }
}

TEST_P(FlushTest, FlushIsOneWriteOfEveryRange) {
  Fill();
  CommandCost cost;
  const Reply r = engine_->Execute(session_, {"FLUSHDB"}, &cost);
  ASSERT_FALSE(r.is_error()) << r.str();
  EXPECT_EQ(cost.kv.batches, 1u);
  EXPECT_EQ(cost.kv.range_deletes, 5u);  // m#, a#, s#, k#, i#: one range each, in one batch
  EXPECT_EQ(Run({"DBSIZE"}), "(integer) 0");
  EXPECT_EQ(Run({"SELECT", "1"}), "OK");
  EXPECT_EQ(Run({"GET", "other"}), "\"db\"");  // FLUSHDB keeps the other databases
  EXPECT_EQ(Run({"FLUSHALL"}), "OK");
  EXPECT_EQ(Records(), 0u);
}

// SWAPDB moves every record kind (metas with their expiry, hash fields, zset members and score
// index, list elements, set members, an Ardb-layout hash's a# records) to the other database,
// and a fault between its ranges leaves both databases whole.
TEST_P(FlushTest, SwapdbMovesEveryRecordOfBothDatabasesAtOnce) {
  Fill();
  ASSERT_EQ(Run({"RPUSH", "l", "x", "y"}), "(integer) 2");
  ASSERT_EQ(Run({"SADD", "set", "m"}), "(integer) 1");
  ASSERT_EQ(Run({"EXPIRE", "h", "1000"}), "(integer) 1");
  ASSERT_EQ(Run({"CONFIG", "SET", "hash-encoding", "ardb"}), "OK");
  ASSERT_EQ(Run({"HSET", "ha", "f", "v"}), "(integer) 1");
  ASSERT_EQ(Run({"SELECT", "1"}), "OK");
  ASSERT_EQ(Run({"HSET", "h", "g", "1"}), "(integer) 1");  // the same name in the other one
  const size_t before = Records();

  faulty_->armed = true;
  faulty_->range_deletes = 0;
  const std::string failed = Run({"SWAPDB", "0", "1"});
  EXPECT_TRUE(failed.starts_with("(error) ERR storage error: IOError: injected fault")) << failed;
  EXPECT_EQ(Records(), before);
  EXPECT_EQ(Run({"DBSIZE"}), "(integer) 2");
  faulty_->armed = false;

  CommandCost cost;
  const Reply r = engine_->Execute(session_, {"SWAPDB", "0", "1"}, &cost);
  ASSERT_EQ(r.Describe(), "OK");
  EXPECT_EQ(cost.kv.batches, 1u);
  EXPECT_EQ(Records(), before);
  // Database 1 (selected) is now what database 0 was, and the other way round.
  EXPECT_EQ(Run({"DBSIZE"}), "(integer) 6");
  EXPECT_EQ(Run({"GET", "s"}), "\"v\"");
  EXPECT_EQ(Run({"HGETALL", "h"}), "[\"f1\", \"1\", \"f2\", \"2\"]");
  const std::string ttl = Run({"TTL", "h"});
  EXPECT_TRUE(ttl == "(integer) 1000" || ttl == "(integer) 999") << ttl;
  EXPECT_EQ(Run({"ZRANGEBYSCORE", "z", "2", "2"}), "[\"b\"]");
  EXPECT_EQ(Run({"LRANGE", "l", "0", "-1"}), "[\"x\", \"y\"]");
  EXPECT_EQ(Run({"SMEMBERS", "set"}), "[\"m\"]");
  EXPECT_EQ(Run({"HGETALL", "ha"}), "[\"f\", \"v\"]");
  EXPECT_EQ(Run({"SELECT", "0"}), "OK");
  EXPECT_EQ(Run({"DBSIZE"}), "(integer) 2");
  EXPECT_EQ(Run({"GET", "other"}), "\"db\"");
  EXPECT_EQ(Run({"HGETALL", "h"}), "[\"g\", \"1\"]");
  EXPECT_EQ(Run({"TTL", "h"}), "(integer) -1");

  // Redis's argument errors, and a swap of a database with itself.
  EXPECT_EQ(Run({"SWAPDB", "x", "1"}), "(error) ERR invalid first DB index");
  EXPECT_EQ(Run({"SWAPDB", "0", "99999999999"}), "(error) ERR invalid second DB index");
  EXPECT_EQ(Run({"SWAPDB", "0", "16"}), "(error) ERR DB index is out of range");
  EXPECT_EQ(Run({"SWAPDB", "-1", "0"}), "(error) ERR DB index is out of range");
  EXPECT_EQ(Run({"SWAPDB", "3", "3"}), "OK");
  EXPECT_EQ(Records(), before);
}

INSTANTIATE_TEST_SUITE_P(Backends, FlushTest,
                         ::testing::Values("memory", "rocksdb", "lmdb", "wiredtiger"));

}  // namespace
}  // namespace kvlab::engine
