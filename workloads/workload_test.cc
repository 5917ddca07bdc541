// Workload files: parsing, validation with clear messages, the catalogue, templates and their
// expansion.
#include "workloads/workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "workloads/catalogue.h"
#include "workloads/op_expander.h"

namespace kvlab::workloads {
namespace {

constexpr const char* kMinimal = R"({
  "name": "mini",
  "keyspace": {"type": "hash", "records": 5, "key_prefix": "k", "elements": 3, "value_bytes": 8},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"operations": 10, "ops": [{"name": "read", "commands": ["HGET {key} {element}"]}]}]
})";

std::string ParseError(const std::string& text) {
  Workload w;
  Status s = ParseWorkload(text, "test", &w);
  EXPECT_FALSE(s.ok()) << text;
  return s.message();
}

TEST(Workload, ParsesWithDefaults) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kMinimal, "test", &w).ok());
  EXPECT_EQ(w.name, "mini");
  EXPECT_EQ(w.seed, 1u);
  EXPECT_EQ(w.threads, 1);
  EXPECT_EQ(w.keyspace.records, 5u);
  EXPECT_EQ(w.ElementPrefix(), "field");
  ASSERT_EQ(w.phases.size(), 1u);
  EXPECT_EQ(w.phases[0].name, "run");
  EXPECT_EQ(w.phases[0].key_distribution.kind, DistributionSpec::Kind::kUniform);
  EXPECT_EQ(w.phases[0].ops[0].commands[0].name, "HGET");
  EXPECT_TRUE(w.UsesType(*encodings::EncodingRegistry::Builtin().FindType("hash")));
  EXPECT_FALSE(w.UsesType(*encodings::EncodingRegistry::Builtin().FindType("zset")));
  EXPECT_EQ(w.source_sha256, Sha256Hex(kMinimal));
}

TEST(Workload, CanonicalJsonRoundTrips) {
  for (const CatalogueEntry& e : Catalogue()) {
    Workload w, again;
    ASSERT_TRUE(ParseWorkload(e.json, e.name, &w).ok()) << e.name;
    ASSERT_TRUE(ParseWorkload(w.ToJson(), "again", &again).ok()) << e.name << "\n" << w.ToJson();
    EXPECT_EQ(w.ToJson(), again.ToJson()) << e.name;
    EXPECT_EQ(w.EffectiveSha256(), again.EffectiveSha256());
  }
}

TEST(Workload, ErrorsNameThePath) {
  EXPECT_NE(ParseError("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(ParseError(R"({"name": "x", "keyspace": {"recordz": 3}, "run": []})"),
            "workload.keyspace.recordz: unknown member (see docs/workloads.md)");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1,
              "ops": [{"commands": ["HGET {key} {feild}"]}]}]})"),
            "workload.run[0].ops[0].commands[0]: unknown placeholder {feild} in '{feild}' (see "
            "docs/workloads.md)");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1,
              "ops": [{"commands": ["HGTE {key}"]}]}]})"),
            "workload.run[0].ops[0].commands[0]: kvlab has no command 'HGTE'");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"ops": [{"commands": ["GET {key}"]}]}]})"),
            "workload.run[0]: set operations or duration_s");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1,
              "ops": [{"commands": ["HGET {key} {element}"]}]}]})"),
            "workload.run[0].ops[0]: 'HGET {key} {element}' uses elements but keyspace.elements "
            "is 0");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1, "key_distribution": "hot",
              "ops": [{"commands": ["GET {key}"]}]}]})"),
            "workload.run[0].key_distribution: unknown distribution 'hot' (expected uniform, "
            "zipfian, latest or sequential)");
  EXPECT_EQ(ParseError(R"({"name": "x", "keyspace": {"records": 0}, "run": []})"),
            "workload.keyspace.records: expected an integer >= 1");
  EXPECT_EQ(ParseError(R"({"name": "x", "keyspace": {"elements": 2}, "run": [{"operations": 1,
              "ops": [{"commands": ["HSET k x{elements}"]}]}]})"),
            "workload.run[0].ops[0].commands[0]: {elements} must be a whole argument on its own, "
            "not part of 'x{elements}'");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1,
              "ops": [{"weight": 0, "commands": ["GET k"]}]}]})"),
            "workload.run[0].ops: the weights sum to 0");
  // Probes sample a phase at known points: a phase bounded by operations alone.
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"duration_s": 1, "ops": [{"commands": ["GET k"]}],
              "probe": {"every": 10, "operations": 1, "ops": [{"commands": ["GET k"]}]}}]})"),
            "workload.run[0].probe: a probed phase is bounded by its operations alone (no "
            "duration_s)");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1, "ops": [{"commands": ["GET k"]}],
              "probe": {"every": 0, "operations": 1, "ops": [{"commands": ["GET k"]}]}}]})"),
            "workload.run[0].probe.every: expected an integer >= 1");
  EXPECT_EQ(ParseError(R"({"name": "x", "run": [{"operations": 1, "ops": [{"commands": ["GET k"]}],
              "probe": {"every": 1, "operations": 1, "ops": [{"commands": ["SET {new_key} v"]}]}}]})"),
            "workload.run[0].probe.ops[0]: a probe reads; {new_key} belongs to the phase");
}

