// Open loop (--rate), pipelining, the whole-run ETA and the data size said up front.
//
// The coordinated-omission check runs against a real redis-server, paused (SIGSTOP) for a
// second in the middle of an open-loop run: the latency from the intended start must show the
// pause at p99, the service time must not.
#include "workloads/open_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "redis/server_process.h"
#include "testing/kv_test_util.h"
#include "workloads/bench_progress.h"
#include "workloads/catalogue.h"
#include "workloads/data_size.h"
#include "workloads/runner.h"
#include "workloads/space.h"

namespace kvlab::workloads {

using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::Engine;
using engine::EngineOptions;
using redis::RedisServerProcess;
using resp::Reply;

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

TEST(OpenLoopSchedule, ClientsShareTheRateAtEvenIntervals) {
  const Clock::time_point start = Clock::now();
  // 1,000 ops/s over 4 clients: each client every 4 ms, client t offset by t ms.
  for (int t = 0; t < 4; ++t) {
    OpenLoopSchedule s(1000, t, 4, 1, start);
    EXPECT_NEAR(s.interval_s(), 0.004, 1e-12);
    EXPECT_NEAR(Seconds(s.At(0) - start), 0.001 * t, 1e-9);
    EXPECT_NEAR(Seconds(s.At(10) - start), 0.001 * t + 0.040, 1e-9);
    // No drift: the millionth batch is where the arithmetic puts it.
    EXPECT_NEAR(Seconds(s.At(1'000'000) - start), 0.001 * t + 4000.0, 1e-6);
  }
  OpenLoopSchedule third(1000, 2, 4, 1, start);  // batches at 2, 6, 10, ... ms
  EXPECT_EQ(third.CountBefore(start), 0u);
  EXPECT_EQ(third.CountBefore(third.At(0)), 0u);
  EXPECT_EQ(third.CountBefore(third.At(0) + std::chrono::nanoseconds(1)), 1u);
  EXPECT_EQ(third.CountBefore(third.At(250)), 250u);
  EXPECT_EQ(third.CountBefore(start + std::chrono::seconds(1)), 250u);
  // A pipeline of 10 at 1,000 ops/s: one client sends a batch every 10 ms.
  OpenLoopSchedule batched(1000, 0, 1, 10, start);
  EXPECT_NEAR(batched.interval_s(), 0.010, 1e-12);
}

TEST(OpenLoop, DescribesWhichLatencyIsReported) {
  EXPECT_EQ(DescribeLoadModel(OpenLoopOptions(), 4), "");
  OpenLoopOptions open;
  open.rate_per_s = 1000;
  const std::string line = DescribeLoadModel(open, 4);
  EXPECT_NE(line.find("open loop: 1,000 ops/s in total over 4 client(s) (250 ops/s each, "
                      "constant intervals)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("intended start (coordinated omission corrected"), std::string::npos);
  const nlohmann::json j = LoadModelJson(open);
  EXPECT_EQ(j["kind"], "open");
  EXPECT_EQ(j["reported_latency"], "intended_latency_ns");
  EXPECT_EQ(j["coordinated_omission_corrected"], true);
  EXPECT_EQ(j["schedule"], "constant-interval");
  EXPECT_EQ(LoadModelJson(OpenLoopOptions())["coordinated_omission_corrected"], false);
  EXPECT_EQ(WithThousands(0), "0");
  EXPECT_EQ(WithThousands(999), "999");
  EXPECT_EQ(WithThousands(10'000'000), "10,000,000");
}

// The ETA covers the whole run: the running unit's time left plus the units after it.
TEST(BenchProgress, EtaCoversTheWholeRun) {
  // Nothing known yet: no ETA.
  EXPECT_LT(EstimateRemaining(0, 0, 10, 5, -1), 0);
  // First of 10 units, its phase 25% done after 5 s: 15 s left in it, then 9 units of 20 s.
  EXPECT_NEAR(EstimateRemaining(0, 0, 10, 5, 0.25), 15 + 9 * 20, 1e-9);
  // 2 of 4 done in 20 s (10 s each), the third 4 s in at 50% of its phase: 6 s left in it
  // (the mean says more than its phase), then one unit of 10 s.
  EXPECT_NEAR(EstimateRemaining(20, 2, 4, 4, 0.5), 6 + 10, 1e-9);
  // The same unit's phase says more than the mean: the phase wins.
  EXPECT_NEAR(EstimateRemaining(20, 2, 4, 4, 0.2), 16 + 10, 1e-9);
  // Between units: the mean times the units left.
  EXPECT_NEAR(EstimateRemaining(30, 3, 4, 0, -1), 10, 1e-9);
  EXPECT_EQ(EstimateRemaining(40, 4, 4, 0, -1), 0);
}

// An engine over a fresh memory store, as a Target.
class MemoryEngine {
 public:
  MemoryEngine() {
    StoreSpec spec;
    spec.backend = "memory";
    spec.options.dir = scratch_.Sub("store");
    Status s = OpenStore(spec, &store_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    engine_ = std::make_unique<Engine>(store_->store(), EngineOptions());
    target_ = std::make_unique<EngineTarget>(engine_.get(), store_.get(), EngineTargetOptions());
  }
  Target& target() { return *target_; }

 private:
  testing::ScratchDir scratch_;
  std::unique_ptr<OpenedStore> store_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<EngineTarget> target_;
};

// The estimate said before a run is the logical size the load leaves, byte for byte.
TEST(DataSize, EstimateIsWhatTheLoadLeaves) {
  for (const char* type : {"hash", "zset", "set", "list", "string"}) {
    SCOPED_TRACE(type);
    const std::string t = type;
    const std::string load = t == "hash"   ? "HSET {key} {elements}"
                             : t == "zset" ? "ZADD {key} {elements}"
                             : t == "set"  ? "SADD {key} {elements}"
                             : t == "list" ? "RPUSH {key} {elements}"
                                           : "SET {key} {value}";
    const std::string json = R"({"name": "sized", "keyspace": {"type": ")" + t +
                             R"(", "records": 123, "key_prefix": "k:", "elements": )" +
                             (t == "string" ? "0" : "17") + R"(, "value_bytes": 9},
        "load": {"batch": 5, "commands": [")" +
                             load + R"("]},
        "run": [{"operations": 1, "ops": [{"commands": ["EXISTS {key}"]}]}]})";
    Workload w;
    ASSERT_TRUE(ParseWorkload(json, "test", &w).ok()) << json;
    const DataSize d = EstimateDataSize(w);
    ASSERT_TRUE(d.sized);
    MemoryEngine m;
    RunOptions options;
    options.run_phases = false;
    WorkloadRunResult r;
    RunWorkload(w, m.target(), options, &r);
    ASSERT_TRUE(r.error.empty()) << r.error;
    std::unique_ptr<TargetConnection> c;
    ASSERT_TRUE(m.target().Connect(&c).ok());
    LogicalSize logical;
    ASSERT_TRUE(MeasureLogicalSize(*c, &logical).ok());
    EXPECT_EQ(d.keys, logical.keys);
    EXPECT_EQ(d.elements, t == "string" ? 0 : logical.elements);
    EXPECT_EQ(d.bytes, logical.bytes);
  }
}

TEST(DataSize, LeaderboardWithAThousandRecordsSaysTenMillionMembers) {
  Workload w;
  ASSERT_TRUE(ResolveWorkload("leaderboard", &w).ok());
  WorkloadOverrides o;
  o.records = 1000;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  const std::string line = DescribeDataSize(w);
  EXPECT_NE(line.find("leaderboard: loads 10,000,000 zset members in 1,000 keys (~"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(" MB of keys, members and scores) per cell"), std::string::npos) << line;
  // leaderboard writes no values; ycsb-a's hash fields are values --data-size changes.
  EXPECT_FALSE(UsesValues(w));
  Workload ycsb;
  ASSERT_TRUE(ResolveWorkload("ycsb-a", &ycsb).ok());
  EXPECT_TRUE(UsesValues(ycsb));
  o = WorkloadOverrides();
  o.value_bytes = 3;
  ASSERT_TRUE(ApplyOverrides(o, &ycsb).ok());
  EXPECT_EQ(ycsb.keyspace.value_bytes, 3u);
  o.value_bytes = 0;
  EXPECT_FALSE(ApplyOverrides(o, &ycsb).ok());
}

constexpr const char* kMixWorkload = R"({
  "name": "mix", "seed": 7,
  "keyspace": {"type": "hash", "records": 40, "key_prefix": "user", "elements": 8, "value_bytes": 20},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "run", "operations": 300, "key_distribution": "zipfian",
           "ops": [{"name": "read", "weight": 2, "commands": ["HGET {key} {element}"]},
                   {"name": "rmw", "weight": 1,
                    "commands": ["HGET {key} {element}", "HSET {key} {element} {value}"]},
                   {"name": "insert", "weight": 1, "commands": ["HSET {new_key} f v"]}]}]
})";

