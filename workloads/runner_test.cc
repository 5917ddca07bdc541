// RunWorkload on small workloads: the per-command counters in the result equal the KV operations
// each command issues, derived here from the engine's code.
//
// The expected per-call counts come from docs/amplification.md, the table CI gates on: a workload
// run must cost exactly what the table says, call for call.
#include "workloads/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <thread>

#include "testing/amplification_table.h"
#include "testing/kv_test_util.h"
#include "workloads/catalogue.h"

namespace kvlab::workloads {

using backends::kNumOpCountFields;
using backends::kOpCountFields;
using backends::OpCounts;
using backends::OpenedStore;
using backends::OpenStore;
using backends::PhysicalCounters;
using backends::StoreSpec;
using engine::Engine;
using engine::EngineOptions;
using resp::Reply;
using testing::AmplificationRow;
using testing::EvaluateOperations;
using testing::LoadAmplificationTable;

namespace {

// An engine over a fresh store, as a Target.
class EngineFixture {
 public:
  explicit EngineFixture(const std::string& backend = "memory", uint8_t hash_version = 0,
                         bool remote = false, bool physical_per_command = false) {
    StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = scratch_.Sub("store");
    spec.remote_latency = remote;
    Status s = OpenStore(spec, &store_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    EngineOptions options;
    options.versions[encodings::KeyType::kHash] = hash_version;
    engine_ = std::make_unique<Engine>(store_->store(), options);
    EngineTargetOptions target_options;
    target_options.round_trips_per_command = true;
    target_options.physical_per_command = physical_per_command;
    target_options.store_physical = backend != "rocksdb";
    target_ = std::make_unique<EngineTarget>(engine_.get(), store_.get(), target_options);
  }
  Target& target() { return *target_; }
  Engine& engine() { return *engine_; }

 private:
  testing::ScratchDir scratch_;
  std::unique_ptr<OpenedStore> store_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<EngineTarget> target_;
};

OpCounts Ops(uint64_t gets, uint64_t seeks, uint64_t nexts, uint64_t batches,
             uint64_t batch_records) {
  OpCounts c;
  c.gets = gets;
  c.seeks = seeks;
  c.nexts = nexts;
  c.batches = batches;
  c.batch_records = batch_records;
  return c;
}

// The KV operations of one call on an existing record of n fields, from the engine's code:
// every hash command first reads the key-meta (1 get); v0 keeps the count in the meta, v1 does
// not (blind writes, HLEN scans). Bytes are left out (they depend on key lengths).
// The amplification table's row for a command shape: HGET of an existing field, HSET of an
// existing field, HGETALL, HLEN, GET and SET of a string.
OpCounts ExpectedPerCall(const std::string& command, int version, uint64_t n) {
  if (command == "HSET-new-record") return Ops(1, 0, 0, 1, n + 1);  // fields + meta, blind
  static const std::map<std::string, std::string> kRow = {
      {"HGET", "HGET h f1"}, {"HSET", "HSET h f1 x"}, {"HGETALL", "HGETALL h"},
      {"HLEN", "HLEN h"},    {"GET", "GET s"},        {"SET", "SET s x"}};
  std::vector<AmplificationRow> rows;
  EXPECT_TRUE(LoadAmplificationTable(KVLAB_SOURCE_DIR "/docs/amplification.md", &rows).ok());
  for (const AmplificationRow& row : rows) {
    if (!kRow.count(command) || row.command != kRow.at(command)) continue;
    const bool is_string = row.type == "string";
    if (!is_string && std::find(row.versions.begin(), row.versions.end(),
                                std::to_string(version)) == row.versions.end()) {
      continue;
    }
    if (row.cache != AmplificationRow::CacheState::kNone && !is_string) continue;
    std::map<std::string, int64_t> counts;
    EXPECT_TRUE(EvaluateOperations(row.operations, static_cast<int64_t>(n), &counts).ok());
    OpCounts out;
    for (size_t i = 0; i < kNumOpCountFields; ++i) {
      const auto it = counts.find(out.Fields()[i].first);
      if (it != counts.end()) out.*kOpCountFields[i] = static_cast<uint64_t>(it->second);
    }
    return out;
  }
  ADD_FAILURE() << "no row of docs/amplification.md for " << command << " v" << version;
  return {};
}

OpCounts WithoutBytes(OpCounts c) {
  c.bytes_read = 0;
  c.bytes_written = 0;
  return c;
}

OpCounts Times(OpCounts c, uint64_t k) {
  for (auto field : kOpCountFields) c.*field *= k;
  return c;
}

constexpr const char* kHashWorkload = R"({
  "name": "amplification", "seed": 3,
  "keyspace": {"type": "hash", "records": 50, "key_prefix": "user", "elements": 10, "value_bytes": 100},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "hget", "operations": 200, "warmup_operations": 20, "key_distribution": "zipfian",
           "ops": [{"commands": ["HGET {key} {element}"]}]},
          {"name": "hset", "operations": 150, "ops": [{"commands": ["HSET {key} {element} {value}"]}]},
          {"name": "hgetall", "operations": 40, "ops": [{"commands": ["HGETALL {key}"]}]},
          {"name": "hlen", "operations": 30, "ops": [{"commands": ["HLEN {key}"]}]}]
})";

