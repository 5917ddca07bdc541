// `kvlab gate` end to end, as CI runs it: build/kvlab in a child process.
//
// The central test: a baseline of a real HGET workload over memory and RocksDB and every hash
// version, then the same workload with the test-only --test-extra-hget-read switch (one extra
// KV get per HGET, encodings/hash_extra_read.h): the gate must fail and name HGET, the version,
// the backend and the counter. The same run without the switch must pass.
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
  // Same file against itself: a pass, 3 repetitions reported but too few to gate timings.
  ChildRun r = Kvlab({"gate", "--baseline", bench, "--current", bench}, dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("INCONCLUSIVE"), std::string::npos) << r.out;
  r = Kvlab({"gate", "--baseline", bench, "--current", bench, "--timings", "report"}, dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace kvlab::gate
