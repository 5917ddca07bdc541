// The matrix: one workload over backends x encoding versions (x repetitions), in one
// invocation, so that every ratio between cells comes from the same run on the same machine.
//
// In-process, each cell gets a fresh store (a temporary directory, or <dir>/<cell> under
// --dir) and an engine; the encoding versions are switched at runtime with CONFIG SET
// kv.<type>.key.meta.version, exactly as a user would. The versions come from the engine's
// encoding registry: a cell per combination of the versions of the types the workload uses.
// After the run the store is flushed and the size of its directory is the cell's disk space.
//
// Over RESP (`--resp ADDRESS`: `kvlab serve`, or any Redis-protocol server), each cell starts
// with FLUSHALL and the same CONFIG SET; a server that refuses CONFIG SET of the versions (a
// real redis-server) runs one cell, with the versions reported as unknown (null).
//
// Repetitions run the whole matrix again (cells interleaved, not back to back), so that slow
// drift of a shared machine spreads over all cells; reports take medians across them.
#pragma once

#include <csignal>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "engine/engine.h"
#include "redis/client.h"
#include "workloads/reclaim.h"
#include "workloads/runner.h"
#include "workloads/space.h"
#include "workloads/target.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

struct Cell {
  std::string target = "in-process";  // or "resp"
  std::string backend;                // the backend name, or the RESP address
  // The version new keys of each type the workload uses get, by name; nullopt: unknown (a
  // server that does not say).
  encodings::EncodingProfile profile;
  std::string profile_label;  // "h0 z0" (EncodingProfile::Label), set by PlanCells
  int repetition = 0;
  // A migration cell (MatrixOptions::migration_from): the first half of the records is loaded
  // under these versions, the rest under `profile`, and the run phases then run under
  // `profile` with writes migrating keys (`migrate`) or not. Empty: a plain cell.
  encodings::EncodingProfile half_under;
  bool migrate = false;
  // The reclaim mechanism that runs beside the run phases (MatrixOptions::reclaim), labelled
  // "reclaim=NAME"; empty: no reclaim axis.
  std::string reclaim;

  std::string Label() const;  // "rocksdb h0 z0"
};

// A cell of a target and backend with `profile`, labelled from `registry`.
Cell MakeCell(const encodings::EncodingRegistry& registry, std::string target, std::string backend,
              encodings::EncodingProfile profile);

struct CellResult {
  Cell cell;
  WorkloadRunResult run;
  // After Flush: the store's data files, and its log or journal files apart (MeasureDiskUsage).
  // 0 over RESP.
  uint64_t disk_bytes = 0;
  uint64_t disk_log_bytes = 0;
  bool persistent = false;  // disk_bytes means something (not the in-memory backend)
  // Where the store kept the record kinds: backends::KeySpaceKindName ("prefix", "column
  // families", ...) of the cell's store.
  std::string key_spaces;
  // Readings at the end (gauges such as lmdb.depth); empty for per-thread counters.
  backends::PhysicalCounters store_counters_end;
  // The Redis tier's memory at the end of the cell, per role that was used ("cache", "store"):
  // INFO memory's used_memory_dataset (bytes of data, without Redis's fixed overhead) and the
  // role's key count. Empty when no tier version ran.
  std::map<std::string, std::map<std::string, uint64_t>> tier_memory;
  // Logical bytes, the store's records and garbage, and (gc_at_end) the same after a GC pass.
  SpaceResult space;
  // The store's live records per type and the tier's datasets between the load and the run
  // phases (MatrixOptions::measure_load_space).
  LoadSpace load_space;
  // The reclaim mechanism's work and the disk timeline (cell.reclaim not empty).
  ReclaimResult reclaim;
  std::string store_dir;    // where the store lived ("" over RESP)
  bool store_kept = false;  // false: a temporary directory, removed
  // Why the cell ran degraded (a Redis-tier version without its tier, --allow-degraded), or
  // empty. Without --allow-degraded such a cell fails instead (run.error).
  std::string degraded;
};

