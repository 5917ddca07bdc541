// The gate's comparison on fixtures in the exact formats of its three inputs.
#include <gtest/gtest.h>

#include <set>

#include "gate/compare.h"
#include "gate/dataset.h"
#include "gate/gate_test_util.h"
#include "gate/render.h"

namespace kvlab::gate {
namespace {

using nlohmann::json;
using testing::BenchResult;
using testing::FixtureCell;
using testing::FixtureContext;
using testing::Noisy;

Dataset Parse(const json& doc, const std::string& name) {
  Dataset d;
  const Status s = ParseDataset(doc, name, LoadOptions{}, &d);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return d;
}

// Counter tests leave timings out: their fixtures have 3 repetitions, too few to gate timings.
GateOptions CountersOnly() {
  GateOptions o;
  o.timings = TimingMode::kOff;
  return o;
}

GateReport CompareJson(const json& base, const json& cur, GateOptions options = {}) {
  GateReport report;
  const Status s = Compare(Parse(base, "base.json"), Parse(cur, "cur.json"), options, &report);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return report;
}

bool Mentions(const std::vector<std::string>& lines, const std::vector<std::string>& words) {
  for (const std::string& line : lines) {
    bool all = true;
    for (const std::string& w : words) all = all && line.find(w) != std::string::npos;
    if (all) return true;
  }
  return false;
}

TEST(GateCounters, OneExtraGetIsARegressionNamingCommandVersionBackendAndCounter) {
  FixtureCell base;
  base.hash_version = 1;
  base.backend = "rocksdb";
  FixtureCell cur = base;
  cur.kv["gets"] = 3000;  // 3 gets per HGET instead of 2
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_FALSE(r.Passed());
  ASSERT_EQ(r.regressions.size(), 1u);
  EXPECT_TRUE(Mentions(r.regressions, {"HGET", "h1", "rocksdb", "kv.gets", "2 -> 3"}))
      << r.regressions[0];
  const std::string md = RenderMarkdown(r, {});
  EXPECT_NE(md.find("FAIL (1 regression)"), std::string::npos) << md;
  EXPECT_NE(md.find("| **worse** | ycsb-c-field · run · HGET · rocksdb · h1 | kv.gets per call | 2 "
                    "| 3 | +1 |"),
            std::string::npos)
      << md;
  const std::string xml = RenderJUnit(r);
  EXPECT_NE(xml.find("<failure message=\"kv.gets per call: baseline 2, current 3\"/>"),
            std::string::npos)
      << xml;
}

TEST(GateCounters, FewerReadsAreAnImprovementWithTheRefreshCommand) {
  FixtureCell base, cur;
  cur.kv["gets"] = 1000;
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}), CountersOnly());
  EXPECT_TRUE(r.Passed());
  EXPECT_TRUE(r.improved);
  RenderOptions ro;
  ro.update_command = "kvlab gate --update --baseline b.json --current c.json";
  const std::string md = RenderMarkdown(r, ro);
  EXPECT_NE(md.find("| better |"), std::string::npos) << md;
  EXPECT_NE(md.find("refresh the baseline with `kvlab gate --update --baseline b.json --current "
                    "c.json`"),
            std::string::npos)
      << md;
}

TEST(GateCounters, ANewTierCounterCountsFromZero) {
  FixtureCell base, cur;
  cur.counters["tier_round_trips"] = 1000;
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_TRUE(Mentions(r.regressions, {"tier_round_trips", "0 -> 1"}));
}

TEST(GateCounters, PhysicalCountersAreNotGated) {
  FixtureCell base, cur;
  base.counters["rocksdb.block_read_count"] = 10;
  cur.counters["rocksdb.block_read_count"] = 50;
  EXPECT_TRUE(CompareJson(BenchResult({base}), BenchResult({cur}), CountersOnly()).Passed());
}

