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

#include "encodings/registry.h"
#include "redis/client.h"
#include "redis/server_process.h"
#include "testing/child_run.h"
#include "testing/kv_test_util.h"
#include "workloads/build_info.h"

namespace kvlab::workloads {

using redis::RedisClient;
using redis::RedisEndpoint;
using resp::Reply;
namespace {

namespace fs = std::filesystem;

using testing::ChildRun;
using testing::Kvlab;
using testing::ReadFile;
using testing::SpawnKvlab;
using testing::Wait;

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
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(runs.size(), 2u * j["context"]["versions"]["hash"].size());
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
  const pid_t pid =
      SpawnKvlab(Args({"bench", "run", "ycsb-a", "--backends", "memory", "--hash-versions", "0",
                       "--records", "200", "--duration", "60", "--results", results}),
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
  // Bad input is a usage error (2): nothing ran.
  r = Kvlab(Args({"bench", "run", dir.Sub("bad.json"), "--results", dir.Sub("r")}), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown placeholder {feild}"), std::string::npos) << r.err;

  r = Kvlab(Args({"bench", "run", "nope"}), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no built-in workload 'nope'"), std::string::npos) << r.err;

  r = Kvlab(Args({"bench", "run", "ycsb-a", "--hash-versions", "7"}), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("hash encoding v7 is not available"), std::string::npos) << r.err;
  // --encoding names versions by type; a bad one is a usage error naming the known ones.
  r = Kvlab(Args({"bench", "run", "ycsb-a", "--encoding", "hash=9"}), dir.path());
  EXPECT_NE(r.exit_code, 0);
  // The known versions are the registry's (a list written here would miss a new one).
  std::string known;
  for (const encodings::EncodingSpec* row :
       encodings::EncodingRegistry::Builtin().VersionsOf(encodings::KeyType::kHash)) {
    known += (known.empty() ? "" : ", ") + std::string(row->name);
  }
  EXPECT_TRUE(known.starts_with("0, 1, 2, 3, ")) << known;
  EXPECT_NE(r.err.find("unknown hash encode-version '9' (known: " + known + ")"), std::string::npos)
      << r.err;
  r = Kvlab(Args({"bench", "run", "ycsb-a", "--encoding", "stream=0"}), dir.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("unknown type 'stream'"), std::string::npos) << r.err;
}

// --reclaim as a user runs it: compaction on LMDB is skipped with a note (on stderr and in the
// result), not an error; the other cells carry their reclaim section, and the report its table.
TEST(BenchCli, ReclaimAxisSkipsWhatDoesNotApplyWithANote) {
  testing::ScratchDir dir;
  const std::string results = dir.Sub("results");
  ChildRun r =
      Kvlab(Args({"bench", "run", "big-key-churn-hash", "--backends", "lmdb", "--hash-versions",
                  "0", "--records", "2", "--elements", "100", "--reclaim", "none,scan,compaction",
                  "--reclaim-interval-ms", "20", "--results", results}),
            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string note =
      "compaction skipped on lmdb: the compaction filter applies to RocksDB only (lmdb does not "
      "compact; the scan is its mechanism)";
  EXPECT_NE(r.err.find(note), std::string::npos) << r.err;
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u);
  const nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  EXPECT_EQ(j["notes"], nlohmann::json::array({note}));
  EXPECT_EQ(j["context"]["reclaim"]["mechanisms"],
            nlohmann::json::array({"none", "scan", "compaction"}));
  const auto& runs = j["workloads"][0]["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["profile_label"], "h0 reclaim=none");
  EXPECT_EQ(runs[1]["reclaim"]["mechanism"], "scan");
  EXPECT_EQ(runs[1]["reclaim"]["garbage_end"]["records"], 0);
  EXPECT_GT(runs[0]["reclaim"]["garbage_end"]["records"].get<uint64_t>(), 0u);
  const std::string md = fs::path(files[0]).replace_extension(".md").string();
  EXPECT_NE(ReadFile(md).find("| lmdb h0 reclaim=scan |"), std::string::npos) << ReadFile(md);

  // Flags that do not go together are usage errors.
  r = Kvlab(Args({"bench", "run", "ycsb-a", "--reclaim", "scan,sweep"}), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown mechanism 'sweep'"), std::string::npos) << r.err;
  r = Kvlab(Args({"bench", "run", "ycsb-a", "--reclaim", "scan", "--compaction-filter"}),
            dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--reclaim and --compaction-filter"), std::string::npos) << r.err;
  r = Kvlab(Args({"bench", "run", "ycsb-a", "--reclaim-interval-ms", "50"}), dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--reclaim-interval-ms needs --reclaim"), std::string::npos) << r.err;
}

// A `kvlab serve` in a child process, on a unix socket under dir, stopped at the end.
class ServeProcess {
 public:
  explicit ServeProcess(const std::string& dir) : dir_(dir), socket_(dir + "/kvlab.sock") {
    fs::create_directories(dir);
    pid_ = SpawnKvlab(
        {"serve", "--backend", "memory", "--port", "0", "--unixsocket", socket_, "--threads", "1"},
        dir);
    for (int i = 0; i < 400 && !fs::exists(socket_); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~ServeProcess() {
    if (pid_ > 0) Stop();
  }
  int Stop() {
    kill(pid_, SIGTERM);
    const int code = Wait(pid_);
    pid_ = -1;
    return code;
  }
  bool up() const { return fs::exists(socket_); }
  std::string address() const { return "unix://" + socket_; }
  std::string log() const { return ReadFile(dir_ + "/stderr"); }

 private:
  const std::string dir_;
  const std::string socket_;
  pid_t pid_ = -1;
};

// Over RESP to `kvlab serve`, each phase carries the server's exact KV operations per command
// (INFO kvlab, read at the phase's start and end), and the report shows them per call. A server
// that holds keys is not flushed without --allow-flush.
TEST(BenchCli, OverRespToKvlabServeReportsTheServersCounters) {
  testing::ScratchDir dir;
  ServeProcess serve(dir.Sub("serve"));
  ASSERT_TRUE(serve.up()) << serve.log();
  fs::create_directories(dir.Sub("bench"));
  {
    RedisEndpoint endpoint;
    ASSERT_TRUE(RedisEndpoint::Parse(serve.address(), &endpoint).ok());
    RedisClient client(endpoint);
    Reply reply;
    ASSERT_TRUE(client.Command({"SELECT", "3"}, &reply).ok());
    ASSERT_TRUE(client.Command({"SET", "precious", "data"}, &reply).ok());
  }
  const std::string results = dir.Sub("results");
  const std::vector<std::string> bench = {"bench",
                                          "run",
                                          "ycsb-c-field",
                                          "--resp-only",
                                          "--resp",
                                          serve.address(),
                                          "--hash-versions",
                                          "0",
                                          "--records",
                                          "100",
                                          "--operations",
                                          "300",
                                          "--seed",
                                          "5",
                                          "--results",
                                          results,
                                          "--allow-invalid-timing",
                                          "--no-plots"};
  ChildRun r = Kvlab(bench, dir.Sub("bench"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("holds keys in database 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--allow-flush"), std::string::npos) << r.err;
  EXPECT_TRUE(ResultFiles(results).empty());

  std::vector<std::string> allowed = bench;
  allowed.push_back("--allow-flush");
  r = Kvlab(allowed, dir.Sub("bench"));
  EXPECT_EQ(serve.Stop(), 0) << serve.log();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  const auto& runs = j["workloads"][0]["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["target"], "resp");
  EXPECT_EQ(runs[0]["profile"], nlohmann::json({{"hash", "0"}}));
  EXPECT_EQ(runs[0]["profile_label"], "h0");
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
  // The report gives the server's counts per call, marked as the server's, not "n/a".
  const std::string md = ReadFile(fs::path(files[0]).replace_extension(".md").string());
  EXPECT_NE(md.find("| run | HGET | resp " + serve.address() + " h0 | 300 |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("2 get †"), std::string::npos) << md;
  EXPECT_EQ(md.find("| n/a |"), std::string::npos) << md;
}

// A Redis-tier version whose tier cannot be reached fails its cell, naming the version, the
// server and the reason; with --allow-degraded it runs, marked degraded everywhere.
TEST(BenchCli, TierVersionWithoutItsTierFailsOrIsMarkedDegraded) {
  testing::ScratchDir dir;
  const std::vector<std::string> bench = {
      "bench",     "run",       "ycsb-c-field", "--backend",    "memory", "--hash-versions",
      "0,2",       "--records", "50",           "--operations", "100",    "--allow-invalid-timing",
      "--no-plots"};
  auto with = [&](std::vector<std::string> extra, const std::string& results) {
    std::vector<std::string> args = bench;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--results", results});
    return args;
  };
  auto runs_of = [&](const std::string& results) {
    const auto files = ResultFiles(results);
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? nlohmann::json()
                         : nlohmann::json::parse(ReadFile(files[0]))["workloads"][0]["runs"];
  };

  ChildRun r = Kvlab(with({"--cache-redis", "127.0.0.1:1"}, dir.Sub("r1")), dir.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json runs = runs_of(dir.Sub("r1"));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0]["error"].is_null());
  ASSERT_TRUE(runs[1]["error"].is_string());
  EXPECT_NE(runs[1]["error"].get<std::string>().find(
                "hash encode-version 2 needs its Redis tier: the Redis cache (127.0.0.1:1) "
                "cannot be reached"),
            std::string::npos)
      << runs[1]["error"];
  EXPECT_NE(r.err.find("memory h2: FAILED"), std::string::npos) << r.err;

  // redis-server missing from PATH: the private cache cannot start.
  r = Kvlab(with({}, dir.Sub("r2")), dir.path(), "/nonexistent");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  runs = runs_of(dir.Sub("r2"));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[1]["error"].get<std::string>().find("cannot start the private redis-server"),
            std::string::npos)
      << runs[1]["error"];

  r = Kvlab(with({"--cache-redis", "bogus", "--allow-degraded"}, dir.Sub("r3")), dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  runs = runs_of(dir.Sub("r3"));
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_FALSE(runs[0]["degraded"].get<bool>());
  EXPECT_TRUE(runs[1]["degraded"].get<bool>());
  EXPECT_NE(runs[1]["degraded_reason"].get<std::string>().find("the Redis cache (bogus)"),
            std::string::npos)
      << runs[1];
  EXPECT_NE(r.err.find("DEGRADED"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("memory h2 (degraded)"), std::string::npos) << r.out;
  const std::string md =
      ReadFile(fs::path(ResultFiles(dir.Sub("r3"))[0]).replace_extension(".md").string());
  EXPECT_NE(md.find("**Degraded**"), std::string::npos) << md;
  EXPECT_NE(md.find("| memory h2 (degraded) |"), std::string::npos) << md;
  // The marker is the one the CI gate reads: a degraded result can be no baseline or current.
  const std::string degraded = ResultFiles(dir.Sub("r3"))[0];
  r = Kvlab({"gate", "--baseline", degraded, "--current", degraded}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("memory · h2: the run is marked degraded"), std::string::npos) << r.err;
}

// A run killed with SIGKILL leaves a result that says it is incomplete.
TEST(BenchCli, KilledRunLeavesAnIncompleteResult) {
  testing::ScratchDir dir;
  const std::string results = dir.Sub("results");
  const pid_t pid =
      SpawnKvlab(Args({"bench", "run", "ycsb-a", "--backends", "memory", "--hash-versions", "0,1",
                       "--records", "200", "--duration", "60", "--results", results}),
                 dir.path());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ReadFile(dir.Sub("stderr")).find("| run") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);
  EXPECT_EQ(Wait(pid), 128 + SIGKILL);
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u) << ReadFile(dir.Sub("stderr"));
  nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  EXPECT_FALSE(j["complete"].get<bool>());
  EXPECT_TRUE(j["partial"].get<bool>());
  EXPECT_NE(j["partial_reason"].get<std::string>().find("incomplete"), std::string::npos);
  // Its report says so at the top.
  ChildRun r = Kvlab({"bench", "report", files[0], "--no-plots"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string md = ReadFile(fs::path(files[0]).replace_extension(".md").string());
  EXPECT_NE(md.find("**Incomplete result**"), std::string::npos) << md;
  // The CI gate recognises it as incomplete and refuses to pass on it.
  r = Kvlab({"gate", "--baseline", files[0], "--current", files[0]}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot be trusted"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("incomplete"), std::string::npos) << r.err;
}

// Without a terminal: one counter over every workload's cells, a line per finished cell with
// the ETA, and a last line.
TEST(BenchCli, ProgressHasOneCounterAndALinePerCell) {
  testing::ScratchDir dir;
  ChildRun r = Kvlab(Args({"bench", "run", "ycsb-c-field", "session-store", "--backend", "memory",
                           "--hash-versions", "0,1", "--records", "50", "--operations", "100",
                           "--results", dir.Sub("results"), "--no-report"}),
                     dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[1/3] ycsb-c-field memory h0: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[2/3] ycsb-c-field memory h1: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[3/3] session-store memory: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ops/s; ETA "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kvlab bench: 3 of 3 done in "), std::string::npos) << r.err;
}

// --rate, -c, -P, -n, -d as a user gives them: what runs is said up front, the latency from the
// intended start is reported and named as such; bad values and flags that do not fit the target
// are usage errors (2), before anything runs.
TEST(BenchCli, OpenLoopOverRespAndItsBadInput) {
  testing::ScratchDir dir;
  redis::RedisServerProcess server;
  ASSERT_TRUE(server.Start().ok()) << server.LogTail();
  const std::string address = server.endpoint().ToString();
  const std::string results = dir.Sub("results");
  ChildRun r = Kvlab(Args({"bench",       "run",       "session-store",
                           "--resp-only", "--resp",    address,
                           "-c",          "4",         "-P",
                           "8",           "-n",        "400",
                           "-d",          "32",        "--rate",
                           "4000",        "--records", "50",
                           "--results",   results}),
                     dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("session-store: loads 50 strings of 32 bytes (~"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("open loop: 4,000 ops/s in total over 4 client(s) (1,000 ops/s each, "
                       "constant intervals), pipeline 8; latency is measured from each "
                       "request's intended start (coordinated omission corrected"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" ops/s asked, p99 "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" from intended start (CO-corrected; service time p99 "), std::string::npos)
      << r.err;
  const auto files = ResultFiles(results);
  ASSERT_EQ(files.size(), 1u);
  nlohmann::json j = nlohmann::json::parse(ReadFile(files[0]));
  const auto& model = j["context"]["load_model"];
  EXPECT_EQ(model["kind"], "open");
  EXPECT_EQ(model["rate_per_s"], 4000.0);
  EXPECT_EQ(model["pipeline"], 8);
  EXPECT_EQ(model["reported_latency"], "intended_latency_ns");
  EXPECT_EQ(model["coordinated_omission_corrected"], true);
  EXPECT_EQ(j["context"]["workloads"][0]["threads"], 4);
  const auto& phase = j["workloads"][0]["runs"][0]["phases"][1];
  EXPECT_EQ(phase["operations"], 400);
  EXPECT_EQ(phase["open_loop"]["clients"], 4);
  EXPECT_EQ(phase["open_loop"]["pipeline"], 8);
  EXPECT_EQ(phase["open_loop"]["unsent"], 0);
  uint64_t calls = 0;
  for (const auto& [name, op] : phase["ops"].items()) {
    calls += op["calls"].get<uint64_t>();
    EXPECT_EQ(op["intended_latency_ns"]["relative_precision"],
              op["latency_ns"]["relative_precision"]);
    EXPECT_GE(op["intended_latency_ns"]["p99"], op["latency_ns"]["p99"]) << name;
  }
  EXPECT_EQ(calls, 400u);
  // The report's latency tables are the reported latency, and say so.
  const std::string md = ReadFile(fs::path(files[0]).replace_extension(".md").string());
  EXPECT_NE(md.find("> **Open loop** at 4000 ops/s (`--rate`): the latency tables show the "
                    "latency from each request's intended start"),
            std::string::npos)
      << md;
  // The values were --data-size long.
  {
    RedisClient client(server.endpoint());
    Reply reply;
    ASSERT_TRUE(client.Command({"STRLEN", "session:0"}, &reply).ok());
    EXPECT_EQ(reply.integer(), 32);
  }

  const std::vector<std::string> base = {"bench",  "run",       "session-store", "--backend",
                                         "memory", "--results", dir.Sub("bad")};
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--rate", "0"}, "must be a number of operations per second"},
      {{"--rate=-5"}, "must be a number of operations per second"},
      {{"--rate", "fast"}, "must be a number of operations per second"},
      {{"--rate", "inf"}, "must be a number of operations per second"},
      {{"-P", "4"}, "--pipeline applies to RESP targets only"},
      {{"--pipeline", "4", "--resp", address, "--allow-flush"},
       "--pipeline applies to RESP targets only"},
      {{"-P", "0", "--resp", address, "--resp-only"}, "--pipeline"},
      {{"-c", "4"}, "--clients applies to --resp targets"},
      {{"-c", "0", "--resp", address}, "--clients"},
      {{"-c", "4", "--threads", "2", "--resp", address}, "--clients and --threads were both given"},
      {{"-d", "0"}, "--data-size"},
      {{"-n", "0"}, "--operations"},
  };
  for (const auto& [extra, message] : bad) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    r = Kvlab(Args(args), dir.path());
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(extra) << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << ::testing::PrintToString(extra) << "\n"
                                                      << r.err;
  }
  r = Kvlab(Args({"bench", "run", "leaderboard", "-d", "16", "--backend", "memory"}), dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--data-size: workload leaderboard writes no values"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.Sub("bad")));
  server.Stop();
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
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find("refusing to time"), std::string::npos) << r.err;
  }
}

// `kvlab profile` as a user runs it: the files it writes (no source name or value in them),
// the workload run by `kvlab bench`, and bad input (exit 2; TLS not built: exit 3).
TEST(ProfileCli, ProfileWritesAWorkloadThatBenchRuns) {
  testing::ScratchDir dir;
  redis::RedisServerProcess server;
  ASSERT_TRUE(server.Start().ok());
  const std::string address = server.endpoint().host + ":" + std::to_string(server.endpoint().port);
  ChildRun r = Kvlab({"profile", address}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("holds no keys in database 0"), std::string::npos) << r.err;

  RedisClient c(server.endpoint());
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 50; ++i) {
    cmds.push_back({"HSET", "SECRETkey" + std::to_string(i), "SECRETfield", "SECRETvalue"});
    cmds.push_back({"SET", "SECRETstr" + std::to_string(i), "SECRETvalue", "EX", "600"});
    cmds.push_back({"HGET", "SECRETkey" + std::to_string(i), "SECRETfield"});
  }
  std::vector<Reply> replies;
  ASSERT_TRUE(c.Pipeline(cmds, &replies).ok());
  const std::string prefix = dir.Sub("p");
  r = Kvlab({"profile", address, "--out", prefix, "--rate", "100000", "--scale", "0.5"},
            dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("keys sampled"), std::string::npos) << r.err;
  for (const char* suffix : {".profile.json", ".workload.json"}) {
    const std::string text = ReadFile(prefix + suffix);
    ASSERT_FALSE(text.empty()) << suffix;
    EXPECT_EQ(text.find("SECRET"), std::string::npos) << suffix;
  }
  EXPECT_EQ(nlohmann::json::parse(ReadFile(prefix + ".profile.json"))["types"]["hash"]["share"],
            0.5);
  r = Kvlab(
      Args({"bench", "run", prefix + ".workload.json", "--backend", "memory", "--hash-versions",
            "0", "--operations", "200", "--results", dir.Sub("r"), "--no-report"}),
      dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;

  r = Kvlab({"profile", "127.0.0.1:1", "--out", prefix}, dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("127.0.0.1:1"), std::string::npos) << r.err;
  r = Kvlab({"profile", address, "--tls"}, dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("TLS is not built"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kvlab::workloads