TEST(RunWorkload, CountersEqualTheEnginesOperationsPerCommand) {
  for (int version : {0, 1}) {
    SCOPED_TRACE("hash v" + std::to_string(version));
    Workload w;
    ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
    EngineFixture f("memory", static_cast<uint8_t>(version));
    WorkloadRunResult r;
    RunWorkload(w, f.target(), RunOptions(), &r);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_FALSE(r.partial);
    ASSERT_EQ(r.phases.size(), 5u);

    const PhaseResult& load = r.phases[0];
    EXPECT_TRUE(load.is_load);
    EXPECT_EQ(load.operations, 50u);
    const CallStats& load_hset = load.commands.at("HSET");
    EXPECT_EQ(load_hset.calls, 50u);
    EXPECT_EQ(WithoutBytes(load_hset.kv),
              Times(ExpectedPerCall("HSET-new-record", version, 10), 50));

    const std::pair<const char*, const char*> phases[] = {
        {"hget", "HGET"}, {"hset", "HSET"}, {"hgetall", "HGETALL"}, {"hlen", "HLEN"}};
    for (size_t i = 0; i < 4; ++i) {
      const PhaseResult& p = r.phases[i + 1];
      const auto [phase, command] = phases[i];
      EXPECT_EQ(p.name, phase);
      EXPECT_FALSE(p.interrupted);
      ASSERT_EQ(p.commands.size(), 1u);
      const CallStats& st = p.commands.at(command);
      EXPECT_EQ(st.calls, w.phases[i].operations) << command;  // warm-up not recorded
      EXPECT_EQ(p.operations, w.phases[i].operations);
      EXPECT_EQ(st.errors, 0u);
      EXPECT_EQ(st.latency_ns.count(), st.calls);
      EXPECT_TRUE(st.has_kv);
      EXPECT_EQ(WithoutBytes(st.kv), Times(ExpectedPerCall(command, version, 10), st.calls))
          << command << ": " << st.kv.Describe();
      EXPECT_GT(st.kv.bytes_read, 0u);
      // The operation's stats are its one command's.
      EXPECT_EQ(p.ops.begin()->second.kv, st.kv);
      EXPECT_EQ(p.ops.begin()->second.calls, st.calls);
    }
    // Reads write nothing; an update writes the field's sub-key and its 100-byte value.
    EXPECT_EQ(r.phases[1].commands.at("HGET").kv.bytes_written, 0u);
    EXPECT_GT(r.phases[2].commands.at("HSET").kv.bytes_written, 150u * 100);
  }
}

