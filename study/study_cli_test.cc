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
#include <map>
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
      "study --quick --backend memory --records 200 --operations 300 --weights latency=3 -o " +
          dir_.string(),
      &out);
  ASSERT_EQ(rc, 0) << out;
  for (const char* f : {"study.json", "study.md", "index.html"}) {
    EXPECT_TRUE(fs::exists(dir_ / f)) << f << "\n" << out;
  }
  std::ifstream in(dir_ / "study.json");
  const json study = json::parse(in);
  EXPECT_EQ(study["schema"], "kvlab-study");
  EXPECT_EQ(study["schema_version"], 2);
  EXPECT_EQ(study["study"]["weights"]["latency"].get<double>(), 3);
  EXPECT_EQ(study["study"]["weights_given"], "latency=3");
  // A finished study is complete, not partial.
  EXPECT_EQ(study["partial"], false);
  // One ranking per type of the game workload, which uses every type with encode-versions;
  // every version of each (Camellia's, Ardb's, Kvrocks's), named; every criterion's number;
  // ranks, score ranges, leaders and the break-even analysis.
  ASSERT_EQ(study["rankings"].size(), 4u);
  const std::map<std::string, size_t> versions = {
      {"hash", 6}, {"zset", 6}, {"list", 4}, {"set", 6}};
  for (const json& r : study["rankings"]) {
    const std::string type = r["type"];
    ASSERT_TRUE(versions.count(type)) << type;
    EXPECT_EQ(r["rows"].size(), versions.at(type)) << type;
    EXPECT_FALSE(r["leaders"].empty()) << type;
    EXPECT_TRUE(r["timings_count"].get<bool>()) << type;
    EXPECT_TRUE(r["break_even"].contains("points")) << type;
    EXPECT_GT(r["elements_loaded"].get<double>(), 0) << type;
    for (const json& row : r["rows"]) {
      EXPECT_TRUE(row["rank"].is_number()) << row.dump();
      EXPECT_TRUE(row["version"].is_string()) << row.dump();
      EXPECT_EQ(row["repetitions"], 3);
      EXPECT_LE(row["score_low"].get<double>(), row["score"].get<double>());
      for (const char* c :
           {"latency", "tail_latency", "throughput", "kv_ops", "kv_bytes", "round_trips",
            "redis_memory", "space", "write_bytes", "exactness", "needs"}) {
        ASSERT_TRUE(row["criteria"].contains(c)) << c << " " << row["label"];
        EXPECT_TRUE(row["criteria"][c]["value"].is_number()) << c;
      }
      EXPECT_GT(row["criteria"]["space"]["value"].get<double>(), 0) << row["label"];
    }
  }
  // The terminal shows the verdict (a recommendation per store, the break-even), the weights
  // and the report's path.
  for (const char* type : {"hash", "zset", "list", "set"}) {
    EXPECT_NE(out.find(std::string("game: ") + type + " versions"), std::string::npos) << out;
  }
  EXPECT_NE(out.find("On memory"), std::string::npos) << out;
  EXPECT_NE(out.find("Break-even on memory"), std::string::npos) << out;
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
  EXPECT_EQ(Kvlab("study --quick --backend memory --types lists -o " + dir_.string(), &out), 2);
  EXPECT_NE(out.find("unknown type 'lists' (types with encode-versions: hash, zset, list, set)"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(dir_ / "study.json"));
  // --dir must be new or empty: a kvlab store is refused before any cell.
  const fs::path store = dir_ / "store";
  fs::create_directories(store);
  std::ofstream(store / "KVLAB_STORE") << "rocksdb\n";
  EXPECT_EQ(Kvlab("study --quick --backend lmdb --dir " + store.string() + " -o " +
                      (dir_ / "out").string(),
                  &out),
            2);
  EXPECT_NE(out.find("is a kvlab store"), std::string::npos) << out;
  // --help names study's own defaults.
  EXPECT_EQ(Kvlab("study --help", &out), 0);
  EXPECT_NE(out.find("rocksdb,lmdb,wiredtiger"), std::string::npos) << out;
  EXPECT_EQ(out.find("[memory]"), std::string::npos) << out;
}

// --dir keeps one store per cell and repetition; a type ranked with too few repetitions says
// that its timings do not count, and which --repetitions would let them.
TEST_F(StudyCli, DirKeepsEveryRepetitionAndTooFewRepetitionsAreSaid) {
  std::string out;
  const fs::path stores = dir_ / "stores";
  ASSERT_EQ(Kvlab("study game --types list --backend lmdb --records 20 --operations 50 --warmup 0 "
                  "--repetitions 2 --no-report --dir " +
                      stores.string() + " -o " + (dir_ / "out").string(),
                  &out),
            0)
      << out;
  size_t r0 = 0, r1 = 0;
  for (const auto& e : fs::directory_iterator(stores)) {
    const std::string name = e.path().filename().string();
    r0 += name.ends_with("-r0");
    r1 += name.ends_with("-r1");
  }
  EXPECT_EQ(r0, 4u) << out;  // l0, l1, lardb, lkvrocks
  EXPECT_EQ(r1, 4u) << out;
  EXPECT_NE(out.find("timings do not count"), std::string::npos) << out;
  EXPECT_NE(out.find("--repetitions 3 would let them count"), std::string::npos) << out;
  std::ifstream in(dir_ / "out" / "study.json");
  const json study = json::parse(in);
  ASSERT_FALSE(study["warnings"].empty());
  EXPECT_FALSE(study["rankings"][0]["timings_count"].get<bool>());
}

