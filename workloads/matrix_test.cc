// The matrix (backends x versions, runtime switch), RESP targets, sweeps and the result file.
#include "workloads/matrix.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "redis/server_process.h"
#include "testing/kv_test_util.h"
#include "workloads/catalogue.h"
#include "workloads/report.h"
#include "workloads/result.h"
#include "workloads/sweep.h"

namespace kvlab::workloads {

using redis::RedisServerProcess;

namespace {

Workload Small(const std::string& name, int64_t records, int64_t operations) {
  Workload w;
  EXPECT_TRUE(BuiltinWorkload(name, &w).ok());
  WorkloadOverrides o;
  o.records = records;
  o.operations = operations;
  o.warmup_operations = 10;
  EXPECT_TRUE(ApplyOverrides(o, &w).ok());
  return w;
}

TEST(Matrix, AvailableVersionsAreProbedFromTheEngine) {
  auto available = AvailableVersions(engine::EngineOptions());
  ASSERT_FALSE(available["hash"].empty());
  ASSERT_FALSE(available["zset"].empty());
  EXPECT_EQ(available["hash"].front(), "0");
  EXPECT_EQ(available["zset"].front(), "0");
}

TEST(Matrix, PlansOnlyTheVersionsAWorkloadUses) {
  MatrixOptions m;
  m.backends = {"memory", "rocksdb"};
  m.versions["hash"] = {"0", "1"};
  m.versions["zset"] = {"0"};
  const auto ycsb = PlanCells(Small("ycsb-a", 10, 10), m);
  ASSERT_EQ(ycsb.size(), 4u);
  EXPECT_EQ(ycsb[1].Label(), "memory h1");
  EXPECT_FALSE(ycsb[1].profile.versions.count("zset"));
  EXPECT_EQ(PlanCells(Small("session-store", 10, 10), m).size(), 2u);
  EXPECT_EQ(PlanCells(Small("leaderboard", 2, 10), m).size(), 2u);
  EXPECT_EQ(PlanCells(Small("ycsb-e", 10, 10), m)[3].Label(), "rocksdb h1 z0");
}

// Each cell runs with its own versions, set at runtime with CONFIG SET: the counts show it (an
// HSET of an existing field reads it under v0 and writes blind under v1).
TEST(Matrix, RunsEveryCellWithItsVersions) {
  testing::ScratchDir scratch;
  Workload w = Small("ycsb-a", 100, 300);
  MatrixOptions m;
  m.backends = {"memory", "lmdb"};
  m.versions["hash"] = {"0", "1"};
  m.versions["zset"] = {"0"};
  m.repetitions = 2;
  m.store.options.dir = scratch.path();  // keep the stores, to check their directories
  std::vector<Cell> started;
  m.on_cell = [&](const Cell& c, size_t, size_t total) {
    started.push_back(c);
    EXPECT_EQ(total, 8u);
  };
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 8u);
  ASSERT_EQ(started.size(), 8u);
  EXPECT_EQ(results[4].cell.repetition, 1);  // repetitions interleave whole matrices
  for (const CellResult& r : results) {
    SCOPED_TRACE(r.cell.Label());
    ASSERT_TRUE(r.run.error.empty()) << r.run.error;
    ASSERT_EQ(r.run.phases.size(), 2u);
    const CallStats& hset = r.run.phases[1].commands.at("HSET");
    EXPECT_EQ(hset.kv.gets, hset.calls * (r.cell.profile.VersionOf("hash") == "0" ? 2 : 1));
    // Both persist (the memory backend as a snapshot file): 100 records of 10 x 100 bytes.
    EXPECT_TRUE(r.persistent);
    EXPECT_GT(r.disk_bytes, 100u * 10 * 100);
    EXPECT_TRUE(r.store_kept);
    EXPECT_TRUE(std::filesystem::exists(r.store_dir));
  }
  // A second run into the same --dir refuses to reuse the stores.
  std::vector<CellResult> again;
  m.repetitions = 1;
  m.on_cell = nullptr;
  RunMatrix(w, m, &again);
  ASSERT_FALSE(again.empty());
  EXPECT_NE(again[0].run.error.find("already exists"), std::string::npos);
}

// --migration-from: beside the plain cell, two cells whose first half of the records was loaded
// under the other version; with migration on, the first write to an old key reads it whole (a
// seek, on top of the HSET's own gets), and with it off, the write stays a point write.
TEST(Matrix, MigrationCellsLoadHalfTheKeysUnderTheOtherVersion) {
  Workload w = Small("ycsb-a", 100, 300);
  MatrixOptions m;
  m.backends = {"memory"};
  m.versions["hash"] = {"kvrocks", "ardb"};
  m.migration_from.versions["hash"] = "ardb";
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 4u);  // the ardb cell has no migration cells: it is the old version
  EXPECT_EQ(results[0].cell.Label(), "memory hkvrocks");
  EXPECT_EQ(results[1].cell.Label(), "memory hkvrocks half-hardb keep");
  EXPECT_EQ(results[2].cell.Label(), "memory hkvrocks half-hardb migrate");
  EXPECT_EQ(results[3].cell.Label(), "memory hardb");
  for (const CellResult& r : results) {
    SCOPED_TRACE(r.cell.Label());
    ASSERT_TRUE(r.run.error.empty()) << r.run.error;
    ASSERT_EQ(r.run.phases.size(), 2u);
    // The load phase: in a migration cell, the second half of the records only.
    const uint64_t loaded = r.run.phases[0].commands.at("HSET").calls;
    const uint64_t all = results[0].run.phases[0].commands.at("HSET").calls;
    EXPECT_EQ(loaded, r.cell.half_under.versions.empty() ? all : all / 2);
    const CallStats& hset = r.run.phases[1].commands.at("HSET");
    if (r.cell.migrate) {
      EXPECT_GT(hset.kv.seeks, 0u);
    } else {
      EXPECT_EQ(hset.kv.seeks, 0u);
    }
  }
}

