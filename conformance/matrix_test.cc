// The matrix, the tier hook, the reports and the shrinking of random failures, with a second
// engine standing in for the reference Redis (the tests with a real redis-server are in
// honesty_test.cc and remote_subject_test.cc).
#include "conformance/matrix.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "conformance/report.h"
#include "testing/conform_test_util.h"
#include "testing/kv_test_util.h"

namespace kvlab::conformance {

using backends::StoreSpec;
using engine::Engine;
using engine::EngineOptions;
using resp::Reply;

namespace {

using testing::CountingTarget;
using testing::EngineOnMemory;
using testing::FakeTierControl;
using testing::FaultInjectingTarget;
using testing::FaultySubject;

// A subject that only answers which versions it runs (for PlanProfiles).
class VersionsOnly final : public Subject {
 public:
  VersionsOnly(std::vector<int> hash, std::vector<int> zset, int first_tier_version = 99)
      : tier_from_(first_tier_version) {
    for (int v : hash) versions_["hash"].push_back(std::to_string(v));
    for (int v : zset) versions_["zset"].push_back(std::to_string(v));
  }
  std::string name() const override { return "fake"; }
  std::map<std::string, std::vector<std::string>> Versions() override { return versions_; }
  bool UsesTier(const encodings::EncodingProfile& p) const override {
    for (const auto& [type, version] : p.versions) {
      if (version && std::stoi(*version) >= tier_from_) return true;
    }
    return false;
  }
  Status Open(const Profile&, std::unique_ptr<SubjectSession>*) override {
    return Status::NotSupported("fake");
  }

