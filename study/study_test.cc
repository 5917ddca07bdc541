// The ranking, the weights, the verdict and its consistency check, on bench results built here
// with known numbers; and the example studies of docs/studies/, whose verdicts must agree with
// their own tables.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "study/break_even.h"
#include "study/metrics.h"
#include "study/ranking.h"
#include "study/verdict.h"
#include "study/version_legend.h"
#include "workloads/generators.h"
#include "workloads/op_expander.h"

namespace kvlab::study {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string SourceDir() {
  const char* dir = std::getenv("KVLAB_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

json CallStats(double calls, double p50_us, const json& kv_per_call, double round_trips = 0) {
  json kv = json::object();
  for (auto it = kv_per_call.begin(); it != kv_per_call.end(); ++it) {
    kv[it.key()] = it.value().get<double>() * calls;
  }
  json counters = json::object();
  if (round_trips > 0) counters["tier.tier_round_trips"] = round_trips * calls;
  return {{"calls", calls},
          {"latency_ns", {{"p50", p50_us * 1000}, {"p99", p50_us * 3000}}},
          {"kv", kv},
          {"counters", counters}};
}

// A hash workload of 10 records of 10 fields: HSET in the load, HGET and HLEN in the run. The
// load wrote `load_bytes` and left `live_bytes` of the hash's records.
json Run(int version, int rep, double p50_us, double hlen_nexts, double load_bytes,
         double live_bytes) {
  json load = {
      {"name", "load"},
      {"kind", "load"},
      {"operations", 10},
      {"wall_seconds", 0.01},
      {"commands",
       {{"HSET",
         CallStats(10, 5,
                   {{"gets", 1}, {"batch_records", 11}, {"bytes_written", load_bytes / 10}})}}}};
  json run = {{"name", "run"},
              {"kind", "run"},
              {"operations", 110},
              {"wall_seconds", 110 * p50_us * 1e-6},
              {"commands",
               {{"HGET", CallStats(100, p50_us, {{"gets", 2}, {"bytes_read", 40}})},
                {"HLEN", CallStats(10, p50_us, {{"gets", 1}, {"nexts", hlen_nexts}})}}}};
  const json load_space = {
      {"error", nullptr},
      {"store", {{"by_type", {{"hash", {{"keys", 10}, {"records", 110}, {"bytes", live_bytes}}}}}}},
      {"tier_dataset_bytes", json::object()}};
  return {{"target", "in-process"},   {"backend", "memory"},
          {"hash_version", version},  {"zset_version", nullptr},
          {"repetition", rep},        {"error", nullptr},
          {"disk_bytes", nullptr},    {"tier_memory", json::object()},
          {"load_space", load_space}, {"phases", {load, run}}};
}

json Workload() {
  return {{"name", "w"},
          {"definition",
           {{"name", "w"},
            {"keyspace", {{"type", "hash"}, {"records", 10}, {"elements", 10}}},
            {"load", {{"batch", 1000}, {"commands", {"HSET {key} {elements}"}}}},
            {"run", json::array()}}},
          {"runs", json::array()}};
}

std::vector<conformance::Deviation> Catalogue() {
  conformance::Deviation d;
  d.id = "hash-blind-hset-count";
  d.type = "hash";
  d.versions = {"1", "3"};
  d.commands = {"hset"};
  d.reason = "blind";
  return {d};
}

// v0: fast, HLEN 1 get; v1: twice as slow, HLEN scans 10 fields, inexact HSET; v2: as v0 within
// the noise.
json Result() {
  json w = Workload();
  const double v0[] = {10, 11, 12}, v1[] = {20, 21, 22}, v2[] = {10.5, 11.5, 12.5};
  for (int rep = 0; rep < 3; ++rep) {
    w["runs"].push_back(Run(0, rep, v0[rep], 0, 1000, 800));
    w["runs"].push_back(Run(1, rep, v1[rep], 10, 900, 790));
    w["runs"].push_back(Run(2, rep, v2[rep], 0, 1000, 800));
  }
  return {{"schema", "kvlab-bench-result"}, {"schema_version", 1}, {"workloads", {w}}};
}

const json& RowOf(const json& ranking, const std::string& label) {
  for (const json& r : ranking["rows"]) {
    if (r["label"] == label) return r;
  }
  throw std::runtime_error("no row " + label);
}

json Ranked(const RankOptions& options) {
  json rankings = json::array();
  Status s = RankResult(Result(), options, &rankings);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return rankings;
}

TEST(Ranking, ScoresCarryIntervalsAndRanksCountWhoBeatsWhom) {
  RankOptions o;
  o.deviations = Catalogue();
  const json rankings = Ranked(o);
  ASSERT_EQ(rankings.size(), 1u);
  const json& r = rankings[0];
  EXPECT_EQ(r["type"], "hash");
  EXPECT_EQ(r["backend"], "memory");
  EXPECT_EQ(r["elements_loaded"].get<double>(), 100);
  EXPECT_TRUE(r["timings_count"].get<bool>());
  const json& h0 = RowOf(r, "h0");
  const json& h1 = RowOf(r, "h1");
  const json& h2 = RowOf(r, "h2");
  // Versions are names, from the registry.
  EXPECT_EQ(h1["version"], "1");
  // p50: v0 is best; v1 is twice as slow in every repetition (its interval excludes 1, and 2x
  // is beyond the noise: the median spread of a cell's repetitions is v2's 12.5 / 10.5, the noise
  // its square); v2
  // overlaps v0 (not significant: no cost). Costs are the log ratios of the medians.
  EXPECT_TRUE(h0["criteria"]["latency"]["best"].get<bool>());
  EXPECT_NEAR(h0["criteria"]["latency"]["value"].get<double>(), 11, 1e-9);
  EXPECT_NEAR(r["timed_criteria"]["latency"]["spread"].get<double>(), 12.5 / 10.5, 1e-9);
  EXPECT_NEAR(r["timed_criteria"]["latency"]["noise"].get<double>(), std::pow(12.5 / 10.5, 2),
              1e-9);
  EXPECT_TRUE(h1["criteria"]["latency"]["significant"].get<bool>());
  EXPECT_FALSE(h2["criteria"]["latency"]["significant"].get<bool>());
  EXPECT_EQ(h2["criteria"]["latency"]["cost"].get<double>(), 0);
  EXPECT_TRUE(h2["criteria"]["latency"]["inside_noise"].get<bool>());
  EXPECT_NEAR(h1["criteria"]["latency"]["cost"].get<double>(),
              o.weights["latency"] * std::log2(21.0 / 11.0), 1e-9);
  EXPECT_NEAR(h1["criteria"]["latency"]["low"].get<double>(), 20.0 / 12, 1e-9);
  // KV operations per command (exact): v1's HLEN reads 10 more records per call.
  EXPECT_NEAR(h0["criteria"]["kv_ops"]["value"].get<double>(), (100 * 2 + 10 * 1) / 110.0, 1e-9);
  EXPECT_NEAR(h1["criteria"]["kv_ops"]["value"].get<double>(), (100 * 2 + 10 * 11) / 110.0, 1e-9);
  EXPECT_TRUE(h1["criteria"]["kv_ops"]["material"].get<bool>());
  EXPECT_NEAR(h1["commands"]["HLEN"]["kv_reads"].get<double>(), 11, 1e-9);
  // Space is the live bytes per element at the end of the load; the load's write volume is a
  // criterion of its own.
  EXPECT_NEAR(h0["criteria"]["space"]["value"].get<double>(), 8, 1e-9);
  EXPECT_NEAR(h1["criteria"]["space"]["value"].get<double>(), 7.9, 1e-9);
  EXPECT_NEAR(h0["criteria"]["write_bytes"]["value"].get<double>(), 10, 1e-9);
  EXPECT_NEAR(h1["criteria"]["write_bytes"]["value"].get<double>(), 9, 1e-9);
  // Exactness: HSET is in the workload, and v1 is blind.
  ASSERT_EQ(h1["deviations"].size(), 1u);
  EXPECT_EQ(h1["deviations"][0]["id"], "hash-blind-hset-count");
  EXPECT_EQ(h1["deviations"][0]["commands"][0], "HSET");
  EXPECT_TRUE(h0["deviations"].empty());
  // Needs: v2 has a cache Redis.
  EXPECT_EQ(h2["criteria"]["needs"]["value"].get<double>(), 1);
  // v0 first; v2 (a cache Redis, otherwise equal) beaten by v0 only; v1 by both.
  EXPECT_EQ(r["rows"][0]["label"], "h0");
  EXPECT_EQ(r["rows"][0]["rank"], 1);
  EXPECT_TRUE(r["rows"][0]["first"].get<bool>());
  EXPECT_EQ(r["rows"][1]["label"], "h2");
  EXPECT_EQ(r["rows"][1]["rank"], 2);
  EXPECT_EQ(r["rows"][2]["label"], "h1");
  EXPECT_EQ(r["rows"][2]["rank"], 3);
  EXPECT_EQ(r["leaders"], json::array({"h0"}));
  // The score is the sum of the costs; its range spans the repetitions' timed parts: here the
  // p50, p99 and throughput of a repetition all follow its p50 (p99 = 3 p50, throughput =
  // 10^6 / p50), so the timed part is 4 log2(p50) + a constant.
  for (const json& row : r["rows"]) {
    double sum = 0;
    for (const auto& [name, c] : row["criteria"].items()) sum += c["cost"].get<double>();
    EXPECT_NEAR(row["score"].get<double>(), sum, 1e-9) << row["label"];
    EXPECT_LE(row["score_low"].get<double>(), row["score"].get<double>()) << row["label"];
    EXPECT_GE(row["score_high"].get<double>(), row["score"].get<double>()) << row["label"];
  }
  EXPECT_NEAR(h1["score_high"].get<double>() - h1["score_low"].get<double>(),
              4 * std::log2(22.0 / 20.0), 1e-9);
}

// Two versions within the noise of each other on every timed criterion and equal on the counted
// ones are tied for first: both rank 1, and the verdict names them together.
TEST(Ranking, VersionsWithinTheNoiseAreTiedForFirst) {
  RankOptions o;
  o.weights["needs"] = 0;  // v2's cache Redis is all that sets it apart from v0
  const json rankings = Ranked(o);
  const json& r = rankings[0];
  EXPECT_EQ(RowOf(r, "h0")["rank"], 1);
  EXPECT_EQ(RowOf(r, "h2")["rank"], 1);
  EXPECT_EQ(RowOf(r, "h1")["rank"], 3);
  EXPECT_EQ(r["leaders"].size(), 2u);
  json study = {{"rankings", rankings}};
  study["verdict"] = MakeVerdict(study);
  std::string all;
  for (const json& s : study["verdict"]["sentences"]) all += s["text"].get<std::string>() + "\n";
  EXPECT_NE(all.find("tied for first"), std::string::npos) << all;
  EXPECT_TRUE(CheckVerdict(study).empty()) << CheckVerdict(study)[0];
}

// An exact difference smaller than the tie margin is a tie; a larger margin makes more ties.
TEST(Ranking, ATieMarginAbsorbsSmallExactDifferences) {
  RankOptions o;
  for (auto& [name, w] : o.weights) w = 0;
  o.weights["space"] = 1;  // v1 keeps 7.9 B/elem against 8: 0.006 score apart
  json rankings = Ranked(o);
  EXPECT_EQ(RowOf(rankings[0], "h0")["rank"], 1);
  EXPECT_EQ(RowOf(rankings[0], "h1")["rank"], 1);
  o.tie_margin = 0;
  rankings = Ranked(o);
  EXPECT_EQ(RowOf(rankings[0], "h1")["rank"], 1);
  EXPECT_EQ(RowOf(rankings[0], "h0")["rank"], 2);
}

// With fewer repetitions than the confidence needs, timings count for nothing, and the ranking
// says so and names the --repetitions that would let them count.
TEST(Ranking, TooFewRepetitionsAreSaid) {
  json result = Result();
  json& runs = result["workloads"][0]["runs"];
  json kept = json::array();
  for (const json& r : runs) {
    if (r["repetition"] == 0) kept.push_back(r);
  }
  runs = kept;
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, RankOptions(), &rankings).ok());
  const json& r = rankings[0];
  EXPECT_FALSE(r["timings_count"].get<bool>());
  ASSERT_FALSE(r["warnings"].empty());
  EXPECT_NE(r["warnings"][0].get<std::string>().find("--repetitions 3"), std::string::npos)
      << r["warnings"][0];
  for (const json& row : r["rows"]) {
    EXPECT_EQ(row["criteria"]["latency"]["cost"].get<double>(), 0) << row["label"];
  }
}

// A timed criterion whose repetitions of the same cell spread more than 2x measures the
// machine's load: it counts for nothing, and the ranking says which and by how much.
TEST(Ranking, ANoisyTimedCriterionDoesNotCount) {
  json rankings = Ranked(RankOptions());
  for (const char* c : {"latency", "tail_latency", "throughput"}) {
    EXPECT_TRUE(rankings[0]["timed_criteria"][c]["counts"].get<bool>()) << c;
  }
  EXPECT_GT(RowOf(rankings[0], "h1")["criteria"]["latency"]["cost"].get<double>(), 0);

  json result = Result();
  for (json& run : result["workloads"][0]["runs"]) {
    if (run["repetition"] != 2) continue;  // the third repetition met a loaded machine: 3x slower
    for (json& phase : run["phases"]) {
      phase["wall_seconds"] = phase["wall_seconds"].get<double>() * 3;
      for (auto& [name, stats] : phase["commands"].items()) {
        for (const char* q : {"p50", "p99"}) {
          stats["latency_ns"][q] = stats["latency_ns"][q].get<double>() * 3;
        }
      }
    }
  }
  rankings = json::array();
  ASSERT_TRUE(RankResult(result, RankOptions(), &rankings).ok());
  const json& r = rankings[0];
  EXPECT_TRUE(r["timings_count"].get<bool>());
  for (const char* c : {"latency", "tail_latency", "throughput"}) {
    EXPECT_FALSE(r["timed_criteria"][c]["counts"].get<bool>()) << c;
    EXPECT_GT(r["timed_criteria"][c]["spread"].get<double>(), 2) << c;
  }
  EXPECT_EQ(RowOf(r, "h1")["criteria"]["latency"]["cost"].get<double>(), 0);
  std::string all;
  for (const json& w : r["warnings"]) all += w.get<std::string>() + "\n";
  EXPECT_NE(all.find("(latency) does not count"), std::string::npos) << all;
}

// "Beats" can go round: v0 keeps less than v1, v1 less than v2 (exact), each 1.15x slower than
// the next (inside the noise of 1.1^2), but v2 is 1.32x faster than v0 (beyond it). Every
// version is beaten once; the three share first place, as a cycle of the same size.
TEST(Ranking, ACycleOfBeatsIsTiedForFirst) {
  json w = Workload();
  const double base[] = {10, 10.5, 11};
  const double live[] = {800, 1200, 1600};  // 8, 12 and 16 B/elem: 0.22 and 0.19 apart
  for (int rep = 0; rep < 3; ++rep) {
    for (int v = 0; v < 3; ++v) {
      w["runs"].push_back(study::Run(v, rep, base[rep] * std::pow(1.15, 2 - v), 0, 1000, live[v]));
    }
  }
  const json result = {{"schema", "kvlab-bench-result"}, {"schema_version", 1}, {"workloads", {w}}};
  RankOptions o;
  for (auto& [name, weight] : o.weights) weight = 0;
  o.weights["latency"] = 2;
  o.weights["space"] = 1;
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, o, &rankings).ok());
  const json& r = rankings[0];
  for (const char* label : {"h0", "h1", "h2"}) {
    EXPECT_EQ(RowOf(r, label)["rank"], 1) << label;
    EXPECT_TRUE(RowOf(r, label)["first"].get<bool>()) << label;
  }
  EXPECT_EQ(r["leaders"].size(), 3u);
  // Without v2, v0 beats v1 alone.
  json two = result;
  json kept = json::array();
  for (const json& run : two["workloads"][0]["runs"]) {
    if (run["hash_version"] != 2) kept.push_back(run);
  }
  two["workloads"][0]["runs"] = kept;
  rankings = json::array();
  ASSERT_TRUE(RankResult(two, o, &rankings).ok());
  EXPECT_EQ(rankings[0]["leaders"], json::array({"h0"}));
}