// WiredTiger's space is its data, not its log files (each fallocated whole when created).
TEST(Matrix, DiskSpaceIsTheStoresData) {
  Workload w = Small("ycsb-c-field", 200, 50);
  MatrixOptions m;
  m.backends = {"wiredtiger", "rocksdb", "lmdb"};
  m.versions["hash"] = {"0"};
  std::vector<CellResult> cells;
  RunMatrix(w, m, &cells);
  ASSERT_EQ(cells.size(), 3u);
  for (const CellResult& c : cells) {
    ASSERT_TRUE(c.run.error.empty()) << c.run.error;
    EXPECT_GT(c.disk_bytes, 50'000u) << c.cell.backend;  // 200 KB of values, compressed
    EXPECT_LT(c.disk_bytes, 20u << 20) << c.cell.backend;
  }
  EXPECT_GT(cells[0].disk_log_bytes, 0u);  // kept apart, not hidden
}

TEST(Matrix, StopEndsTheMatrix) {
  Workload w = Small("ycsb-c-field", 50, 100);
  volatile std::sig_atomic_t stop = 0;
  MatrixOptions m;
  m.backends = {"memory", "memory", "memory"};
  m.versions["hash"] = {"0"};
  m.stop = &stop;
  m.on_cell_done = [&](const CellResult&) { stop = 1; };
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  EXPECT_EQ(results.size(), 1u);
}

// The same command stream over RESP to a real redis-server: no encoding versions there (one
// cell), no KV counters, and every command answered without error.
TEST(Matrix, RunsOverRespAgainstRedis) {
  RedisServerProcess server;
  Status s = server.Start();
  ASSERT_TRUE(s.ok()) << s.ToString();
  Workload w = Small("ycsb-f", 50, 200);
  w.threads = 2;
  MatrixOptions m;
  m.in_process = false;
  m.resp = server.endpoint();
  m.versions["hash"] = {"0", "1"};
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 1u);
  const CellResult& r = results[0];
  EXPECT_EQ(r.cell.target, "resp");
  EXPECT_EQ(r.cell.profile.VersionOf("hash"), std::nullopt);
  EXPECT_TRUE(r.cell.profile.versions.count("hash"));  // used, its version unknown
  ASSERT_TRUE(r.run.error.empty()) << r.run.error;
  const PhaseResult& run = r.run.phases[1];
  EXPECT_EQ(run.operations, 200u);
  for (const auto& [name, st] : run.commands) {
    EXPECT_EQ(st.errors, 0u) << name << ": " << st.first_error;
    EXPECT_FALSE(st.has_kv);
  }
  EXPECT_EQ(run.ops.at("rmw").calls + run.ops.at("read").calls, 200u);
  // redis-server has no kvlab section in INFO: no server counters.
  EXPECT_TRUE(run.store_counters.empty());
}

