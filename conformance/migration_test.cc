// Migration runs (`kvlab conform --migrate-with`): the profiles they plan, the switching of the
// subject's versions before every command, and how their replies are judged; with a second
// engine standing in for the reference Redis.
#include <gtest/gtest.h>

#include "conformance/matrix.h"
#include "testing/conform_test_util.h"

namespace kvlab::conformance {

using backends::StoreSpec;
using engine::EngineOptions;
using resp::Reply;

namespace {

using testing::CountingTarget;
using testing::EngineOnMemory;
using testing::FaultInjectingTarget;

// A subject that only answers which versions it runs; versions named in `tiered` use a tier.
class FakeSubject final : public Subject {
 public:
  FakeSubject(std::map<std::string, std::vector<std::string>> versions,
              std::vector<std::string> tiered = {})
      : versions_(std::move(versions)), tiered_(std::move(tiered)) {}
  std::string name() const override { return "fake"; }
  std::map<std::string, std::vector<std::string>> Versions() override { return versions_; }
  bool UsesTier(const encodings::EncodingProfile& p) const override {
    for (const auto& [type, version] : p.versions) {
      if (version && std::find(tiered_.begin(), tiered_.end(), *version) != tiered_.end()) {
        return true;
      }
    }
    return false;
  }
  Status Open(const Profile&, std::unique_ptr<SubjectSession>*) override {
    return Status::NotSupported("fake");
  }

 private:
  std::map<std::string, std::vector<std::string>> versions_;
  std::vector<std::string> tiered_;
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

encodings::EncodingProfile Hash(const std::string& version) {
  encodings::EncodingProfile p;
  p.versions["hash"] = version;
  return p;
}

TEST(Migration, EachProfileRunsWithEachNameItDoesNotRunAlready) {
  FakeSubject families({{"hash", {"0", "1", "ardb"}}, {"list", {"0", "ardb"}}});
  MatrixPlan plan;
  plan.migrate_with = {"ardb"};
  std::vector<Profile> p;
  ASSERT_TRUE(PlanProfiles(families, plan, &p).ok());
  // The ardb profile already runs ardb everywhere: it has nothing to migrate from.
  EXPECT_EQ(Labels(p),
            (std::vector<std::string>{"h0 l0 <-> hardb lardb", "h1 l0 <-> hardb lardb"}));
  EXPECT_EQ(VersionLabel("hset", p[1]), "hash v1 <-> ardb");
  EXPECT_EQ(VersionLabel("lpush", p[1]), "list v0 <-> ardb");

  // Only the types that have the name alternate; a profile that runs it already is left out.
  plan.migrate_with = {"1", "ardb"};
  ASSERT_TRUE(PlanProfiles(families, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 l0 <-> h1", "h0 l0 <-> hardb lardb",
                                                 "h1 l0 <-> hardb lardb", "hardb lardb <-> h1"}));
  EXPECT_EQ(VersionLabel("lpush", p[0]), "list v0");

