// `kvlab report A B` compares with the CI gate's statistics (study/report_input.cc,
// CompareBench): the same rows, Holm over every timing row, the machine-wide shift and the loaded
// machine; never "better" or "worse" for a difference the data do not support.
#include <gtest/gtest.h>

#include "gate/gate_test_util.h"
#include "study/report_input.h"

namespace kvlab::study {
namespace {

using gate::testing::BenchResult;
using gate::testing::FixtureCell;
using gate::testing::FixtureContext;
using gate::testing::Noisy;
using nlohmann::json;

const json* Metric(const json& cmp, const std::string& command, const std::string& metric) {
  for (const json& row : cmp["rows"]) {
    if (row["command"] == command && row.contains(metric)) return &row[metric];
  }
  return nullptr;
}

TEST(ReportCompare, ThreeRepetitionsOnALoadedMachineAreNeverBetter) {
  // What the issue saw: two runs of the same build on a loaded machine, three repetitions, the
  // second 2.8 times faster by chance. The old comparison (Mann-Whitney at 0.10, uncorrected)
  // called it better; the gate's says the data cannot tell.
  FixtureCell base, cur;
  base.p99 = {3000, 3100, 2900};
  cur.p99 = {1050, 1100, 1080};
  FixtureContext loaded;
  loaded.load_average = 8.4;
  const json cmp = CompareBench(BenchResult({base}, 2, loaded), BenchResult({cur}, 2, loaded),
                                "a.json", "b.json");
  ASSERT_FALSE(cmp.contains("error")) << cmp.dump();
  for (const std::string metric : {"p50_ns", "p99_ns"}) {
    const json* m = Metric(cmp, "HGET", metric);
    ASSERT_NE(m, nullptr) << metric;
    EXPECT_EQ((*m)["verdict"], "inconclusive") << m->dump();
    EXPECT_GT((*m)["p_adjusted"].get<double>(), (*m)["p_value"].get<double>() - 1e-12);
  }
  const json* tput = Metric(cmp, "*", "throughput");
  ASSERT_NE(tput, nullptr);
  EXPECT_EQ((*tput)["verdict"], "inconclusive");
  EXPECT_EQ(cmp["family"], 3);
  EXPECT_EQ(cmp["repetitions_needed"], 8);
  EXPECT_EQ(cmp["alpha"], 0.01);
  bool loaded_warning = false;
  for (const json& w : cmp["warnings"]) {
    loaded_warning =
        loaded_warning || w.get<std::string>().find("loaded machine") != std::string::npos;
  }
  EXPECT_TRUE(loaded_warning) << cmp["warnings"].dump();
}

TEST(ReportCompare, EnoughRepetitionsShowADifferenceAndCountersStayExact) {
  FixtureCell base, cur;
  base.p99 = Noisy(1000, 0.02, 10, 1);
  cur.p99 = Noisy(1500, 0.02, 10, 2);
  cur.kv["gets"] = 3000;
  const json cmp = CompareBench(BenchResult({base}, 2), BenchResult({cur}, 2), "a.json", "b.json");
  const json* p99 = Metric(cmp, "HGET", "p99_ns");
  ASSERT_NE(p99, nullptr);
  EXPECT_EQ((*p99)["verdict"], "worse");
  EXPECT_LE((*p99)["p_adjusted"].get<double>(), 0.01);
  EXPECT_EQ((*p99)["unit"], "ns");
  for (const json& row : cmp["rows"]) {
    if (row["command"] != "HGET") continue;
    EXPECT_EQ(row["cell"], "memory h0");
    EXPECT_DOUBLE_EQ(row["kv_per_call"]["gets"]["baseline"].get<double>(), 2);
    EXPECT_DOUBLE_EQ(row["kv_per_call"]["gets"]["current"].get<double>(), 3);
  }
}

}  // namespace
}  // namespace kvlab::study
