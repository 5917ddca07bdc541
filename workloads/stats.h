// What a workload run measures, per command type and per operation: calls, errors, a latency
// histogram, the exact KV operation counts, and a generic map of further counters (physical
// counters, remote round trips, and the Redis tier's counters once it exists).
//
// Each worker thread records into its own stats; the runner merges them when a phase ends, so
// the hot path takes no lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backends/counting_store.h"
#include "workloads/histogram.h"
#include "workloads/open_loop.h"
#include "workloads/target.h"

namespace kvlab::workloads {

struct CallStats {
  uint64_t calls = 0;
  uint64_t errors = 0;          // error replies
  LatencyHistogram latency_ns;  // service time: from the actual send to the reply
  // Open-loop phases only (workloads/open_loop.h): the latency from each call's intended start,
  // corrected for coordinated omission. Empty otherwise.
  LatencyHistogram intended_ns;
  // True when every call came with KV counts (in-process); kv is then the exact sum.
  bool has_kv = true;
  backends::OpCounts kv;
  // Sums of the per-command counters of CommandSample::counters, by name. Adding a new source
  // of counters (the Redis tier's operations and cache hits) needs no change here.
  std::map<std::string, uint64_t> counters;
  std::string first_error;  // the text of the first error reply, for the report

  // One call that took `nanos`.
  void Add(const CommandSample& sample, uint64_t nanos, const resp::Reply& reply);
  // The same call's latency from its intended start (open loop).
  void AddIntended(uint64_t nanos) { intended_ns.Record(nanos); }
  void Merge(const CallStats& other);
};

struct PhaseResult {
  std::string name;
  bool is_load = false;
  // A probed phase (PhaseSpec::probe) runs as alternating parts: its probe samples (is_probe,
  // named "<phase>.probe") and its chunks of operations (named as the phase). `at`: the
  // phase's operations done before this part began.
  bool is_probe = false;
  std::optional<uint64_t> at;
  double wall_seconds = 0;  // the recorded window (after warm-up)
  uint64_t operations = 0;  // recorded operations (load: records x batches)
  uint64_t warmup_operations = 0;
  bool interrupted = false;  // stopped by Ctrl-C (or a failure) before its end
  // By command name (HGET), and by workload operation name (read, rmw): an operation's latency
  // spans all its commands, and its counts are the sums of theirs.
  std::map<std::string, CallStats> commands;
  std::map<std::string, CallStats> ops;
  // Store-wide counters over the phase (end minus start; see Target::StoreCounters).
  backends::PhysicalCounters store_counters;
  // Set when the phase ran open loop or pipelined (RunOptions::open_loop).
  std::optional<OpenLoopRecord> open_loop;
  // A trace replay's commands that were not sent, by lower-case command name, with the reason
  // (trace_replay.h): counted and named, never dropped silently.
  struct NotReplayed {
    uint64_t count = 0;
    std::string reason;
  };
  std::map<std::string, NotReplayed> not_replayed;
};

struct WorkloadRunResult {
  std::vector<PhaseResult> phases;  // the load phase first, when there was one
  bool partial = false;             // interrupted or failed: some phases are missing or short
  std::string error;                // why it failed, empty when it did not
};

}  // namespace kvlab::workloads
