// A trace recorded by the server (`kvlab serve --record`), replayed in-process through the
// engine, makes exactly the KV operations the live run made, command for command.
#include "workloads/trace_replay.h"

#include <gtest/gtest.h>

#include "testing/kv_test_util.h"
#include "testing/server_test_util.h"
#include "traces/recorder.h"
#include "workloads/catalogue.h"

namespace kvlab::workloads {
namespace {

using backends::OpCounts;

// The live run: a small `game` (hashes, a zset, sets, lists) over RESP to a server recording
// a trace; the server's cumulative per-command counters (INFO kvlab) after it.
backends::PhysicalCounters LiveRun(const std::string& trace, const Workload& w) {
  traces::RecorderOptions ro;
  ro.path = trace;
  std::unique_ptr<traces::TraceRecorder> recorder;
  EXPECT_TRUE(traces::TraceRecorder::Open(ro, &recorder).ok());
  backends::PhysicalCounters counters;
  {
    testing::TestServer server([&](server::ServerOptions* o) { o->recorder = recorder.get(); });
    redis::RedisEndpoint endpoint;
    endpoint.unix_path = server.socket_path();
    RespTarget target(endpoint);
    WorkloadRunResult r;
    RunWorkload(w, target, RunOptions(), &r);
    EXPECT_TRUE(r.error.empty()) << r.error;
    counters = target.StoreCounters();
    // A transaction and a second database, which the replay must reproduce per client.
    std::unique_ptr<TargetConnection> c;
    EXPECT_TRUE(target.Connect(&c).ok());
    resp::Reply reply;
    CommandSample sample;
    for (const std::vector<std::string>& argv :
         std::vector<std::vector<std::string>>{{"SELECT", "3"},
                                               {"MULTI"},
                                               {"HSETNX", "h3", "b", "2"},
                                               {"INCR", "n3"},
                                               {"EXEC"},
                                               {"HGET", "h3", "b"},
                                               // Not replayed: a blocking command (it times
                                               // out here) and one kvlab does not serve.
                                               {"BLPOP", "nothing", "0.01"},
                                               {"XADD", "s", "*", "f", "v"}}) {
      EXPECT_TRUE(c->Execute(argv, &reply, &sample).ok());
    }
    counters = target.StoreCounters();
  }
  EXPECT_TRUE(recorder->Close().ok());
  return counters;
}

TEST(TraceReplayTest, ARecordedTraceReplaysWithTheLiveRunsKvCountsExactly) {
  testing::ScratchDir dir;
  const std::string trace = dir.Sub("game.kvt");
  Workload w;
  ASSERT_TRUE(BuiltinWorkload("game", &w).ok());
  WorkloadOverrides o;
  o.records = 40;
  o.operations = 1500;
  o.warmup_operations = 0;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  const backends::PhysicalCounters live = LiveRun(trace, w);
  std::map<std::string, uint64_t> live_by_name(live.begin(), live.end());

  Workload replay;
  Status s = ResolveWorkload("trace:" + trace, &replay);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(replay.trace.has_value());
  testing::ScratchDir store_dir;
  backends::StoreSpec spec;
  spec.backend = "memory";
  spec.options.dir = store_dir.Sub("store");
  std::unique_ptr<backends::OpenedStore> store;
  ASSERT_TRUE(backends::OpenStore(spec, &store).ok());
  engine::Engine engine(store->store(), engine::EngineOptions());
  EngineTarget target(&engine, store.get(), EngineTargetOptions());
  WorkloadRunResult r;
  RunWorkload(replay, target, RunOptions(), &r);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.phases.size(), 1u);
  const PhaseResult& p = r.phases[0];
  size_t compared = 0;
  auto live_of = [&](const std::string& command, const std::string& field) {
    return live_by_name["server." + command + "." + field];
  };
  for (const auto& [name, st] : p.commands) {
    std::string lower = name;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "info") continue;                       // the live run's own counter reads
    if (lower == "hsetnx" || lower == "incr") continue;  // queued here; their work is EXEC's
    if (lower == "exec") {
      // The server counts a transaction's commands under their own names when EXEC runs
      // them; in-process, EXEC's sample holds them.
      for (const auto& [field, value] : st.kv.Fields()) {
        EXPECT_EQ(value, live_of("exec", field) + live_of("hsetnx", field) + live_of("incr", field))
            << field;
      }
      EXPECT_GT(st.kv.batches, 0u);
      continue;
    }
    ASSERT_TRUE(st.has_kv) << name;
    EXPECT_EQ(st.calls, live_by_name["server." + lower + ".calls"]) << name;
    for (const auto& [field, value] : st.kv.Fields()) {
      EXPECT_EQ(value, live_by_name["server." + lower + "." + field]) << name << " " << field;
    }
    ++compared;
  }
  EXPECT_GE(compared, 10u);  // the game's hash, zset, set and list commands, MULTI, SELECT
  // Not sent, but counted and named.
  ASSERT_EQ(p.not_replayed.count("blpop"), 1u);
  EXPECT_EQ(p.not_replayed.at("blpop").count, 1u);
  EXPECT_NE(p.not_replayed.at("blpop").reason.find("blocking"), std::string::npos);
  EXPECT_EQ(p.not_replayed.at("xadd").reason, "not a command kvlab serves");
  // The replay's keys are the recorded ones, in their database.
  resp::Reply reply;
  engine::Session session;
  session.db = 3;
  reply = engine.Execute(session, {"HGET", "h3", "b"});
  EXPECT_EQ(reply.str(), "2");
}

