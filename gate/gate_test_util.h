// Fixtures for the gate's tests: results in the exact formats kvlab bench, kvlab conform and
// Google Benchmark write, built from a few numbers.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvlab::gate::testing {

// One command of one cell, with one value per repetition.
struct FixtureCell {
  std::string workload = "ycsb-c-field";
  std::string phase = "run";
  std::string command = "HGET";
  std::string backend = "memory";
  int hash_version = 0;  // -1: the workload does not use the type
  int zset_version = -1;
  uint64_t calls = 1000;
  std::map<std::string, uint64_t> kv = {{"gets", 2000}, {"bytes_read", 150000}};
  std::map<std::string, uint64_t> counters;  // further counters (totals)
  std::vector<double> p99 = {1000, 1010, 990};
  std::vector<double> p50;         // default: p99 / 2
  std::vector<double> throughput;  // default: 1e9 / p50
  std::string error;
};

struct FixtureContext {
  std::string cpu_model = "Test CPU @ 3.0GHz";
  int logical_cpus = 2;
  std::string build_type = "RelWithDebInfo";
  bool timing_valid = true;
  bool partial = false;
  double load_average = 0.5;  // at the start, on logical_cpus usable cpus
  std::string date = "2026-01-01T00:00:00Z";
  std::string commit = "abc123";
};

// A kvlab bench result of `schema` (1: hash_version/zset_version; 2: profile maps) holding
// `cells`, each repeated as many times as it has p99 values.
nlohmann::json BenchResult(const std::vector<FixtureCell>& cells, int schema = 1,
                           const FixtureContext& context = {});

struct FixtureFailure {
  std::string subject = "memory";
  std::string profile = "h0z0";
  std::string source = "hash.txt";
  int line = 12;
  std::string command = "HGET h f";
  std::string redis = "\"v\"";
  std::string kvlab = "(nil)";
};

// A kvlab conform result whose matrix has HGET and ZADD cells for memory h0z0, and `failures`.
nlohmann::json ConformResult(const std::vector<FixtureFailure>& failures);

// Google Benchmark JSON: one benchmark `name` with one entry per value of real_time, the user
// counter `gets` per iteration, plus the aggregates Google Benchmark appends.
nlohmann::json GoogleBenchmark(const std::string& name, const std::vector<double>& real_time,
                               double gets, int num_cpus = 2);

// The test's temporary directory (created on first use, removed at exit).
const std::string& TempDir();

// Writes `text` to a fresh file in TempDir(); returns its path.
std::string WriteTemp(const std::string& name, const std::string& text);

// n values around `center`, each within ±spread (a fraction), from a fixed seed.
std::vector<double> Noisy(double center, double spread, int n, unsigned seed);

}  // namespace kvlab::gate::testing