TEST(GateTimings, ThirtyPercentP99RegressionOverTenRepetitionsFails) {
  FixtureCell base, cur;
  base.p99 = Noisy(1000, 0.03, 10, 1);
  base.p50 = Noisy(500, 0.03, 10, 2);
  cur.p99 = Noisy(1300, 0.03, 10, 3);
  cur.p50 = Noisy(500, 0.03, 10, 4);
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_FALSE(r.Passed());
  ASSERT_EQ(r.regressions.size(), 1u);
  // Holm over the cell's three timing rows (p50, p99, the phase's throughput); times in their
  // unit.
  EXPECT_TRUE(Mentions(r.regressions,
                       {"ycsb-c-field · run · HGET · memory · h0: p99_ns 1.02 µs -> 1.28 µs: "
                        "adjusted p = 3.2e-05 <= 0.01 (raw 1.1e-05, Holm over 3 rows) and +25.6% "
                        "beyond 10%"}))
      << r.regressions[0];
  EXPECT_FALSE(Mentions(r.regressions, {"p50_ns"}));
  // The same data reported but not gated: the row is there, the gate passes.
  GateOptions report_only;
  report_only.timings = TimingMode::kReport;
  const GateReport reported = CompareJson(BenchResult({base}), BenchResult({cur}), report_only);
  EXPECT_TRUE(reported.Passed());
  EXPECT_NE(RenderMarkdown(reported, {}).find("worse (not gated)"), std::string::npos);
}

TEST(GateTimings, ThreePercentNoisePasses) {
  FixtureCell base, cur;
  base.p99 = Noisy(1000, 0.03, 10, 1);
  cur.p99 = Noisy(1000, 0.03, 10, 5);
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_TRUE(r.Passed()) << (r.regressions.empty() ? "" : r.regressions[0]);
  EXPECT_FALSE(r.timings.empty());
}

TEST(GateTimings, TwoRepetitionsAreInconclusiveNeverAPass) {
  FixtureCell base, cur;
  base.p99 = Noisy(1000, 0.03, 2, 1);
  cur.p99 = Noisy(1300, 0.03, 2, 3);
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_TRUE(r.regressions.empty());
  EXPECT_FALSE(r.Passed());
  // Holm's first level over 3 rows is 0.01 / 3: 5 vs 5 repetitions reach 0.0079, 6 vs 6 0.0022.
  EXPECT_TRUE(Mentions(r.inconclusive, {"p99_ns", "need 6 repetitions"}));
  EXPECT_EQ(r.repetitions_needed, 8u);  // with a margin of 2
  EXPECT_NE(RenderMarkdown(r, {}).find("INCONCLUSIVE"), std::string::npos);
  EXPECT_NE(RenderJUnit(r).find("<skipped message="), std::string::npos);
}

TEST(GateInputs, UnchangedResultsPass) {
  FixtureCell a;
  a.p99 = Noisy(1000, 0.03, 6, 1);  // 6 repetitions reach Holm's first level over 3 rows
  FixtureCell b = a;
  b.p99 = Noisy(1000, 0.03, 6, 9);
  const GateReport r = CompareJson(BenchResult({a}), BenchResult({b}));
  EXPECT_TRUE(r.Passed());
  EXPECT_TRUE(r.only_in_baseline.empty());
  EXPECT_TRUE(r.only_in_current.empty());
}

TEST(GateInputs, SchemaOneAndTwoMatchTheSameCells) {
  FixtureCell hash, zset;
  zset.workload = "leaderboard";
  zset.command = "ZADD";
  zset.hash_version = -1;
  zset.zset_version = 2;
  const Dataset one = Parse(BenchResult({hash, zset}, 1), "one.json");
  const Dataset two = Parse(BenchResult({hash, zset}, 2), "two.json");
  EXPECT_EQ(one.description, "kvlab bench result (schema 1)");
  EXPECT_EQ(two.description, "kvlab bench result (schema 2)");
  ASSERT_EQ(one.cells.size(), 4u);  // two commands and their two phases' throughput
  for (const auto& [key, cell] : one.cells) {
    ASSERT_TRUE(two.cells.count(key)) << CellName(cell);
    EXPECT_EQ(CellName(cell), CellName(two.cells.at(key)));
  }
  const CellKey hget{"ycsb-c-field", "run", "HGET", "memory", "hash=0"};
  ASSERT_TRUE(one.cells.count(hget));
  EXPECT_EQ(one.cells.at(hget).metrics.at("kv.gets").samples.size(), 3u);
  GateReport r;
  ASSERT_TRUE(Compare(one, two, {}, &r).ok());
  EXPECT_TRUE(r.regressions.empty());
  EXPECT_TRUE(r.only_in_current.empty());
}

