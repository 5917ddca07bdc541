// RunWorkload: runs one workload against one target: the load phase, then each run phase.
//
// - Threads: workload.threads workers, each with its own connection, random streams
//   (Rng::StreamSeed(seed, thread)) and statistics, merged when a phase ends. With one thread
//   the command stream is a pure function of the workload and its seed.
// - Load: worker t loads records t, t+T, t+2T, ...; each record's elements go in batches of
//   load.batch, and every load command runs once per (record, batch). An error reply during the
//   load fails the run: the workload does not fit the target.
// - Run phases: each worker runs its share of the warm-up operations (not recorded), all
//   workers meet, and the recorded window starts; it ends after the phase's operations or its
//   duration, whichever comes first. Error replies are counted per command, not fatal.
// - Stop: when *options.stop becomes non-zero (Ctrl-C), workers finish the command they are in
//   and the run returns what it has, marked partial. A target failure (a broken connection)
//   also ends the run, with result->error set.
#pragma once

#include <csignal>
#include <functional>
#include <string>

#include "workloads/open_loop.h"
#include "workloads/stats.h"
#include "workloads/target.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

struct Progress {
  std::string stage;   // "load" or the phase's name
  uint64_t done = 0;   // operations so far, warm-up included
  uint64_t total = 0;  // operations planned, warm-up included; 0 when only a duration bounds it
  double elapsed_s = 0;
  double duration_s = 0;  // the phase's duration bound, 0 when none
};

struct RunOptions {
  // Non-zero: stop as soon as possible (set by a SIGINT handler). May be null.
  const volatile std::sig_atomic_t* stop = nullptr;
  // Called from the calling thread about every progress_interval_s while a phase runs, and
  // once at its end.
  std::function<void(const Progress&)> progress;
  double progress_interval_s = 0.25;
  bool load = true;
  // Load only elements [load_elements_from, elements) of each record: grows collections loaded
  // by an earlier run to a larger size (the size sweep).
  uint64_t load_elements_from = 0;
  // Load only records [load_records_from, load_records_to) (0: to the last): a keyspace loaded
  // in parts under different encode-versions (MatrixOptions::migration_from).
  uint64_t load_records_from = 0;
  uint64_t load_records_to = 0;
  // False: the load phase only.
  bool run_phases = true;
  // Called by each worker before every operation of a run phase (warm-up included), outside
  // the timed commands: sets up a state per operation, e.g. empties the Redis cache so that
  // every call is cold (the size sweep). REQUIRES: thread-safe when the workload has several
  // threads.
  std::function<void()> before_operation;
  // Called once from the calling thread after the load phase (when it succeeded) and before
  // the first run phase: starts what must run beside the run phases only (a reclaim
  // mechanism, workloads/reclaim.h).
  std::function<void()> on_loaded;
  // Open loop (--rate) and pipelining (--pipeline) of the run phases (workloads/open_loop.h).
  // In-process, a pipeline's commands run one after the other (TargetConnection::ExecuteBatch's
  // default), so `kvlab bench` gives pipeline > 1 to RESP targets only.
  OpenLoopOptions open_loop;
};

// REQUIRES: the workload passed ParseWorkload's validation.
void RunWorkload(const Workload& workload, Target& target, const RunOptions& options,
                 WorkloadRunResult* result);

// True when *stop is set.
inline bool StopRequested(const volatile std::sig_atomic_t* stop) {
  return stop != nullptr && *stop != 0;
}

}  // namespace kvlab::workloads