TEST(RunWorkload, StringsAndMultiCommandOperations) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({
    "name": "strings", "keyspace": {"type": "string", "records": 20, "key_prefix": "s:", "value_bytes": 10},
    "load": {"commands": ["SET {key} {value}"]},
    "run": [{"operations": 100, "ops": [{"name": "rmw", "commands": ["GET {key}", "SET {key} {value}"]}]}]
  })",
                            "t", &w)
                  .ok());
  EngineFixture f;
  WorkloadRunResult r;
  RunWorkload(w, f.target(), RunOptions(), &r);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const PhaseResult& run = r.phases[1];
  EXPECT_EQ(WithoutBytes(run.commands.at("GET").kv), Times(ExpectedPerCall("GET", 0, 0), 100));
  EXPECT_EQ(WithoutBytes(run.commands.at("SET").kv), Times(ExpectedPerCall("SET", 0, 0), 100));
  const CallStats& rmw = run.ops.at("rmw");
  EXPECT_EQ(rmw.calls, 100u);
  EXPECT_EQ(rmw.kv, run.commands.at("GET").kv + run.commands.at("SET").kv);
}

// With several threads every command still costs exactly its operations: the counts are the
// sums over threads, per command.
TEST(RunWorkload, CountsStayExactUnderThreads) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
  w.threads = 3;
  EngineFixture f;
  WorkloadRunResult r;
  RunWorkload(w, f.target(), RunOptions(), &r);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const CallStats& hget = r.phases[1].commands.at("HGET");
  EXPECT_EQ(hget.calls, 200u);
  EXPECT_EQ(WithoutBytes(hget.kv), Times(ExpectedPerCall("HGET", 0, 10), 200));
  const CallStats& hset = r.phases[2].commands.at("HSET");
  EXPECT_EQ(WithoutBytes(hset.kv), Times(ExpectedPerCall("HSET", 0, 10), 150));
}

// The same workload and seed give the same command stream, hence the same counts, also for
// distributions whose counts depend on which records are picked (HGETALL of freshly inserted
// records with the latest distribution).
TEST(RunWorkload, FixedSeedIsReproducible) {
  Workload w;
  ASSERT_TRUE(BuiltinWorkload("ycsb-d", &w).ok());
  WorkloadOverrides o;
  o.records = 200;
  o.operations = 600;
  o.warmup_operations = 0;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  std::vector<OpCounts> totals;
  for (int i = 0; i < 2; ++i) {
    EngineFixture f;
    WorkloadRunResult r;
    RunWorkload(w, f.target(), RunOptions(), &r);
    ASSERT_TRUE(r.error.empty()) << r.error;
    const PhaseResult& run = r.phases[1];
    const CallStats& reads = run.commands.at("HGETALL");
    // Every read finds a complete record: 1 get + 1 seek + 10 nexts, even of new records.
    EXPECT_EQ(WithoutBytes(reads.kv), Times(ExpectedPerCall("HGETALL", 0, 10), reads.calls));
    EXPECT_GT(run.commands.at("HSET").calls, 0u);
    totals.push_back(reads.kv + run.commands.at("HSET").kv);
  }
  EXPECT_EQ(totals[0], totals[1]);
}

