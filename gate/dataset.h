// What the gate compares, read from any of its three inputs into one model:
//
//   - a `kvlab bench` result (docs/results-schema.md, schema_version 1 or 2);
//   - a `kvlab conform` result (conform.json, conformance/README.md);
//   - Google Benchmark JSON (`--benchmark_format=json` / `--benchmark_out`), with user counters
//     and repetitions, as kv_bench and engine_bench write it.
//
// A bench or benchmark input becomes cells: one per (workload, phase, command, backend,
// encoding profile), each with metrics that are either exact counters (KV operations, bytes and
// Redis-tier operations per call: deterministic, gated exactly) or timings (latency
// percentiles, throughput: one sample per repetition, compared statistically). A conform input
// becomes its matrix tallies and its failing cases.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "analysis/comparison.h"
#include "base/status.h"

namespace kvlab::gate {

enum class InputKind { kBench, kConform, kGoogleBenchmark };

// "kvlab bench result", "kvlab conform result", "Google Benchmark JSON".
std::string InputKindName(InputKind kind);

enum class MetricKind {
  kCounter,  // deterministic: compared exactly, any increase is a regression
  kTiming,   // noisy: compared over repetitions with Mann-Whitney, threshold and alpha
};

struct Metric {
  MetricKind kind = MetricKind::kCounter;
  analysis::Direction direction = analysis::Direction::kLowerIsBetter;
  std::string unit;             // "per call", "ns", "ops/s"
  std::vector<double> samples;  // one per repetition, in file order
  // Counters: the relative difference below which two values are the same count. kvlab's
  // per-call counters are ratios of exact integers (1e-9 absorbs the last bit of a division);
  // Google Benchmark averages its counters over a number of iterations that differs from run
  // to run, so a byte count per iteration moves in the 5th digit without any change (1e-3).
  double tolerance = 1e-9;
};

// The matching key of a cell. Empty members are not part of the key (Google Benchmark cells
// have a command, i.e. the benchmark's run name, only).
struct CellKey {
  std::string workload;
  std::string phase;
  std::string command;
  std::string backend;
  // The encoding profile, canonical: "hash=0 zset=1" (types in name order, the versions the
  // cell's new keys got), "" when the workload uses no versioned type.
  std::string profile;
  auto operator<=>(const CellKey&) const = default;
};

struct Cell {
  CellKey key;
  std::string profile_label;  // for people: "h0 z1"
  std::map<std::string, Metric> metrics;
  uint64_t calls = 0;    // summed over repetitions (0 when unknown)
  std::string error;     // the first error of the cell's runs ("" when none)
  std::string degraded;  // why the cell's numbers cannot be trusted ("" when they can)
};

// "ycsb-c-field · run · HGET · memory · h0": a cell for people.
std::string CellName(const Cell& cell);

// Where a result came from: what decides whether its timings can be compared with another's.
struct Environment {
  // The class of machine: CPU model and count (bench), or CPU count, clock and caches (Google
  // Benchmark). Empty when the input does not say (conform).
  std::string machine;
  std::string hostname;
  // Build type as the timings depend on it: "RelWithDebInfo", "Debug, sanitizer address",
  // Google Benchmark's "release"; empty when unknown.
  std::string build;
  bool timing_valid = true;
  std::string timing_invalid_reason;
  std::string commit;
  std::string date;          // when the run started, as the result records it ("" unknown)
  double load_average = -1;  // at the start; -1 unknown
  int usable_cpus = 0;       // 0 unknown
};

struct ConformTally {
  std::string subject, version, command;
  uint64_t pass = 0, deviation = 0, fail = 0;
};

struct ConformFailure {
  std::string subject, profile, source, command;
  int64_t line = 0;
  std::string redis, kvlab, explanation;
  // The case's identity across runs: subject, profile, case file, line and command.
  std::string Id() const;
  // "hash.txt:12 `HGET h f` on memory h0z0".
  std::string Name() const;
};

struct Dataset {
  InputKind kind = InputKind::kBench;
  std::string path;
  std::string description;  // "kvlab bench result (schema 1)"
  Environment env;
  // Reasons the result cannot be trusted as a whole or in part: partial or incomplete runs,
  // degraded cells. The gate refuses to pass on such a result.
  std::vector<std::string> untrustworthy;
  std::map<CellKey, Cell> cells;
  // Conform only.
  std::vector<ConformTally> conform_tallies;
  std::vector<ConformFailure> conform_failures;
  uint64_t conform_failures_total = 0;
  std::string conform_verdict;
  // How the result was produced, as arguments after the program name (`bench run ycsb-a ...`,
  // `conform --backends memory`); empty when unknown. `kvlab gate --run` repeats it.
  std::vector<std::string> command_args;
  std::vector<std::string> notes;
};

// Options of the reader.
struct LoadOptions {
  // Google Benchmark user counters to compare exactly, besides kvlab's KV and Redis-tier
  // counter names (gets, seeks, ..., tier_round_trips, cache_hits, ...). Every other user
  // counter is a timing.
  std::set<std::string> exact_counters;
  // Latency metrics of bench cells: any of min, p50, p90, p99, p999, max, mean.
  std::vector<std::string> latency_metrics = {"p50", "p99"};
  bool throughput = true;  // also the calls per second of bench cells
};

// Reads `path` and recognises its kind. Fails (InvalidArgument, the message naming the file and
// the problem) on a missing or unreadable file, malformed JSON, an unknown or newer schema, or
// a document that is none of the three kinds.
Status LoadDataset(const std::string& path, const LoadOptions& options, Dataset* out);
// The same from parsed JSON (tests).
Status ParseDataset(const nlohmann::json& doc, const std::string& path, const LoadOptions& options,
                    Dataset* out);

// Per kind (dataset.cc dispatches).
Status ParseBenchResult(const nlohmann::json& doc, const LoadOptions& options, Dataset* out);
Status ParseConformResult(const nlohmann::json& doc, Dataset* out);
Status ParseGoogleBenchmark(const nlohmann::json& doc, const LoadOptions& options, Dataset* out);

// The counter names that are exact in Google Benchmark input by default.
const std::set<std::string>& DefaultExactCounterNames();

}  // namespace kvlab::gate
