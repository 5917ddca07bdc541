// Workload: what `kvlab bench` runs, parsed from a JSON workload file (docs/workloads.md) or
// taken from the built-in catalogue (catalogue.h).
//
// A workload has a keyspace (records of one Redis type, each with `elements` fields or
// members), a load phase (commands run once per record and batch of elements), and one or more
// run phases, each a weighted mix of operations (one or more command templates each), run for
// a number of operations or a duration, after a warm-up.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "encodings/registry.h"
#include "workloads/command_template.h"
#include "workloads/generators.h"

namespace kvlab::workloads {

struct KeyspaceSpec {
  enum class Type { kHash, kZset, kString, kList, kSet };
  enum class LoadScore { kRandom, kIndex, kLonLat };

  Type type = Type::kHash;
  uint64_t records = 1000;          // ids 0 .. records-1 are loaded; inserts add more
  std::string key_prefix = "key:";  // {key} = key_prefix + id
  uint64_t elements = 0;       // fields (hash), members (zset, set) or elements (list) per record
  std::string element_prefix;  // {element} = element_prefix + index; default field/member
  uint32_t value_bytes = 100;  // {value} length
  uint64_t score_range = 1000000;  // {score} in [0, score_range)
  // Scores of {elements} in a zset: random ({score}), the element's index (a timeline), or
  // none: "lonlat" expands {elements} into GEOADD's `longitude latitude member` triples, drawn
  // uniformly over Redis's longitude/latitude grid.
  LoadScore load_score = LoadScore::kRandom;
  // The first value of {now}; default: elements (after every index score).
  int64_t clock_start = -1;

  static const char* TypeName(Type t);
};

struct LoadSpec {
  uint64_t batch = 1000;  // elements per load command (for {elements})
  std::vector<CommandTemplate> commands;
};

struct OpSpec {
  std::string name;
  double weight = 1;
  std::vector<CommandTemplate> commands;
  // Error replies to this operation's commands are part of the workload (a pop from a queue
  // that may be empty). Otherwise a command whose calls fail more often than
  // kMaxErrorRate fails its cell: a workload line with a mistake must not yield a throughput.
  bool expect_errors = false;
};

// The share of a run phase command's calls that may be error replies, unless its operation
// expects them (OpSpec::expect_errors).
inline constexpr double kMaxErrorRate = 0.01;

// Probe reads sampled over a phase: before the phase's first operation and after every `every`
// operations of it, the runner runs `operations` operations of `ops` as a phase of their own
// (PhaseResult::is_probe), so a result shows what the probe costs at each point of the phase,
// next to what it cost before the phase began (a zset read over a churning score index:
// zset-churn).
struct ProbeSpec {
  uint64_t every = 0;       // >= 1
  uint64_t operations = 0;  // >= 1, per sample
  std::vector<OpSpec> ops;
};

struct PhaseSpec {
  std::string name = "run";
  // Length: stops at whichever comes first; at least one is set.
  uint64_t operations = 0;
  double duration_s = 0;
  uint64_t warmup_operations = 0;  // run first, not recorded
  DistributionSpec key_distribution;
  DistributionSpec element_distribution;
  uint64_t scan_length_max = 100;
  DistributionSpec scan_length_distribution;  // uniform or zipfian over [1, scan_length_max]
  std::vector<OpSpec> ops;
  // REQUIRES (when set): operations > 0 and duration_s == 0, so that the samples fall at known
  // points of the phase.
  std::optional<ProbeSpec> probe;
};

// A recorded trace replayed in place of generated phases (`trace:FILE`, trace_replay.h).
struct TraceSpec {
  std::string path;
  uint64_t commands = 0;  // in the file
  // 0: closed loop (each command as soon as the one before it replied); otherwise the recorded
  // pace sped up by this factor (1: as recorded, 2: twice as fast).
  double pace = 0;
};

struct Workload {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  int threads = 1;
  KeyspaceSpec keyspace;
  LoadSpec load;
  std::vector<PhaseSpec> phases;
  // Named empirical distributions, for {draw:D}, {bytes:D}, {member:N:L} and the synthetic
  // collections ({fields:N:L:V}, {members:N:L}, {scored:N:L}).
  std::map<std::string, EmpiricalDistribution> distributions;

  // The file (or catalogue text) the workload came from, and its SHA-256.
  std::string source;  // "builtin:ycsb-a" or "file:<path>"
  std::string source_sha256;
  // Set for a trace: the run replays it (RunWorkload), with no load phase; `phases` then holds
  // one phase "replay" whose operations bound the commands replayed and whose ops (one per
  // command name of the trace) say which types the trace uses.
  std::optional<TraceSpec> trace;

  // The workload as canonical JSON (every default spelled out, overrides applied); the result
  // records it and its SHA-256, so a run can be repeated exactly.
  std::string ToJson() const;
  std::string EffectiveSha256() const;

  int64_t ClockStart() const;
  std::string ElementPrefix() const;
  // The Redis types the workload's commands use ("hash", "zset", "string"), from the command
  // table's groups and the keyspace type.
  // Whether the workload's keyspace or commands are of this type (the command table's group).
  bool UsesType(const encodings::TypeSpec& type) const;
  // Records the run phases may reach: loaded records plus every insert they can make.
  uint64_t MaxRecords() const;
};

// Parses and validates a workload from JSON text. Messages name the offending JSON path.
Status ParseWorkload(const std::string& json_text, const std::string& source, Workload* out);
// Reads and parses a file.
Status LoadWorkloadFile(const std::string& path, Workload* out);

// Overrides given on the command line; unset fields leave the workload as it is. Applied to
// every run phase.
struct WorkloadOverrides {
  std::optional<uint64_t> records;  // >= 1
  std::optional<uint64_t> elements;
  std::optional<uint64_t> operations;
  std::optional<double> duration_s;  // > 0
  std::optional<uint64_t> warmup_operations;
  std::optional<uint64_t> seed;
  std::optional<int> threads;           // >= 1
  std::optional<uint64_t> value_bytes;  // --data-size: {value} bytes, 1 .. 64 MiB
  // Trace workloads only: "recorded", or a speed-up of the recorded pace ("2x", "0.5x").
  std::optional<std::string> pace;
};
Status ApplyOverrides(const WorkloadOverrides& o, Workload* w);

// Lower-case hex SHA-256 of bytes.
std::string Sha256Hex(const std::string& bytes);

}  // namespace kvlab::workloads
