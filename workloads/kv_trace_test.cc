// A command's recorded KV trace, replayed on the raw store, issues exactly the operations the
// engine accounted to the command: the engine benchmark's floor is the command's own KV cost.
#include "workloads/kv_trace.h"

#include <gtest/gtest.h>

#include "backends/counting_store.h"
#include "engine/engine.h"
#include "resp/split_args.h"
#include "testing/kv_test_util.h"

namespace kvlab::workloads {

using backends::CountingStore;
using backends::OpCounters;
using backends::OpCounts;
using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::CommandCost;
using engine::Engine;
using engine::EngineOptions;
using engine::Session;
using resp::Reply;
using resp::SplitArgs;

namespace {

TEST(KvTrace, ReplayIssuesTheCommandsOperations) {
  for (const std::string backend : {"memory", "rocksdb"}) {
    for (uint8_t hash_version : {0, 1}) {
      SCOPED_TRACE(backend + " h" + std::to_string(hash_version));
      testing::ScratchDir dir;
      StoreSpec spec;
      spec.backend = backend;
      spec.options.dir = dir.Sub("s");
      std::unique_ptr<OpenedStore> opened;
      ASSERT_TRUE(OpenStore(spec, &opened).ok());
      TracingStore tracing(opened->store());
      EngineOptions options;
      options.versions[encodings::KeyType::kHash] = hash_version;
      Engine engine(&tracing, options);
      Session session;
      const std::pair<const char*, bool> commands[] = {
          // (command, read-only)
          {"HSET h a 1 b 2 c 3", false},
          {"HSET h a 9", false},
          {"HGET h a", true},
          {"HMGET h a b zz", true},
          {"HGETALL h", true},
          {"HLEN h", true},
          {"HDEL h b", false},
          {"ZADD z 1 a 2 b 3 c 4 d", false},
          {"ZINCRBY z 5 a", false},
          {"ZRANGE z 0 2 WITHSCORES", true},
          {"ZREVRANGE z 0 1", true},
          {"ZRANK z c", true},
          {"ZRANGEBYSCORE z 2 +inf LIMIT 0 2", true},
          {"SET s v", false},
          {"MGET s h nothing", true},
          {"DEL h", false},
      };
      for (const auto& [line, read_only] : commands) {
        SCOPED_TRACE(line);
        std::vector<std::string> argv;
        ASSERT_TRUE(SplitArgs(line, &argv));
        tracing.Take();
        CommandCost cost;
        const Reply reply = engine.Execute(session, argv, &cost);
        ASSERT_FALSE(reply.is_error()) << reply.Describe();
        const KvTrace trace = tracing.Take();
        ASSERT_FALSE(trace.empty());
        OpCounters counters;
        CountingStore counting(opened->store(), &counters);
        ASSERT_TRUE(ReplayTrace(trace, &counting).ok());
        OpCounts replayed = counters.Snapshot();
        OpCounts engine_ops = cost.kv;
        if (!read_only) {
          // The replay runs after the command's writes, so it may read other bytes.
          replayed.bytes_read = engine_ops.bytes_read = 0;
        }
        EXPECT_EQ(replayed, engine_ops)
            << "replay " << replayed.Describe() << " vs engine " << engine_ops.Describe();
      }
    }
  }
}

}  // namespace
}  // namespace kvlab::workloads
