// `kvlab conform` as a user runs it (build/kvlab in a child process): where its reports go,
// what Ctrl-C and SIGKILL leave, and replay lines that run as printed.
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

#include "redis/client.h"
#include "testing/child_run.h"
#include "testing/kv_test_util.h"

namespace kvlab::conformance {

using redis::RedisClient;
using redis::RedisEndpoint;
using resp::Reply;

namespace {

namespace fs = std::filesystem;

using testing::ReadFile;
using testing::Spawn;
using testing::SpawnKvlab;
using testing::Wait;

// Waits until `file` contains `what` (or 60 s pass).
bool WaitFor(const std::string& file, const std::string& what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ReadFile(file).find(what) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// One small case, one version of each type: a fast run.
std::vector<std::string> Small(const testing::ScratchDir& dir) {
  std::ofstream(dir.Sub("one.txt")) << "SET a 1\nGET a\nHSET h f v\nHGET h f\n";
  return {"conform",         "--cases", dir.Sub("one.txt"), "--backends", "memory",
          "--hash-versions", "0",       "--zset-versions",  "0"};
}

// Reports go to a new directory under results/ of the working directory, never to the source
// tree, and say they are complete.
TEST(ConformCli, ReportsGoUnderResults) {
  testing::ScratchDir dir;
  const int code = Wait(SpawnKvlab(Small(dir), dir.path()));
  ASSERT_EQ(code, 0) << ReadFile(dir.Sub("stderr"));
  std::vector<fs::path> outs;
  for (const auto& e : fs::directory_iterator(dir.Sub("results"))) outs.push_back(e.path());
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_TRUE(outs[0].filename().string().starts_with("conform-")) << outs[0];
  const nlohmann::json j = nlohmann::json::parse(ReadFile((outs[0] / "conform.json").string()));
  EXPECT_TRUE(j["complete"].get<bool>());
  EXPECT_FALSE(j["partial"].get<bool>());
  EXPECT_EQ(j["verdict"], "pass");
}

// Ctrl-C stops after the running sequence and writes the partial reports; SIGKILL leaves
// reports that say they are incomplete.
TEST(ConformCli, InterruptedRunsSaySo) {
  for (const int signal : {SIGINT, SIGKILL}) {
    SCOPED_TRACE(signal == SIGINT ? "SIGINT" : "SIGKILL");
    testing::ScratchDir dir;
    const std::string out = dir.Sub("out");
    const pid_t pid =
        SpawnKvlab({"conform", "--random", "--sequences", "100000", "--steps", "100", "--backends",
                    "memory", "--hash-versions", "0", "--zset-versions", "0", "--out", out},
                   dir.path());
    ASSERT_TRUE(WaitFor(dir.Sub("stdout"), "reference:")) << ReadFile(dir.Sub("stderr"));
    ASSERT_TRUE(WaitFor(out + "/conform.json", "\"complete\": false"));
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    kill(pid, signal);
    const int code = Wait(pid);
    const nlohmann::json j = nlohmann::json::parse(ReadFile(out + "/conform.json"));
    EXPECT_TRUE(j["partial"].get<bool>());
    if (signal == SIGINT) {
      EXPECT_EQ(code, 130) << ReadFile(dir.Sub("stderr"));
      EXPECT_TRUE(j["complete"].get<bool>());
      EXPECT_NE(j["partial_reason"].get<std::string>().find("interrupted"), std::string::npos);
      EXPECT_GT(j["units"]["done"].get<uint64_t>(), 0u);
      EXPECT_LT(j["units"]["done"].get<uint64_t>(), j["units"]["planned"].get<uint64_t>());
      EXPECT_NE(ReadFile(out + "/summary.md").find("> **Partial**"), std::string::npos);
      EXPECT_NE(ReadFile(dir.Sub("stdout")).find("PASS (partial)"), std::string::npos)
          << ReadFile(dir.Sub("stdout"));
    } else {
      EXPECT_EQ(code, 128 + SIGKILL);
      EXPECT_FALSE(j["complete"].get<bool>());
      EXPECT_NE(ReadFile(out + "/summary.md").find("> **Incomplete**"), std::string::npos);
    }
  }
}

// The printed replay line carries every flag the run depended on, and runs as printed: against
// a `kvlab serve` that holds a key (so --allow-flush is needed) with a copy of the catalogue
// (so --deviations is).
TEST(ConformCli, ReplayLineRunsAsPrinted) {
  testing::ScratchDir dir;
  const std::string socket = dir.Sub("kvlab.sock");
  fs::create_directories(dir.Sub("serve"));
  const pid_t server = SpawnKvlab(
      {"serve", "--backend", "memory", "--port", "0", "--unixsocket", socket, "--threads", "1"},
      dir.Sub("serve"));
  for (int i = 0; i < 400 && !fs::exists(socket); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(fs::exists(socket)) << ReadFile(dir.Sub("serve/stderr"));
  RedisEndpoint endpoint;
  ASSERT_TRUE(RedisEndpoint::Parse("unix://" + socket, &endpoint).ok());
  auto hold_a_key = [&] {
    RedisClient client(endpoint);
    Reply reply;
    return client.Command({"SET", "precious", "1"}, &reply).ok();
  };
  const std::string catalogue = dir.Sub("my-deviations.json");
  fs::copy_file(std::string(KVLAB_SOURCE_DIR) + "/docs/deviations.json", catalogue);
  ASSERT_TRUE(hold_a_key());
  fs::create_directories(dir.Sub("first"));
  // conform's older names of --resp and --resp-only still work; the replay line uses the new.
  const int code =
      Wait(SpawnKvlab({"conform", "--random", "--seed", "7", "--sequences", "1", "--steps", "40",
                       "--serve", "unix://" + socket, "--serve-only", "--allow-flush",
                       "--deviations", catalogue, "--out", dir.Sub("first/out")},
                      dir.Sub("first")));
  ASSERT_EQ(code, 0) << ReadFile(dir.Sub("first/stderr"));
  const std::string stdout_text = ReadFile(dir.Sub("first/stdout"));
  const std::string marker = "replay with: ";
  const size_t at = stdout_text.find(marker);
  ASSERT_NE(at, std::string::npos) << stdout_text;
  const std::string replay =
      stdout_text.substr(at + marker.size(), stdout_text.find('\n', at) - at - marker.size());
  for (const std::string& flag : {std::string("--allow-flush"), "--deviations " + catalogue,
                                  std::string("--resp-only"), std::string("--seed 7")}) {
    EXPECT_NE(replay.find(flag), std::string::npos) << replay;
  }
  ASSERT_TRUE(hold_a_key());
  fs::create_directories(dir.Sub("replay"));
  const int replayed = Wait(Spawn({"/bin/sh", "-c", replay}, dir.Sub("replay")));
  EXPECT_EQ(replayed, 0) << replay << "\n" << ReadFile(dir.Sub("replay/stderr"));
  kill(server, SIGTERM);
  EXPECT_EQ(Wait(server), 0);
}

}  // namespace
}  // namespace kvlab::conformance
