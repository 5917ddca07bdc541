// `kvlab gate` end to end, as CI runs it: build/kvlab in a child process.
//
// The central test: a baseline of a real HGET workload over memory and RocksDB and every hash
// version, then the same workload with the test-only --test-extra-hget-read switch (one extra
// KV get per HGET, test_support/hash_extra_read.h): the gate must fail and name HGET, the version,
// the backend and the counter. The same run without the switch must pass.
//
// Then the gate's statistics end to end: paired runs of two builds (the new one slowed by the
// test-only --test-slow-command) and the exit status 4 of an inconclusive comparison, the
// machine-wide shift with Holm's adjusted p on every row, and change points over a history.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gate/gate_test_util.h"
#include "testing/kv_test_util.h"

namespace kvlab::gate {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ChildRun {
  int exit_code = -1;
  std::string out, err;
};

// Runs build/kvlab with `args` (and `env` added to the environment), output to files in dir.
ChildRun Kvlab(const std::vector<std::string>& args, const std::string& dir,
               const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open((dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    unsetenv("GITHUB_STEP_SUMMARY");
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv = {const_cast<char*>(KVLAB_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(KVLAB_BINARY, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ChildRun r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFile(dir + "/stdout");
  r.err = ReadFile(dir + "/stderr");
  return r;
}

// A small, deterministic HGET workload over memory and RocksDB and the KV-only hash versions
// (the Redis-tier versions need redis-servers; the CI gate covers them).
std::vector<std::string> HgetRun() {
  return {"bench",
          "run",
          "ycsb-c-field",
          "--backends",
          "memory,rocksdb",
          "--hash-versions",
          "0,1",
          "--operations",
          "300",
          "--records",
          "50",
          "--warmup",
          "0",
          "--allow-invalid-timing"};
}

TEST(GateCli, OneExtraKvReadInHgetFailsTheGateByName) {
  const std::string dir = testing::TempDir() + "/hget";
  std::filesystem::create_directories(dir);
  const std::string baseline = dir + "/baseline.json";
  std::vector<std::string> make = {"gate", "--update", "--baseline", baseline, "--run"};
  const std::vector<std::string> workload = HgetRun();
  make.insert(make.end(), workload.begin(), workload.end());
  ChildRun r = Kvlab(make, dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  ASSERT_NE(r.err.find("new baseline"), std::string::npos) << r.err;

  // Unchanged code: the same run passes (timings reported, never gated with 1 repetition).
  const std::string junit = dir + "/gate.xml";
  const std::string summary = dir + "/summary.md";
  std::ofstream(summary) << "# earlier step\n";
  std::vector<std::string> check = {"gate",   "--baseline", baseline, "--timings",
                                    "report", "--junit",    junit,    "--run"};
  check.insert(check.end(), workload.begin(), workload.end());
  r = Kvlab(check, dir, {{"GITHUB_STEP_SUMMARY", summary}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("## kvlab gate: PASS"), std::string::npos) << r.out;
  const std::string appended = ReadFile(summary);
  EXPECT_EQ(appended.rfind("# earlier step\n## kvlab gate: PASS", 0), 0u) << appended;
  EXPECT_NE(ReadFile(junit).find("<testsuites name=\"kvlab gate\""), std::string::npos);

  // One extra KV get per HGET: exit 1, and the report names command, version, backend and
  // counter for every cell.
  check.push_back("--test-extra-hget-read");
  r = Kvlab(check, dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // kv.gets, and kv.bytes_read (which counts the extra get's key), per cell.
  EXPECT_NE(r.out.find("## kvlab gate: FAIL (8 regressions)"), std::string::npos) << r.out;
  for (const char* backend : {"memory", "rocksdb"}) {
    for (const char* version : {"h0", "h1"}) {
      const std::string line = std::string("- ycsb-c-field · run · HGET · ") + backend + " · " +
                               version + ": kv.gets 2 -> 3 per call (+1)";
      EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
    }
  }
  EXPECT_NE(ReadFile(junit).find("failures=\"8\""), std::string::npos) << ReadFile(junit);
}

TEST(GateCli, BadInputExitsTwoNamingTheProblem) {
  const std::string dir = testing::TempDir() + "/bad-input";
  std::filesystem::create_directories(dir);
  const std::string bench =
      testing::WriteTemp("bench.json", testing::BenchResult({testing::FixtureCell{}}).dump());
  const std::string conform = testing::WriteTemp("conform.json", testing::ConformResult({}).dump());
  const std::string garbage = testing::WriteTemp("garbage.json", "{\"schema\": \"kvlab-bench");
  const std::string foreign = testing::WriteTemp("foreign.json", "{\"name\": \"not a result\"}");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"gate", "--baseline", "/nonexistent.json", "--current", bench},
       "/nonexistent.json: cannot read the file"},
      {{"gate", "--baseline", bench, "--current", garbage}, "garbage.json: not valid JSON"},
      {{"gate", "--baseline", bench, "--current", foreign},
       "foreign.json: not a kvlab bench, kvlab conform or Google Benchmark result"},
      {{"gate", "--baseline", bench, "--current", conform}, "cannot compare a kvlab bench result"},
      {{"gate", "--baseline", bench, "--current", bench, "--threshold", "ten"},
       "--threshold 'ten' is not a percentage"},
      {{"gate", "--baseline", bench, "--current", bench, "--threshold", "10"},
       "write 10% if you meant that"},
      {{"gate", "--baseline", bench}, "give --current FILE, or --run"},
      {{"gate", "--baseline", bench, "--current", bench, "--alpha", "1.5"},
       "--alpha '1.5' must be a number between 0 and 1"},
      {{"gate", "--baseline", bench, "--current", bench, "--timings", "sometimes"},
       "--timings 'sometimes': expected auto, gate, report or off"},
      {{"gate", "--baseline", bench, "--current", bench, "extra"}, "unexpected arguments: extra"},
  };
  for (const Case& c : cases) {
    const ChildRun r = Kvlab(c.args, dir);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.message << "\n" << r.err;
  }
  // Same file against itself: 3 repetitions are too few to gate timings: inconclusive, exit 4
  // (never a pass, and not bad input), naming the command that would settle it.
  ChildRun r = Kvlab({"gate", "--baseline", bench, "--current", bench}, dir);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("## kvlab gate: INCONCLUSIVE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("To make it conclusive: `kvlab bench run ycsb-c-field --repetitions 8` for "
                       "both the baseline and the current result, or --repetitions 18 for the "
                       "current result only"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("kvlab gate: INCONCLUSIVE"), std::string::npos) << r.err;
  r = Kvlab({"gate", "--baseline", bench, "--current", bench, "--timings", "report"}, dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Paired mode's own mistakes are bad input.
  r = Kvlab({"gate", "--baseline-binary", "/nonexistent/kvlab", "--run", "bench", "run", "x"}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("/nonexistent/kvlab: not an executable kvlab binary"), std::string::npos)
      << r.err;
  r = Kvlab({"gate", "--baseline-binary", KVLAB_BINARY, "--baseline", bench, "--run"}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--baseline-binary compares two builds run now in pairs"), std::string::npos)
      << r.err;
}

// Paired runs: this kvlab against a "new build" that makes HGET twice as slow (a wrapper that
// adds the test-only --test-slow-command HGET=1.0). The gate runs them alternately and names HGET.
TEST(GateCli, PairedRunsFindAOneCommandSlowdownAndSayWhenTooFewPairs) {
  const std::string dir = testing::TempDir() + "/paired";
  std::filesystem::create_directories(dir);
  const std::string slow = dir + "/kvlab-slow-hget";
  std::ofstream(slow) << "#!/bin/sh\nexec " << KVLAB_BINARY
                      << " \"$@\" --test-slow-command HGET=1.0\n";
  std::filesystem::permissions(slow, std::filesystem::perms::owner_all);
  std::vector<std::string> run = {"--run",
                                  "bench",
                                  "run",
                                  "ycsb-c-field",
                                  "--backends",
                                  "memory",
                                  "--hash-versions",
                                  "0",
                                  "--operations",
                                  "400",
                                  "--records",
                                  "50",
                                  "--warmup",
                                  "0",
                                  "--allow-invalid-timing"};
  // 4 timing rows (HGET and the load's HSET p50, two phases' throughput): Holm's first level
  // 0.01 / 4 needs 10 pairs all one way.
  std::vector<std::string> args = {"gate", "--baseline-binary", KVLAB_BINARY, "--current-binary",
                                   slow,   "--latency",         "p50",        "--pairs",
                                   "10"};
  args.insert(args.end(), run.begin(), run.end());
  ChildRun r = Kvlab(args, dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("paired (10 pairs, both builds at once, the order alternating, the same "
                       "seeds)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("- ycsb-c-field · run · HGET · memory · h0: p50_ns "), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("load · HSET · memory · h0: p50_ns"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("pair 10/10 done (at once, current first)"), std::string::npos) << r.err;

  // Three pairs cannot reach that level: inconclusive, with the command that can.
  args = {"gate", "--baseline-binary", KVLAB_BINARY, "--latency", "p50", "--pairs", "3"};
  args.insert(args.end(), run.begin(), run.end());
  r = Kvlab(args, dir);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("To make it conclusive: `kvlab gate --baseline-binary ") +
                       KVLAB_BINARY + " --pairs 18 --run bench run ycsb-c-field"),
            std::string::npos)
      << r.out;
}

// Files whose every timing moved 40% (another machine's load, say): one machine-wide shift,
// inconclusive, not 18 regressions; and Holm's adjusted p beside the raw one on every row.
TEST(GateCli, AMachineWideShiftIsOneInconclusiveFindingWithAdjustedPs) {
  const std::string dir = testing::TempDir() + "/shift";
  std::filesystem::create_directories(dir);
  std::vector<testing::FixtureCell> base, cur;
  int seed = 1;
  for (const char* backend : {"memory", "rocksdb"}) {
    for (const char* command : {"HGET", "HSET", "HDEL"}) {
      testing::FixtureCell b;
      b.backend = backend;
      b.command = command;
      b.phase = std::string("run-") + command;
      b.p99 = testing::Noisy(2e6, 0.03, 8, seed++);
      testing::FixtureCell c = b;
      c.p99 = testing::Noisy(2.8e6, 0.03, 8, seed++);
      base.push_back(b);
      cur.push_back(c);
    }
  }
  const std::string b = testing::WriteTemp("shift-base.json", testing::BenchResult(base).dump());
  const std::string c = testing::WriteTemp("shift-cur.json", testing::BenchResult(cur).dump());
  const ChildRun r = Kvlab({"gate", "--baseline", b, "--current", c, "--all"}, dir);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("**Machine-wide shift: +4"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("### Regressions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| p | adjusted p | n |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over the 18 timing rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ms ["), std::string::npos) << r.out;  // 2.8 ms, not 2.8e+06 ns
  EXPECT_EQ(r.out.find("e+06"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("compare the two builds in pairs"), std::string::npos) << r.out;
}

// A history of results, one per commit: the run where p50 rose 30% is named, with its size and
// confidence; the series are drawn; too short a history is inconclusive; --update adds to it.
TEST(GateCli, HistoryNamesTheRunWhereALevelChangeBegan) {
  const std::string dir = testing::TempDir() + "/history";
  const std::string runs = dir + "/runs";
  std::filesystem::create_directories(runs);
  // 16 runs, p50 30% higher from the 11th on: six runs on the new level, which the permutation
  // test needs to see it at level 0.01 / 3.
  for (int i = 0; i < 16; ++i) {
    testing::FixtureCell c;
    c.p99 = testing::Noisy(3000, 0.02, 3, 10 + i);
    c.p50 = testing::Noisy(i >= 10 ? 1300 : 1000, 0.02, 3, 50 + i);
    c.throughput = testing::Noisy(1e5, 0.02, 3, 90 + i);
    testing::FixtureContext ctx;
    ctx.date = "2026-03-" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1) + "T00:00:00Z";
    ctx.commit = "commit" + std::to_string(i + 1);
    std::ofstream(runs + "/r" + std::to_string(i) + ".json")
        << testing::BenchResult({c}, 2, ctx).dump();
  }
  const std::string plots = dir + "/plots";
  ChildRun r = Kvlab({"gate", "--history", runs, "--plots", plots}, dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("## kvlab gate --history: FAIL (1 regression in the newest 10 runs)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ycsb-c-field · run · HGET · memory · h0: p50_ns from run 11 (r10.json, "
                       "commit commit11) on: 1 µs -> 1.3"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("confidence 99.9"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(plots + "/trend-ycsb-c-field-run-hget-memory-h0.png"))
      << r.out << r.err;
  EXPECT_NE(ReadFile(plots + "/index.md").find("![trend-ycsb-c-field-run-hget-memory-h0.png]"),
            std::string::npos);

  // Four runs: timings cannot be searched; exit 4.
  const std::string few = dir + "/few";
  std::filesystem::create_directories(few);
  for (int i = 0; i < 4; ++i) {
    std::filesystem::copy_file(runs + "/r" + std::to_string(i) + ".json",
                               few + "/r" + std::to_string(i) + ".json");
  }
  r = Kvlab({"gate", "--history", few}, dir);
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_NE(r.out.find("INCONCLUSIVE (4 runs: a change in timings needs at least 6 runs"),
            std::string::npos)
      << r.out;

  // --update --history keeps the new baseline in the history too.
  const std::string baseline = dir + "/baseline.json";
  r = Kvlab({"gate", "--update", "--baseline", baseline, "--history", few, "--current",
             runs + "/r15.json"},
            dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(std::filesystem::exists(few + "/20260316T000000Z-commit16.json")) << r.err;
  r = Kvlab({"gate", "--history", few, "--baseline", baseline}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

}  // namespace
}  // namespace kvlab::gate