  plan.migrate_with = {"7"};
  const Status bad = PlanProfiles(families, plan, &p);
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
}

TEST(Migration, TierStatesApplyWhenEitherFamilyUsesTheTier) {
  FakeSubject tiered({{"hash", {"0", "2", "ardb"}}}, {"2"});
  MatrixPlan plan;
  plan.migrate_with = {"2"};
  plan.tier_states = {TierState::kCold, TierState::kFlushed};
  std::vector<Profile> p;
  ASSERT_TRUE(PlanProfiles(tiered, plan, &p).ok());
  EXPECT_EQ(Labels(p), (std::vector<std::string>{"h0 <-> h2 cold", "h0 <-> h2 flushed",
                                                 "hardb <-> h2 cold", "hardb <-> h2 flushed"}));
  EXPECT_EQ(VersionLabel("hget", p[3]), "hash vardb <-> 2 flushed");
}

// Keys are created under the alternate family, then every command runs under the other one
// than the command before it, and writes migrate what they write.
TEST(Migration, VersionsSwitchBeforeEveryCommandAndWritesMigrate) {
  EngineOnMemory reference;
  EngineOptions migrating;
  migrating.migrate_on_write = true;
  EngineOnMemory subject(migrating);
  CountingTarget counted(&subject.target());
  RunContext ctx;
  ctx.profile = Hash("0");
  ctx.migrate_with = Hash("ardb");
  std::vector<std::string> encodings;
  ctx.observe = [&](const std::vector<std::string>& argv, const Reply&, const Reply& kvlab,
                    const StepOutcome&) {
    if (LowerCommand(argv[0]) == "object") encodings.push_back(kvlab.str());
  };
  // Under ardb, 0, ardb, 0, ...; the commands after MULTI do not switch (a CONFIG SET would be
  // queued), so the transaction runs under MULTI's versions (0).
  const CaseFile c = Case(
      "HSET h a 1\nHSET h b 2\nOBJECT ENCODING h\nHGET h a\nHSET h c 3\nOBJECT ENCODING h\n"
      "HLEN h\nMULTI\nHSET h d 4\nEXEC\nOBJECT ENCODING h\nHGETALL h\n");
  const CaseOutcome o = RunCase(c, reference.target(), counted, ctx);
  // Created in ardb, migrated to v0 by the second HSET (then read, not migrated, under ardb),
  // back to ardb by the third, and to v0 by the transaction's.
  EXPECT_EQ(encodings, (std::vector<std::string>{"kv-hash-v0", "kv-hash-ardb", "kv-hash-v0"}));
  EXPECT_EQ(counted.count("config"), 10u);  // every command but the queued HSET and EXEC
  for (const StepOutcome& s : o.steps) {
    if (s.command != "object") {
      EXPECT_EQ(s.verdict, Verdict::kPass) << s.command;
    }
  }

  // A plain run sends no CONFIG SET.
  CountingTarget plain(&subject.target());
  RunCase(c, reference.target(), plain, RunContext());
  EXPECT_EQ(plain.count("config"), 0u);
}

DeviationCatalogue Catalogue() {
  DeviationCatalogue c;
  Status s = DeviationCatalogue::Load(DefaultDeviationCataloguePath(),
                                      encodings::EncodingRegistry::Builtin(), &c);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return c;
}

// A write deviates as its configured version may (it migrated what it writes first); a read as
// the version of either family may (it reads a key where its last write left it).
TEST(Migration, DeviationsAreThoseOfTheVersionsAKeyCanBeIn) {
  EngineOnMemory reference;  // hash v0 stands in for Redis's exact replies
  EngineOptions migrating;
  migrating.migrate_on_write = true;
  EngineOnMemory subject(migrating);
  const DeviationCatalogue catalogue = Catalogue();
  RunContext ctx;
  ctx.catalogue = &catalogue;
  ctx.profile = Hash("0");
  ctx.migrate_with = Hash("1");  // the blind hash: HSET replies the number of pairs given
  // h1, h0, h1, h0, h1, h0.
  const CaseFile c =
      Case("HSET h a 1\nHSET h a 2\nHSET h a 3\nOBJECT ENCODING h\nHSET h a 4\nHSET h a 5\n");
  const CaseOutcome o = RunCase(c, reference.target(), subject.target(), ctx);
  std::vector<Verdict> verdicts;
  for (const StepOutcome& s : o.steps) verdicts.push_back(s.verdict);
  EXPECT_EQ(verdicts,
            (std::vector<Verdict>{Verdict::kPass, Verdict::kPass, Verdict::kDeviation,
                                  Verdict::kDeviation, Verdict::kDeviation, Verdict::kPass}));
  EXPECT_EQ(o.steps[2].deviation_id, "hash-blind-hset-count");
  // Under v0, OBJECT ENCODING of the key the blind HSET left in v1.
  EXPECT_EQ(o.steps[3].deviation_id, "object-encoding-names-kv-encoding");

  // The last HSET runs under v0 after migrating the key: a blind count there is a failure.
  size_t hsets = 0;
  FaultInjectingTarget blind_under_v0(&subject.target(), [&](size_t, const auto& argv, Reply r) {
    return LowerCommand(argv[0]) == "hset" && ++hsets == 5 ? Reply::Integer(1) : r;
  });
  const CaseOutcome bad = RunCase(c, reference.target(), blind_under_v0, ctx);
  ASSERT_NE(bad.first_failure(), nullptr);
  EXPECT_EQ(bad.first_failure()->line, 6);
}

TEST(Migration, EngineSubjectRunsMigrationProfilesWithMigrationOn) {
  EngineOnMemory reference;
  EngineSubject memory("memory", StoreSpec(), EngineOptions());
  MatrixPlan plan;
  for (const char* type : {"hash", "zset", "list", "set"}) plan.versions[type] = {"0"};
  plan.migrate_with = {"kvrocks"};
  // Created under kvrocks, migrated to v0 by the second HSET, read under kvrocks, then under v0.
  plan.corpus = {Case("HSET h a 1\nHSET h b 2\nHLEN h\nOBJECT ENCODING h\n")};
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(reference.target(), {&memory}, plan, nullptr, &r).ok());
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].profile.Label(), "h0 z0 l0 s0 <-> hkvrocks zkvrocks lkvrocks skvrocks");
  EXPECT_EQ(r.cells.at({"memory", "hash v0 <-> kvrocks", "hset"}).pass, 2u);
  EXPECT_EQ(r.cells.at({"memory", "hash v0 <-> kvrocks", "hlen"}).pass, 1u);
  // Migrated to v0 by the second HSET: the reference's encoding, so it passes.
  EXPECT_EQ(r.cells.at({"memory", r.runs[0].profile.Label(), "object"}).pass, 1u);
  EXPECT_EQ(r.totals.fail, 0u);
}

}  // namespace
}  // namespace kvlab::conformance
