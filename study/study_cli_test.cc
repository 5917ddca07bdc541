// `kvlab study` and `kvlab report` end to end: the binary (KVLAB_BINARY) on the in-memory backend.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string Binary() {
  const char* b = std::getenv("KVLAB_BINARY");
  return b != nullptr ? b : "kvlab";
}

// Runs `kvlab ARGS` with output captured; returns the exit status.
int Kvlab(const std::string& args, std::string* output) {
  const std::string cmd = Binary() + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  std::array<char, 4096> buf;
  output->clear();
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) output->append(buf.data(), n);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class StudyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kvlab-study-cli-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(StudyCli, QuickStudyWritesTheRankingAndTheReport) {
  std::string out;
  const int rc = Kvlab(
      "study --quick --backend memory --operations 300 --weights latency=3 -o " + dir_.string(),
      &out);
  ASSERT_EQ(rc, 0) << out;
  for (const char* f : {"study.json", "study.md", "index.html"}) {
    EXPECT_TRUE(fs::exists(dir_ / f)) << f << "\n" << out;
  }
  std::ifstream in(dir_ / "study.json");
  const json study = json::parse(in);
  EXPECT_EQ(study["schema"], "kvlab-study");
  EXPECT_EQ(study["study"]["weights"]["latency"].get<double>(), 3);
  EXPECT_EQ(study["study"]["weights_given"], "latency=3");
  // A finished study is complete, not partial.
  EXPECT_EQ(study["partial"], false);
  // One ranking per type of the game workload, every version (Camellia's 0-3, Ardb's and
  // Kvrocks's), every criterion's number.
  ASSERT_EQ(study["rankings"].size(), 2u);
  for (const json& r : study["rankings"]) {
    EXPECT_EQ(r["rows"].size(), 6u) << r["type"];
    for (const json& row : r["rows"]) {
      EXPECT_TRUE(row["rank"].is_number()) << row.dump();
      EXPECT_EQ(row["repetitions"], 3);
      for (const char* c : {"latency", "tail_latency", "throughput", "kv_ops", "kv_bytes",
                            "round_trips", "redis_memory", "space", "exactness", "needs"}) {
        ASSERT_TRUE(row["criteria"].contains(c)) << c << " " << row["label"];
        EXPECT_TRUE(row["criteria"][c]["value"].is_number()) << c;
      }
    }
  }
  // The terminal shows the verdict, the weights and the report's path.
  EXPECT_NE(out.find("game: hash versions"), std::string::npos) << out;
  EXPECT_NE(out.find("ranks first on memory"), std::string::npos) << out;
  EXPECT_NE(out.find("weights: latency=3"), std::string::npos) << out;
  EXPECT_NE(out.find("report: " + (dir_ / "index.html").string()), std::string::npos) << out;

  // kvlab report reads the study back.
  const fs::path again = dir_ / "again";
  ASSERT_EQ(Kvlab("report " + (dir_ / "study.json").string() + " -o " + again.string(), &out), 0)
      << out;
  EXPECT_TRUE(fs::exists(again / "index.html"));
  EXPECT_TRUE(fs::exists(again / "report.md"));
}

// Ctrl-C during a study: it stops after the cell it is in, still writes the study marked
// partial, and exits 130 (flags/conventions.h).
TEST_F(StudyCli, InterruptedStudyIsWrittenAsPartial) {
  fs::create_directories(dir_);
  const std::string log = (dir_ / "stderr").string();
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string out = (dir_ / "out").string();
    FILE* err = std::freopen(log.c_str(), "w", stderr);
    FILE* std_out = std::freopen((dir_ / "stdout").string().c_str(), "w", stdout);
    if (err == nullptr || std_out == nullptr) _exit(127);
    execlp(Binary().c_str(), Binary().c_str(), "study", "--backend", "memory", "--operations",
           "200000", "--no-report", "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the first cell has started, then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  auto log_text = [&] {
    std::ifstream in(log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  while (log_text().find("[1/") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << log_text();
  EXPECT_EQ(WEXITSTATUS(status), 130) << log_text();
  std::ifstream in(dir_ / "out" / "study.json");
  ASSERT_TRUE(in.good()) << log_text();
  const json study = json::parse(in);
  EXPECT_TRUE(study["partial"].get<bool>()) << log_text();
}

TEST_F(StudyCli, BadArgumentsExit2BeforeAnyCell) {
  std::string out;
  EXPECT_EQ(Kvlab("study --quick --backend memory --weights speed=1 -o " + dir_.string(), &out), 2);
  EXPECT_NE(out.find("unknown criterion 'speed'"), std::string::npos) << out;
  EXPECT_EQ(Kvlab("study --quick --backends memory,nosuch -o " + dir_.string(), &out), 2);
  EXPECT_NE(out.find("unknown backend 'nosuch'"), std::string::npos) << out;
  EXPECT_EQ(Kvlab("study session-store --quick --backend memory -o " + dir_.string(), &out), 2);
  EXPECT_NE(out.find("no encoding to choose"), std::string::npos) << out;
  EXPECT_EQ(Kvlab("study --quick --backend memory --types list -o " + dir_.string(), &out), 2);
  EXPECT_FALSE(fs::exists(dir_ / "study.json"));
}

TEST_F(StudyCli, ReportRejectsWhatIsNotAResult) {
  fs::create_directories(dir_);
  const fs::path bogus = dir_ / "bogus.json";
  std::ofstream(bogus) << "{\"hello\": 1}";
  std::string out;
  EXPECT_EQ(Kvlab("report " + bogus.string() + " -o " + (dir_ / "r").string(), &out), 2);
  EXPECT_NE(out.find("not a kvlab result"), std::string::npos) << out;
}

}  // namespace
