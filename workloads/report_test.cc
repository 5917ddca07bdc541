// The Markdown report of a result: what it claims about differences, counters and the
// machine, from hand-made results whose truth is known.
#include "workloads/report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "workloads/build_info.h"

namespace kvlab::workloads {

namespace {

using nlohmann::json;

// A run of ycsb-c-field on `backend` with hash version `h`, throughput `ops` per second.
json Run(const std::string& backend, int h, double ops, int repetition) {
  json hget = {
      {"calls", 100},
      {"errors", 0},
      {"throughput_per_s", ops},
      {"latency_ns", {{"p50", 1000.0}, {"p99", 2000.0}, {"p999", 3000.0}, {"max", 4000.0}}},
      {"kv_per_call", {{"gets", 2.0}}},
      {"bytes_read_per_call", 150.0},
      {"bytes_written_per_call", 0.0},
      {"counters_per_call", json::object()}};
  return {{"target", "in-process"},
          {"backend", backend},
          {"hash_version", h},
          {"zset_version", nullptr},
          {"repetition", repetition},
          {"partial", false},
          {"error", nullptr},
          {"degraded", false},
          {"degraded_reason", nullptr},
          {"disk_bytes", nullptr},
          {"phases",
           {{{"name", "run"},
             {"kind", "run"},
             {"throughput_per_s", ops},
             {"wall_seconds", 1.0},
             {"commands", {{"HGET", hget}}},
             {"store_counters", json::object()}}}}};
}

// A result of one workload whose cells (backend, version) have these throughputs over their
// repetitions.
json Result(const std::vector<std::tuple<std::string, int, std::vector<double>>>& cells) {
  json runs = json::array();
  for (const auto& [backend, h, values] : cells) {
    for (size_t i = 0; i < values.size(); ++i) {
      runs.push_back(Run(backend, h, values[i], static_cast<int>(i)));
    }
  }
  json workload = {{"name", "ycsb-c-field"},
                   {"definition", {{"description", "d"}, {"run", {{{"name", "run"}}}}}},
                   {"runs", runs}};
  return {{"schema", "kvlab-bench-result"},
          {"complete", true},
          {"partial", false},
          {"timing_valid", true},
          {"warnings", json::array()},
          {"context", {{"repetitions", 3}, {"build", json::object()}, {"host", json::object()}}},
          {"workloads", {workload}},
          {"sweeps", json::array()},
          {"growth", json::array()},
          {"notes", json::array()}};
}

// The ratio cell of the row of `label` in the throughput table.
std::string RatioOf(const std::string& md, const std::string& label) {
  const size_t row = md.find("| " + label + " | ");
  if (row == std::string::npos) return "";
  const std::string line = md.substr(row, md.find('\n', row) - row);
  // | label | reps | ops/s | ratio | load | disk |
  size_t at = 0;
  for (int bar = 0; bar < 4; ++bar) at = line.find('|', at) + 1;
  return line.substr(at + 1, line.find('|', at) - at - 2);
}

// A difference inside the noise is not printed as one: the case, h1 "1.80×" h0 while
// h0's own repetitions ranged over 117k-270k.
TEST(Report, NoiseIsNotADifference) {
  const json result =
      Result({{"rocksdb", 0, {117000, 270000, 150000}}, {"rocksdb", 1, {270000, 210000, 140000}}});
  const std::string md = MarkdownReport(result, "x.json", {});
  EXPECT_EQ(RatioOf(md, "rocksdb h0"), "(baseline)") << md;
  const std::string ratio = RatioOf(md, "rocksdb h1");
  EXPECT_TRUE(ratio.starts_with("≈ ")) << ratio;
  EXPECT_NE(ratio.find("["), std::string::npos) << ratio;  // with its interval
  // Throughputs come with their range.
  EXPECT_NE(md.find("| rocksdb h0 | 3 | 150000 [117000–270000] |"), std::string::npos) << md;
}

TEST(Report, ASignificantDifferenceHasItsInterval) {
  const json result =
      Result({{"memory", 0, {100000, 101000, 99000}}, {"memory", 1, {200000, 205000, 198000}}});
  const std::string md = MarkdownReport(result, "x.json", {});
  const std::string ratio = RatioOf(md, "memory h1");
  EXPECT_FALSE(ratio.starts_with("≈")) << ratio;
  EXPECT_TRUE(ratio.starts_with("2.0")) << ratio;
  EXPECT_NE(ratio.find("× ["), std::string::npos) << ratio;
}

TEST(Report, OneRepetitionGivesNoInterval) {
  const json result = Result({{"memory", 0, {100000}}, {"memory", 1, {180000}}});
  const std::string md = MarkdownReport(result, "x.json", {});
  EXPECT_EQ(RatioOf(md, "memory h1"), "≈ 1.80× (n = 1 vs 1: no interval)") << md;
}

// Every non-zero counter is shown, however many: a tier version's round trips are its main cost.
TEST(Report, EveryNonZeroCounterIsShown) {
  json result = Result({{"memory", 2, {1000}}});
  json& per_call =
      result["workloads"][0]["runs"][0]["phases"][0]["commands"]["HGET"]["counters_per_call"];
  per_call = {{"rocksdb.block_read_count", 5.0},
              {"rocksdb.get_from_memtable_count", 3.0},
              {"rocksdb.block_cache_hit_count", 2.0},
              {"tier.tier_round_trips", 1.0},
              {"tier.tier_commands", 1.0},
              {"tier.cache_hits", 0.25},
              {"tier.cache_misses", 0.75},
              {"rocksdb.zero", 0.0}};
  const std::string md = MarkdownReport(result, "x.json", {});
  for (const char* name :
       {"rocksdb.block_read_count 5", "rocksdb.get_from_memtable_count 3",
        "rocksdb.block_cache_hit_count 2", "tier.tier_round_trips 1", "tier.tier_commands 1",
        "tier.cache_hits 0.25", "tier.cache_misses 0.75", "tier hit ratio 0.250"}) {
    EXPECT_NE(md.find(name), std::string::npos) << name << "\n" << md;
  }
  EXPECT_EQ(md.find("rocksdb.zero"), std::string::npos);
}

// A loaded machine is said at the top, before any number.
// The space table: medians of each cell's space section over its repetitions, the columns after
// GC only when a pass ran, and no table for a result without space sections (an older file).
TEST(Report, SpaceTableShowsMediansAndTheGcColumns) {
  json result = Result({{"rocksdb", 0, {1000, 1000, 1000}}});
  EXPECT_EQ(MarkdownReport(result, "x.json", {}).find("Space at the end"), std::string::npos);
  int rep = 0;
  for (json& run : result["workloads"][0]["runs"]) {
    const double kv = 2.0 + rep;  // 2, 3, 4: median 3
    run["space"] = {{"error", nullptr},
                    {"logical", {{"keys", 4}, {"elements", 40}, {"key_bytes", 8}, {"bytes", 2048}}},
                    {"store",
                     {{"records", 50},
                      {"bytes", 4096},
                      {"garbage_records", 10 * rep},
                      {"garbage_bytes", 1024}}},
                    {"kv_amplification", kv},
                    {"live_kv_amplification", 1.5},
                    {"disk_amplification", 0.0002},
                    {"gc", nullptr}};
    ++rep;
  }
  std::string md = MarkdownReport(result, "x.json", {});
  EXPECT_NE(md.find("| rocksdb h0 | 2 | 40 | 3 | 1.50 | 10 | 1 | 0.0002 | - |\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("after GC"), std::string::npos);
  result["workloads"][0]["runs"][1]["space"]["gc"] = {
      {"store", {{"garbage_records", 0}}}, {"kv_amplification", 1.5}, {"disk_amplification", 9}};
  md = MarkdownReport(result, "x.json", {});
  EXPECT_NE(md.find("| 10 | 1 | 0.0002 | - | 0 | 1.50 | 9 |\n"), std::string::npos) << md;
}

TEST(Report, LoadedMachineIsWarnedAtTheTop) {
  HostInfo host;
  host.usable_cpus = 2;
  host.load_average_1m = 15.7;
  const std::string warning = LoadWarning(host);
  EXPECT_NE(warning.find("load average 15.7"), std::string::npos) << warning;
  EXPECT_NE(warning.find("2 usable CPUs"), std::string::npos) << warning;
  host.load_average_1m = 0.4;
  EXPECT_EQ(LoadWarning(host), "");

  host.load_average_1m = 15.7;
  json result = Result({{"memory", 0, {1000}}});
  result["warnings"].push_back(LoadWarning(host));
  const std::string md = MarkdownReport(result, "x.json", {});
  const size_t at = md.find("> **Warning**: the machine is loaded");
  ASSERT_NE(at, std::string::npos) << md;
  EXPECT_LT(at, md.find("| cell |"));
  EXPECT_NE(SummaryTable(result).find("warning: the machine is loaded"), std::string::npos);
}

}  // namespace
}  // namespace kvlab::workloads
