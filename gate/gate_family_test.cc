// The gate's statistics over a whole run: Holm's family-wise correction, the machine-wide
// shift, the loaded machine, paired comparisons, one throughput row per phase, human units,
// and change points over a history of results.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gate/compare.h"
#include "gate/dataset.h"
#include "gate/gate_test_util.h"
#include "gate/history.h"
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

GateReport CompareJson(const json& base, const json& cur, GateOptions options = {}) {
  GateReport report;
  const Status s = Compare(Parse(base, "base.json"), Parse(cur, "cur.json"), options, &report);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return report;
}

const TimingRow* Row(const GateReport& r, const std::string& cell_part, const std::string& metric) {
  for (const TimingRow& t : r.timings) {
    if (t.metric == metric && t.cell.find(cell_part) != std::string::npos) return &t;
  }
  return nullptr;
}

// Ten repetitions of a cell 12% slower, with overlap: Mann-Whitney p = 0.0021 (SciPy).
FixtureCell ModestlySlower(bool current) {
  FixtureCell c;
  c.p99 = {1000, 1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080, 1090};
  if (current) c.p99 = {1035, 1055, 1085, 1160, 1170, 1180, 1190, 1200, 1210, 1220};
  return c;
}

TEST(GateFamily, HolmKeepsOneRowOfManyFromFailingTheRun) {
  // Alone (3 timing rows: p50, p99, the phase's throughput) the change is a regression.
  const GateReport alone =
      CompareJson(BenchResult({ModestlySlower(false)}), BenchResult({ModestlySlower(true)}));
  ASSERT_FALSE(alone.regressions.empty());
  const TimingRow* row = Row(alone, "HGET", "p99_ns");
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(row->p_value, 0.0020892420273225226, 1e-9);
  EXPECT_NEAR(row->p_adjusted, 3 * 0.0020892420273225226, 1e-9);
  EXPECT_EQ(row->verdict, RowVerdict::kWorse);
  EXPECT_EQ(alone.timing_family, 3u);

  // Among 19 other cells of pure noise (60 rows), the same p is what one row in 60 shows by
  // chance: adjusted 60 x 0.0021 > 0.01, unchanged. Uncorrected it would fail the run.
  std::vector<FixtureCell> base = {ModestlySlower(false)}, cur = {ModestlySlower(true)};
  for (int i = 0; i < 19; ++i) {
    FixtureCell b;
    b.command = "CMD" + std::to_string(i);
    b.p99 = Noisy(1000, 0.03, 10, 100 + i);
    FixtureCell c = b;
    c.p99 = Noisy(1000, 0.03, 10, 200 + i);
    base.push_back(b);
    cur.push_back(c);
  }
  // One phase per command here (the fixture gives each cell its own run).
  for (size_t i = 0; i < base.size(); ++i) base[i].phase = cur[i].phase = "run" + std::to_string(i);
  const GateReport many = CompareJson(BenchResult(base), BenchResult(cur));
  EXPECT_TRUE(many.Passed()) << (many.regressions.empty() ? "" : many.regressions[0]);
  EXPECT_EQ(many.timing_family, 60u);
  row = Row(many, "HGET", "p99_ns");
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(row->p_value, 0.0020892420273225226, 1e-9);
  EXPECT_GT(row->p_adjusted, 0.01);
  EXPECT_EQ(row->verdict, RowVerdict::kUnchanged);
  // The report shows raw and adjusted p per row, and says what the rate is per run.
  RenderOptions all;
  all.all = true;
  const std::string md = RenderMarkdown(many, all);
  EXPECT_NE(md.find("| p | adjusted p | n |"), std::string::npos) << md;
  EXPECT_NE(md.find("Holm's adjusted p <= 0.01 over the 60 timing rows (so noise fails this gate "
                    "run with probability at most 0.01)"),
            std::string::npos)
      << md;
}

// Six cells on two backends, every timing `factor` slower in the current run; `odd_one` more.
std::pair<json, json> Shifted(double factor, double odd_one = 1) {
  std::vector<FixtureCell> base, cur;
  int seed = 1;
  for (const char* backend : {"memory", "rocksdb"}) {
    for (const char* command : {"HGET", "HSET", "HDEL"}) {
      FixtureCell b;
      b.backend = backend;
      b.command = command;
      b.phase = std::string("run-") + command;
      b.p99 = Noisy(1000, 0.03, 8, seed++);
      FixtureCell c = b;
      const double f =
          factor *
          (std::string(command) == "HDEL" && std::string(backend) == "memory" ? odd_one : 1);
      c.p99 = Noisy(1000 * f, 0.03, 8, seed++);
      base.push_back(b);
      cur.push_back(c);
    }
  }
  return {BenchResult(base), BenchResult(cur)};
}

