// Sweeps: how each command's cost grows with the size of the collection it works on, and how
// it suffers from a networked KV store's round trips.
//
// - Size sweep: for each type (hash, zset), backend and encoding version, one collection grows
//   in place through the sizes (10, 100, ... by default), and at each size every probe (a
//   command, or a command and the one that undoes it so the size stays put) runs `calls` times
//   or for `probe_budget_s`, whichever is first, `repetitions` times, in each cache state of
//   the version (CacheStates). KV operation and Redis-tier counts per call are exact and
//   deterministic; their growth from size to size says O(1) or O(n) without noise. Times are
//   measured too, and compared across repetitions (result.h: GrowthJson). Larger sizes are
//   skipped once a series has used its `series_budget_s`, so 10^6 can be asked for without
//   risking an endless run.
// - RTT sweep: at one size, the same probes over the remote-store decorator (RemoteLatencyStore)
//   with each round-trip delay: measured time per call and round trips per call.
#pragma once

#include <functional>
#include <optional>
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
  // Runs of every probe at every size and cache state, interleaved (the time classes compare
  // them; KV counts are exact and equal in every one).
  int repetitions = 1;
  uint32_t value_bytes = 32;
  uint64_t seed = 1;
  // RTT sweep.
  std::vector<uint64_t> rtts_us = {0, 100, 1000};
  uint64_t rtt_size = 1000;
};

// The Redis cache's state while a probe is measured. A Redis-tier version is measured in two:
//   cold  the cache is emptied before every operation: every read misses, and what it costs
//         to fill the cache shows (ZRANGEBYSCORE on zset v1 reads the whole zset from KV);
//   warm  the cache is emptied, then filled as reads fill it: one read of the whole collection
//         (HGETALL, ZRANGE 0 -1), then an unrecorded pass of the probe; the recorded pass repeats
//         it with the same seed (the same commands, the same elements), so every read finds
//         whatever the version caches (HLEN on hash v3 reads the whole-hash cache's length).
// A KV-only version has no cache: "none".
std::vector<std::string> CacheStates(bool uses_tier);

struct SweepPoint {
  std::string kind;  // "size" or "rtt"
  std::string type;  // "hash" or "zset"
  Cell cell;
  uint64_t size = 0;
  uint64_t rtt_us = 0;
  std::string cache = "none";  // "none", "cold" or "warm"
  int repetition = 0;
  // The growth step's load phase (only elements new at this size; in the first point of each
  // size), then one phase per probe.
  WorkloadRunResult run;
  std::string degraded;  // why it ran degraded (--allow-degraded), or empty
};

struct SweepResult {
  std::vector<SweepPoint> points;
  std::vector<std::string> notes;  // sizes skipped for time, failures
  bool partial = false;
};

// What a sweep reports as it goes.
struct SweepProgress {
  std::function<void(const std::string& label)> begin;  // a point starts
  std::function<void(const SweepPoint&)> end;           // a point is done
  std::function<void(size_t points)> skipped;           // planned points that will not run
};

// The decade sizes 10, 100, ... up to max_size.
std::vector<uint64_t> DecadeSizes(uint64_t max_size);

// The probe workload of a type at a size (records = 1 collection of `size` elements): every
// probe as a phase, or only probe `probe` (an index into ProbeNames).
Status SweepWorkload(const std::string& type, uint64_t size, const SweepOptions& options,
                     Workload* out, std::optional<size_t> probe = std::nullopt);
// The probes of a type, in order ("HGET", "HSET-existing", ...).
std::vector<std::string> ProbeNames(const std::string& type);

// The points a sweep of `kind` ("size" or "rtt") plans, for progress.
size_t CountSweepPoints(const std::string& kind, const SweepOptions& sweep,
                        const MatrixOptions& matrix);

// Runs over matrix.backends and the versions of each type (MatrixOptions::versions, default
// every version the engine runs), sweep.repetitions times (matrix.repetitions is not used).
void RunSizeSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                  const SweepProgress& progress, SweepResult* result);
// Runs on each of matrix.backends, with the remote-store decorator at each delay.
void RunRttSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                 const SweepProgress& progress, SweepResult* result);

// How values measured at increasing sizes grow: "O(1)", "O(log n)", "sublinear", "O(n)" or
// "superlinear", with the log-log slope over the two largest sizes. Empty class when fewer
// than two sizes. Exact counts are classified strictly; `noisy` (times) uses looser bounds.
struct Growth {
  std::string growth_class;
  double slope = 0;
};
Growth ClassifyGrowth(const std::vector<uint64_t>& sizes, const std::vector<double>& values,
                      bool noisy);
// The class of a log-log slope of times (the looser bounds of ClassifyGrowth's `noisy`).
std::string TimeSlopeClass(double slope);

// How a time grows, judged over repetitions: the slope between the two largest sizes comes
// with a confidence interval (from analysis::RatioOfMedians of the two sizes' repetitions),
// and a class is given only when the whole interval lies in one class. Otherwise the class is
// "unclear" (the interval spans classes) or "" (too few repetitions for the confidence, or
// fewer than two sizes), and `why` says which.
struct TimeGrowth {
  std::string growth_class;
  double slope = 0;  // the slope of the ratio's estimate
  double slope_low = 0, slope_high = 0;
  double confidence = 0;  // of the interval (0 when there is none)
  int repetitions = 0;    // at the largest size
  std::string why;
};
inline constexpr double kTimeGrowthConfidence = 0.90;
// values[i] holds the repetitions' times at sizes[i] (ascending sizes).
TimeGrowth ClassifyTimeGrowth(const std::vector<uint64_t>& sizes,
                              const std::vector<std::vector<double>>& values);

// KV steps per call: point reads + seeks + nexts + prevs + written records (puts, deletes,
// range deletes, batch records). The measure ClassifyGrowth sees for KV cost.
double KvStepsPerCall(const backends::OpCounts& kv, uint64_t calls);

}  // namespace kvlab::workloads