TEST(Ranking, WeightsChangeTheOrder) {
  RankOptions o;
  o.deviations = Catalogue();
  ASSERT_TRUE(ParseWeights("latency=0,tail_latency=0,throughput=0,kv_ops=0,kv_bytes=0,exactness=0,"
                           "needs=0,space=0,write_bytes=5",
                           &o.weights)
                  .ok());
  const json rankings = Ranked(o);
  // Only the load's write volume counts now: v1 writes fewer bytes per element.
  EXPECT_EQ(rankings[0]["rows"][0]["label"], "h1");
  EXPECT_EQ(rankings[0]["rows"][0]["score"].get<double>(), 0);
  EXPECT_EQ(RowOf(rankings[0], "h0")["rank"], 2);
}

TEST(Ranking, EqualScoresShareARank) {
  RankOptions o;
  for (auto& [name, w] : o.weights) w = 0;
  const json rankings = Ranked(o);
  for (const json& row : rankings[0]["rows"]) EXPECT_EQ(row["rank"], 1) << row["label"];
}

TEST(Ranking, NothingToRankIsAnError) {
  json result = Result();
  json& runs = result["workloads"][0]["runs"];
  json kept = json::array();
  for (const json& r : runs) {
    if (r["hash_version"] == 0) kept.push_back(r);
  }
  runs = kept;
  json rankings = json::array();
  EXPECT_FALSE(RankResult(result, RankOptions(), &rankings).ok());
}