enum class PhysicalMode {
  kAuto,     // per command on RocksDB (exact there), per phase elsewhere
  kCommand,  // per command on every backend (store-wide counters: approximate with threads)
  kPhase,    // per phase only
  kOff,
};
Status ParsePhysicalMode(const std::string& name, PhysicalMode* out);

struct MatrixOptions {
  std::vector<std::string> backends;  // in-process cells
  // The versions of each type the matrix runs, by name (type name -> version names), used for
  // the types the workload uses; a type not listed runs every version the engine runs.
  std::map<std::string, std::vector<std::string>> versions;
  // Store options and decorators for every backend (spec.backend is ignored). A non-empty
  // spec.options.dir is the parent directory of the cells' stores, which are kept.
  backends::StoreSpec store;
  // The RocksDB cells' compactions drop garbage (--compaction-filter, engine/compaction_policy.h),
  // expired keys after this grace period; the other backends do not compact.
  bool compaction_filter = false;
  int64_t compaction_grace_ms = 60'000;
  engine::EngineOptions engine;  // versions are set per cell; engine.registry is the registry
  std::string config_file;       // --config: applied to each cell's engine before its versions
  bool in_process = true;
  std::optional<redis::RedisEndpoint> resp;
  int repetitions = 1;
  // The number of the first repetition this call runs (its cells' Cell::repetition, and the
  // "-r<N>" of their stores under --dir): a caller that runs the repetitions itself, one call
  // each (kvlab study interleaves passes), counts them here.
  int first_repetition = 0;
  PhysicalMode physical = PhysicalMode::kAuto;
  // Run a Redis-tier version whose tier cannot be reached (or fails during the run), marked
  // degraded, instead of failing its cell. Applies to in-process engines
  // (EngineOptions::allow_degraded_tier); a RESP server decides for itself.
  bool allow_degraded = false;
  // Non-empty (--migration-from): every cell whose versions differ from these also runs as two
  // migration cells (Cell::half_under), labelled "<versions> half-<these> keep" (migration off:
  // the old half is read and written in its own versions) and "... migrate" (CONFIG SET
  // kv.encoding.migrate.on.write yes), beside the plain cell, in the same repetitions.
  encodings::EncodingProfile migration_from;
  // In-process cells: after the space is measured, run one GC pass (engine/collector.h) and
  // measure the store and its disk space again (CellResult::space).
  bool gc_at_end = true;
  // In-process cells: between the load and the run phases, measure the store's live records
  // per type and the Redis tier's datasets (CellResult::load_space; a dry run of the collector,
  // which reads KV only). `kvlab study` ranks space on it.
  bool measure_load_space = false;
  // Non-empty (--reclaim): the reclaim axis. Every in-process cell runs once per mechanism
  // (workloads/reclaim.h), each beside its run phases, except where ReclaimSkipReason says it
  // does not apply (ReclaimSkipNotes lists those). The compaction cells' RocksDB stores get the
  // compaction filter, the others none (compaction_filter must be off); the ttl-index cells'
  // stores keep the TTL index, the others none (engine.keys.ttl_index must be off).
  std::vector<std::string> reclaim;
  ReclaimOptions reclaim_options;

  // Open loop (--rate) and pipelining (--pipeline) of every cell's run phases
  // (RunOptions::open_loop); `kvlab bench` gives pipeline > 1 to RESP cells only.
  OpenLoopOptions open_loop;

  // Wraps the connections of every in-process cell (EngineTargetOptions::connection_decorator).
  std::function<std::unique_ptr<TargetConnection>(std::unique_ptr<TargetConnection>)>
      connection_decorator;

  const volatile std::sig_atomic_t* stop = nullptr;
  // Called before each cell, and with each progress report of its run.
  std::function<void(const Cell&, size_t index, size_t count)> on_cell;
  std::function<void(const Cell&, const Progress&)> progress;
  // Called after each cell (to save partial results as they come).
  std::function<void(const CellResult&)> on_cell_done;
};