// The space section (runs[].space, added within schema 2) is read past and never compared: a
// baseline without it gates a result with it, whatever its numbers.
TEST(GateInputs, SpaceSectionIsNotGated) {
  const json base = BenchResult({FixtureCell{}});
  json cur = base;
  cur["context"]["gc_at_end"] = true;
  for (json& run : cur["workloads"][0]["runs"]) {
    run["space"] = {
        {"error", nullptr},
        {"logical", {{"keys", 1}, {"elements", 10}, {"key_bytes", 4}, {"bytes", 1000}}},
        {"store",
         {{"records", 20}, {"bytes", 9000}, {"garbage_records", 10}, {"garbage_bytes", 4000}}},
        {"kv_amplification", 9.0},
        {"gc", nullptr}};
  }
  const GateReport r = CompareJson(base, cur, CountersOnly());
  EXPECT_TRUE(r.Passed());
  EXPECT_TRUE(r.regressions.empty());
  EXPECT_TRUE(r.only_in_current.empty());
  EXPECT_TRUE(r.only_in_baseline.empty());
}

// The parts of a probed phase share a name; each is its own cell, by its `at`, not a
// repetition of the others.
TEST(GateInputs, ProbedPhasePartsAreCellsOfTheirOwn) {
  json doc = BenchResult({FixtureCell{}}, 2);
  for (json& run : doc["workloads"][0]["runs"]) {
    const json part = run["phases"][0];
    run["phases"] = json::array();
    for (uint64_t at : {0, 100}) {
      json probe = part;
      probe["name"] = "churn.probe";
      probe["kind"] = "probe";
      probe["at"] = at;
      run["phases"].push_back(probe);
    }
  }
  const Dataset d = Parse(doc, "probed.json");
  std::set<std::string> names;
  for (const auto& [key, cell] : d.cells) names.insert(CellName(cell));
  EXPECT_TRUE(names.count("ycsb-c-field · churn.probe @0 ops · HGET · memory · h0"))
      << *names.begin();
  EXPECT_TRUE(names.count("ycsb-c-field · churn.probe @100 ops · HGET · memory · h0"));
  // And each part's throughput, a cell without a command.
  EXPECT_TRUE(names.count("ycsb-c-field · churn.probe @100 ops · memory · h0"));
  EXPECT_EQ(names.size(), 4u);
  for (const auto& [key, cell] : d.cells) {
    if (key.command.empty()) continue;
    EXPECT_EQ(cell.metrics.at("kv.gets").samples.size(), 3u) << CellName(cell);
  }
}

