// Space at the end of a bench cell (workloads/space.h): logical bytes are exactly what the
// workload left, garbage is what a GC pass then reclaims, and the result carries both.
#include "workloads/space.h"

#include <gtest/gtest.h>

#include "encodings/registry.h"
#include "testing/engine_test_util.h"
#include "workloads/catalogue.h"
#include "workloads/matrix.h"
#include "workloads/result.h"

namespace kvlab::workloads {
namespace {

using nlohmann::json;

// Every type, a deleted key, an expired key and a key in another database: the walk counts
// exactly the live keys' names and contents.
TEST(Space, LogicalSizeOfKnownKeysIsExact) {
  testing::EngineHarness h("memory");
  for (const char* line : {"SET s hello", "HSET h f1 v1 f22 v22", "ZADD z 1.5 mem 2 m",
                           "SADD st a bb", "RPUSH l x yy", "SET gone x", "DEL gone", "HSET exp a b",
                           "PEXPIRE exp 100", "SELECT 1", "SET k1 vv", "SELECT 0"}) {
    ASSERT_FALSE(h.Exec(line).is_error()) << line;
  }
  h.clock().AdvanceMillis(1000);
  EngineTarget target(&h.engine(), nullptr, {});
  std::unique_ptr<TargetConnection> c;
  ASSERT_TRUE(target.Connect(&c).ok());
  LogicalSize l;
  const Status s = MeasureLogicalSize(*c, &l);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(l.keys, 6u);
  EXPECT_EQ(l.elements, 1u + 2 + 2 + 2 + 2 + 1);
  EXPECT_EQ(l.key_bytes, 1u + 1 + 1 + 2 + 1 + 2);
  // s: 1 + 5; h: 1 + 2+2 + 3+3; z: 1 + 3+1 + 2 scores of 8; st: 2 + 1+2; l: 1 + 1+2; k1: 2 + 2.
  EXPECT_EQ(l.bytes, 6u + 11 + 21 + 5 + 4 + 4);
  // The connection is back in database 0.
  resp::Reply r;
  CommandSample sample;
  ASSERT_TRUE(c->Execute({"GET", "s"}, &r, &sample).ok());
  EXPECT_EQ(r.str(), "hello");
}

const char* kKnown = R"({
  "name": "space-known", "seed": 1,
  "keyspace": {"type": "hash", "records": 3, "key_prefix": "k", "elements": 4, "value_bytes": 10},
  "load": {"commands": ["HSET {key} {elements}"]},
  "run": [{"name": "drop", "operations": 1, "ops": [{"commands": ["DEL k0"]}]},
          {"name": "overwrite", "operations": 3, "ops": [{"commands": ["HSET k1 field0 {value}"]}]},
          {"name": "add", "operations": 1, "ops": [{"commands": ["HSET k2 extra abc"]}]}]
})";