// zset-churn, small: the probe runs before the churn and after every `every` re-scores, each
// sample a phase of its own at its point of the churn. A range read of 10 costs the same KV
// operations at every point, whatever the churn left behind (the backend's tombstones are below
// the KV interface: they show in its physical counters and times, not here).
TEST(RunWorkload, ProbesSampleAPhaseAndTheirKvCostStaysConstant) {
  Workload w;
  ASSERT_TRUE(BuiltinWorkload("zset-churn", &w).ok());
  WorkloadOverrides o;
  o.elements = 200;
  o.operations = 1000;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  w.phases[0].probe->every = 300;
  w.phases[0].probe->operations = 5;
  for (const char* backend : {"memory", "rocksdb"}) {
    SCOPED_TRACE(backend);
    EngineFixture f(backend);
    WorkloadRunResult r;
    RunWorkload(w, f.target(), RunOptions(), &r);
    ASSERT_TRUE(r.error.empty()) << r.error;
    std::vector<uint64_t> probes_at, chunks_at;
    uint64_t rescores = 0;
    std::optional<OpCounts> first;
    for (const PhaseResult& p : r.phases) {
      if (p.is_load) continue;
      ASSERT_TRUE(p.at.has_value()) << p.name;
      if (!p.is_probe) {
        EXPECT_EQ(p.name, "churn");
        chunks_at.push_back(*p.at);
        rescores += p.commands.at("ZADD").calls;
        continue;
      }
      EXPECT_EQ(p.name, "churn.probe");
      probes_at.push_back(*p.at);
      for (const char* command : {"ZRANGE", "ZRANGEBYSCORE"}) {
        const CallStats& st = p.commands.at(command);
        ASSERT_EQ(st.calls, 5u) << command;
        ASSERT_EQ(st.errors, 0u) << command;
      }
      const OpCounts probe =
          WithoutBytes(p.commands.at("ZRANGE").kv + p.commands.at("ZRANGEBYSCORE").kv);
      if (!first) first = probe;
      EXPECT_EQ(probe, *first) << "at " << *p.at;
    }
    EXPECT_EQ(probes_at, (std::vector<uint64_t>{0, 300, 600, 900, 1000}));
    EXPECT_EQ(chunks_at, (std::vector<uint64_t>{0, 300, 600, 900}));
    EXPECT_EQ(rescores, 1000u);
  }
}

TEST(RunWorkload, StopsCleanlyAndMarksPartial) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
  w.phases[0].operations = 0;
  w.phases[0].duration_s = 60;  // only the stop can end it in time
  EngineFixture f;
  volatile std::sig_atomic_t stop = 0;
  RunOptions options;
  options.stop = &stop;
  options.progress_interval_s = 0.01;
  options.progress = [&](const Progress& p) {
    if (p.stage == "hget" && p.done >= 50) stop = 1;
  };
  WorkloadRunResult r;
  RunWorkload(w, f.target(), options, &r);
  EXPECT_TRUE(r.partial);
  EXPECT_TRUE(r.error.empty());
  ASSERT_EQ(r.phases.size(), 2u);  // load, and the interrupted phase; the rest never ran
  EXPECT_FALSE(r.phases[0].interrupted);
  EXPECT_TRUE(r.phases[1].interrupted);
  EXPECT_GE(r.phases[1].commands.at("HGET").calls, 30u);  // what ran is kept
}

TEST(RunWorkload, DurationBoundsAPhase) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
  w.phases.resize(1);
  w.phases[0].operations = 0;
  w.phases[0].duration_s = 0.2;
  w.threads = 2;
  EngineFixture f;
  WorkloadRunResult r;
  RunWorkload(w, f.target(), RunOptions(), &r);
  ASSERT_FALSE(r.partial);
  EXPECT_GT(r.phases[1].operations, 0u);
  EXPECT_GE(r.phases[1].wall_seconds, 0.2);
}

// A phase bounded by its duration alone reports no operation total (its warm-up is not its
// length), so that progress follows its time rather than jumping to 100% after the warm-up.
TEST(RunWorkload, ProgressOfADurationBoundPhaseIsItsTime) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
  w.phases.resize(1);
  w.phases[0].operations = 0;
  w.phases[0].warmup_operations = 50;
  w.phases[0].duration_s = 0.2;
  EngineFixture f;
  std::vector<Progress> seen;
  RunOptions options;
  options.progress_interval_s = 0.02;
  options.progress = [&](const Progress& p) { seen.push_back(p); };
  WorkloadRunResult r;
  RunWorkload(w, f.target(), options, &r);
  ASSERT_FALSE(r.partial);
  size_t run_reports = 0;
  for (const Progress& p : seen) {
    if (p.stage != "hget") continue;
    ++run_reports;
    EXPECT_EQ(p.total, 0u);
    EXPECT_EQ(p.duration_s, 0.2);
  }
  EXPECT_GT(run_reports, 0u);
}