TEST(GateFamily, AMachineWideShiftIsOneFindingNotEighteenRegressions) {
  const auto [base, cur] = Shifted(1.4);
  const GateReport r = CompareJson(base, cur);
  EXPECT_TRUE(r.regressions.empty()) << r.regressions[0];
  EXPECT_TRUE(r.common_shift.present);
  EXPECT_NEAR(r.common_shift.ratio, 1.4, 0.05);
  EXPECT_EQ(r.common_shift.rows, 18u);
  ASSERT_EQ(r.inconclusive.size(), 1u);  // the shift, and no row beyond it
  EXPECT_NE(r.inconclusive[0].find("machine-wide shift: the timing rows moved +4"),
            std::string::npos)
      << r.inconclusive[0];
  for (const TimingRow& t : r.timings) EXPECT_EQ(t.verdict, RowVerdict::kUnchanged) << t.reason;
  const std::string md = RenderMarkdown(r, {});
  EXPECT_NE(md.find("INCONCLUSIVE (1 gated timing finding"), std::string::npos) << md;
  EXPECT_NE(md.find("**Machine-wide shift: +4"), std::string::npos) << md;

  // One cell 30% beyond the shift is named, but an unpaired run cannot fail on it.
  const auto [base2, cur2] = Shifted(1.4, 1.3);
  const GateReport odd = CompareJson(base2, cur2);
  EXPECT_TRUE(odd.regressions.empty());
  const TimingRow* row = Row(odd, "HDEL · memory", "p99_ns");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->verdict, RowVerdict::kInconclusive);
  EXPECT_NEAR(row->relative_ratio, 1.3, 0.06);
  EXPECT_NE(row->reason.find("beyond the machine-wide shift of +4"), std::string::npos)
      << row->reason;

  // A faster machine hides no regression: it is noted, and the run passes.
  const auto [base3, cur3] = Shifted(0.7);
  const GateReport faster = CompareJson(base3, cur3);
  EXPECT_TRUE(faster.common_shift.present) << RenderMarkdown(faster, {});
  EXPECT_TRUE(faster.Passed());
  EXPECT_NE(RenderMarkdown(faster, {}).find("**Machine-wide shift: -29"), std::string::npos)
      << RenderMarkdown(faster, {});
}

TEST(GateFamily, ALoadedMachineMakesUnpairedTimingsInconclusiveNeverARegression) {
  FixtureCell base, cur;
  base.p99 = Noisy(1000, 0.03, 10, 1);
  cur.p99 = Noisy(1300, 0.03, 10, 3);
  FixtureContext loaded;
  loaded.load_average = 7.3;
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}, 1, loaded));
  EXPECT_TRUE(r.regressions.empty());
  EXPECT_FALSE(r.Passed());
  EXPECT_NE(r.loaded.find("load average 7.3 on 2 usable cpus"), std::string::npos) << r.loaded;
  const TimingRow* row = Row(r, "HGET", "p99_ns");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->verdict, RowVerdict::kInconclusive);
  EXPECT_NE(RenderMarkdown(r, {}).find("**Loaded machine**: the current run started on a loaded "
                                       "machine"),
            std::string::npos);
  // Nothing seems to have changed on the loaded machine: still no pass (the load can hide a
  // change), but the rows are unchanged and the one finding is the load.
  cur.p99 = Noisy(1000, 0.03, 10, 3);
  const GateReport same = CompareJson(BenchResult({base}), BenchResult({cur}, 1, loaded));
  EXPECT_FALSE(same.Passed());
  EXPECT_TRUE(same.regressions.empty());
  ASSERT_EQ(same.inconclusive.size(), 1u);
  EXPECT_NE(same.inconclusive[0].find("loaded machine: the current run started on a loaded "
                                      "machine (load average 7.3 on 2 usable cpus): an unpaired "
                                      "comparison there can neither pass nor fail timings"),
            std::string::npos)
      << same.inconclusive[0];
  EXPECT_EQ(Row(same, "HGET", "p99_ns")->verdict, RowVerdict::kUnchanged);
  // Counters still gate there, exactly.
  cur.kv["gets"] = 3000;
  EXPECT_FALSE(CompareJson(BenchResult({base}), BenchResult({cur}, 1, loaded)).regressions.empty());
  // And paired runs are not refused for the load: it hits both sides of each pair.
  GateOptions paired;
  paired.paired = true;
  cur.kv["gets"] = 2000;
  EXPECT_TRUE(CompareJson(BenchResult({base}), BenchResult({cur}, 1, loaded), paired).Passed());
}

