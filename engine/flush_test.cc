// FLUSHDB and FLUSHALL are one atomic write: their range deletes (the key-metas and every sub-key
// kind) go into the command's batch. A fault injected between two of the ranges fails the whole
// write, so the keyspace is untouched and the reply is the error; nothing is half-flushed.
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

INSTANTIATE_TEST_SUITE_P(Backends, FlushTest,
                         ::testing::Values("memory", "rocksdb", "lmdb", "wiredtiger"));

}  // namespace
}  // namespace kvlab::engine
