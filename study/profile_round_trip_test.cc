// Issue 38's round trip, through `kvlab study`: a redis-server runs a known workload (the game:
// every type with encode-versions), `kvlab profile` measures it, and a study of the profile's
// workload must name the same first place (or the same tie) as a study of the original, type by
// type. On the in-memory backend with one repetition, the ranking rests on the exact counts
// alone (KV operations and bytes per command, Redis round trips and memory, space, deviations,
// needs: timings cannot count without repetitions), so the check is deterministic and cheap.
// The timed ranking on RocksDB is scripts/profile-round-trip's, run by hand (docs/workloads.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "flags/common_flags.h"
#include "redis/client.h"
#include "redis/server_process.h"
#include "study/study_command.h"
#include "workloads/catalogue.h"
#include "workloads/profile.h"
#include "workloads/runner.h"
#include "workloads/target.h"
#include "workloads/workload.h"

namespace kvlab::study {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using redis::RedisClient;
using redis::RedisServerProcess;
using workloads::Profile;
using workloads::ProfileOptions;
using workloads::Workload;

// Runs `kvlab study ARGS` in this process; returns its exit status.
int Study(std::vector<std::string> args) {
  CLI::App app("kvlab");
  int code = -1;
  AddStudyCommand(app, flags::TestHooks{}, &code);
  args.insert(args.begin(), {"kvlab", "study"});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    ADD_FAILURE() << "kvlab study: " << e.what();
    return -1;
  }
  return code;
}

// type -> the versions ranked first (alone, or tied), from a study.json.
std::map<std::string, std::set<std::string>> FirstPlaces(const fs::path& study_json) {
  std::ifstream in(study_json);
  const json study = json::parse(in);
  std::map<std::string, std::set<std::string>> out;
  for (const json& r : study["rankings"]) {
    std::set<std::string>& first = out[r["type"].get<std::string>()];
    for (const json& row : r["rows"]) {
      if (row["first"].get<bool>()) first.insert(row["version"].get<std::string>());
    }
  }
  return out;
}

std::string Names(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& v : s) out += (out.empty() ? "" : ", ") + v;
  return out;
}

TEST(ProfileRoundTrip, AStudyOfTheProfileNamesTheSameFirstPlaceOnExactCounts) {
  const fs::path dir =
      fs::temp_directory_path() / ("kvlab-profile-round-trip-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);

  // The original: the game at 300 players, its run phase the only traffic commandstats saw.
  Workload game;
  ASSERT_TRUE(workloads::BuiltinWorkload("game", &game).ok());
  game.keyspace.records = 300;
  game.phases.at(0).operations = 3000;
  game.phases.at(0).warmup_operations = 0;
  RedisServerProcess source;
  ASSERT_TRUE(source.Start().ok());
  RedisClient c(source.endpoint());
  workloads::RespTarget target(source.endpoint());
  workloads::RunOptions ro;
  ro.on_loaded = [&] {
    resp::Reply r;
    ASSERT_TRUE(c.Command({"CONFIG", "RESETSTAT"}, &r).ok());
  };
  workloads::WorkloadRunResult ran;
  workloads::RunWorkload(game, target, ro, &ran);
  ASSERT_TRUE(ran.error.empty()) << ran.error;

  // The profile, and the workload made from it, of the same length.
  ProfileOptions po;
  po.endpoint = source.endpoint();
  po.rate = 1e7;  // a private test server: no throttle
  Profile p;
  ASSERT_TRUE(workloads::RunProfile(po, &p).ok());
  ASSERT_TRUE(p.complete);
  workloads::ProfileWorkloadOptions wo;
  wo.name = "game-profile";
  wo.operations = 3000;
  wo.warmup_operations = 0;
  std::vector<std::string> notes;
  const fs::path original_file = dir / "game.json", profile_file = dir / "profile.json";
  std::ofstream(profile_file) << workloads::ProfileWorkloadJson(p, wo, &notes);
  std::ofstream(original_file) << game.ToJson();

  // Both studied alike: memory, one repetition (timings cannot count), no report.
  std::map<std::string, std::map<std::string, std::set<std::string>>> first;
  for (const fs::path& file : {original_file, profile_file}) {
    const fs::path out = dir / ("study-" + file.stem().string());
    ASSERT_EQ(Study({file.string(), "--backend", "memory", "--repetitions", "1", "--no-report",
                     "--allow-invalid-timing", "-o", out.string()}),
              0)
        << file;
    first[file.stem().string()] = FirstPlaces(out / "study.json");
  }
  const auto& want = first.at("game");
  const auto& got = first.at("profile");
  ASSERT_EQ(want.size(), 4u);  // hash, zset, list, set
  for (const auto& [type, versions] : want) {
    ASSERT_TRUE(got.count(type)) << type;
    EXPECT_EQ(got.at(type), versions) << type << ": the original ranks " << Names(versions)
                                      << " first, the profile " << Names(got.at(type));
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kvlab::study