TEST(GateInputs, SweepPointsAndRespRunsAreCells) {
  json doc = BenchResult({FixtureCell{}}, 2);
  json point = {{"kind", "size"},        {"type", "zset"},
                {"backend", "rocksdb"},  {"profile", {{"zset", "1"}}},
                {"profile_label", "z1"}, {"size", 1000},
                {"rtt_us", 0},           {"partial", false},
                {"error", nullptr},      {"phases", doc["workloads"][0]["runs"][0]["phases"]}};
  point["phases"][0]["name"] = "ZRANGE-10";
  doc["sweeps"].push_back(point);
  // A tier version's cold and warm points are cells of their own.
  for (const char* cache : {"cold", "warm"}) {
    json tier_point = point;
    tier_point["cache"] = cache;
    doc["sweeps"].push_back(tier_point);
  }
  json resp = doc["workloads"][0]["runs"][0];
  resp["target"] = "resp";
  resp["backend"] = "127.0.0.1:7000";
  // Over RESP: no KV counts on the client side, the server's own in store_counters.
  json& hget = resp["phases"][0]["commands"]["HGET"];
  hget["kv"] = nullptr;
  hget["kv_per_call"] = nullptr;
  resp["phases"][0]["store_counters"] = {{"server.hget.calls", 1200},
                                         {"server.hget.gets", 2400},
                                         {"server.hget.bytes_read", 120000},
                                         {"server.kv_total.gets", 2500}};
  doc["workloads"][0]["runs"].push_back(resp);
  const Dataset d = Parse(doc, "sweep.json");
  std::set<std::string> names;
  for (const auto& [key, cell] : d.cells) names.insert(CellName(cell));
  EXPECT_TRUE(names.count("sweep size zset · ZRANGE-10 @n=1000 · HGET · rocksdb · z1"))
      << *names.begin();
  EXPECT_TRUE(names.count("sweep size zset · ZRANGE-10 @n=1000 cold · HGET · rocksdb · z1"));
  EXPECT_TRUE(names.count("sweep size zset · ZRANGE-10 @n=1000 warm · HGET · rocksdb · z1"));
  EXPECT_TRUE(names.count("ycsb-c-field · run · HGET · resp · h0"));
  EXPECT_EQ(names.size(), 10u);  // and the phase of each: its throughput
  for (const auto& [key, cell] : d.cells) {
    if (key.backend != "resp" || key.command.empty()) continue;
    EXPECT_DOUBLE_EQ(cell.metrics.at("kv.gets").samples.at(0), 2.0);
    EXPECT_DOUBLE_EQ(cell.metrics.at("kv.bytes_read").samples.at(0), 100.0);
    EXPECT_EQ(cell.metrics.count("kv.seeks"), 0u);  // zero: left out by the server
  }
}

TEST(GateInputs, UnmatchedCellsAreListedAndMissingOnesFail) {
  FixtureCell memory, rocksdb, lmdb;
  rocksdb.backend = "rocksdb";
  lmdb.backend = "lmdb";
  const GateReport r = CompareJson(BenchResult({memory, rocksdb}), BenchResult({memory, lmdb}));
  ASSERT_EQ(r.only_in_baseline.size(), 1u);
  EXPECT_NE(r.only_in_baseline[0].find("rocksdb"), std::string::npos);
  ASSERT_EQ(r.only_in_current.size(), 1u);
  EXPECT_NE(r.only_in_current[0].find("lmdb"), std::string::npos);
  EXPECT_TRUE(Mentions(r.regressions, {"rocksdb", "missing"}));
  GateOptions allow = CountersOnly();
  allow.allow_missing = true;
  EXPECT_TRUE(
      CompareJson(BenchResult({memory, rocksdb}), BenchResult({memory, lmdb}), allow).Passed());
  EXPECT_NE(RenderMarkdown(r, {}).find("Only in the current result (new, not compared) (1)"),
            std::string::npos);
}

TEST(GateInputs, ACellThatFailsNowIsARegression) {
  FixtureCell base, cur;
  cur.error = "ERR the engine broke";
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_TRUE(Mentions(r.regressions, {"HGET", "ERR the engine broke"}));
}

TEST(GateInputs, PartialIncompleteAndDegradedResultsCannotPass) {
  FixtureCell cell;
  const Dataset base = Parse(BenchResult({cell}), "base.json");
  FixtureContext partial;
  partial.partial = true;
  GateReport r;
  Status s = Compare(base, Parse(BenchResult({cell}, 1, partial), "cur.json"), {}, &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("partial (interrupted)"), std::string::npos) << s.message();

  json incomplete = BenchResult({cell}, 2);
  incomplete["complete"] = false;
  s = Compare(base, Parse(incomplete, "cur.json"), {}, &r);
  EXPECT_NE(s.message().find("incomplete"), std::string::npos) << s.message();

  FixtureCell degraded = cell;
  degraded.hash_version = 2;
  degraded.counters["cache_degraded"] = 1000;
  FixtureCell cached = cell;
  cached.hash_version = 2;
  s = Compare(Parse(BenchResult({cached}), "b.json"), Parse(BenchResult({degraded}), "c.json"), {},
              &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("h2: 1000 commands ran without their Redis tier"), std::string::npos)
      << s.message();

  json marked = BenchResult({cached}, 2);
  marked["workloads"][0]["runs"][0]["degraded"] = "cache unreachable";
  s = Compare(Parse(BenchResult({cached}), "b.json"), Parse(marked, "c.json"), {}, &r);
  EXPECT_NE(s.message().find("cache unreachable"), std::string::npos) << s.message();
}

