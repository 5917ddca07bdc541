// Reclaim mechanisms run beside a workload, side by side in one bench run (issue 18's
// benchmark; docs/workloads.md, "Reclaim").
//
// `kvlab bench --reclaim none,scan,compaction` adds a matrix axis: each in-process cell runs
// its workload's load phase, then starts one mechanism and runs the workload's run phases while
// the mechanism works concurrently, every `interval`:
//   - none: nothing reclaims (the baseline of the foreground latency and of the disk);
//   - scan: one pass of the scanning collector (engine/collector.h);
//   - compaction: one full RocksDB compaction with the compaction filter installed in the
//     cell's store (engine/compaction_policy.h); RocksDB only;
//   - ttl-index: the cell's store keeps the TTL index, and one active expiry cycle runs every
//     100 ms with a 25 ms budget, as Redis's (engine/active_expiry.h), whatever `interval`.
// When the run phases end, the mechanism does one more round (it drains what the workload left),
// and the cell's space is then measured as usual (the garbage at the end). Meanwhile a sampler
// reads the store directory's disk bytes every `sample_interval` (the timeline).
//
// Each mechanism is a ReclaimMechanism (one Round() at a time, its work counted in
// ReclaimStats), made by MakeReclaimMechanism from its name; adding a mechanism is one more
// entry in kReclaimMechanisms and one more case there.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "backends/registry.h"
#include "base/status.h"
#include "engine/compaction_policy.h"
#include "engine/engine.h"
#include "workloads/stats.h"

namespace kvlab::workloads {

// The mechanisms, in the order the axis runs them when given "all".
inline constexpr const char* kReclaimMechanisms[] = {"none", "scan", "compaction", "ttl-index"};

// Checks a --reclaim list (comma-separated, or "all"); *out gets the names in order, without
// repeats.
Status ParseReclaimList(const std::string& text, std::vector<std::string>* out);

// Why `mechanism` cannot run on a cell of this backend column ("rocksdb", "lmdb:cf") and
// target, or "" when it can. Over RESP no mechanism but none runs (the store is the server's).
std::string ReclaimSkipReason(const std::string& mechanism, const std::string& backend,
                              const std::string& target);

// What a mechanism did, summed over its rounds.
struct ReclaimStats {
  uint64_t rounds = 0;      // passes, compactions
  double work_seconds = 0;  // time spent inside rounds (the mechanism's own work)
  uint64_t examined = 0;    // records the mechanism read (scan) or a compaction offered it
  uint64_t reclaimed_sub_keys = 0;
  uint64_t reclaimed_metas = 0;
  uint64_t reclaimed_tier = 0;
  // The TTL index's entries read, and those deleted as stale (within examined, not reclaimed).
  uint64_t index_entries = 0;
  uint64_t stale_index_entries = 0;

  uint64_t reclaimed() const { return reclaimed_sub_keys + reclaimed_metas + reclaimed_tier; }
};

class ReclaimMechanism {
 public:
  virtual ~ReclaimMechanism() = default;
  // One round: a scan pass, a full compaction. Adds what it did to *stats (also when it fails
  // midway). Stops early, with Aborted, once *stop is set.
  virtual Status Round(const std::atomic<bool>& stop, ReclaimStats* stats) = 0;
  // The drain after the run phases: by default one more round.
  virtual Status Drain(ReclaimStats* stats) {
    const std::atomic<bool> go_on{false};
    return Round(go_on, stats);
  }
  // From the start of one round to the next: `configured` (--reclaim-interval-ms), unless the
  // mechanism has a schedule of its own.
  virtual std::chrono::milliseconds Interval(std::chrono::milliseconds configured) const {
    return configured;
  }
};

// What a mechanism works on: the cell's engine and store, and the compaction filter's policy
// when the store was opened with one.
struct ReclaimContext {
  engine::Engine* engine = nullptr;
  backends::OpenedStore* store = nullptr;
  std::shared_ptr<engine::KeyMetaCompactionPolicy> policy;
};

// The mechanism of this name; null for "none". InvalidArgument for an unknown name, or a
// context that lacks what it needs (compaction without a policy).
Status MakeReclaimMechanism(const std::string& name, const ReclaimContext& context,
                            std::unique_ptr<ReclaimMechanism>* out);

struct ReclaimOptions {
  std::chrono::milliseconds interval{500};         // between the starts of two rounds
  std::chrono::milliseconds sample_interval{100};  // between two disk samples
};

// One reading of the timeline.
struct ReclaimSample {
  double t = 0;  // seconds since the mechanism started
  uint64_t disk_bytes = 0;
  uint64_t disk_log_bytes = 0;
  uint64_t reclaimed = 0;  // records reclaimed so far
};

// The "reclaim" of a cell (CellResult::reclaim).
struct ReclaimResult {
  std::string mechanism;  // "" when the cell has no reclaim axis
  ReclaimOptions options;
  ReclaimStats stats;       // every round, the drain included
  ReclaimStats drain;       // the last round, after the run phases
  double wall_seconds = 0;  // from Start to the end of the drain
  std::vector<ReclaimSample> timeline;
  // Right after the drain, a dry run of the collector: what is still garbage (keys that expire
  // later are not garbage yet, so a workload with TTLs leaves more by the time the cell's space
  // is measured).
  bool garbage_measured = false;
  uint64_t garbage_records = 0;
  uint64_t garbage_bytes = 0;
  std::string error;  // a round or the garbage's dry run failed (the run stands)
};

// Runs a mechanism beside the workload and samples the disk. Start and Finish are called from
// the cell's thread; rounds and samples run on two threads of their own.
class ReclaimDriver {
 public:
  // REQUIRES: mechanism may be null (none); `engine` and `store` (the engine's) outlive the
  // driver.
  ReclaimDriver(std::unique_ptr<ReclaimMechanism> mechanism, engine::Engine* engine,
                const backends::OpenedStore* store, std::string backend, ReclaimOptions options);
  ~ReclaimDriver();
  ReclaimDriver(const ReclaimDriver&) = delete;
  ReclaimDriver& operator=(const ReclaimDriver&) = delete;

  void Start();
  // Stops the rounds (the current one after its current batch or compaction), runs the drain
  // round, takes a last sample, measures the garbage left, and fills *out (its mechanism and
  // options stay as given).
  void Finish(ReclaimResult* out);

 private:
  void RoundLoop();
  void SampleLoop();
  void TakeSample();
  bool WaitFor(std::chrono::milliseconds d);  // false when stopping

  std::unique_ptr<ReclaimMechanism> mechanism_;
  engine::Engine* engine_;
  const backends::OpenedStore* store_;
  const std::string backend_;
  const ReclaimOptions options_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  ReclaimStats stats_;                   // guarded by mu_
  std::string error_;                    // guarded by mu_
  std::vector<ReclaimSample> timeline_;  // guarded by mu_
  std::thread rounds_;
  std::thread sampler_;
};

// The "reclaim" member of a run (docs/results-schema.md), given the run: its run phases'
// operations are the foreground latency while the mechanism ran.
nlohmann::json ReclaimJson(const ReclaimResult& reclaim, const WorkloadRunResult& run);

}  // namespace kvlab::workloads
