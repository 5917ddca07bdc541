// The ranking, the weights, the verdict and its consistency check, on bench results built here
// with known numbers; and the example studies of docs/studies/, whose verdicts must agree with
// their own tables.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "study/ranking.h"
#include "study/verdict.h"

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

// A hash workload of 10 records of 10 fields: HSET in the load, HGET and HLEN in the run.
json Run(int version, int rep, double p50_us, double hlen_nexts, double load_bytes) {
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
  return {{"target", "in-process"},  {"backend", "memory"},
          {"hash_version", version}, {"zset_version", nullptr},
          {"repetition", rep},       {"error", nullptr},
          {"disk_bytes", nullptr},   {"tier_memory", json::object()},
          {"phases", {load, run}}};
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

std::vector<DeviationEntry> Catalogue() {
  DeviationEntry d;
  d.id = "hash-blind-hset-count";
  d.type = "hash";
  d.versions = {1, 3};
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
    w["runs"].push_back(Run(0, rep, v0[rep], 0, 1000));
    w["runs"].push_back(Run(1, rep, v1[rep], 10, 900));
    w["runs"].push_back(Run(2, rep, v2[rep], 0, 1000));
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

TEST(Ranking, RanksOnSignificantAndMaterialDifferencesOnly) {
  RankOptions o;
  o.deviations = Catalogue();
  const json rankings = Ranked(o);
  ASSERT_EQ(rankings.size(), 1u);
  const json& r = rankings[0];
  EXPECT_EQ(r["type"], "hash");
  EXPECT_EQ(r["backend"], "memory");
  EXPECT_EQ(r["elements_loaded"].get<double>(), 100);
  const json& h0 = RowOf(r, "h0");
  const json& h1 = RowOf(r, "h1");
  const json& h2 = RowOf(r, "h2");
  // p50: v0 is best; v1 is twice as slow in every repetition (significant at 90% with 3 vs 3);
  // v2 overlaps v0 (not significant: costs nothing).
  EXPECT_TRUE(h0["criteria"]["latency"]["best"].get<bool>());
  EXPECT_NEAR(h0["criteria"]["latency"]["value"].get<double>(), 11, 1e-9);
  EXPECT_TRUE(h1["criteria"]["latency"]["significant"].get<bool>());
  EXPECT_FALSE(h2["criteria"]["latency"]["significant"].get<bool>());
  EXPECT_EQ(h2["criteria"]["latency"]["cost"].get<double>(), 0);
  EXPECT_NEAR(h1["criteria"]["latency"]["cost"].get<double>(),
              o.weights["latency"] * std::log2(21.0 / 11.0), 1e-9);
  // KV operations per command (exact): v1's HLEN reads 10 more records per call.
  EXPECT_NEAR(h0["criteria"]["kv_ops"]["value"].get<double>(), (100 * 2 + 10 * 1) / 110.0, 1e-9);
  EXPECT_NEAR(h1["criteria"]["kv_ops"]["value"].get<double>(), (100 * 2 + 10 * 11) / 110.0, 1e-9);
  EXPECT_TRUE(h1["criteria"]["kv_ops"]["material"].get<bool>());
  EXPECT_NEAR(h1["commands"]["HLEN"]["kv_reads"].get<double>(), 11, 1e-9);
  // Space: load bytes per element.
  EXPECT_NEAR(h0["criteria"]["space"]["value"].get<double>(), 10, 1e-9);
  EXPECT_NEAR(h1["criteria"]["space"]["value"].get<double>(), 9, 1e-9);
  // Exactness: HSET is in the workload, and v1 is blind.
  ASSERT_EQ(h1["deviations"].size(), 1u);
  EXPECT_EQ(h1["deviations"][0]["id"], "hash-blind-hset-count");
  EXPECT_EQ(h1["deviations"][0]["commands"][0], "HSET");
  EXPECT_TRUE(h0["deviations"].empty());
  // Needs: v2 has a cache Redis.
  EXPECT_EQ(h2["criteria"]["needs"]["value"].get<double>(), 1);
  // Order: v0 first; v2 (a cache Redis, otherwise equal) second; v1 last.
  EXPECT_EQ(r["rows"][0]["label"], "h0");
  EXPECT_EQ(r["rows"][0]["rank"], 1);
  EXPECT_EQ(r["rows"][1]["label"], "h2");
  EXPECT_EQ(r["rows"][2]["label"], "h1");
  // The score is the sum of the costs.
  for (const json& row : r["rows"]) {
    double sum = 0;
    for (const auto& [name, c] : row["criteria"].items()) sum += c["cost"].get<double>();
    EXPECT_NEAR(row["score"].get<double>(), sum, 1e-9) << row["label"];
  }
}

TEST(Ranking, WeightsChangeTheOrder) {
  RankOptions o;
  o.deviations = Catalogue();
  ASSERT_TRUE(ParseWeights("latency=0,tail_latency=0,throughput=0,kv_ops=0,kv_bytes=0,exactness=0,"
                           "needs=0,space=5",
                           &o.weights)
                  .ok());
  const json rankings = Ranked(o);
  // Only space counts now: v1 writes fewer bytes per element.
  EXPECT_EQ(rankings[0]["rows"][0]["label"], "h1");
  EXPECT_EQ(rankings[0]["rows"][0]["score"].get<double>(), 0);
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
  for (json& r : result["workloads"][0]["runs"]) {
    const int v = r["hash_version"].get<int>();
    r["profile"] = {{"hash", v == 2 ? std::string("ardb") : std::to_string(v)}};
    r.erase("hash_version");
    r.erase("zset_version");
  }
  json rankings = json::array();
  ASSERT_TRUE(RankResult(result, RankOptions(), &rankings).ok());
  ASSERT_EQ(rankings[0]["rows"].size(), 3u);
  EXPECT_EQ(RowOf(rankings[0], "hardb")["version"], 67);  // the registry's id of hash ardb
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
  EXPECT_NE(all.find("h0 ranks first on memory"), std::string::npos) << all;
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