TEST(Workload, OverridesApplyToEveryPhase) {
  Workload w;
  ASSERT_TRUE(BuiltinWorkload("big-keys", &w).ok());
  WorkloadOverrides o;
  o.elements = 500;
  o.duration_s = 2;
  o.threads = 3;
  o.seed = 9;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  EXPECT_EQ(w.keyspace.elements, 500u);
  EXPECT_EQ(w.threads, 3);
  EXPECT_EQ(w.seed, 9u);
  for (const auto& p : w.phases) {
    EXPECT_EQ(p.duration_s, 2);
    EXPECT_EQ(p.operations, 0u);  // a duration given alone replaces the operation count
  }
  WorkloadOverrides zero;
  zero.records = 0;
  EXPECT_FALSE(ApplyOverrides(zero, &w).ok());
}

TEST(Catalogue, HasTheIssuesWorkloads) {
  std::set<std::string> names;
  for (const CatalogueEntry& e : Catalogue()) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate " << e.name;
    Workload w;
    ASSERT_TRUE(BuiltinWorkload(e.name, &w).ok()) << e.name;
    EXPECT_EQ(w.name, e.name);
    EXPECT_EQ(w.source, std::string("builtin:") + e.name);
    EXPECT_FALSE(w.description.empty());
  }
  for (const char* required :
       {"ycsb-a", "ycsb-b", "ycsb-c", "ycsb-d", "ycsb-e", "ycsb-f", "leaderboard", "timeline",
        "session-store", "big-keys", "ttl-churn"}) {
    EXPECT_TRUE(names.count(required)) << required;
  }
  Workload e;
  ASSERT_TRUE(BuiltinWorkload("ycsb-e", &e).ok());
  EXPECT_TRUE(e.UsesType(*encodings::EncodingRegistry::Builtin().FindType("hash")));
  EXPECT_TRUE(e.UsesType(*encodings::EncodingRegistry::Builtin().FindType("zset")));
  Workload session;
  ASSERT_TRUE(BuiltinWorkload("session-store", &session).ok());
  EXPECT_FALSE(session.UsesType(*encodings::EncodingRegistry::Builtin().FindType("hash")));
  EXPECT_FALSE(session.UsesType(*encodings::EncodingRegistry::Builtin().FindType("zset")));
  EXPECT_TRUE(BuiltinWorkload("ycsb-z", &e).IsNotFound());

  // YCSB's proportions and distributions.
  Workload a, d;
  ASSERT_TRUE(BuiltinWorkload("ycsb-a", &a).ok());
  ASSERT_TRUE(BuiltinWorkload("ycsb-d", &d).ok());
  EXPECT_EQ(a.phases[0].key_distribution.kind, DistributionSpec::Kind::kZipfian);
  EXPECT_TRUE(a.phases[0].key_distribution.scrambled);
  EXPECT_EQ(a.phases[0].ops[0].weight, 50);
  EXPECT_EQ(a.phases[0].ops[1].weight, 50);
  EXPECT_EQ(d.phases[0].key_distribution.kind, DistributionSpec::Kind::kLatest);
  EXPECT_EQ(a.keyspace.elements, 10u);
  EXPECT_EQ(a.keyspace.value_bytes, 100u);
}

