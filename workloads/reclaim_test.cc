// The reclaim axis of `kvlab bench` (workloads/reclaim.h): each mechanism runs beside the
// workload and ends its cell with no garbage, the baseline keeps it, the timeline is there and
// in order, and a mechanism that does not apply to a backend is skipped with a note.
#include "workloads/reclaim.h"

#include <gtest/gtest.h>

#include "workloads/catalogue.h"
#include "workloads/matrix.h"
#include "workloads/result.h"

namespace kvlab::workloads {
namespace {

using nlohmann::json;

TEST(Reclaim, ParsesTheMechanismList) {
  std::vector<std::string> m;
  ASSERT_TRUE(ParseReclaimList("scan,none,scan", &m).ok());
  EXPECT_EQ(m, (std::vector<std::string>{"scan", "none"}));
  ASSERT_TRUE(ParseReclaimList("all", &m).ok());
  EXPECT_EQ(m, (std::vector<std::string>{"none", "scan", "compaction", "ttl-index"}));
  const Status s = ParseReclaimList("none,sweep", &m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown mechanism 'sweep'"), std::string::npos) << s.message();
  EXPECT_FALSE(ParseReclaimList("", &m).ok());
}

// The axis multiplies the cells by the mechanisms that apply: compaction on RocksDB only, and
// none of them over RESP but the baseline; the skipped ones are said in notes.
TEST(Reclaim, PlansTheMechanismsThatApplyAndNotesTheOthers) {
  Workload w;
  ASSERT_TRUE(BuiltinWorkload("expiring-sessions-hash", &w).ok());
  MatrixOptions m;
  m.backends = {"memory", "rocksdb:cf", "lmdb"};
  m.versions["hash"] = {"0"};
  ASSERT_TRUE(ParseReclaimList("all", &m.reclaim).ok());
  std::vector<std::string> labels;
  for (const Cell& c : PlanCells(w, m)) labels.push_back(c.Label() + "/" + c.reclaim);
  EXPECT_EQ(labels,
            (std::vector<std::string>{
                "memory h0 reclaim=none/none", "memory h0 reclaim=scan/scan",
                "memory h0 reclaim=ttl-index/ttl-index", "rocksdb:cf h0 reclaim=none/none",
                "rocksdb:cf h0 reclaim=scan/scan", "rocksdb:cf h0 reclaim=compaction/compaction",
                "rocksdb:cf h0 reclaim=ttl-index/ttl-index", "lmdb h0 reclaim=none/none",
                "lmdb h0 reclaim=scan/scan", "lmdb h0 reclaim=ttl-index/ttl-index"}));
  // Only the ttl-index cells' engines keep the TTL index, whatever the matrix's engine says.
  for (const Cell& c : PlanCells(w, m)) {
    EXPECT_EQ(EngineOptionsFor(m, c).keys.ttl_index, c.reclaim == "ttl-index") << c.Label();
  }
  const std::vector<std::string> notes = ReclaimSkipNotes(m);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0],
            "compaction skipped on memory: the compaction filter applies to RocksDB only (memory "
            "does not compact; the scan is its mechanism)");
  EXPECT_NE(notes[1].find("compaction skipped on lmdb"), std::string::npos) << notes[1];
  EXPECT_EQ(ReclaimSkipReason("scan", "127.0.0.1:6379", "resp"),
            "scan skipped over RESP: reclaim mechanisms run in-process only (the store is the "
            "server's)");
  EXPECT_EQ(ReclaimSkipReason("none", "127.0.0.1:6379", "resp"), "");
  // Without the axis, nothing changes.
  m.reclaim.clear();
  EXPECT_EQ(PlanCells(w, m).size(), 3u);
  EXPECT_TRUE(ReclaimSkipNotes(m).empty());
}

// Big-key churn leaves its deleted and re-created collections behind: the baseline ends with
// that garbage, a scan (on every backend) and the compaction filter (RocksDB) reclaim it while
// the workload runs and drain the rest, so that their cells end with none. Each reclaim cell
// carries its stats, the foreground latency and a timeline in order.
TEST(Reclaim, MechanismsEndWithoutGarbageAndTheBaselineKeepsIt) {
  Workload w;
  ASSERT_TRUE(BuiltinWorkload("big-key-churn-hash", &w).ok());
  WorkloadOverrides o;
  o.records = 3;
  o.elements = 300;
  ASSERT_TRUE(ApplyOverrides(o, &w).ok());
  MatrixOptions m;
  m.backends = {"memory", "rocksdb", "lmdb"};
  m.versions["hash"] = {"0"};
  m.gc_at_end = false;
  ASSERT_TRUE(ParseReclaimList("none,scan,compaction", &m.reclaim).ok());
  m.reclaim_options.interval = std::chrono::milliseconds(20);
  m.reclaim_options.sample_interval = std::chrono::milliseconds(5);
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 7u);
  for (const CellResult& r : results) {
    SCOPED_TRACE(r.cell.Label());
    ASSERT_TRUE(r.run.error.empty()) << r.run.error;
    ASSERT_TRUE(r.space.measured) << r.space.error;
    const ReclaimResult& rec = r.reclaim;
    EXPECT_EQ(rec.mechanism, r.cell.reclaim);
    EXPECT_TRUE(rec.error.empty()) << rec.error;
    // No key expires here: the garbage right after the drain is the cell's at its end.
    ASSERT_TRUE(rec.garbage_measured);
    EXPECT_EQ(rec.garbage_records, r.space.store.garbage_records);
    EXPECT_EQ(rec.garbage_bytes, r.space.store.garbage_bytes);
    if (r.cell.reclaim == "none") {
      EXPECT_GT(r.space.store.garbage_records, 0u);
      EXPECT_EQ(rec.stats.rounds, 0u);
      EXPECT_EQ(rec.stats.reclaimed(), 0u);
    } else {
      EXPECT_EQ(r.space.store.garbage_records, 0u);
      EXPECT_EQ(r.space.store.garbage_bytes, 0u);
      EXPECT_GT(rec.stats.reclaimed_sub_keys, 0u);
      EXPECT_GE(rec.stats.rounds, 1u);
      EXPECT_EQ(rec.drain.rounds, 1u);
    }
    // The first sample at the start, the last after the drain; t never goes back, and the
    // reclaimed count only grows, up to the mechanism's total.
    ASSERT_GE(rec.timeline.size(), 2u);
    for (size_t i = 1; i < rec.timeline.size(); ++i) {
      EXPECT_GE(rec.timeline[i].t, rec.timeline[i - 1].t);
      EXPECT_GE(rec.timeline[i].reclaimed, rec.timeline[i - 1].reclaimed);
    }
    EXPECT_EQ(rec.timeline.back().reclaimed, rec.stats.reclaimed());
    if (r.persistent) {
      EXPECT_GT(rec.timeline.back().disk_bytes, 0u);
    }

    const json run = CellJson(r);
    ASSERT_TRUE(run.contains("reclaim"));
    const json& j = run["reclaim"];
    EXPECT_EQ(j["mechanism"], r.cell.reclaim);
    EXPECT_EQ(j["timeline"].size(), rec.timeline.size());
    EXPECT_EQ(j["reclaimed"]["records"], rec.stats.reclaimed());
    EXPECT_EQ(j["garbage_end"]["records"], r.space.store.garbage_records);
    EXPECT_GT(j["foreground"]["operations"].get<uint64_t>(), 0u);
    EXPECT_TRUE(j["foreground"]["ops"].contains("grow"));
    EXPECT_EQ(j["records_per_second"].is_null(), r.cell.reclaim == "none");
  }
}

