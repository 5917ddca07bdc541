// Sweeps: how each command's cost grows with the size of the collection it works on, and how
// it suffers from a networked KV store's round trips.
//
// - Size sweep: for each type (hash, zset), backend and encoding version, one collection grows
//   in place through the sizes (10, 100, ... by default), and at each size every probe (a
//   command, or a command and the one that undoes it so the size stays put) runs `calls` times
//   or for `probe_budget_s`, whichever is first. KV operation counts per call are exact and
//   deterministic; their growth from size to size says O(1) or O(n) without noise. Times are
//   measured too (noisy; medians). Larger sizes are skipped once a series has used its
//   `series_budget_s`, so 10^6 can be asked for without risking an endless run.
// - RTT sweep: at one size, the same probes over the remote-store decorator (RemoteLatencyStore)
//   with each round-trip delay: measured time per call and round trips per call.
#pragma once

#include <string>
#include <vector>

#include "workloads/matrix.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

struct SweepOptions {
  std::vector<std::string> types = {"hash", "zset"};
  std::vector<uint64_t> sizes = {10, 100, 1000, 10000, 100000};
  uint64_t calls = 200;          // per probe and point
  double probe_budget_s = 2;     // per probe and point
  double series_budget_s = 120;  // per (type, backend, version) series of the size sweep
  uint32_t value_bytes = 32;
  uint64_t seed = 1;
  // RTT sweep.
  std::vector<uint64_t> rtts_us = {0, 100, 1000};
  uint64_t rtt_size = 1000;
};

struct SweepPoint {
  std::string kind;  // "size" or "rtt"
  std::string type;  // "hash" or "zset"
  Cell cell;
  uint64_t size = 0;
  uint64_t rtt_us = 0;
  WorkloadRunResult run;  // the load phase (growth to this size), then one phase per probe
};

struct SweepResult {
  std::vector<SweepPoint> points;
  std::vector<std::string> notes;  // sizes skipped for time, failures
  bool partial = false;
};

// The decade sizes 10, 100, ... up to max_size.
std::vector<uint64_t> DecadeSizes(uint64_t max_size);

// The probe workload of a type at a size (records = 1 collection of `size` elements).
Status SweepWorkload(const std::string& type, uint64_t size, const SweepOptions& options,
                     Workload* out);

// Runs over options.backends and the versions of each type (MatrixOptions::hash_versions,
// zset_versions); repetitions are ignored (KV counts are exact; times are medians per point).
void RunSizeSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                  const std::function<void(const std::string&)>& note_progress,
                  SweepResult* result);
// Runs on the first of matrix.backends, with the remote-store decorator at each delay.
void RunRttSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                 const std::function<void(const std::string&)>& note_progress, SweepResult* result);

// How values measured at increasing sizes grow: "O(1)", "O(log n)", "sublinear", "O(n)" or
// "superlinear", with the log-log slope over the two largest sizes. Empty class when fewer
// than two sizes. Exact counts are classified strictly; `noisy` (times) uses looser bounds.
struct Growth {
  std::string growth_class;
  double slope = 0;
};
Growth ClassifyGrowth(const std::vector<uint64_t>& sizes, const std::vector<double>& values,
                      bool noisy);

// KV steps per call: point reads + seeks + nexts + prevs + written records (puts, deletes,
// range deletes, batch records). The measure ClassifyGrowth sees for KV cost.
double KvStepsPerCall(const backends::OpCounts& kv, uint64_t calls);

}  // namespace kvlab::workloads