TEST(Ranking, ReadsSchemaTwoProfiles) {
  json result = Result();
  result["schema_version"] = 2;
  for (json& r : result["workloads"][0]["runs"]) {
    r["profile"] = {{"hash", std::to_string(r["hash_version"].get<int>())}};
    r.erase("hash_version");
    r.erase("zset_version");
  }
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, RankOptions(), &rankings).ok());
  EXPECT_EQ(rankings[0]["rows"].size(), 3u);
}

// Versions by name, the families' included: a run of {"hash": "ardb"} is ranked as Ardb's row.
TEST(Ranking, ReadsNamedVersions) {
  json result = Result();
  result["schema_version"] = 2;
  for (json& r : result["workloads"][0]["runs"]) {
    const int v = r["hash_version"].get<int>();
    r["profile"] = {{"hash", v == 2 ? std::string("ardb") : std::to_string(v)}};
    r.erase("hash_version");
    r.erase("zset_version");
  }
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, RankOptions(), &rankings).ok());
  ASSERT_EQ(rankings[0]["rows"].size(), 3u);
  EXPECT_EQ(RowOf(rankings[0], "hardb")["version"], "ardb");
}

// Commands are attributed to the registry's types through the command table's groups.
TEST(Metrics, CommandsBelongToEveryRegistryType) {
  EXPECT_EQ(CommandType("HGET", "zset"), "hash");
  EXPECT_EQ(CommandType("ZRANK", "hash"), "zset");
  EXPECT_EQ(CommandType("SISMEMBER", "hash"), "set");
  EXPECT_EQ(CommandType("lrange", "hash"), "list");
  EXPECT_EQ(CommandType("GET", "hash"), "string");
  EXPECT_EQ(CommandType("DEL", "set"), "set");  // generic: the keyspace's type
  const json def = {{"keyspace", {{"type", "hash"}, {"records", 10}, {"elements", 4}}},
                    {"load",
                     {{"commands",
                       {"HSET {key} {elements}", "ZADD board {score} {key}", "SADD s:{key} a b c",
                        "RPUSH l:{key} x y", "PEXPIRE {key} 100"}}}}};
  EXPECT_EQ(ElementsLoaded(def, "hash"), 40);
  EXPECT_EQ(ElementsLoaded(def, "zset"), 10);
  EXPECT_EQ(ElementsLoaded(def, "set"), 30);
  EXPECT_EQ(ElementsLoaded(def, "list"), 20);
  // A profile's workload: a range of records per type, each loaded with its synthetic
  // collection, whose size is a function of the key (records 2..5 here: k:2 .. k:5).
  const json profile = {{"keyspace", {{"type", "string"}, {"records", 8}, {"key_prefix", "k:"}}},
                        {"distributions",
                         {{"n", {{"quantiles", {{0, 1}, {0.5, 10}, {1, 40}}}}},
                          {"l", {{"quantiles", {{0, 4}, {1, 9}}}}}}},
                        {"load",
                         {{"commands",
                           {{{"records", {0, 2}}, {"command", "SET k:{key_id} {bytes:l}"}},
                            {{"records", {2, 6}}, {"command", "ZADD k:{key_id} {scored:n:l}"}},
                            {{"records", {6, 8}}, {"command", "HSET k:{key_id} {fields:n:l:l}"}},
                            {{"records", {6, 7}}, {"command", "PEXPIRE k:{key_id} 100"}}}}}}};
  workloads::EmpiricalDistribution n, l;
  ASSERT_TRUE(workloads::EmpiricalDistribution::Make({{0, 1}, {0.5, 10}, {1, 40}}, &n).ok());
  ASSERT_TRUE(workloads::EmpiricalDistribution::Make({{0, 4}, {1, 9}}, &l).ok());
  auto sizes = [&](int from, int to) {
    double sum = 0;
    for (int r = from; r < to; ++r) {
      sum += static_cast<double>(
          workloads::SyntheticCollection("k:" + std::to_string(r), n, l).size());
    }
    return sum;
  };
  EXPECT_GT(sizes(2, 6), 4);  // not one element per record
  EXPECT_EQ(ElementsLoaded(profile, "zset"), sizes(2, 6));
  EXPECT_EQ(ElementsLoaded(profile, "hash"), sizes(6, 8));
  EXPECT_EQ(ElementsLoaded(profile, "set"), 0);
  // KV round trips of a remote store: one per call of each kind, one per page of rows stepped.
  EXPECT_NEAR(KvRoundTrips({{"gets", 1}, {"seeks", 1}, {"nexts", 50}, {"batches", 1}}), 3.5, 1e-9);
}