TEST(Catalogue, MainJobSuiteResolves) {
  for (const SuiteEntry& e : MainJobSuite().workloads) {
    Workload w;
    ASSERT_TRUE(BuiltinWorkload(e.workload, &w).ok()) << e.workload;
    EXPECT_TRUE(ApplyOverrides(e.overrides, &w).ok()) << e.workload;
  }
}

TEST(Sha256, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CommandTemplate, CompilesPlaceholders) {
  CommandTemplate t;
  ASSERT_TRUE(CompileTemplateLine("zadd tl:{key_id} {now-5} p{now} {int:-3:7}", "t", &t).ok());
  EXPECT_EQ(t.name, "ZADD");
  ASSERT_EQ(t.args.size(), 4u);
  EXPECT_EQ(t.args[0].parts.size(), 2u);
  EXPECT_EQ(t.args[1].parts[0].kind, TemplatePart::Kind::kNow);
  EXPECT_EQ(t.args[1].parts[0].a, -5);
  EXPECT_EQ(t.args[3].parts[0].kind, TemplatePart::Kind::kInt);
  EXPECT_EQ(t.args[3].parts[0].a, -3);
  EXPECT_EQ(t.args[3].parts[0].b, 7);
  EXPECT_TRUE(t.Uses(TemplatePart::Kind::kKeyId));
  EXPECT_FALSE(CompileTemplateLine("GET {int:5:1}", "t", &t).ok());
  EXPECT_FALSE(CompileTemplateLine("GET {now*2}", "t", &t).ok());
  EXPECT_FALSE(CompileTemplateLine("GET {key", "t", &t).ok());
  EXPECT_FALSE(CompileTemplateLine("{key} x", "t", &t).ok());
  EXPECT_FALSE(CompileTemplateLine("GET \"unbalanced", "t", &t).ok());
  // Literal text without placeholders, an empty argument, and quoting.
  ASSERT_TRUE(CompileTemplateLine("SET \"a b\" \"\"", "t", &t).ok());
  ASSERT_EQ(t.args.size(), 2u);
  EXPECT_EQ(t.args[0].parts[0].literal, "a b");
  EXPECT_EQ(t.args[1].parts[0].literal, "");
}

TEST(OpExpander, DrawsOncePerOperationAndIsDeterministic) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({
    "name": "x", "seed": 7,
    "keyspace": {"type": "hash", "records": 1000, "key_prefix": "u", "elements": 10, "value_bytes": 12},
    "run": [{"operations": 1, "key_distribution": "zipfian",
             "ops": [{"commands": ["HGET {key} {element}", "HSET {key} {element} {value} {value}"]}]}]
  })",
                            "t", &w)
                  .ok());
  InsertCounter inserts(w.keyspace.records);
  OpExpander x(w, 0, 0, 1, &inserts), y(w, 0, 0, 1, &inserts);
  x.UsePhase(w.phases[0]);
  y.UsePhase(w.phases[0]);
  std::vector<std::string> read, write, other;
  for (int i = 0; i < 100; ++i) {
    x.BeginRunOp(i);
    x.Expand(w.phases[0].ops[0].commands[0], &read);
    x.Expand(w.phases[0].ops[0].commands[1], &write);
    ASSERT_EQ(read.size(), 3u);
    ASSERT_EQ(write.size(), 5u);
    EXPECT_EQ(read[1], write[1]);   // the same record
    EXPECT_EQ(read[2], write[2]);   // the same field
    EXPECT_EQ(write[3], write[4]);  // the same value
    EXPECT_EQ(write[3].size(), 12u);
    EXPECT_EQ(read[1].rfind("u", 0), 0u);
    EXPECT_EQ(read[2].rfind("field", 0), 0u);
    y.BeginRunOp(i);
    y.Expand(w.phases[0].ops[0].commands[0], &other);
    EXPECT_EQ(read, other);  // same seed and stream, same stream of commands
    y.Expand(w.phases[0].ops[0].commands[1], &other);
    EXPECT_EQ(write, other);
  }
}

