// `kvlab bench` end to end, as a user runs it: build/kvlab in a child process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "testing/kv_test_util.h"
#include "workloads/build_info.h"

namespace kvlab::workloads {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts build/kvlab with args, stdout and stderr to files in dir. Returns the pid.
pid_t Spawn(const std::vector<std::string>& args, const std::string& dir) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = open((dir + "/stdout").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open((dir + "/stderr").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(KVLAB_BINARY));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(KVLAB_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct ChildRun {
  int exit_code;
  std::string out;
  std::string err;
};

ChildRun Kvlab(const std::vector<std::string>& args, const std::string& dir) {
  const int code = Wait(Spawn(args, dir));
  return {code, ReadFile(dir + "/stdout"), ReadFile(dir + "/stderr")};
}

std::vector<std::string> ResultFiles(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  }
  return out;
}

// Flags that let the tests run in any build: times of a debug or sanitizer build are marked
// invalid instead of refused.
const std::vector<std::string> kAnyBuild = {"--allow-invalid-timing", "--no-plots"};

std::vector<std::string> Args(std::vector<std::string> args) {
  args.insert(args.end(), kAnyBuild.begin(), kAnyBuild.end());
  return args;
}

TEST(BenchCli, RunWritesResultAndReport) {
  testing::ScratchDir dir;
  const std::string results = dir.Sub("results");
  // The KV-only hash versions: an HGET is exactly two gets (v2/v3 would read their cache).
  ChildRun r = Kvlab(
      Args({"bench", "run", "ycsb-c-field", "--backends", "memory,lmdb", "--hash-versions", "0,1",
            "--records", "100", "--operations", "300", "--seed", "5", "--results", results}),
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ycsb-c-field"), std::string::npos) << r.out;
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  EXPECT_EQ(j["schema"], "kvlab-bench-result");
  EXPECT_FALSE(j["partial"].get<bool>());
  std::string reason;
  EXPECT_EQ(j["timing_valid"].get<bool>(), TimingValid(&reason));
  EXPECT_EQ(j["context"]["workloads"][0]["seed"], 5);
  EXPECT_EQ(j["context"]["command_line"][1], "bench");
  const auto& runs = j["workloads"][0]["runs"];
  EXPECT_EQ(runs.size(), 2u * j["context"]["engine"]["hash_versions"].size());
  for (const auto& run : runs) {
    EXPECT_EQ(run["phases"][1]["commands"]["HGET"]["calls"], 300);
    EXPECT_EQ(run["phases"][1]["commands"]["HGET"]["kv_per_call"]["gets"], 2.0);
  }
  const std::string md = fs::path(files[0]).replace_extension(".md").string();
  ASSERT_TRUE(fs::exists(md));
  EXPECT_NE(ReadFile(md).find("| cell | reps |"), std::string::npos);

  // A second run adds a file next to the first.
  r = Kvlab(Args({"bench", "run", "session-store", "--backend", "memory", "--records", "50",
                  "--operations", "100", "--results", results, "--no-report"}),
            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ResultFiles(results).size(), 2u);

  // The report of a saved result can be written again.
  r = Kvlab({"bench", "report", files[0], "--no-plots"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("report: "), std::string::npos);
}

TEST(BenchCli, CtrlCWritesAPartialResult) {
  testing::ScratchDir dir;
  const std::string results = dir.Sub("results");
  const pid_t pid = Spawn(Args({"bench", "run", "ycsb-a", "--backends", "memory", "--hash-versions",
                                "0", "--records", "200", "--duration", "60", "--results", results}),
                          dir.path());
  // Wait until the run phase is going (the load is done), then press Ctrl-C.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ReadFile(dir.Sub("stderr")).find("| run") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(pid, SIGINT);
  const int code = Wait(pid);
  EXPECT_EQ(code, 130) << ReadFile(dir.Sub("stderr"));
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  EXPECT_TRUE(j["partial"].get<bool>());
  const auto& run = j["workloads"][0]["runs"][0];
  EXPECT_TRUE(run["partial"].get<bool>());
  EXPECT_TRUE(run["phases"][1]["interrupted"].get<bool>());
  EXPECT_GT(run["phases"][1]["operations"].get<uint64_t>(), 0u);
  EXPECT_NE(ReadFile(dir.Sub("stdout")).find("(partial)"), std::string::npos);
}

TEST(BenchCli, CatalogueAndBadInput) {
  testing::ScratchDir dir;
  ChildRun r = Kvlab({"bench", "list"}, dir.path());
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("ycsb-a"), std::string::npos);
  EXPECT_NE(r.out.find("ttl-churn"), std::string::npos);

  r = Kvlab({"bench", "show", "leaderboard"}, dir.path());
  ASSERT_EQ(r.exit_code, 0);
  const std::string file = dir.Sub("leaderboard.json");
  std::ofstream(file) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["name"], "leaderboard");

  // The shown workload is a valid workload file.
  r = Kvlab(Args({"bench", "run", file, "--backend", "memory", "--records", "2", "--elements", "50",
                  "--operations", "50", "--results", dir.Sub("r"), "--no-report"}),
            dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;

  std::ofstream(dir.Sub("bad.json")) << R"({"name": "bad", "run": [{"operations": 1,
      "ops": [{"commands": ["HGET {key} {feild}"]}]}]})";
  r = Kvlab(Args({"bench", "run", dir.Sub("bad.json"), "--results", dir.Sub("r")}), dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown placeholder {feild}"), std::string::npos) << r.err;

  r = Kvlab(Args({"bench", "run", "nope"}), dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no built-in workload 'nope'"), std::string::npos) << r.err;

  r = Kvlab(Args({"bench", "run", "ycsb-a", "--hash-versions", "7"}), dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("hash encoding v7 is not available"), std::string::npos) << r.err;
}

// Over RESP to `kvlab serve`, each phase carries the server's exact KV operations per command
// (INFO kvlab, read at the phase's start and end).
TEST(BenchCli, OverRespToKvlabServeReportsTheServersCounters) {
  testing::ScratchDir dir;
  const std::string socket = dir.path() + "/kvlab.sock";
  fs::create_directories(dir.Sub("serve"));
  fs::create_directories(dir.Sub("bench"));
  const pid_t server = Spawn(
      {"serve", "--backend", "memory", "--port", "0", "--unixsocket", socket, "--threads", "1"},
      dir.Sub("serve"));
  for (int i = 0; i < 200 && !fs::exists(socket); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(fs::exists(socket)) << ReadFile(dir.path() + "/serve/stderr");
  const std::string results = dir.Sub("results");
  ChildRun r =
      Kvlab(Args({"bench", "run", "ycsb-c-field", "--resp-only", "--resp", "unix://" + socket,
                  "--hash-versions", "0", "--records", "100", "--operations", "300", "--seed", "5",
                  "--results", results, "--no-report"}),
            dir.Sub("bench"));
  kill(server, SIGTERM);
  EXPECT_EQ(Wait(server), 0) << ReadFile(dir.path() + "/serve/stderr");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  const auto& runs = j["workloads"][0]["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["target"], "resp");
  EXPECT_EQ(runs[0]["hash_version"], 0);
  const auto& run = runs[0]["phases"][1];
  EXPECT_EQ(run["commands"]["HGET"]["calls"], 300);
  const auto& server_counters = run["store_counters"];
  ASSERT_TRUE(server_counters.contains("server.hget.calls")) << server_counters.dump();
  // Warm-up commands run inside the phase too; every HGET of hash v0 is two gets.
  const uint64_t calls = server_counters["server.hget.calls"];
  EXPECT_GE(calls, 300u);
  EXPECT_EQ(server_counters["server.hget.gets"], 2 * calls);
  // No HSET ran in the run phase (a counter that did not move is 0 or absent).
  EXPECT_EQ(server_counters.value("server.hset.calls", 0), 0) << server_counters.dump();
  EXPECT_TRUE(runs[0]["phases"][0]["store_counters"].contains("server.hset.batches"));
}

// Without --allow-invalid-timing, a debug or sanitizer build refuses to time; a release-like
// build runs.
TEST(BenchCli, TimingValidityIsEnforced) {
  testing::ScratchDir dir;
  ChildRun r = Kvlab({"bench", "run", "session-store", "--backend", "memory", "--records", "10",
                      "--operations", "10", "--results", dir.Sub("r"), "--no-report"},
                     dir.path());
  std::string reason;
  if (TimingValid(&reason)) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
  } else {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("refusing to time"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace kvlab::workloads