TEST(GateInputs, DifferentMachinesCompareCountersOnlyAndSaySo) {
  FixtureCell base, cur;
  base.p99 = Noisy(1000, 0.03, 10, 1);
  cur.p99 = Noisy(2000, 0.03, 10, 3);  // much slower, on another machine
  FixtureContext other;
  other.cpu_model = "Other CPU";
  other.logical_cpus = 64;
  const Dataset b = Parse(BenchResult({base}), "b.json");
  const Dataset c = Parse(BenchResult({cur}, 1, other), "c.json");
  GateReport r;
  ASSERT_TRUE(Compare(b, c, {}, &r).ok());
  EXPECT_TRUE(r.Passed());
  EXPECT_FALSE(r.timings_compared);
  EXPECT_TRUE(r.timings.empty());
  EXPECT_FALSE(r.counters.empty());
  const std::string md = RenderMarkdown(r, {});
  EXPECT_NE(md.find("timings not compared: different machines: baseline ran on Test CPU @ 3.0GHz, "
                    "2 logical cpus, current on Other CPU, 64 logical cpus. Counters only."),
            std::string::npos)
      << md;
  // Insisting on gating timings makes the mismatch bad input, named.
  GateOptions strict;
  strict.timings = TimingMode::kGate;
  const Status s = Compare(b, c, strict, &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("different machines"), std::string::npos);

  FixtureContext debug;
  debug.build_type = "Debug";
  const Status d = Compare(b, Parse(BenchResult({cur}, 1, debug), "d.json"), strict, &r);
  EXPECT_NE(d.message().find("different build types: baseline RelWithDebInfo, current Debug"),
            std::string::npos)
      << d.message();
}