// Open loop changes when requests are sent, not which: the same command stream, the same exact
// KV counts as a closed-loop run; every call also has its latency from the intended start, which
// is never below its service time.
TEST(OpenLoop, SameCommandsAsClosedLoopAndALatencyFromTheIntendedStart) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kMixWorkload, "test", &w).ok());
  WorkloadRunResult closed, open;
  {
    MemoryEngine m;
    RunWorkload(w, m.target(), RunOptions(), &closed);
  }
  {
    MemoryEngine m;
    RunOptions options;
    options.open_loop.rate_per_s = 20000;  // 300 operations: 15 ms
    RunWorkload(w, m.target(), options, &open);
  }
  ASSERT_TRUE(closed.error.empty()) << closed.error;
  ASSERT_TRUE(open.error.empty()) << open.error;
  const PhaseResult& c = closed.phases.back();
  const PhaseResult& o = open.phases.back();
  EXPECT_FALSE(c.open_loop.has_value());
  ASSERT_TRUE(o.open_loop.has_value());
  EXPECT_TRUE(o.open_loop->open);
  EXPECT_EQ(o.open_loop->unsent, 0u);
  EXPECT_EQ(o.operations, 300u);
  ASSERT_EQ(c.commands.size(), o.commands.size());
  for (const auto& [name, st] : c.commands) {
    SCOPED_TRACE(name);
    const CallStats& os = o.commands.at(name);
    EXPECT_EQ(st.calls, os.calls);
    EXPECT_EQ(st.kv, os.kv);
    EXPECT_EQ(st.intended_ns.count(), 0u);
    EXPECT_EQ(os.intended_ns.count(), os.calls);
    for (double q : {0.5, 0.99, 1.0}) {
      EXPECT_GE(os.intended_ns.Percentile(q), os.latency_ns.Percentile(q)) << q;
    }
  }
  for (const auto& [name, st] : c.ops) {
    EXPECT_EQ(st.calls, o.ops.at(name).calls) << name;
    EXPECT_EQ(o.ops.at(name).intended_ns.count(), st.calls) << name;
  }
}