// A set workload is ranked like any other: every registry type is.
TEST(Ranking, SetsAreRanked) {
  json result = Result();
  result["schema_version"] = 2;
  json& w = result["workloads"][0];
  w["definition"]["keyspace"]["type"] = "set";
  w["definition"]["load"]["commands"] = {"SADD {key} {elements}"};
  for (json& r : w["runs"]) {
    const int v = r["hash_version"].get<int>();
    r["profile"] = {{"set", std::to_string(v)}};
    r.erase("hash_version");
    r.erase("zset_version");
    json& load = r["phases"][0]["commands"];
    load["SADD"] = load["HSET"];
    load.erase("HSET");
    json& run = r["phases"][1]["commands"];
    run["SISMEMBER"] = run["HGET"];
    run["SCARD"] = run["HLEN"];
    run.erase("HGET");
    run.erase("HLEN");
    r["load_space"]["store"]["by_type"] = {{"set", {{"bytes", 800}}}};
  }
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, RankOptions(), &rankings).ok());
  ASSERT_EQ(rankings.size(), 1u);
  EXPECT_EQ(rankings[0]["type"], "set");
  EXPECT_EQ(rankings[0]["commands"], json::array({"SCARD", "SISMEMBER"}));
  EXPECT_EQ(RowOf(rankings[0], "s0")["rank"], 1);
  EXPECT_NEAR(RowOf(rankings[0], "s1")["commands"]["SCARD"]["kv_reads"].get<double>(), 11, 1e-9);
  EXPECT_NEAR(RowOf(rankings[0], "s0")["criteria"]["space"]["value"].get<double>(), 8, 1e-9);
}