// A known load with a delete and overwrites: the logical bytes are what is live; a lazily
// deleting version leaves the deleted key's fields as garbage, an eager one (Ardb) none; the GC
// pass then leaves none, having removed exactly the garbage's bytes; the JSON says all of it.
TEST(Space, KnownLoadGarbageAndGcInTheResult) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(kKnown, "test", &w).ok());
  MatrixOptions m;
  m.backends = {"memory", "rocksdb"};
  m.versions["hash"] = {"0", "1", "ardb", "kvrocks"};
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 8u);
  for (const CellResult& r : results) {
    SCOPED_TRACE(r.cell.Label());
    ASSERT_TRUE(r.run.error.empty()) << r.run.error;
    const SpaceResult& space = r.space;
    ASSERT_TRUE(space.measured) << space.error;
    // k1: 2 + 4 x (6 + 10); k2: the same plus "extra" "abc".
    EXPECT_EQ(space.logical.keys, 2u);
    EXPECT_EQ(space.logical.elements, 9u);
    EXPECT_EQ(space.logical.bytes, 66u + 74);
    const bool eager = r.cell.profile.VersionOf("hash") == "ardb";
    if (eager) {
      EXPECT_EQ(space.store.garbage_records, 0u);
    } else {
      EXPECT_GE(space.store.garbage_records, 4u);  // k0's four fields at least
    }
    EXPECT_GT(space.store.bytes, space.logical.bytes);
    ASSERT_TRUE(space.gc_ran);
    EXPECT_EQ(space.gc.reclaimed_sub_keys, space.store.garbage_records);
    EXPECT_EQ(space.store_after_gc.garbage_records, 0u);
    EXPECT_EQ(space.store_after_gc.garbage_bytes, 0u);
    EXPECT_EQ(space.store_after_gc.bytes, space.store.bytes - space.store.garbage_bytes);

    const json run = CellJson(r);
    ASSERT_TRUE(run.contains("space"));
    const json& j = run["space"];
    EXPECT_TRUE(j["error"].is_null());
    EXPECT_EQ(j["logical"]["bytes"], 140);
    EXPECT_EQ(j["logical"]["elements"], 9);
    EXPECT_EQ(j["store"]["garbage_records"], space.store.garbage_records);
    EXPECT_DOUBLE_EQ(j["kv_amplification"].get<double>(),
                     static_cast<double>(space.store.bytes) / 140);
    EXPECT_DOUBLE_EQ(j["kv_bytes_per_element"].get<double>(),
                     static_cast<double>(space.store.bytes) / 9);
    EXPECT_EQ(j["gc"]["store"]["garbage_records"], 0);
    if (r.cell.backend == "rocksdb") {
      EXPECT_TRUE(j["disk_amplification"].is_number());
      EXPECT_TRUE(j["gc"]["disk_bytes"].is_number());
    }
  }
  // --no-gc-at-end: the garbage is measured, no pass runs.
  m.gc_at_end = false;
  m.backends = {"memory"};
  m.versions["hash"] = {"0"};
  results.clear();
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results[0].space.measured);
  EXPECT_GE(results[0].space.store.garbage_records, 4u);
  EXPECT_FALSE(results[0].space.gc_ran);
  EXPECT_TRUE(CellJson(results[0])["space"]["gc"].is_null());
}

// The churn workloads leave garbage in every version that keeps the collection in KV (the blind
// SETs orphan even Ardb's records), and one GC pass leaves none. What stays is exactly the last
// incarnations: 4 keys of 200 elements each.
TEST(Space, BigKeyChurnLeavesGarbageThatGcReclaims) {
  for (const auto& [name, type, per_key] :
       {std::tuple{"big-key-churn-hash", "hash", uint64_t{7 + 1490 + 200 * 32}},
        std::tuple{"big-key-churn-zset", "zset", uint64_t{8 + 1690 + 200 * 8}}}) {
    SCOPED_TRACE(name);
    Workload w;
    ASSERT_TRUE(BuiltinWorkload(name, &w).ok());
    WorkloadOverrides o;
    o.elements = 200;  // field0..field199: 10 x 6 + 90 x 7 + 100 x 8 bytes of names
    ASSERT_TRUE(ApplyOverrides(o, &w).ok());
    ASSERT_EQ(w.phases.front().name, "grow");
    w.phases.front().operations = 100;
    MatrixOptions m;
    m.backends = {"memory", "rocksdb"};
    std::vector<CellResult> results;
    RunMatrix(w, m, &results);
    ASSERT_EQ(results.size(), 2 * AvailableVersions(m.engine)[type].size());
    for (const CellResult& r : results) {
      SCOPED_TRACE(r.cell.Label());
      ASSERT_TRUE(r.run.error.empty()) << r.run.error;
      ASSERT_TRUE(r.space.measured) << r.space.error;
      EXPECT_EQ(r.space.logical.keys, 4u);
      EXPECT_EQ(r.space.logical.elements, 4u * 200);
      EXPECT_EQ(r.space.logical.bytes, 4 * per_key);
      // A version that keeps the collection in the Redis tier's store (zset v3) writes no
      // sub-key for a short member: its garbage is the tier's, which DEL unlinks.
      const auto& registry = encodings::EncodingRegistry::Builtin();
      const encodings::EncodingSpec* row =
          registry.Find(registry.FindType(type)->type, *r.cell.profile.VersionOf(type));
      ASSERT_NE(row, nullptr);
      if (row->tier != encodings::TierUse::kStore) {
        EXPECT_GT(r.space.store.garbage_records, 0u);
        EXPECT_GT(r.space.store.garbage_bytes, 0u);
      }
      ASSERT_TRUE(r.space.gc_ran);
      EXPECT_EQ(r.space.store_after_gc.garbage_records, 0u);
      EXPECT_EQ(r.space.store_after_gc.garbage_bytes, 0u);
      EXPECT_EQ(r.space.store_after_gc.bytes, r.space.store.bytes - r.space.store.garbage_bytes);
    }
  }
}