// A redis-server on a free loopback port, started for the test.
class RedisFixture {
 public:
  RedisFixture() { status_ = server_.Start(); }
  bool up() const { return status_.ok(); }
  std::string why() const { return status_.ToString() + "\n" + server_.LogTail(); }
  RedisServerProcess& server() { return server_; }

 private:
  RedisServerProcess server_;
  Status status_;
};

// Pipelined over RESP: every command of every operation reaches the server once, and each is
// counted once.
TEST(OpenLoop, PipelineSendsEveryCommandOnce) {
  RedisFixture redis;
  ASSERT_TRUE(redis.up()) << redis.why();
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({"name": "pipe", "seed": 2, "threads": 2,
      "keyspace": {"type": "string", "records": 50, "value_bytes": 8},
      "load": {"commands": ["SET {key} {value}"]},
      "run": [{"operations": 301, "ops": [{"name": "rw", "commands": ["SET {key} {value}", "GET {key}"]}]}]})",
                            "test", &w)
                  .ok());
  RespTarget target(redis.server().endpoint());
  RunOptions options;
  options.open_loop.pipeline = 16;
  WorkloadRunResult r;
  RunWorkload(w, target, options, &r);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const PhaseResult& p = r.phases.back();
  ASSERT_TRUE(p.open_loop.has_value());
  EXPECT_FALSE(p.open_loop->open);
  EXPECT_EQ(p.open_loop->pipeline, 16u);
  EXPECT_EQ(p.operations, 301u);
  EXPECT_EQ(p.commands.at("SET").calls, 301u);
  EXPECT_EQ(p.commands.at("GET").calls, 301u);
  EXPECT_EQ(p.commands.at("GET").errors, 0u);
  EXPECT_EQ(p.commands.at("SET").intended_ns.count(), 0u);  // closed loop: no intended start
  redis::RedisClient client(redis.server().endpoint());
  Reply info;
  ASSERT_TRUE(client.Command({"INFO", "commandstats"}, &info).ok());
  // 50 SETs of the load, 301 of the run.
  EXPECT_NE(info.str().find("cmdstat_set:calls=351,"), std::string::npos) << info.str();
  EXPECT_NE(info.str().find("cmdstat_get:calls=301,"), std::string::npos) << info.str();
}