TEST(Sweep, ClassifiesGrowth) {
  const std::vector<uint64_t> sizes = {10, 100, 1000, 10000};
  EXPECT_EQ(ClassifyGrowth(sizes, {2, 2, 2, 2}, false).growth_class, "O(1)");
  EXPECT_EQ(ClassifyGrowth(sizes, {12, 102, 1002, 10002}, false).growth_class, "O(n)");
  EXPECT_EQ(ClassifyGrowth(sizes, {3, 5, 7, 9}, false).growth_class, "O(log n)");
  EXPECT_EQ(ClassifyGrowth(sizes, {1, 100, 10000, 1000000}, false).growth_class, "superlinear");
  EXPECT_EQ(ClassifyGrowth(sizes, {12, 11, 11, 11}, false).growth_class, "O(1)");
  EXPECT_EQ(ClassifyGrowth({10}, {1}, false).growth_class, "");
  EXPECT_EQ(ClassifyGrowth(sizes, {900, 1000, 1100, 1200}, true).growth_class, "O(1)");
  EXPECT_EQ(ClassifyGrowth(sizes, {900, 5000, 50000, 480000}, true).growth_class, "O(n)");
  EXPECT_NEAR(ClassifyGrowth(sizes, {1, 10, 100, 1000}, true).slope, 1.0, 1e-9);
}

// A small size sweep shows the encodings' known costs: HGET is O(1) in both versions; HLEN is
// O(1) with the count in the meta (v0) and O(n) without it (v1); ZRANK walks the index.
TEST(Sweep, SizeSweepShowsKnownGrowth) {
  MatrixOptions m;
  m.backends = {"memory"};
  m.versions["hash"] = {"0", "1"};
  m.versions["zset"] = {"0"};
  SweepOptions sweep;
  sweep.sizes = {10, 100, 1000};
  sweep.calls = 20;
  SweepResult result;
  RunSizeSweep(sweep, m, SweepProgress(), &result);
  ASSERT_FALSE(result.partial);
  EXPECT_TRUE(result.notes.empty()) << result.notes[0];
  ASSERT_EQ(result.points.size(), 3u * 3);  // (hash v0, hash v1, zset v0) x 3 sizes
  // The growth step loads only the new elements.
  const PhaseResult& grow = result.points[1].run.phases[0];
  EXPECT_TRUE(grow.is_load);
  // 90 new fields and the key-meta with its new count (v0).
  EXPECT_EQ(grow.commands.at("HSET").kv.batch_records, 91u);
  EXPECT_EQ(grow.commands.at("HSET").calls, 1u);
  std::map<std::string, std::string> classes;
  for (const auto& g : GrowthJson(result.points)) {
    classes[g["type"].get<std::string>() + " v" + g["version"].get<std::string>() + " " +
            g["probe"].get<std::string>() + " " + g["command"].get<std::string>()] =
        g["kv_class"].get<std::string>();
  }
  EXPECT_EQ(classes["hash v0 HGET HGET"], "O(1)");
  EXPECT_EQ(classes["hash v1 HGET HGET"], "O(1)");
  EXPECT_EQ(classes["hash v0 HLEN HLEN"], "O(1)");
  EXPECT_EQ(classes["hash v1 HLEN HLEN"], "O(n)");
  EXPECT_EQ(classes["hash v0 HGETALL HGETALL"], "O(n)");
  EXPECT_EQ(classes["hash v0 HSET-new+HDEL HDEL"], "O(1)");
  EXPECT_EQ(classes["zset v0 ZSCORE ZSCORE"], "O(1)");
  EXPECT_EQ(classes["zset v0 ZRANK ZRANK"], "O(n)");
  EXPECT_EQ(classes["zset v0 ZRANGE-10 ZRANGE"], "O(1)");
}