// Keys with sub-keys that expire are reclaimed through each mechanism: the scan reaps them, the
// compaction filter drops them (no grace period here), the TTL index's cycles find them by
// their entries. The clock jumps past every TTL when the load reports its end, so every key has
// expired before the run phase starts.
TEST(Reclaim, ExpiredKeysWithSubKeysAreReclaimedThroughEachMechanism) {
  Workload w;
  ASSERT_TRUE(ParseWorkload(R"({
    "name": "expire-all", "seed": 1,
    "keyspace": {"type": "zset", "records": 20, "key_prefix": "e", "elements": 30},
    "load": {"commands": ["ZADD {key} {elements}", "PEXPIRE {key} 1000"]},
    "run": [{"name": "read", "operations": 200, "ops": [{"name": "read",
             "commands": ["ZCARD {key}"]}]}]})",
                            "test", &w)
                  .ok());
  encodings::ManualClock clock(1'000'000'000'000);
  MatrixOptions m;
  m.backends = {"memory", "rocksdb", "lmdb"};
  m.versions["zset"] = {"0"};
  m.gc_at_end = false;
  m.engine.clock = &clock;
  m.compaction_grace_ms = 0;
  ASSERT_TRUE(ParseReclaimList("all", &m.reclaim).ok());
  m.reclaim_options.interval = std::chrono::milliseconds(20);
  m.progress = [&](const Cell&, const Progress& p) {
    if (p.stage == "load" && p.done == p.total) clock.AdvanceMillis(2000);
  };
  std::vector<CellResult> results;
  RunMatrix(w, m, &results);
  ASSERT_EQ(results.size(), 10u);
  for (const CellResult& r : results) {
    SCOPED_TRACE(r.cell.Label());
    ASSERT_TRUE(r.run.error.empty()) << r.run.error;
    const ReclaimResult& rec = r.reclaim;
    EXPECT_TRUE(rec.error.empty()) << rec.error;
    ASSERT_TRUE(rec.garbage_measured);
    if (r.cell.reclaim == "none") {
      EXPECT_GE(rec.garbage_records, 20u * 30);
      continue;
    }
    EXPECT_EQ(rec.garbage_records, 0u);
    // Every expired key's meta and members (z0 keeps each member twice: by member, by score;
    // a compaction may count a record it meets in two compactions).
    if (r.cell.reclaim == "compaction") {
      EXPECT_GE(rec.stats.reclaimed_metas, 20u);
    } else {
      EXPECT_EQ(rec.stats.reclaimed_metas, 20u);
    }
    EXPECT_GE(rec.stats.reclaimed_sub_keys, 20u * 30);
    if (r.cell.reclaim == "ttl-index") {
      EXPECT_EQ(rec.stats.index_entries, 20u);
    }
  }
}

}  // namespace
}  // namespace kvlab::workloads