// The server stops (SIGSTOP) for 1 s in the middle of a 3 s open-loop run at 500 ops/s. The
// ~500 requests due during the pause are sent late, after it, so their latencies from the
// intended start spread over (0, 1 s]: about R x (1 s - x) requests exceed x, and p99 is the x
// that 1% of the ~1,500 requests exceed, 1 s - 0.01 x 3 s = 0.97 s. Closed-loop accounting sees
// one slow request (the one the pause caught: 1 in 1,500, far beyond p99) and fast ones.
TEST(OpenLoop, AServerPauseShowsInTheCorrectedP99AndNotInTheServiceTime) {
  RedisFixture redis;
  ASSERT_TRUE(redis.up()) << redis.why();
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({"name": "paused", "seed": 3,
      "keyspace": {"type": "string", "records": 100, "value_bytes": 16},
      "load": {"commands": ["SET {key} {value}"]},
      "run": [{"duration_s": 3, "ops": [{"name": "get", "commands": ["GET {key}"]}]}]})",
                            "test", &w)
                  .ok());
  RespTarget target(redis.server().endpoint());
  RunOptions options;
  options.open_loop.rate_per_s = 500;
  std::thread pauser;
  options.on_loaded = [&] {
    pauser = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::seconds(1));
      redis.server().Pause();
      std::this_thread::sleep_for(std::chrono::seconds(1));
      redis.server().Resume();
    });
  };
  WorkloadRunResult r;
  RunWorkload(w, target, options, &r);
  if (pauser.joinable()) pauser.join();
  ASSERT_TRUE(r.error.empty()) << r.error;
  const PhaseResult& p = r.phases.back();
  const CallStats& get = p.ops.at("get");
  const double service_p99 = get.latency_ns.Percentile(0.99) / 1e9;
  const double service_max = get.latency_ns.max() / 1e9;
  const double corrected_p99 = get.intended_ns.Percentile(0.99) / 1e9;
  const double corrected_max = get.intended_ns.max() / 1e9;
  SCOPED_TRACE("service p99 " + std::to_string(service_p99) + " s, max " +
               std::to_string(service_max) + " s; from intended start p99 " +
               std::to_string(corrected_p99) + " s, max " + std::to_string(corrected_max) + " s; " +
               std::to_string(get.calls) + " calls");
  // The pause happened during the run: one request waited through it.
  EXPECT_GT(service_max, 0.5);
  EXPECT_GT(corrected_max, 0.9);
  // Corrected: p99 is near the pause (0.97 s by the reasoning above; half of it at least).
  EXPECT_GT(corrected_p99, 0.5);
  // Uncorrected: p99 is a normal request's, far below the pause.
  EXPECT_LT(service_p99, 0.1);
  // Every request due in the 3 s (one each 2 ms) was sent or counted as unsent; the client
  // caught up after the pause, so at most the last few (a wake-up late past the end) are unsent.
  EXPECT_EQ(get.calls + p.open_loop->unsent, 1500u);
  EXPECT_LE(p.open_loop->unsent, 5u);
  EXPECT_GT(p.open_loop->max_lag_ns, 900'000'000u);
}

}  // namespace
}  // namespace kvlab::workloads