// A constructed ranking whose break-even points are known in closed form.
json BreakEvenCase() {
  // A reads HGET in 1 KV read and HLEN in 12; B reads HGET in 2 and HLEN in 1. With kv_ops alone
  // weighed, at HLEN share s: A costs 1 + 11 s, B 2 - s: equal at s = 1/12.
  // On p50 alone: A 10 µs per call with 1 KV round trip, B 14 µs with 3: equal at rtt = 2 µs.
  auto command = [](double calls, double kv_ops, double p50, double kv_rt) {
    return json{{"calls", calls}, {"kv_ops", kv_ops}, {"p50_us", p50},          {"p99_us", p50},
                {"kv_bytes", 0},  {"round_trips", 0}, {"kv_round_trips", kv_rt}};
  };
  json a = {{"rank", 1},
            {"label", "hA"},
            {"first", true},
            {"criteria", json::object()},
            {"commands", {{"HGET", command(95, 1, 10, 1)}, {"HLEN", command(5, 12, 10, 1)}}}};
  json b = {{"rank", 2},
            {"label", "hB"},
            {"first", false},
            {"criteria", json::object()},
            {"commands", {{"HGET", command(95, 2, 14, 3)}, {"HLEN", command(5, 1, 14, 3)}}}};
  return {{"timings_count", true},
          {"command_shares", {{"HGET", 0.95}, {"HLEN", 0.05}}},
          {"rows", {a, b}}};
}