TEST(TraceReplayTest, PaceAndLengthOverrides) {
  testing::ScratchDir dir;
  const std::string trace = dir.Sub("t.kvt");
  traces::TraceWriter writer;
  ASSERT_TRUE(writer.Open(trace, traces::TraceHeader()).ok());
  for (uint64_t i = 0; i < 50; ++i) {
    ASSERT_TRUE(writer.Add(i * 1000, 1 + i % 2, 0, {"INCR", "c"}).ok());
  }
  ASSERT_TRUE(writer.Close().ok());
  Workload w;
  ASSERT_TRUE(ResolveWorkload("trace:" + trace, &w).ok());
  WorkloadOverrides o;
  o.pace = "10x";
  o.operations = 20;
  o.warmup_operations = 5;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  EXPECT_EQ(w.trace->pace, 10);
  o.pace = "fast";
  EXPECT_FALSE(ApplyOverrides(o, &w).ok());
  o.pace.reset();
  o.records = 5;
  EXPECT_FALSE(ApplyOverrides(o, &w).ok());
  Workload generated;
  ASSERT_TRUE(BuiltinWorkload("ycsb-a", &generated).ok());
  WorkloadOverrides paced;
  paced.pace = "recorded";
  EXPECT_FALSE(ApplyOverrides(paced, &generated).ok());

  testing::ScratchDir store_dir;
  backends::StoreSpec spec;
  spec.backend = "memory";
  spec.options.dir = store_dir.Sub("store");
  std::unique_ptr<backends::OpenedStore> store;
  ASSERT_TRUE(backends::OpenStore(spec, &store).ok());
  engine::Engine engine(store->store(), engine::EngineOptions());
  EngineTarget target(&engine, store.get(), EngineTargetOptions());
  WorkloadRunResult r;
  RunWorkload(w, target, RunOptions(), &r);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.phases[0].operations, 20u);
  EXPECT_EQ(r.phases[0].commands.at("INCR").calls, 20u);
  engine::Session session;
  EXPECT_EQ(engine.Execute(session, {"GET", "c"}).str(), "25");  // warm-up included
}

TEST(TraceReplayTest, ACorruptTraceIsABadWorkload) {
  testing::ScratchDir dir;
  const std::string trace = dir.Sub("t.kvt");
  traces::TraceWriter writer;
  ASSERT_TRUE(writer.Open(trace, traces::TraceHeader()).ok());
  ASSERT_TRUE(writer.Add(0, 1, 0, {"SET", "k", "v"}).ok());
  ASSERT_TRUE(writer.Close().ok());
  std::filesystem::resize_file(trace, std::filesystem::file_size(trace) - 3);
  Workload w;
  Status s = ResolveWorkload("trace:" + trace, &w);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kvlab::workloads