// The growth classes of the tier versions, cold and warm, as the issue saw them misread:
// ZRANGEBYSCORE on zset v1/v2 is O(n) cold (the zset is read from KV into the cache) and O(1)
// warm; HLEN on hash v3 (no count) is O(n) cold and O(1) warm, in every repetition; and the
// whole cost counts the Redis commands, not only KV steps.
TEST(Sweep, TierVersionsAreMeasuredColdAndWarm) {
  MatrixOptions m;
  m.backends = {"memory"};
  m.versions["hash"] = {"3"};
  m.versions["zset"] = {"1"};
  SweepOptions sweep;
  sweep.sizes = {10, 100, 1000};
  sweep.calls = 10;
  sweep.repetitions = 3;
  SweepResult result;
  size_t begun = 0, ended = 0;
  SweepProgress progress;
  progress.begin = [&](const std::string&) { ++begun; };
  progress.end = [&](const SweepPoint&) { ++ended; };
  RunSizeSweep(sweep, m, progress, &result);
  ASSERT_FALSE(result.partial);
  ASSERT_TRUE(result.notes.empty()) << result.notes[0];
  // 2 series x 3 sizes x 3 repetitions x (cold, warm).
  EXPECT_EQ(result.points.size(), 2u * 3 * 3 * 2);
  EXPECT_EQ(CountSweepPoints("size", sweep, m), result.points.size());
  EXPECT_EQ(begun, result.points.size());
  EXPECT_EQ(ended, result.points.size());
  std::map<std::string, nlohmann::json> series;
  for (const auto& g : GrowthJson(result.points)) {
    series[g["type"].get<std::string>() + " v" + g["version"].get<std::string>() + " " +
           g["cache"].get<std::string>() + " " + g["probe"].get<std::string>()] = g;
  }
  const nlohmann::json& cold_range = series["zset v1 cold ZRANGEBYSCORE-10"];
  const nlohmann::json& warm_range = series["zset v1 warm ZRANGEBYSCORE-10"];
  ASSERT_FALSE(cold_range.is_null());
  EXPECT_EQ(cold_range["kv_class"], "O(n)") << cold_range.dump();
  EXPECT_EQ(cold_range["cost_class"], "O(n)") << cold_range.dump();
  EXPECT_EQ(warm_range["cost_class"], "O(1)") << warm_range.dump();
  // Warm: one meta get and one Redis round trip per call, whatever the size.
  for (double steps : warm_range["kv_steps_per_call"]) EXPECT_EQ(steps, 1.0);
  for (double trips : warm_range["tier_round_trips_per_call"]) EXPECT_EQ(trips, 1.0);
  const nlohmann::json& cold_len = series["hash v3 cold HLEN"];
  const nlohmann::json& warm_len = series["hash v3 warm HLEN"];
  EXPECT_EQ(cold_len["cost_class"], "O(n)") << cold_len.dump();
  EXPECT_EQ(warm_len["cost_class"], "O(1)") << warm_len.dump();
  for (double steps : warm_len["cost_steps_per_call"]) {
    EXPECT_EQ(steps, warm_len["cost_steps_per_call"][0].get<double>()) << warm_len.dump();
  }
  // Time classes come from the repetitions: three of each size, with their interval.
  EXPECT_EQ(cold_range["time_repetitions"], 3);
  EXPECT_EQ(cold_range["p50_ns_repetitions"].back().size(), 3u);
  EXPECT_GT(cold_range["time_confidence"].get<double>(), 0.0) << cold_range.dump();
}

// A time class is given only when the slope's interval over repetitions lies in one class.
TEST(Sweep, TimeClassesComeFromRepetitions) {
  const std::vector<uint64_t> sizes = {100, 1000};
  // Ten times the time at ten times the size, in every repetition: O(n).
  TimeGrowth g = ClassifyTimeGrowth(sizes, {{100, 105, 98}, {1000, 1040, 990}});
  EXPECT_EQ(g.growth_class, "O(n)") << g.why;
  EXPECT_NEAR(g.slope, 1.0, 0.05);
  EXPECT_LE(g.slope_low, g.slope);
  EXPECT_GE(g.slope_high, g.slope);
  EXPECT_GE(g.confidence, kTimeGrowthConfidence);
  // The same times with one noisy repetition: the interval spans classes.
  g = ClassifyTimeGrowth(sizes, {{100, 900, 98}, {1000, 150, 990}});
  EXPECT_EQ(g.growth_class, "unclear") << g.slope_low << " " << g.slope_high;
  // One repetition (the issue's "ZCARD v3 O(n)" from one noisy run): no class at all.
  g = ClassifyTimeGrowth(sizes, {{100}, {1000}});
  EXPECT_EQ(g.growth_class, "");
  EXPECT_NE(g.why.find("repetitions"), std::string::npos) << g.why;
  EXPECT_EQ(ClassifyTimeGrowth({100}, {{1, 2, 3}}).growth_class, "");
}