TEST(BreakEven, FindsTheShareWhereTheFirstPlaceChanges) {
  RankOptions o;
  for (auto& [name, w] : o.weights) w = 0;
  o.weights["kv_ops"] = 1;
  o.materiality = 0;
  const json be = BreakEven(BreakEvenCase(), o);
  ASSERT_TRUE(be["agrees"].get<bool>()) << be.dump();
  EXPECT_EQ(be["model_leader"], "hA");
  bool hlen = false;
  for (const json& p : be["points"]) {
    if (p["kind"] != "share" || p["command"] != "HLEN") continue;
    hlen = true;
    EXPECT_EQ(p["direction"], "above");
    EXPECT_EQ(p["to"], "hB");
    EXPECT_NEAR(p["at"].get<double>(), 1.0 / 12, 1e-6);
    EXPECT_NEAR(p["now_percent"].get<double>(), 5, 1e-9);
  }
  EXPECT_TRUE(hlen) << be.dump();
  // No round trip changes it: only KV operations are weighed.
  for (const json& p : be["points"]) EXPECT_NE(p["kind"], "rtt");
}

TEST(BreakEven, FindsTheRoundTripWhereTheFirstPlaceChanges) {
  RankOptions o;
  for (auto& [name, w] : o.weights) w = 0;
  o.weights["latency"] = 1;
  json ranking = BreakEvenCase();
  // B is faster locally: make it the ranking's first.
  ranking["rows"][0]["commands"]["HGET"]["p50_us"] = 10;
  ranking["rows"][0]["commands"]["HLEN"]["p50_us"] = 10;
  ranking["rows"][1]["commands"]["HGET"]["p50_us"] = 6;
  ranking["rows"][1]["commands"]["HLEN"]["p50_us"] = 6;
  std::swap(ranking["rows"][0], ranking["rows"][1]);
  ranking["rows"][0]["first"] = true;
  ranking["rows"][0]["rank"] = 1;
  ranking["rows"][1]["first"] = false;
  ranking["rows"][1]["rank"] = 2;
  const json be = BreakEven(ranking, o);
  ASSERT_TRUE(be["agrees"].get<bool>()) << be.dump();
  EXPECT_EQ(be["model_leader"], "hB");
  bool found = false;
  for (const json& p : be["points"]) {
    if (p["kind"] != "rtt") continue;
    found = true;
    // 6 + 3 r = 10 + r at r = 2 µs.
    EXPECT_NEAR(p["at_us"].get<double>(), 2, 1e-4);
    EXPECT_EQ(p["to"], "hA");
  }
  EXPECT_TRUE(found) << be.dump();
}