TEST(GateInputs, MalformedForeignAndMismatchedInputsAreRejectedByName) {
  Dataset d;
  EXPECT_NE(LoadDataset("/nonexistent/x.json", {}, &d).message().find("cannot read the file"),
            std::string::npos);
  const std::string bad = testing::WriteTemp("bad.json", "{\"schema\": ");
  EXPECT_NE(LoadDataset(bad, {}, &d).message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(ParseDataset(json{{"hello", 1}}, "f.json", {}, &d).message().find("not a kvlab bench"),
            std::string::npos);
  EXPECT_NE(ParseDataset(json::array(), "f.json", {}, &d).message().find("not a JSON object"),
            std::string::npos);
  EXPECT_NE(ParseDataset(json{{"schema", "other-tool"}}, "f.json", {}, &d)
                .message()
                .find("unknown schema 'other-tool'"),
            std::string::npos);
  json newer = BenchResult({FixtureCell{}});
  newer["schema_version"] = 3;
  EXPECT_NE(ParseDataset(newer, "f.json", {}, &d).message().find("schema_version 3"),
            std::string::npos);
  json broken = BenchResult({FixtureCell{}});
  broken["workloads"][0]["runs"][0]["phases"][0]["commands"]["HGET"].erase("calls");
  const Status s = ParseDataset(broken, "f.json", {}, &d);
  EXPECT_NE(s.message().find("f.json: malformed kvlab bench result"), std::string::npos)
      << s.message();

  GateReport r;
  const Status kinds = Compare(Parse(BenchResult({FixtureCell{}}), "b.json"),
                               Parse(testing::ConformResult({}), "c.json"), {}, &r);
  EXPECT_NE(kinds.message().find("cannot compare a kvlab bench result (b.json) with a kvlab "
                                 "conform result (c.json)"),
            std::string::npos)
      << kinds.message();
}

TEST(GateConformance, ANewlyFailingCaseFailsAndIsNamed) {
  testing::FixtureFailure old_failure;
  old_failure.source = "zset.txt";
  old_failure.line = 7;
  old_failure.command = "ZADD z 1 a";
  testing::FixtureFailure new_failure;  // hash.txt:12 HGET h f
  const GateReport r = CompareJson(testing::ConformResult({old_failure}),
                                   testing::ConformResult({old_failure, new_failure}));
  ASSERT_EQ(r.regressions.size(), 1u);
  EXPECT_NE(r.regressions[0].find("hash.txt:12 `HGET h f` on memory h0z0"), std::string::npos)
      << r.regressions[0];
  EXPECT_NE(r.regressions[0].find("Redis replied \"v\", kvlab (nil)"), std::string::npos);
  const std::string md = RenderMarkdown(r, {});
  EXPECT_NE(md.find("still failing"), std::string::npos) << md;

  const GateReport fixed =
      CompareJson(testing::ConformResult({old_failure}), testing::ConformResult({}));
  EXPECT_TRUE(fixed.Passed());
  EXPECT_TRUE(fixed.improved);
  const GateReport clean = CompareJson(testing::ConformResult({}), testing::ConformResult({}));
  EXPECT_TRUE(clean.Passed());
  EXPECT_EQ(clean.conform_cells_compared, 2u);  // HGET and ZADD on memory
  EXPECT_NE(RenderJUnit(clean).find("name=\"memory h0 HGET\""), std::string::npos);
}

TEST(GateGoogleBenchmark, RepetitionsAndUserCounters) {
  const json base =
      testing::GoogleBenchmark("BM_Engine/HGET/v0/memory", Noisy(2000, 0.03, 10, 1), 2.0);
  const Dataset d = Parse(base, "gb.json");
  EXPECT_EQ(d.kind, InputKind::kGoogleBenchmark);
  ASSERT_EQ(d.cells.size(), 1u);
  const Cell& cell = d.cells.begin()->second;
  EXPECT_EQ(cell.metrics.at("real_time").samples.size(), 10u);  // aggregates left out
  EXPECT_NEAR(cell.metrics.at("real_time").samples[0], Noisy(2000, 0.03, 10, 1)[0], 1e-6);
  EXPECT_EQ(cell.metrics.at("gets").kind, MetricKind::kCounter);
  EXPECT_EQ(cell.metrics.at("engine_cpu_ns").kind, MetricKind::kTiming);

  // Google Benchmark writes NaN for the cv of a constant counter: read as null, not an error.
  std::string text = base.dump();
  text.insert(text.rfind('}') - 1, ", \"nan_counter\": -nan, \"nan2\": NaN");
  const std::string path = testing::WriteTemp("gb-nan.json", text);
  Dataset with_nan;
  const Status load = LoadDataset(path, {}, &with_nan);
  EXPECT_TRUE(load.ok()) << load.ToString();

  // One more get per iteration, and 30% slower.
  const json cur =
      testing::GoogleBenchmark("BM_Engine/HGET/v0/memory", Noisy(2600, 0.03, 10, 2), 3.0);
  const GateReport r = CompareJson(base, cur);
  EXPECT_TRUE(Mentions(r.regressions, {"BM_Engine/HGET/v0/memory", "gets", "2 -> 3"}));
  EXPECT_TRUE(Mentions(r.regressions, {"BM_Engine/HGET/v0/memory", "real_time"}));
  // Averages over another number of iterations move in the 5th digit: the same count.
  EXPECT_TRUE(CompareJson(base, testing::GoogleBenchmark("BM_Engine/HGET/v0/memory",
                                                         Noisy(2000, 0.03, 10, 7), 2.0001))
                  .Passed());
  // Another machine class: counters only.
  const GateReport other = CompareJson(
      base, testing::GoogleBenchmark("BM_Engine/HGET/v0/memory", Noisy(2600, 0.03, 10, 2), 2.0, 8));
  EXPECT_TRUE(other.Passed());
  EXPECT_FALSE(other.timings_compared);
}

}  // namespace
}  // namespace kvlab::gate