TEST(Sweep, RttSweepCountsRoundTrips) {
  MatrixOptions m;
  m.backends = {"memory"};
  m.versions["hash"] = {"0"};
  m.versions["zset"] = {"0"};
  SweepOptions sweep;
  sweep.types = {"hash"};
  sweep.rtts_us = {0, 50};
  sweep.rtt_size = 250;
  sweep.calls = 5;
  SweepResult result;
  m.backends = {"memory", "lmdb"};  // every backend, none dropped
  RunRttSweep(sweep, m, SweepProgress(), &result);
  ASSERT_EQ(result.points.size(), 2u * 2);
  EXPECT_EQ(result.points[2].cell.backend, "lmdb");
  for (const SweepPoint& p : result.points) {
    for (const PhaseResult& ph : p.run.phases) {
      if (ph.name == "HGET") {
        EXPECT_EQ(ph.commands.at("HGET").counters.at("remote.round_trips"), 2u * 5);
      }
      // HGETALL: the meta get, then a seek and a round trip per page of 100 rows.
      if (ph.name == "HGETALL") {
        EXPECT_EQ(ph.commands.at("HGETALL").counters.at("remote.round_trips"), (1u + 3) * 5);
      }
    }
  }
}

TEST(BenchResult, WritesVersionedFilesSideBySide) {
  testing::ScratchDir scratch;
  RunSettings settings;
  settings.backends = {"memory"};
  settings.versions["hash"] = {"0"};
  BenchResult a(settings, scratch.path() + "/results", "t");
  BenchResult b(settings, scratch.path() + "/results", "t");
  Workload w = Small("ycsb-c-field", 20, 50);
  MatrixOptions m;
  m.backends = {"memory"};
  m.versions["hash"] = {"0"};
  std::vector<CellResult> cells;
  RunMatrix(w, m, &cells);
  // Counters of another source (the Redis tier, later) travel with the KV counts, and a cache's
  // hits and misses become a hit ratio in the report.
  cells[0].run.phases[1].commands.at("HGET").counters["tier.cache_hits"] = 150;
  cells[0].run.phases[1].commands.at("HGET").counters["tier.cache_misses"] = 50;
  const size_t index = a.AddWorkload(w);
  a.AddCell(index, cells[0]);
  ASSERT_TRUE(a.Write().ok());
  ASSERT_TRUE(b.Write().ok());
  EXPECT_NE(a.path(), b.path());  // results are added, never overwritten
  // Until the run is over, the file says it is incomplete: a killed run never looks whole.
  nlohmann::json j;
  ASSERT_TRUE(ReadResultFile(b.path(), &j).ok());
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_TRUE(j["partial"].get<bool>());
  EXPECT_EQ(j["partial_reason"], kIncompleteReason);
  b.MarkComplete();
  ASSERT_TRUE(b.Write().ok());
  ASSERT_TRUE(ReadResultFile(b.path(), &j).ok());
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_FALSE(j["partial"].get<bool>());
  EXPECT_TRUE(j["partial_reason"].is_null());
  // A reason given during the run stays after it.
  a.MarkPartial("test");
  a.MarkComplete();
  ASSERT_TRUE(a.Write().ok());

  ASSERT_TRUE(ReadResultFile(a.path(), &j).ok());
  EXPECT_EQ(j["schema_version"], kResultSchemaVersion);
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_TRUE(j["partial"].get<bool>());
  EXPECT_EQ(j["partial_reason"], "test");
  for (const char* key : {"date", "build", "host", "store", "engine", "workloads"}) {
    EXPECT_TRUE(j["context"].contains(key)) << key;
  }
  EXPECT_EQ(j["context"]["workloads"][0]["effective_sha256"], w.EffectiveSha256());
  EXPECT_EQ(j["context"]["versions"], nlohmann::json({{"hash", {"0"}}}));
  EXPECT_EQ(j["context"]["encodings"]["hash"]["versions"][1]["name"], "1");
  EXPECT_EQ(j["context"]["encodings"]["hash"]["versions"][1]["color"].get<std::string>().size(),
            7u);
  const auto& run = j["workloads"][0]["runs"][0];
  EXPECT_EQ(run["backend"], "memory");
  EXPECT_EQ(run["profile"], nlohmann::json({{"hash", "0"}}));
  EXPECT_EQ(run["profile_label"], "h0");
  EXPECT_FALSE(run.contains("hash_version"));
  EXPECT_GT(run["disk_bytes"].get<uint64_t>(), 20u * 100);
  const auto& hget = run["phases"][1]["commands"]["HGET"];
  EXPECT_EQ(hget["calls"], 50);
  EXPECT_EQ(hget["kv_per_call"]["gets"], 2.0);
  for (const char* p : {"p50", "p90", "p99", "p999", "max"})
    EXPECT_TRUE(hget["latency_ns"].contains(p));

  const std::string md = MarkdownReport(j, "x.json", {});
  EXPECT_NE(md.find("## ycsb-c-field"), std::string::npos);
  EXPECT_NE(md.find("| run | HGET | memory h0 | 50 |"), std::string::npos) << md;
  EXPECT_NE(md.find("2 get"), std::string::npos);
  EXPECT_EQ(hget["counters_per_call"]["tier.cache_hits"], 3.0);
  EXPECT_NE(md.find("tier hit ratio 0.750"), std::string::npos);
  EXPECT_NE(md.find("Partial result"), std::string::npos);

  std::ofstream(scratch.path() + "/other.json") << R"({"schema": "something-else"})";
  EXPECT_FALSE(ReadResultFile(scratch.path() + "/other.json", &j).ok());
  std::ofstream(scratch.path() + "/future.json")
      << R"({"schema": "kvlab-bench-result", "schema_version": 3})";
  EXPECT_FALSE(ReadResultFile(scratch.path() + "/future.json", &j).ok());
}