// before_operation runs before every operation of the run phases, warm-up included.
TEST(RunWorkload, BeforeOperationHook) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
  w.phases.resize(1);
  EngineFixture f;
  RunOptions options;
  uint64_t calls = 0;
  options.before_operation = [&] { ++calls; };
  WorkloadRunResult r;
  RunWorkload(w, f.target(), options, &r);
  EXPECT_EQ(calls, 200u + 20u);
  options.run_phases = false;
  options.load = true;
  RunWorkload(w, f.target(), options, &r);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_TRUE(r.phases[0].is_load);
}

TEST(RunWorkload, LoadErrorsFailTheRun) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({
    "name": "bad", "keyspace": {"type": "string", "records": 3, "key_prefix": "k"},
    "load": {"commands": ["SET {key} v", "HSET {key} f v"]},
    "run": [{"operations": 1, "ops": [{"commands": ["GET {key}"]}]}]
  })",
                            "t", &w)
                  .ok());
  EngineFixture f;
  WorkloadRunResult r;
  RunWorkload(w, f.target(), RunOptions(), &r);
  EXPECT_TRUE(r.partial);
  EXPECT_NE(r.error.find("load: 'HSET k0 f v' replied (error) WRONGTYPE"), std::string::npos)
      << r.error;
}

// Error replies in run phases are counted per command, with the first text kept. A command that
// errors on more than 1% of its calls fails the run, naming the workload line and the first
// error, unless its operation declares the errors expected.
TEST(RunWorkload, RunErrorsFailTheRunUnlessExpected) {
  auto workload = [](const std::string& op) {
    Workload w;
    const Status s = ParseWorkload(R"({
      "name": "errors", "keyspace": {"type": "string", "records": 3, "key_prefix": "k"},
      "load": {"commands": ["SET {key} v"]},
      "run": [{"name": "reads", "operations": 10, "ops": [)" +
                                       op + R"(]},
              {"name": "after", "operations": 1, "ops": [{"commands": ["GET {key}"]}]}]
    })",
                                   "t", &w);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return w;
  };
  EngineFixture f;
  WorkloadRunResult r;
  RunWorkload(workload(R"({"name": "wrong", "commands": ["HGET {key} f"]})"), f.target(),
              RunOptions(), &r);
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.phases.size(), 2u) << "the run stops after the failing phase";
  EXPECT_NE(r.error.find("phase 'reads', operation 'wrong': 'HGET {key} f' replied an error to 10 "
                         "of 10 calls (100.0%, more than 1%); the first: WRONGTYPE"),
            std::string::npos)
      << r.error;
  const CallStats& st = r.phases[1].commands.at("HGET");
  EXPECT_EQ(st.errors, 10u);
  EXPECT_EQ(st.first_error, "WRONGTYPE Operation against a key holding the wrong kind of value");

  RunWorkload(workload(R"({"name": "wrong", "commands": ["HGET {key} f"], "expect_errors": true})"),
              f.target(), RunOptions(), &r);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.phases.size(), 3u);
  EXPECT_EQ(r.phases[1].commands.at("HGET").errors, 10u);
}