TEST(GateFamily, PairedRunsCancelTheMachinesDrift) {
  // The machine slows down run after run; each pair rides it together, the current build 15%
  // slower in every pair.
  FixtureCell base, cur;
  base.p99.clear();
  cur.p99.clear();
  for (int i = 0; i < 12; ++i) {
    const double machine = 1 + 0.25 * i;
    base.p99.push_back(1000 * machine);
    cur.p99.push_back(1150 * machine * (i % 2 ? 1.01 : 0.99));
  }
  GateOptions paired;
  paired.paired = true;
  const GateReport r = CompareJson(BenchResult({base}), BenchResult({cur}), paired);
  EXPECT_TRUE(r.paired);
  EXPECT_EQ(r.pairs, 12u);
  const TimingRow* row = Row(r, "HGET", "p99_ns");
  ASSERT_NE(row, nullptr);
  EXPECT_TRUE(row->paired);
  EXPECT_EQ(row->verdict, RowVerdict::kWorse);
  EXPECT_NEAR(row->ratio, 1.15, 0.02);
  EXPECT_DOUBLE_EQ(row->p_value, 2.0 / 4096);
  EXPECT_FALSE(r.regressions.empty());
  const std::string md = RenderMarkdown(r, {});
  EXPECT_NE(md.find("paired (12 pairs, the same seeds): Wilcoxon signed-rank"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| 12 pairs |"), std::string::npos) << md;
  // Unpaired, the drift swamps the change.
  const GateReport unpaired = CompareJson(BenchResult({base}), BenchResult({cur}));
  EXPECT_TRUE(unpaired.regressions.empty());
  EXPECT_EQ(Row(unpaired, "HGET", "p99_ns")->verdict, RowVerdict::kUnchanged);
}

TEST(GateFamily, ThroughputIsOneRowPerPhaseAndTimesAreInHumanUnits) {
  FixtureCell cell;
  // 8 repetitions: 11 timing rows (5 commands x p50, p99, and the phase's throughput) need 7.
  cell.p99 = {3.1e7, 3.2e7, 3.14e7, 3.13e7, 3.12e7, 3.15e7, 3.16e7, 3.11e7};
  cell.p50 = {1.56959e7, 1.57e7, 1.56e7, 1.571e7, 1.568e7, 1.566e7, 1.567e7, 1.569e7};
  json doc = BenchResult({cell});
  // Five commands in one phase, each with its own throughput_per_s (calls over the phase's
  // time): one throughput row for the phase, not five.
  for (json& run : doc["workloads"][0]["runs"]) {
    json& commands = run["phases"][0]["commands"];
    for (const char* other : {"HSET", "HDEL", "HLEN", "HEXISTS"})
      commands[other] = commands["HGET"];
  }
  json slower = doc;
  for (json& run : slower["workloads"][0]["runs"]) {
    run["phases"][0]["throughput_per_s"] =
        run["phases"][0]["throughput_per_s"].get<double>() * 0.45;
    for (auto& [name, st] : run["phases"][0]["commands"].items()) {
      st["throughput_per_s"] = st["throughput_per_s"].get<double>() * 0.45;
    }
  }
  const GateReport r = CompareJson(doc, slower);
  size_t throughput_rows = 0;
  for (const TimingRow& t : r.timings) throughput_rows += t.metric == "throughput";
  EXPECT_EQ(throughput_rows, 1u);
  ASSERT_EQ(r.regressions.size(), 1u) << RenderMarkdown(r, {});
  EXPECT_NE(r.regressions[0].find("ycsb-c-field · run · memory · h0: throughput 63.8 ops/s -> "
                                  "28.7 ops/s"),
            std::string::npos)
      << r.regressions[0];
  RenderOptions all;
  all.all = true;
  const std::string md = RenderMarkdown(r, all);
  EXPECT_NE(md.find("15.7 ms [15.6 ms, 15.7 ms]"), std::string::npos) << md;
  EXPECT_EQ(md.find("e+07"), std::string::npos) << md;
}

// A history of `n` results, one per commit; p50 `after` times higher from run `change` on (0
// based), kv.gets one higher per call from run `counter_change` on.
std::string History(const std::string& name, int n, int change, double after, int counter_change) {
  const std::string dir = testing::TempDir() + "/" + name;
  std::filesystem::create_directories(dir);
  for (int i = 0; i < n; ++i) {
    FixtureCell c;
    c.p99 = Noisy(3000, 0.02, 3, 10 + i);
    c.p50 = Noisy(i >= change ? 1000 * after : 1000, 0.02, 3, 50 + i);
    c.throughput = Noisy(1e5, 0.02, 3, 90 + i);
    if (i >= counter_change) c.kv["gets"] = 3000;
    FixtureContext ctx;
    ctx.date = fmt::format("2026-02-{:02d}T00:00:00Z", i + 1);
    ctx.commit = fmt::format("c{:02d}", i + 1);
    // Written in reverse name order: the dates, not the names, order the runs.
    std::ofstream(fmt::format("{}/{:02d}.json", dir, n - i)) << BenchResult({c}, 2, ctx).dump();
  }
  return dir;
}

TEST(GateHistory, NamesTheRunWhereALevelChangeBeganWithItsSizeAndConfidence) {
  const std::string dir = History("steps", 14, 9, 1.3, 11);
  HistoryReport r;
  ASSERT_TRUE(AnalyzeHistory(dir, {}, &r).ok());
  ASSERT_EQ(r.runs.size(), 14u);
  EXPECT_EQ(r.runs[0].commit, "c01");
  EXPECT_TRUE(r.inconclusive.empty());
  // p50, p99 and the phase's throughput are searched; the Bonferroni level is 0.01 / 3.
  EXPECT_EQ(r.timing_series_tested, 3u);
  EXPECT_NEAR(r.level, 0.01 / 3, 1e-12);
  bool p50 = false, gets = false;
  for (const HistoryChange& c : r.changes) {
    const HistorySeries& s = r.series[c.series];
    if (s.metric == "p50_ns") {
      p50 = true;
      EXPECT_EQ(c.run, 9u);
      EXPECT_NEAR(c.after / c.before, 1.3, 0.04);
      EXPECT_LE(c.p_value, r.level);
      EXPECT_TRUE(c.worse && c.large && c.recent);
    } else if (s.metric == "kv.gets") {
      gets = true;
      EXPECT_EQ(c.run, 11u);
      EXPECT_DOUBLE_EQ(c.before, 2);
      EXPECT_DOUBLE_EQ(c.after, 3);
    } else {
      ADD_FAILURE() << "no change expected in " << s.metric << " at run " << c.run;
    }
  }
  EXPECT_TRUE(p50 && gets);
  ASSERT_EQ(r.regressions.size(), 2u);
  const std::string md = RenderHistoryMarkdown(r, {"trend-x.png"});
  EXPECT_NE(md.find("FAIL (2 regressions in the newest 10 runs)"), std::string::npos) << md;
  EXPECT_NE(md.find("p50_ns from run 10 (05.json, commit c10) on: 1 µs -> 1.3"), std::string::npos)
      << md;
  EXPECT_NE(md.find("![trend-x.png](trend-x.png)"), std::string::npos);
  // Seen from later on, the change is history: reported, not gated.
  HistoryOptions older;
  older.recent = 2;
  ASSERT_TRUE(AnalyzeHistory(dir, older, &r).ok());
  EXPECT_TRUE(r.regressions.empty());
  EXPECT_EQ(r.changes.size(), 2u);
  const json plot = HistoryPlotInput(r);
  EXPECT_EQ(plot["cells"][0]["changed"], true);
  EXPECT_EQ(plot["runs"].size(), 14u);
}

TEST(GateHistory, TooFewRunsForTimingsAndBadInput) {
  const std::string dir = History("short", 4, 2, 1.5, 2);
  HistoryReport r;
  ASSERT_TRUE(AnalyzeHistory(dir, {}, &r).ok());
  EXPECT_NE(r.inconclusive.find("4 runs: a change in timings needs at least 6 runs"),
            std::string::npos)
      << r.inconclusive;
  ASSERT_EQ(r.changes.size(), 1u);  // the counter, exact
  EXPECT_EQ(r.regressions.size(), 1u);
  EXPECT_FALSE(AnalyzeHistory(testing::TempDir() + "/none", {}, &r).ok());
  const std::string mixed = History("mixed", 3, 9, 1, 9);
  std::ofstream(mixed + "/conform.json") << testing::ConformResult({}).dump();
  const Status s = AnalyzeHistory(mixed, {}, &r);
  EXPECT_NE(s.message().find("a kvlab conform result"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kvlab::gate