// A model that does not reproduce the ranking's first place gives no break-even point.
TEST(BreakEven, NothingWhenTheModelDisagrees) {
  RankOptions o;
  for (auto& [name, w] : o.weights) w = 0;
  o.weights["kv_ops"] = 1;
  json ranking = BreakEvenCase();
  ranking["rows"][0]["first"] = false;
  ranking["rows"][1]["first"] = true;
  const json be = BreakEven(ranking, o);
  EXPECT_FALSE(be["agrees"].get<bool>());
  EXPECT_TRUE(be["points"].empty());
}

// Every version's colour is readable on white (contrast of 3:1 or more, WCAG's bar for graphics)
// and at least 15 apart (CIE76 ΔE) from every other version's, whatever the type.
TEST(VersionLegend, ColoursAreDistinctAndReadableOnWhite) {
  auto linear = [](const std::string& hex, int at) {
    const double c = std::stoi(hex.substr(at, 2), nullptr, 16) / 255.0;
    return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
  };
  auto lab = [&](const std::string& hex) {
    const double r = linear(hex, 1), g = linear(hex, 3), b = linear(hex, 5);
    const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
    return std::array<double, 4>{116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)), y};
  };
  const std::vector<VersionInfo>& legend = VersionLegend();
  ASSERT_GE(legend.size(), 20u);
  for (size_t i = 0; i < legend.size(); ++i) {
    const auto a = lab(legend[i].color);
    EXPECT_GE(1.05 / (a[3] + 0.05), 3.0) << legend[i].label << " " << legend[i].color;
    for (size_t j = i + 1; j < legend.size(); ++j) {
      const auto b = lab(legend[j].color);
      const double de = std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      EXPECT_GE(de, 15) << legend[i].label << " " << legend[i].color << " and " << legend[j].label
                        << " " << legend[j].color;
    }
  }
}

TEST(Weights, ParseAndReject) {
  Weights w = DefaultWeights();
  ASSERT_TRUE(ParseWeights("latency=2,space=1.5", &w).ok());
  EXPECT_EQ(w["latency"], 2);
  EXPECT_EQ(w["space"], 1.5);
  EXPECT_EQ(w["kv_ops"], DefaultWeights()["kv_ops"]);
  for (const char* bad : {"latency", "speed=1", "latency=-1", "latency=x", "latency=1x"}) {
    Weights v = DefaultWeights();
    Status s = ParseWeights(bad, &v);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
  }
  EXPECT_NE(FormatWeights(w).find("latency=2"), std::string::npos);
}