// A schema 1 result (hash_version / zset_version) is read in schema 2's shape.
TEST(BenchResult, ReadsSchemaOneAsSchemaTwo) {
  testing::ScratchDir scratch;
  const std::string path = scratch.path() + "/old.json";
  std::ofstream(path) << R"({"schema": "kvlab-bench-result", "schema_version": 1,
    "partial": false, "partial_reason": null, "timing_valid": true, "notes": [],
    "context": {"engine": {"hash_versions": [0, 1], "zset_versions": [0],
                           "namespace_prefix": "", "md5_prefix": false}},
    "workloads": [{"name": "w", "runs": [
      {"target": "in-process", "backend": "rocksdb", "hash_version": 1, "zset_version": null},
      {"target": "resp", "backend": "127.0.0.1:6379", "hash_version": null,
       "zset_version": null}]}],
    "sweeps": [{"kind": "size", "type": "zset", "backend": "memory", "hash_version": null,
                "zset_version": 2, "size": 10}],
    "growth": [{"type": "zset", "backend": "memory", "version": 2}]})";
  nlohmann::json j;
  const Status s = ReadResultFile(path, &j);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["upgraded_from_schema_version"], 1);
  EXPECT_EQ(j["context"]["versions"], nlohmann::json({{"hash", {"0", "1"}}, {"zset", {"0"}}}));
  const auto& runs = j["workloads"][0]["runs"];
  EXPECT_EQ(runs[0]["profile"], nlohmann::json({{"hash", "1"}}));
  EXPECT_EQ(runs[0]["profile_label"], "h1");
  EXPECT_EQ(runs[1]["profile"], nlohmann::json::object());
  EXPECT_EQ(runs[1]["profile_label"], "");
  EXPECT_EQ(j["sweeps"][0]["profile"], nlohmann::json({{"zset", "2"}}));
  EXPECT_EQ(j["sweeps"][0]["profile_label"], "z2");
  EXPECT_EQ(j["growth"][0]["version"], "2");
}

}  // namespace
}  // namespace kvlab::workloads
