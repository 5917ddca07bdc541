// Space, measured at the end of a bench cell: what the workload left in the keyspace (logical
// bytes, read back through the target's own commands), what the store holds for it (every
// record's key and value bytes, and the part of them that is garbage: records no live key owns,
// counted by a dry run of the collector), and, when asked, the same after one GC pass
// (engine/collector.h). docs/workloads.md ("Space") says what each number means.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/kv_store.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "workloads/target.h"

namespace kvlab::workloads {

// What the user stored and is live now, in every database the target has.
struct LogicalSize {
  uint64_t keys = 0;
  // Fields of hashes, members of zsets and sets, items of lists; a string is one element.
  uint64_t elements = 0;
  uint64_t key_bytes = 0;  // the keys' names
  // key_bytes plus the contents: field names and values, members and 8 bytes per zset score
  // (a double), set members, list items, string values.
  uint64_t bytes = 0;
  // The same per Redis type ("hash", "string", ...); each type's numbers sum to the totals.
  struct OfType {
    uint64_t keys = 0;
    uint64_t elements = 0;
    uint64_t bytes = 0;
  };
  std::map<std::string, OfType> by_type;
};

// Walks the keyspace with SCAN, TYPE and one whole read per key (GET, HGETALL, ZRANGE 0 -1,
// SMEMBERS, LRANGE 0 -1), in each database SELECT accepts (from 0 on), then SELECTs 0 again.
// Works in-process and over RESP. A key that vanishes during the walk (it expired) is not
// counted. Fails on a type it does not know, and on a connection error.
// REQUIRES: nothing else writes to the target during the walk.
Status MeasureLogicalSize(TargetConnection& c, LogicalSize* out);

// The store's records at one moment.
struct StoreFootprint {
  uint64_t records = 0;
  uint64_t bytes = 0;  // keys + values of every record
  // What a GC pass would reclaim (a dry run of the collector): expired metas, the sub-keys and
  // Ardb records no live key owns. Part of records and bytes.
  uint64_t garbage_records = 0;
  uint64_t garbage_bytes = 0;
  // The live records per Redis type ("hash", "string", ...): each type's keys and the records
  // they own now (engine::LiveRecords). What a type's data costs in the store, garbage aside.
  std::map<std::string, engine::LiveRecords> by_type;
};

// Walks the whole store, then runs the collector's dry run.
// REQUIRES: no command runs on the engine meanwhile.
Status MeasureFootprint(engine::Engine& engine, StoreFootprint* out);

// What the load left, measured between the load and the run phases of an in-process cell
// (MatrixOptions::measure_load_space): the store's records per type (a dry run of the collector:
// KV reads only, so no Redis cache is filled) and the Redis tier's datasets. `kvlab study` ranks
// "space" on it: live bytes do not depend on how the load was batched, as written bytes do.
struct LoadSpace {
  std::string error;  // why it could not be measured ("" when it was)
  bool measured = false;
  StoreFootprint store;
  // INFO memory's used_memory_dataset per tier role in use ("cache", "store").
  std::map<std::string, uint64_t> tier_dataset_bytes;
};
nlohmann::json LoadSpaceJson(const LoadSpace& space);

// The space section of a cell (CellResult::space).
struct SpaceResult {
  std::string error;  // why it could not be measured ("" when it was)
  bool measured = false;
  LogicalSize logical;
  // In-process only: the store at the end of the cell, before any GC.
  bool has_store = false;
  StoreFootprint store;
  // --gc-at-end: one pass, then the store and its disk space again (after Flush).
  bool gc_ran = false;
  engine::GcStats gc;
  StoreFootprint store_after_gc;
  uint64_t disk_bytes_after_gc = 0;
  uint64_t disk_log_bytes_after_gc = 0;
};

// The "space" member of a run (docs/results-schema.md). `persistent` and `disk_bytes` are the
// cell's: disk ratios are given for a persistent store only.
nlohmann::json SpaceJson(const SpaceResult& space, bool persistent, uint64_t disk_bytes);

}  // namespace kvlab::workloads