// The registry of an engine with these options (options.registry, or kvlab's).
const encodings::EncodingRegistry& RegistryOf(const engine::EngineOptions& options);
// The versions an engine with these options can run, by type name -> version names, in the
// registry's order.
std::map<std::string, std::vector<std::string>> AvailableVersions(
    const engine::EngineOptions& options);
// Whether `version` of `type` keeps state in the Redis tier (its registry row's tier use); false
// for an unknown type or version, and for nullopt (a RESP server that does not say).
bool VersionUsesTier(const encodings::EncodingRegistry& registry, const std::string& type,
                     const std::optional<std::string>& version);

// The cells of one repetition: backends x the versions of the types the workload uses.
std::vector<Cell> PlanCells(const Workload& workload, const MatrixOptions& options);

// Why some mechanisms of the reclaim axis run on none of the matrix's cells: one line per
// mechanism and backend (or RESP target) skipped, for the result's notes.
std::vector<std::string> ReclaimSkipNotes(const MatrixOptions& options);

// The cells RunMatrix runs in one repetition: PlanCells, except that a RESP server without
// kvlab's encodings runs one cell with its versions unknown. *effective receives the options
// RunMatrix runs them with.
std::vector<Cell> MatrixCells(const Workload& workload, const MatrixOptions& options,
                              MatrixOptions* effective);
// The cells RunMatrix runs, over every repetition (for progress).
size_t CountCells(const Workload& workload, const MatrixOptions& options);

// Runs every cell of every repetition; stops early (with the cells so far, the last partial)
// when *options.stop is set. A cell that fails records its error and the matrix goes on.
void RunMatrix(const Workload& workload, const MatrixOptions& options,
               std::vector<CellResult>* results);

// Opens the fresh store of an in-process cell (see MatrixOptions::store). Exposed for the
// sweeps.
// `name` makes the directory unique under a --dir parent (the workload or sweep name). *policy
// (when given) receives the compaction filter's policy of a RocksDB store opened with it
// (--compaction-filter, or a compaction cell of the reclaim axis), else null.
Status OpenCellStore(const MatrixOptions& options, const Cell& cell, const std::string& name,
                     std::unique_ptr<backends::OpenedStore>* out,
                     std::shared_ptr<engine::KeyMetaCompactionPolicy>* policy = nullptr);
// Whether a backend's physical counters are per thread (RocksDB's PerfContext, see kv_store.h):
// exact per command, meaningless when read store-wide from another thread.
bool PhysicalCountersPerThread(const std::string& backend);
// The engine-target options of a cell under the matrix's physical mode.
EngineTargetOptions TargetOptionsFor(const MatrixOptions& options, const Cell& cell, int threads);
// Applies options.config_file (if any) to a new engine.
Status ConfigureEngine(const MatrixOptions& options, engine::Engine* engine);
// Sets the cell's versions through the target: CONFIG SET, as a client would.
Status SetVersions(TargetConnection& c, const Cell& cell);
// The engine options of a cell's engine: options.engine, with allow_degraded applied, and (given
// the cell) the TTL index of a ttl-index cell of the reclaim axis, and only there.
engine::EngineOptions EngineOptionsFor(const MatrixOptions& options);
engine::EngineOptions EngineOptionsFor(const MatrixOptions& options, const Cell& cell);
// Why a cell's tier versions cannot run as themselves on `engine` (Engine::CheckTier), or "".
std::string TierProblem(const engine::Engine& engine, const Cell& cell);
// Cache operations that went without the Redis cache over a run: the commands' tier.cache_degraded
// in-process, or the server's server.<command>.cache_degraded over RESP.
uint64_t DegradedOperations(const WorkloadRunResult& run);
// After a run: when DegradedOperations is not zero, marks the result degraded (allow_degraded)
// or failed (*error), with a reason naming the cell and the count.
void JudgeDegraded(const MatrixOptions& options, const Cell& cell, const WorkloadRunResult& run,
                   std::string* degraded, std::string* error);

}  // namespace kvlab::workloads