TEST(Verdict, FormatNumberAgreesWithTheRenderer) {
  std::ifstream in(SourceDir() + "/reports/testdata/format_cases.json");
  ASSERT_TRUE(in) << "set KVLAB_SOURCE_DIR";
  const json cases = json::parse(in)["cases"];
  ASSERT_FALSE(cases.empty());
  for (const json& c : cases) {
    EXPECT_EQ(FormatNumber(c[0].get<double>()), c[1].get<std::string>()) << c.dump();
  }
}

json Study(const json& rankings) {
  json study = {{"rankings", rankings}};
  study["verdict"] = MakeVerdict(study);
  return study;
}

TEST(Verdict, SentencesComeFromTheTables) {
  RankOptions o;
  o.deviations = Catalogue();
  json study = Study(Ranked(o));
  const json& sentences = study["verdict"]["sentences"];
  ASSERT_GE(sentences.size(), 3u);
  std::string all;
  for (const json& s : sentences) all += s["text"].get<std::string>() + "\n";
  // Who wins, what differs (HLEN's reads), exactness and timing are all said.
  EXPECT_NE(all.find("On memory, h0 ranks first"), std::string::npos) << all;
  EXPECT_NE(all.find("most on needs: h2 needs a cache Redis"), std::string::npos) << all;
  // h2 costs what h0 costs in KV (said so), h1 differs on HLEN.
  EXPECT_NE(all.find("h0 and h2 issue the same KV operations"), std::string::npos) << all;
  EXPECT_NE(all.find("HLEN: 1 KV read and 0 writes per call on h0, against 11 and 0 on h1"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("HSET replies may differ from Redis on h1"), std::string::npos) << all;
  EXPECT_NE(all.find("h1 is 1.91× slower"), std::string::npos) << all;
  EXPECT_NE(all.find("h2 is ≈"), std::string::npos) << all;
  EXPECT_TRUE(CheckVerdict(study).empty()) << CheckVerdict(study)[0];

  // The sentences follow the numbers: make v1 the fast one and the verdict turns around.
  json result = Result();
  for (json& r : result["workloads"][0]["runs"]) {
    if (r["hash_version"] == 1) {
      r["phases"][1]["commands"]["HGET"]["latency_ns"]["p50"] = 1000;
      r["phases"][1]["commands"]["HLEN"]["latency_ns"]["p50"] = 1000;
      r["phases"][1]["wall_seconds"] = 0.0001;
    }
  }
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, o, &rankings).ok());
  const json turned = Study(rankings);
  std::string text;
  for (const json& s : turned["verdict"]["sentences"]) text += s["text"].get<std::string>();
  EXPECT_NE(text.find("h1 has the lowest p50 (1 µs)"), std::string::npos) << text;
  EXPECT_TRUE(CheckVerdict(turned).empty());
}

TEST(Verdict, CheckCatchesANumberThatIsNotInTheTable) {
  RankOptions o;
  json study = Study(Ranked(o));
  json& s = study["verdict"]["sentences"][0];
  s["text"] = s["text"].get<std::string>() + " It is 42 times better.";
  ASSERT_FALSE(CheckVerdict(study).empty());
  // A fact whose table value changed.
  study = Study(Ranked(o));
  for (json& sentence : study["verdict"]["sentences"]) {
    if (!sentence["facts"].empty()) {
      study.at(json::json_pointer(sentence["facts"][0]["pointer"].get<std::string>())) = 12345.0;
      break;
    }
  }
  EXPECT_FALSE(CheckVerdict(study).empty());
}

// docs/studies/*/study.json: each example study's verdict agrees with its own tables.
TEST(Verdict, ExampleStudiesAreConsistent) {
  const fs::path dir = fs::path(SourceDir()) / "docs" / "studies";
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " (set KVLAB_SOURCE_DIR)";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const fs::path p = entry.path() / "study.json";
    if (!fs::exists(p)) continue;
    std::ifstream in(p);
    const json study = json::parse(in);
    ASSERT_FALSE(study["rankings"].empty()) << p;
    for (const std::string& problem : CheckVerdict(study)) ADD_FAILURE() << p << ": " << problem;
    // The stored verdict is what MakeVerdict says of the stored tables.
    EXPECT_EQ(study["verdict"], MakeVerdict(study)) << p;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

}  // namespace
}  // namespace kvlab::study