// The load's space (MatrixOptions::measure_load_space) is what keeping the data costs: the live
// bytes of each type's records, which do not depend on how the load was batched. The bytes the
// load wrote do: a counted version rewrites its key-meta once per batch.
TEST(Space, LoadSpaceDoesNotDependOnTheLoadBatch) {
  const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
  for (const char* type : {"hash", "zset", "set", "list"}) {
    SCOPED_TRACE(type);
    std::map<uint64_t, std::map<std::string, std::pair<uint64_t, uint64_t>>> by_batch;
    for (const uint64_t batch : {uint64_t{1}, uint64_t{1000}}) {
      const std::string text =
          std::string(R"({"name": "batch", "seed": 1,
        "keyspace": {"type": ")") +
          type + R"(", "records": 5, "key_prefix": "k", "elements": 40, "value_bytes": 8},
        "load": {"batch": )" +
          std::to_string(batch) + R"(, "commands": [")" +
          (std::string(type) == "zset"   ? "ZADD"
           : std::string(type) == "set"  ? "SADD"
           : std::string(type) == "list" ? "RPUSH"
                                         : "HSET") +
          R"( {key} {elements}"]},
        "run": [{"name": "run", "operations": 1, "ops": [{"commands": ["EXISTS k0"]}]}]})";
      Workload w;
      ASSERT_TRUE(ParseWorkload(text, "test", &w).ok()) << text;
      MatrixOptions m;
      m.backends = {"memory", "lmdb"};
      m.measure_load_space = true;
      m.gc_at_end = false;
      for (const encodings::EncodingSpec* row :
           registry.VersionsOf(registry.FindType(type)->type)) {
        if (row->tier == encodings::TierUse::kNone)
          m.versions[type].push_back(std::string(row->name));
      }
      std::vector<CellResult> results;
      RunMatrix(w, m, &results);
      for (const CellResult& r : results) {
        SCOPED_TRACE(r.cell.Label() + " batch " + std::to_string(batch));
        ASSERT_TRUE(r.run.error.empty()) << r.run.error;
        ASSERT_TRUE(r.load_space.measured) << r.load_space.error;
        const auto it = r.load_space.store.by_type.find(type);
        ASSERT_NE(it, r.load_space.store.by_type.end());
        EXPECT_EQ(it->second.keys, 5u);
        // Every live record of the store is the type's (the workload has no other type).
        EXPECT_EQ(it->second.bytes, r.load_space.store.bytes - r.load_space.store.garbage_bytes);
        uint64_t written = 0;
        for (const auto& [command, st] : r.run.phases.front().commands)
          written += st.kv.bytes_written;
        by_batch[batch][r.cell.Label()] = {it->second.bytes, written};
      }
    }
    ASSERT_EQ(by_batch[1].size(), by_batch[1000].size());
    bool some_write_volume_differs = false;
    for (const auto& [cell, one] : by_batch[1]) {
      const auto& whole = by_batch[1000][cell];
      EXPECT_EQ(one.first, whole.first) << cell << ": live bytes differ with the batch size";
      some_write_volume_differs = some_write_volume_differs || one.second != whole.second;
    }
    EXPECT_TRUE(some_write_volume_differs) << "the test should load in batches that matter";
  }
}

}  // namespace
}  // namespace kvlab::workloads