 private:
  std::map<std::string, std::vector<std::string>> versions_;
  int tier_from_;
};

std::vector<std::string> Labels(const std::vector<Profile>& profiles) {
  std::vector<std::string> out;
  for (const Profile& p : profiles) out.push_back(p.Label());
  return out;
}

CaseFile Case(const std::string& text) {
  CaseFile c;
  Status s = ParseCaseText("inline", text, &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

TEST(Matrix, LockstepAndCrossProfiles) {
  MatrixPlan plan;
  std::vector<Profile> p;
  VersionsOnly today({0, 1}, {0});
  ASSERT_TRUE(PlanProfiles(today, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 z0", "h1 z0"}));
  plan.pairing = VersionPairing::kCross;
  ASSERT_TRUE(PlanProfiles(today, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 z0", "h1 z0"}));

  VersionsOnly all({0, 1, 2, 3}, {0, 1, 2, 3});
  ASSERT_TRUE(PlanProfiles(all, plan, &p).ok());
  EXPECT_EQ(p.size(), 16u);
  plan.pairing = VersionPairing::kLockstep;
  ASSERT_TRUE(PlanProfiles(all, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 z0", "h1 z1", "h2 z2", "h3 z3"}));
  plan.versions["hash"] = {"1"};
  ASSERT_TRUE(PlanProfiles(all, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h1 z0", "h1 z1", "h1 z2", "h1 z3"}));
  plan.versions["hash"] = {"7"};
  EXPECT_FALSE(PlanProfiles(all, plan, &p).ok());
}

// A subject whose types have named versions, none of them tiered.
class NamedVersions final : public Subject {
 public:
  explicit NamedVersions(std::map<std::string, std::vector<std::string>> versions)
      : versions_(std::move(versions)) {}
  std::string name() const override { return "fake"; }
  std::map<std::string, std::vector<std::string>> Versions() override { return versions_; }
  bool UsesTier(const encodings::EncodingProfile&) const override { return false; }
  Status Open(const Profile&, std::unique_ptr<SubjectSession>*) override {
    return Status::NotSupported("fake");
  }

 private:
  std::map<std::string, std::vector<std::string>> versions_;
};

TEST(Matrix, LockstepLinesUpFamiliesByName) {
  MatrixPlan plan;
  std::vector<Profile> p;
  NamedVersions families({{"hash", {"0", "1", "2", "3", "ardb"}},
                          {"list", {"0", "1", "ardb", "kvrocks"}},
                          {"set", {"0", "1", "ardb"}}});
  ASSERT_TRUE(PlanProfiles(families, plan, &p).ok());
  // A type lacking a name carries its previous version; names only a shorter type has come
  // last, so that every version runs.
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 l0 s0", "h1 l1 s1", "h2 l1 s1", "h3 l1 s1",
                                                 "hardb lardb sardb", "hardb lkvrocks sardb"}));
}

TEST(Matrix, TierVersionsRunInEveryTierState) {
  MatrixPlan plan;
  std::vector<Profile> p;
  VersionsOnly tiered({0, 1, 2}, {0, 1}, /*first_tier_version=*/1);
  ASSERT_TRUE(PlanProfiles(tiered, plan, &p).ok());
  EXPECT_EQ(Labels(p),
            (std::vector<std::string>{"h0 z0", "h1 z1 cold", "h1 z1 warm", "h1 z1 flushed",
                                      "h2 z1 cold", "h2 z1 warm", "h2 z1 flushed"}));
  plan.tier_states = {TierState::kWarm};
  ASSERT_TRUE(PlanProfiles(tiered, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 z0", "h1 z1 warm", "h2 z1 warm"}));
  EXPECT_EQ(VersionLabel("hget", p[1]), "hash v1 warm");
  EXPECT_EQ(VersionLabel("ZADD", p[2]), "zset v1 warm");
  EXPECT_EQ(VersionLabel("get", p[0]), "h0 z0");
}

TEST(Matrix, ServerWithoutVersionsRunsOnceAsConfigured) {
  MatrixPlan plan;
  std::vector<Profile> p;
  VersionsOnly plain({}, {});
  ASSERT_TRUE(PlanProfiles(plain, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"as configured"}));
  EXPECT_EQ(VersionLabel("hset", p[0]), "as configured");
  plan.versions["zset"] = {"0"};
  plan.versions["set"] = {"0"};
  ASSERT_TRUE(PlanProfiles(plain, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"as configured"}));
}

TEST(Matrix, BackendColumnsAndTierStateNames) {
  StoreSpec spec;
  ASSERT_TRUE(ParseBackendColumn("rocksdb", &spec).ok());
  EXPECT_EQ(spec.backend, "rocksdb");
  EXPECT_FALSE(spec.no_reverse_scan);
  ASSERT_TRUE(ParseBackendColumn("memory:noreverse", &spec).ok());
  EXPECT_EQ(spec.backend, "memory");
  EXPECT_TRUE(spec.no_reverse_scan);
  EXPECT_FALSE(ParseBackendColumn("memory:fast", &spec).ok());
  EXPECT_FALSE(ParseBackendColumn("nosuch", &spec).ok());
  TierState t = TierState::kNone;
  for (TierState s : AllTierStates()) {
    ASSERT_TRUE(ParseTierState(TierStateName(s), &t));
    EXPECT_EQ(t, s);
  }
  EXPECT_FALSE(ParseTierState("none", &t));
  EXPECT_FALSE(ParseTierState("hot", &t));
}

// A scan with a cursor of its own: a wrong-shaped reply to it fails; a right-shaped one is not
// compared item by item (cursors are the server's own encoding).
TEST(Matrix, ScanWithAGivenCursorChecksTheFirstPageShape) {
  EngineOnMemory reference, subject;
  const CaseFile c = Case("MSET a 1 b 2 c 3\nSCAN 5\nSCAN 0\n");
  size_t scans = 0;
  FaultInjectingTarget first_page_wrong(&subject.target(), [&](size_t, const auto& argv, Reply r) {
    return LowerCommand(argv[0]) == "scan" && ++scans == 1 ? testing::Corrupt(r) : r;
  });
  const CaseOutcome o = RunCase(c, reference.target(), first_page_wrong, RunContext());
  ASSERT_NE(o.first_failure(), nullptr);
  EXPECT_EQ(o.first_failure()->line, 2);
  EXPECT_EQ(o.count(Verdict::kFail), 1u);
}

TEST(Matrix, ColdFlushesOncePerCaseAndFlushedBeforeEveryCommand) {
  EngineOnMemory reference, subject;
  FakeTierControl tier;
  RunContext ctx;
  ctx.tier_control = &tier;
  const CaseFile c = Case("HSET h f v\nHGET h f\n@sleep 1\nHLEN h\n");
  ctx.tier = TierState::kCold;
  EXPECT_EQ(RunCase(c, reference.target(), subject.target(), ctx).count(Verdict::kPass), 3u);
  EXPECT_EQ(tier.flushes, 1);
  tier.flushes = 0;
  ctx.tier = TierState::kFlushed;
  EXPECT_EQ(RunCase(c, reference.target(), subject.target(), ctx).count(Verdict::kPass), 3u);
  EXPECT_EQ(tier.flushes, 3);
  tier.flushes = 0;
  ctx.tier = TierState::kNone;
  RunCase(c, reference.target(), subject.target(), ctx);
  EXPECT_EQ(tier.flushes, 0);
}

TEST(Matrix, WarmRunsReadsTwiceOnTheSubjectAndJudgesBoth) {
  EngineOnMemory reference, subject;
  CountingTarget counted(&subject.target());
  FakeTierControl tier;
  RunContext ctx;
  ctx.tier = TierState::kWarm;
  ctx.tier_control = &tier;
  const CaseFile c = Case("HSET h f v\nHGET h f\nHGETALL h\nHDEL h f\n");
  const CaseOutcome o = RunCase(c, reference.target(), counted, ctx);
  EXPECT_EQ(o.count(Verdict::kPass), 4u);
  EXPECT_EQ(counted.count("hset"), 1u);
  EXPECT_EQ(counted.count("hget"), 2u);
  EXPECT_EQ(counted.count("hgetall"), 2u);
  EXPECT_EQ(counted.count("hdel"), 1u);

  // A wrong answer from the warm cache (the second run) fails, though the first was right.
  size_t hgets = 0;
  FaultInjectingTarget second_wrong(&subject.target(), [&](size_t, const auto& argv, Reply r) {
    return LowerCommand(argv[0]) == "hget" && ++hgets == 2 ? testing::Corrupt(r) : r;
  });
  const CaseOutcome bad = RunCase(c, reference.target(), second_wrong, ctx);
  ASSERT_NE(bad.first_failure(), nullptr);
  EXPECT_EQ(bad.first_failure()->command, "hget");
}

// The wiring the Redis tier will use: EngineSubject asks TierWiring which versions have a tier
// and attaches a control to each session of those versions.
TEST(Matrix, EngineSubjectAttachesTheTierToTierVersionsOnly) {
  auto flushes = std::make_shared<int>(0);
  class SharedCount final : public RedisTierControl {
   public:
    explicit SharedCount(std::shared_ptr<int> n) : n_(std::move(n)) {}
    Status FlushCache() override {
      ++*n_;
      return Status::OK();
    }

   private:
    std::shared_ptr<int> n_;
  };
  TierWiring wiring;
  wiring.uses_tier = [](std::string_view type, std::string_view version) {
    return type == "hash" && version == "1";
  };
  wiring.attach = [flushes](Engine&) -> std::unique_ptr<RedisTierControl> {
    return std::make_unique<SharedCount>(flushes);
  };
  EngineSubject memory("memory", StoreSpec(), EngineOptions(), wiring);
  EngineOnMemory reference;
  MatrixPlan plan;
  plan.versions["hash"] = {"0", "1"};
  plan.versions["zset"] = {"0"};
  plan.versions["list"] = {"0"};
  plan.versions["set"] = {"0"};
  plan.corpus = {Case("HSET h f v\nHGET h f\n")};
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(reference.target(), {&memory}, plan, nullptr, &r).ok());
  std::vector<std::string> labels;
  for (const ProfileRun& run : r.runs) labels.push_back(run.profile.Label());
  EXPECT_EQ(labels, (std::vector<std::string>{"h0 z0 l0 s0", "h1 z0 l0 s0 cold", "h1 z0 l0 s0 warm",
                                              "h1 z0 l0 s0 flushed"}));
  EXPECT_EQ(*flushes, 1 + 2);  // cold: once per case; flushed: before each of the 2 commands
  EXPECT_EQ(r.cells.at({"memory", "hash v1 warm", "hget"}).pass, 1u);
}

TEST(Matrix, TierFailureFailsTheStep) {
  EngineOnMemory reference, subject;
  FakeTierControl tier;
  tier.fail = true;
  RunContext ctx;
  ctx.tier = TierState::kFlushed;
  ctx.tier_control = &tier;
  const CaseOutcome o =
      RunCase(Case("SET k v\nGET k\n"), reference.target(), subject.target(), ctx);
  EXPECT_EQ(o.count(Verdict::kFail), 2u);
  EXPECT_NE(o.first_failure()->explanation.find("cache redis down"), std::string::npos);
}

DeviationCatalogue Catalogue() {
  DeviationCatalogue c;
  Status s = DeviationCatalogue::Load(DefaultDeviationCataloguePath(),
                                      encodings::EncodingRegistry::Builtin(), &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

TEST(Matrix, BlindHashDeviatesAsCataloguedAndTheReportsSaySo) {
  EngineOnMemory reference;  // hash v0 stands in for Redis's exact replies
  EngineSubject memory("memory", StoreSpec(), EngineOptions());
  const DeviationCatalogue catalogue = Catalogue();
  MatrixPlan plan;
  plan.catalogue = &catalogue;
  plan.versions["hash"] = {"0", "1"};
  plan.versions["zset"] = {"0"};
  plan.versions["set"] = {"0"};
  plan.versions["list"] = {"0"};
  plan.corpus = {Case("HSET h a 1 b 2\nHSET h a 3 c 4\nHDEL h a x\nHGETALL h\nZADD z 1 m\n")};
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(reference.target(), {&memory}, plan, nullptr, &r).ok());
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].totals.pass, 5u);
  EXPECT_EQ(r.runs[1].totals.pass, 3u);
  EXPECT_EQ(r.runs[1].totals.deviation, 2u);  // HSET h a 3 c 4 says 2; HDEL h a x says 2
  EXPECT_EQ(r.totals.fail, 0u);
  const Tally& hset_v1 = r.cells.at({"memory", "hash v1", "hset"});
  EXPECT_EQ(hset_v1.pass, 1u);
  EXPECT_EQ(hset_v1.deviation, 1u);
  EXPECT_EQ(hset_v1.deviation_ids.at("hash-blind-hset-count"), 1u);
  EXPECT_EQ(r.cells.at({"memory", "zset v0", "zadd"}).pass, 2u);

  ReportContext ctx;
  ctx.reference = "an engine";
  ctx.plan = &plan;
  ctx.catalogue = &catalogue;
  const nlohmann::json j = nlohmann::json::parse(MatrixJson(r, ctx));
  EXPECT_EQ(j["verdict"], "pass");
  EXPECT_EQ(j["totals"]["deviation"], 2);
  EXPECT_EQ(j["deviations_seen"]["hash-blind-hdel-count"], 1);
  bool found = false;
  for (const auto& cell : j["matrix"]) {
    if (cell["command"] == "hdel" && cell["version"] == "hash v1") {
      found = true;
      EXPECT_EQ(cell["deviation"], 1);
      EXPECT_EQ(cell["group"], "hash");
    }
  }
  EXPECT_TRUE(found);
  const std::string md = MatrixMarkdown(r, ctx);
  EXPECT_NE(md.find("| command | hash v0 | hash v1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| hset | 2 | 1 · 1 dev |"), std::string::npos) << md;
  const std::string summary = SummaryMarkdown(r, ctx);
  EXPECT_NE(summary.find("Verdict: PASS"), std::string::npos);
  EXPECT_NE(summary.find("`hash-blind-hset-count`: 1 replies"), std::string::npos);
}

TEST(Matrix, InjectedFaultsAreFailuresInEveryReport) {
  EngineOnMemory reference;
  FaultySubject faulty(std::make_unique<EngineSubject>("memory", StoreSpec(), EngineOptions()),
                       [](size_t, const auto& argv, Reply r) {
                         return LowerCommand(argv[0]) == "hlen" ? testing::Corrupt(r) : r;
                       });
  const DeviationCatalogue catalogue = Catalogue();
  MatrixPlan plan;
  plan.catalogue = &catalogue;
  plan.corpus = {Case("HSET h a 1\nHLEN h\nHGET h a\n")};
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(reference.target(), {&faulty}, plan, nullptr, &r).ok());
  EXPECT_EQ(r.totals.fail, r.runs.size());  // one HLEN per profile
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].command_line, "HLEN h");
  EXPECT_EQ(r.failures[0].redis, "(integer) 1");
  EXPECT_EQ(r.failures[0].subject_reply, "(integer) 2");
  ReportContext ctx;
  ctx.plan = &plan;
  EXPECT_EQ(nlohmann::json::parse(MatrixJson(r, ctx))["verdict"], "fail");
  EXPECT_NE(SummaryMarkdown(r, ctx).find("Verdict: FAIL"), std::string::npos);
  EXPECT_NE(MatrixMarkdown(r, ctx).find("| hlen | **1 FAIL** · 0 |"), std::string::npos);
}

TEST(Matrix, RandomFailuresAreShrunkToAVerifiedReproducer) {
  EngineOnMemory reference;
  // Wrong only in a state the sequence has to build: HLEN of a hash with two fields or more.
  auto alter = [](size_t, const std::vector<std::string>& argv, Reply r) {
    const bool hit =
        LowerCommand(argv[0]) == "hlen" && r.type() == Reply::Type::kInteger && r.integer() >= 2;
    return hit ? testing::Corrupt(r) : r;
  };
  FaultySubject faulty(std::make_unique<EngineSubject>("memory", StoreSpec(), EngineOptions()),
                       alter);
  kvlab::testing::ScratchDir scratch;
  MatrixPlan plan;
  plan.versions["hash"] = {"0"};
  plan.random = RandomPlan{1234, 3, 400, false, "kvlab conform --random --seed 1234"};
  plan.reproducer_dir = scratch.Sub("repro");
  plan.max_shrinks = 1;
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(reference.target(), {&faulty}, plan, nullptr, &r).ok());
  ASSERT_GT(r.totals.fail, 0u) << "the seed no longer reaches HLEN >= 2; pick another";
  ASSERT_EQ(r.reproducers.size(), 1u);
  const std::string path = r.reproducers[0];
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_EQ(r.failures[0].reproducer, path);

  CaseFile shrunk;
  ASSERT_TRUE(LoadCaseFile(path, &shrunk).ok());
  ASSERT_GE(shrunk.steps.size(), 2u);  // fields must be written before HLEN can be wrong
  EXPECT_LE(shrunk.steps.size(), 4u);
  EXPECT_EQ(LowerCommand(shrunk.steps.back().argv[0]), "hlen");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("seed 1234"), std::string::npos) << text;
  EXPECT_NE(text.find("kvlab conform --random --seed 1234"), std::string::npos) << text;

  // It reproduces on its own.
  EngineOnMemory fresh;
  FaultInjectingTarget replay(&fresh.target(), alter);
  EXPECT_NE(RunCase(shrunk, reference.target(), replay, RunContext()).first_failure(), nullptr);
}

// A case that uses a Redis command the engine does not serve (streams) is skipped on it and
// counted by command, once per subject; unknown commands still run (their errors are
// compared). The compatibility table groups the commands as Redis does.
TEST(Matrix, UnservedCommandsAreSkippedAndCountedByCommand) {
  EngineOnMemory reference;
  EngineSubject memory("memory", StoreSpec(), EngineOptions());
  EXPECT_FALSE(memory.Serves("xadd"));
  EXPECT_TRUE(memory.Serves("hset"));
  EXPECT_TRUE(memory.Serves("nosuchcommand"));
  MatrixPlan plan;
  plan.versions = {{"hash", {"0", "1"}}, {"zset", {"0"}}, {"set", {"0"}}, {"list", {"0"}}};
  plan.corpus = {Case("XADD s 1-1 f v\nXLEN s\nXADD s 2-1 f v\nGET k\n"),
                 Case("HSET h f v\nHGET h f\nNOSUCHCOMMAND x\n")};
  plan.corpus[0].name = "streams";
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(reference.target(), {&memory}, plan, nullptr, &r).ok());
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.totals.pass, 6u);  // the second case, in both profiles
  ASSERT_EQ(r.skipped.count("memory"), 1u);
  const SkippedCases& skipped = r.skipped.at("memory");
  EXPECT_EQ(skipped.cases, (std::set<std::string>{"streams"}));
  EXPECT_EQ(skipped.commands, (std::map<std::string, uint64_t>{{"xadd", 2}, {"xlen", 1}}));
  EXPECT_EQ(skipped.steps, 4u);
  EXPECT_EQ(r.corpus_commands.count("get"), 0u);