// A workload line that errors on every call fails its cell and the study (exit 1), naming the
// line and the first error reply.
TEST_F(StudyCli, AFailingWorkloadLineFailsTheStudy) {
  fs::create_directories(dir_);
  const fs::path workload = dir_ / "broken.json";
  std::ofstream(workload) << R"({"name": "broken", "keyspace": {"type": "list", "records": 5,
    "key_prefix": "l", "elements": 5}, "load": {"commands": ["RPUSH {key} {elements}"]},
    "run": [{"name": "run", "operations": 30, "ops": [{"name": "range",
             "commands": ["LRANGE {key} 0"]}]}]})";
  std::string out;
  EXPECT_EQ(Kvlab("study " + workload.string() +
                      " --backend memory --repetitions 1 --no-report "
                      "-o " +
                      (dir_ / "out").string(),
                  &out),
            1)
      << out;
  EXPECT_NE(out.find("'LRANGE {key} 0' replied an error to 30 of 30 calls"), std::string::npos)
      << out;
  EXPECT_NE(out.find("wrong number of arguments"), std::string::npos) << out;
}

// `kvlab study trace:FILE` end to end: a trace of hash and zset traffic (imported from MONITOR
// text, as a user would from their Redis) replayed over every version of both types, ranked and
// written with its report; what it did not replay is named.
TEST_F(StudyCli, ATraceIsStudiedOverEveryVersionOfItsTypes) {
  fs::create_directories(dir_);
  std::ofstream monitor(dir_ / "monitor.txt");
  monitor << "OK\n";
  double t = 1700000000.0;
  auto line = [&](int client, const std::string& args) {
    t += 0.0005;
    char head[64];
    std::snprintf(head, sizeof head, "%.6f [0 127.0.0.1:%d] ", t, 40000 + client);
    monitor << head << args << "\n";
  };
  for (int k = 0; k < 20; ++k) {
    for (int f = 0; f < 10; ++f) {
      line(1, "\"HSET\" \"user:" + std::to_string(k) + "\" \"f" + std::to_string(f) +
                  "\" \"v\\x00" + std::to_string(f) + "\"");
    }
    line(2, "\"ZADD\" \"board\" \"" + std::to_string(k * 7 % 13) +
                "\" \"user:" + std::to_string(k) + "\"");
  }
  for (int i = 0; i < 200; ++i) {
    const std::string user = "\"user:" + std::to_string(i % 20) + "\"";
    line(1 + i % 3, "\"HGET\" " + user + " \"f" + std::to_string(i % 10) + "\"");
    if (i % 4 == 0) line(2, "\"HGETALL\" " + user);
    if (i % 5 == 0) line(2, "\"ZRANK\" \"board\" " + user);
    if (i % 7 == 0) line(3, "\"ZREVRANGE\" \"board\" \"0\" \"9\" \"WITHSCORES\"");
    if (i % 50 == 0) line(3, "\"PUBLISH\" \"news\" \"x\"");
  }
  monitor.close();
  const fs::path trace = dir_ / "app.kvt";
  std::string out;
  ASSERT_EQ(
      Kvlab("trace import " + (dir_ / "monitor.txt").string() + " -o " + trace.string(), &out), 0)
      << out;
  const fs::path study_dir = dir_ / "study";
  ASSERT_EQ(Kvlab("study trace:" + trace.string() + " --backend memory --repetitions 1 -o " +
                      study_dir.string(),
                  &out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(study_dir / "index.html")) << out;
  EXPECT_TRUE(fs::exists(study_dir / "study.md")) << out;
  std::ifstream in(study_dir / "study.json");
  const json study = json::parse(in);
  std::map<std::string, size_t> rows;
  for (const json& r : study["rankings"]) {
    EXPECT_EQ(r["workload"], "trace-app");
    rows[r["type"].get<std::string>()] = r["rows"].size();
    // Every version replayed the trace: HGET on every version of the hash, ZRANK of the zset.
    for (const json& row : r["rows"]) {
      EXPECT_TRUE(row["rank"].is_number()) << row.dump();
      const char* command = r["type"] == "hash" ? "HGET" : "ZRANK";
      EXPECT_GT(row["commands"][command]["calls"].get<double>(), 0) << row.dump();
    }
  }
  EXPECT_EQ(rows, (std::map<std::string, size_t>{{"hash", 6}, {"zset", 6}})) << out;
  // The bench result beside it names what was not replayed (PUBLISH: kvlab does not serve it).
  bool named = false;
  for (const auto& e : fs::directory_iterator(study_dir)) {
    if (!e.path().filename().string().ends_with("-study-bench.json")) continue;
    std::ifstream b(e.path());
    const json bench = json::parse(b);
    for (const json& run : bench["workloads"][0]["runs"]) {
      for (const json& phase : run["phases"]) {
        if (phase.contains("not_replayed")) {
          named = named || phase["not_replayed"].dump().find("publish") != std::string::npos;
        }
      }
    }
  }
  EXPECT_TRUE(named) << out;
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