// Through the remote-store decorator each command carries its round trips, once: on every
// backend, with and without the backend's physical counters per command (RocksDB's default,
// which once added the decorator's round trips a second time).
TEST(RunWorkload, RoundTripsPerCommand) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kHashWorkload, "test", &w).ok());
  for (const std::string backend : {"memory", "rocksdb", "lmdb"}) {
    for (const bool physical : {false, true}) {
      SCOPED_TRACE(backend + (physical ? " physical per command" : ""));
      EngineFixture f(backend, 0, /*remote=*/true, physical);
      WorkloadRunResult r;
      RunWorkload(w, f.target(), RunOptions(), &r);
      ASSERT_TRUE(r.error.empty()) << r.error;
      // HGET: two gets, two round trips. HSET: two gets and a batch.
      EXPECT_EQ(r.phases[1].commands.at("HGET").counters.at("remote.round_trips"), 2u * 200);
      EXPECT_EQ(r.phases[2].commands.at("HSET").counters.at("remote.round_trips"), 3u * 150);
      // The phase's store-wide reading names each counter once; its round trips are the
      // phase's (warm-up included).
      std::map<std::string, uint64_t> phase;
      for (const auto& [name, value] : r.phases[1].store_counters) {
        EXPECT_TRUE(phase.emplace(name, value).second) << name << " appears twice";
      }
      EXPECT_EQ(phase["remote.round_trips"], 2u * (200 + 20));
    }
  }
}

// What a RESP target reads from `kvlab serve` per phase: INFO kvlab's per-command counters, as
// the engine writes them, equal the KV operations the commands reported one by one.
TEST(ServerKvCounters, ParseTheEnginesInfoKvlab) {
  EngineFixture f;
  std::unique_ptr<TargetConnection> c;
  ASSERT_TRUE(f.target().Connect(&c).ok());
  Reply reply;
  CommandSample hset, hget1, hget2, info;
  ASSERT_TRUE(c->Execute({"HSET", "h", "a", "1", "b", "2"}, &reply, &hset).ok());
  ASSERT_TRUE(c->Execute({"HGET", "h", "a"}, &reply, &hget1).ok());
  ASSERT_TRUE(c->Execute({"HGET", "h", "zz"}, &reply, &hget2).ok());
  ASSERT_TRUE(c->Execute({"INFO", "kvlab"}, &reply, &info).ok());
  ASSERT_EQ(reply.type(), Reply::Type::kBulk) << reply.str();

  std::map<std::string, uint64_t> counters;
  for (const auto& [name, value] : ServerKvCounters(reply.str())) {
    EXPECT_TRUE(counters.emplace(name, value).second) << name << " twice";
  }
  EXPECT_EQ(counters.at("server.hset.calls"), 1u);
  EXPECT_EQ(counters.at("server.hset.gets"), hset.kv.gets);
  EXPECT_EQ(counters.at("server.hset.batch_records"), hset.kv.batch_records);
  EXPECT_EQ(counters.at("server.hset.bytes_written"), hset.kv.bytes_written);
  EXPECT_EQ(counters.at("server.hget.calls"), 2u);
  EXPECT_EQ(counters.at("server.hget.gets"), hget1.kv.gets + hget2.kv.gets);
  EXPECT_EQ(counters.at("server.kv_total.gets"), hset.kv.gets + hget1.kv.gets + hget2.kv.gets);
  // Timings and zero counters are left out.
  EXPECT_EQ(counters.count("server.hset.usec"), 0u);
  EXPECT_EQ(counters.count("server.hset.usec_per_call"), 0u);
  EXPECT_EQ(counters.count("server.hget.nexts"), 0u);
}

TEST(ServerKvCounters, IgnoreWhatIsNotACounter) {
  const PhysicalCounters c = ServerKvCounters(
      "# Kvlab\r\nbackend:memory\r\nkvstat_get:calls=2,usec=5,gets=x,nexts=3,seeks=-1,prevs\r\n"
      "kvstat_broken\r\ncmdstat_get:calls=9\r\nkv_total:gets=7");
  const PhysicalCounters want = {
      {"server.get.calls", 2}, {"server.get.nexts", 3}, {"server.kv_total.gets", 7}};
  EXPECT_EQ(c, want);
  EXPECT_TRUE(ServerKvCounters("").empty());
}

}  // namespace
}  // namespace kvlab::workloads