  std::map<std::string, GroupCompatibility> rows;
  for (GroupCompatibility& row : CompatibilityTable(r, "memory")) rows[row.group] = row;
  EXPECT_EQ(rows["hash"].passing, (std::vector<std::string>{"hget", "hset"}));
  EXPECT_EQ(rows["hash"].replies_pass, 4u);
  EXPECT_EQ(rows["hash"].replies_total, 4u);
  EXPECT_EQ(rows["stream"].passing.size(), 0u);
  EXPECT_EQ(rows["stream"].not_run.size(), 15u);  // Redis 7.0 has 15 stream commands
  EXPECT_EQ(rows["other"].passing, (std::vector<std::string>{"nosuchcommand"}));
  ReportContext ctx;
  ctx.plan = &plan;
  const nlohmann::json j = nlohmann::json::parse(MatrixJson(r, ctx));
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["skipped"]["memory"]["commands"]["xadd"], 2);
  bool stream_row = false;
  for (const auto& row : j["compatibility"]["memory"]) {
    if (row["group"] != "stream") continue;
    stream_row = true;
    EXPECT_EQ(row["commands_not_run"].size(), 15u);
  }
  EXPECT_TRUE(stream_row);
  const std::string summary = SummaryMarkdown(r, ctx);
  EXPECT_NE(summary.find("| hash | 2 | 0 | 14 | 4 / 4 |"), std::string::npos) << summary;
  EXPECT_NE(summary.find("1 case files (4 commands) not run; unserved commands: xadd (2) xlen (1)"),
            std::string::npos)
      << summary;
}

