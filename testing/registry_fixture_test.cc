// Types and versions are data: a fixture encoding registered here, in this one file (a copy of
// hash v0 as hash v4), is picked up by every registry-driven check with no other edit:
// - the engine runs it (CONFIG SET, new keys carry version 4, INFO names it);
// - the conformance matrix runs it, against the same replies as every other version;
// - the bench matrix runs it, and the results JSON names it in the cell's profile;
// - the amplification table's coverage check reports every row it lacks;
// - the deviations catalogue loads with it (it claims no deviation).
// docs/adding-an-encoding.md walks through the same steps for a real version.
#include <gtest/gtest.h>

#include <algorithm>

#include "conformance/matrix.h"
#include "conformance/subjects.h"
#include "encodings/hash_encoding.h"
#include "encodings/registry.h"
#include "engine/command_table.h"
#include "testing/amplification_table.h"
#include "testing/conform_test_util.h"
#include "testing/engine_test_util.h"
#include "workloads/catalogue.h"
#include "workloads/matrix.h"
#include "workloads/result.h"

namespace kvlab::testing {
namespace {

using encodings::EncodingRegistry;
using encodings::EncodingSpec;
using encodings::KeyType;
using encodings::SubKeyTag;
using encodings::TierUse;
using encodings::TypeEncoding;

// The fixture row: hash v0's logic under id and name 4.
EncodingSpec FixtureRow() {
  return {KeyType::kHash,
          4,
          "4",
          "fixture: hash v0's logic under another id",
          "#bcbd22",
          /*meta_has_count=*/true,
          TierUse::kNone,
          /*uses_reverse_scan=*/false,
          {SubKeyTag::kField},
          /*deviations=*/{},
          [](const encodings::EncodingDeps&) {
            return std::unique_ptr<TypeEncoding>(encodings::NewCountedHashEncoding(4));
          }};
}

const EncodingRegistry& Fixture() {
  static const EncodingRegistry* const registry = [] {
    auto* r = new EncodingRegistry();
    const Status s = EncodingRegistry::Builtin().With(FixtureRow(), r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }();
  return *registry;
}

engine::EngineOptions FixtureOptions() {
  engine::EngineOptions options;
  options.registry = &Fixture();
  return options;
}

TEST(RegistryFixture, TheEngineRunsIt) {
  EngineHarness e("memory", FixtureOptions());
  EXPECT_EQ(e.Run("CONFIG SET hash-encoding 4"), "OK");
  EXPECT_EQ(e.Run("CONFIG GET kv.hash.key.meta.version"), "[\"kv.hash.key.meta.version\", \"4\"]");
  EXPECT_EQ(e.Run("HSET h a 1 b 2"), "(integer) 2");
  EXPECT_EQ(e.Run("HSET h a 3 c 4"), "(integer) 1");  // counted, as v0
  EXPECT_EQ(e.Run("HLEN h"), "(integer) 3");
  EXPECT_NE(e.Run("INFO kvlab").find("hash_encoding:4"), std::string::npos);
  // kvlab's own registry does not know version 4.
  EngineHarness builtin;
  EXPECT_TRUE(builtin.Run("CONFIG SET hash-encoding 4").starts_with("(error)"));
}

TEST(RegistryFixture, TheConformanceMatrixRunsIt) {
  EngineOnMemory reference;  // hash v0 stands in for Redis's exact replies
  conformance::EngineSubject memory("memory", backends::StoreSpec(), FixtureOptions(),
                                    conformance::EngineTierWiring(Fixture()));
  conformance::DeviationCatalogue catalogue;
  ASSERT_TRUE(conformance::DeviationCatalogue::Load(conformance::DefaultDeviationCataloguePath(),
                                                    Fixture(), &catalogue)
                  .ok());
  conformance::MatrixPlan plan;
  plan.registry = &Fixture();
  plan.catalogue = &catalogue;
  plan.tier_states.clear();
  plan.corpus = {conformance::CaseFile{}};
  ASSERT_TRUE(conformance::ParseCaseText(
                  "fixture", "HSET h a 1 b 2\nHSET h a 3 c 4\nHDEL h a x\nHLEN h\nHGETALL h\n",
                  &plan.corpus[0])
                  .ok());
  std::vector<conformance::Profile> profiles;
  ASSERT_TRUE(conformance::PlanProfiles(memory, plan, &profiles).ok());
  const bool planned = std::any_of(profiles.begin(), profiles.end(), [](const auto& p) {
    return p.encodings.VersionOf("hash") == std::optional<std::string>("4");
  });
  EXPECT_TRUE(planned) << "no profile runs hash v4";
  conformance::MatrixResult r;
  ASSERT_TRUE(conformance::RunMatrix(reference.target(), {&memory}, plan, nullptr, &r).ok());
  const conformance::Tally& hset = r.cells.at({"memory", "hash v4", "hset"});
  EXPECT_EQ(hset.pass, 2u);
  EXPECT_EQ(hset.fail, 0u);
  EXPECT_EQ(r.cells.at({"memory", "hash v4", "hlen"}).pass, 1u);
}

TEST(RegistryFixture, TheBenchMatrixRunsIt) {
  workloads::Workload w;
  ASSERT_TRUE(workloads::BuiltinWorkload("ycsb-a", &w).ok());
  workloads::WorkloadOverrides o;
  o.records = 20;
  o.operations = 50;
  o.warmup_operations = 5;
  ASSERT_TRUE(workloads::ApplyOverrides(o, &w).ok());
  workloads::MatrixOptions m;
  m.backends = {"memory"};
  m.engine = FixtureOptions();
  m.versions["hash"] = {"0", "4"};
  std::vector<workloads::CellResult> results;
  workloads::RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 2u);
  const workloads::CellResult& v4 = results[1];
  EXPECT_EQ(v4.cell.Label(), "memory h4");
  EXPECT_TRUE(v4.run.error.empty()) << v4.run.error;
  // Counted like v0: an HSET of an existing field reads it first.
  const workloads::CallStats& hset = v4.run.phases.back().commands.at("HSET");
  EXPECT_EQ(hset.kv.gets, hset.calls * 2);
  const nlohmann::json j = workloads::CellJson(v4);
  EXPECT_EQ(j["profile"], nlohmann::json({{"hash", "4"}}));
  EXPECT_EQ(j["profile_label"], "h4");
  // And when the matrix is not narrowed, every version of the registry is in it.
  m.versions.clear();
  const auto cells = workloads::PlanCells(w, m);
  EXPECT_TRUE(std::any_of(cells.begin(), cells.end(),
                          [](const auto& c) { return c.profile_label == "h4"; }));
}

TEST(RegistryFixture, TheAmplificationCoverageCheckReportsItsMissingRows) {
  std::vector<AmplificationRow> rows;
  ASSERT_TRUE(LoadAmplificationTable(KVLAB_SOURCE_DIR "/docs/amplification.md", &rows).ok());
  EXPECT_TRUE(AmplificationCoverageGaps(rows, EncodingRegistry::Builtin()).empty());
  const std::vector<std::string> gaps = AmplificationCoverageGaps(rows, Fixture());
  ASSERT_FALSE(gaps.empty());
  size_t hash_commands = 0;
  for (const engine::CommandSpec& spec : engine::CommandTable::Get().all()) {
    if (spec.group != "hash") continue;
    ++hash_commands;
    const std::string want = "no row for " + std::string(spec.name) + " on hash v4";
    EXPECT_NE(std::find(gaps.begin(), gaps.end(), want), gaps.end()) << want;
  }
  EXPECT_EQ(gaps.size(), hash_commands);  // and nothing else
}

}  // namespace
}  // namespace kvlab::testing