TEST(OpExpander, ExpandsElementsForLoadAndRun) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({
    "name": "x",
    "keyspace": {"type": "zset", "records": 3, "key_prefix": "z", "elements": 5,
                 "element_prefix": "p", "load_score": "index"},
    "load": {"batch": 2, "commands": ["ZADD {key} {elements}"]},
    "run": [{"operations": 1, "ops": [{"commands": ["ZADD {new_key} {elements}", "ZRANGEBYSCORE {key} {now-2} {now}"]}]}]
  })",
                            "t", &w)
                  .ok());
  EXPECT_EQ(w.ClockStart(), 5);
  InsertCounter inserts(w.keyspace.records);
  OpExpander x(w, 0, 0, 1, &inserts);
  std::vector<std::string> argv;
  x.UseLoad();
  x.BeginLoadOp(2, 2, 4);
  x.Expand(w.load.commands[0], &argv);
  EXPECT_EQ(argv, (std::vector<std::string>{"ZADD", "z2", "2", "p2", "3", "p3"}));
  x.UsePhase(w.phases[0]);
  x.BeginRunOp(42);
  x.Expand(w.phases[0].ops[0].commands[0], &argv);
  EXPECT_EQ(argv.size(), 2u + 2 * 5);
  EXPECT_EQ(argv[1], "z3");  // the next record id
  ASSERT_TRUE(x.inserted_id().has_value());
  EXPECT_EQ(*x.inserted_id(), 3u);
  x.Expand(w.phases[0].ops[0].commands[1], &argv);
  EXPECT_EQ(argv[2], "40");
  EXPECT_EQ(argv[3], "42");
  EXPECT_LT(std::stoi(argv[1].substr(1)), 3);  // reads only records whose insert completed
}

// "lonlat": {elements} of a zset are GEOADD triples inside Redis's grid, 6 decimals, and the
// setting survives the canonical JSON.
TEST(OpExpander, ExpandsGeoaddTriples) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({
    "name": "g",
    "keyspace": {"type": "zset", "records": 1, "key_prefix": "g", "elements": 400,
                 "element_prefix": "p", "load_score": "lonlat"},
    "load": {"batch": 400, "commands": ["GEOADD {key} {elements}"]},
    "run": [{"operations": 1, "ops": [{"commands": ["GEOPOS {key} {element}"]}]}]
  })",
                            "t", &w)
                  .ok());
  EXPECT_EQ(w.keyspace.load_score, KeyspaceSpec::LoadScore::kLonLat);
  Workload again;
  ASSERT_TRUE(ParseWorkload(w.ToJson(), "t2", &again).ok());
  EXPECT_EQ(again.keyspace.load_score, KeyspaceSpec::LoadScore::kLonLat);
  InsertCounter inserts(w.keyspace.records);
  OpExpander x(w, 0, 0, 1, &inserts);
  std::vector<std::string> argv;
  x.UseLoad();
  x.BeginLoadOp(0, 0, 400);
  x.Expand(w.load.commands[0], &argv);
  ASSERT_EQ(argv.size(), 2u + 3 * 400);
  bool west = false, south = false;
  for (size_t i = 2; i < argv.size(); i += 3) {
    for (size_t k = 0; k < 2; ++k) {
      const std::string& c = argv[i + k];
      ASSERT_EQ(c.size() - c.find('.'), 7u) << c;  // 6 decimals
    }
    const double lon = std::stod(argv[i]), lat = std::stod(argv[i + 1]);
    EXPECT_LE(std::abs(lon), 180.0);
    EXPECT_LE(std::abs(lat), 85.05112878);
    west = west || lon < -90;
    south = south || lat < -42;
    EXPECT_EQ(argv[i + 2], "p" + std::to_string((i - 2) / 3));
  }
  EXPECT_TRUE(west && south);  // spread over the grid, signs included
}

}  // namespace
}  // namespace kvlab::workloads