// Servers are named by what INFO server says they are.
TEST(Matrix, ServerNamesComeFromInfo) {
  EXPECT_EQ(ServerNameFromInfo("# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:0\r\n"),
            "redis 7.0.15");
  // Ardb 0.10 (src/command/server.cpp), Kvrocks 2.x, Valkey 7.2, kvlab serve.
  EXPECT_EQ(ServerNameFromInfo("# Server\r\nardb_version:0.10.0\r\nredis_version:2.8.0\r\n"
                               "engine:rocksdb\r\nrocksdb_version:5.14.2\r\n"),
            "ardb 0.10.0 (redis_version 2.8.0)");
  EXPECT_EQ(ServerNameFromInfo("# Server\r\nversion:2.4.0\r\ngcc_version:12\r\n"
                               "kvrocks_version:2.4.0\r\nredis_version:4.0.0\r\n"),
            "kvrocks 2.4.0 (redis_version 4.0.0)");
  EXPECT_EQ(ServerNameFromInfo("# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\n"
                               "valkey_version:7.2.5\r\n"),
            "valkey 7.2.5 (redis_version 7.2.4)");
  EXPECT_EQ(ServerNameFromInfo("redis_version:7.0.15\r\nkvlab_version:1.2\r\n"),
            "kvlab 1.2 (redis_version 7.0.15)");
  EXPECT_EQ(ServerNameFromInfo("ERR unknown command"), "");
}

}  // namespace
}  // namespace kvlab::conformance
