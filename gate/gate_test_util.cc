#include "gate/gate_test_util.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace kvlab::gate::testing {

using nlohmann::json;

namespace {

json Profile(const FixtureCell& c) {
  json p = json::object();
  if (c.hash_version >= 0) p["hash"] = std::to_string(c.hash_version);
  if (c.zset_version >= 0) p["zset"] = std::to_string(c.zset_version);
  return p;
}

std::string ProfileLabel(const FixtureCell& c) {
  std::string out;
  if (c.hash_version >= 0) out += "h" + std::to_string(c.hash_version);
  if (c.zset_version >= 0) out += (out.empty() ? "z" : " z") + std::to_string(c.zset_version);
  return out;
}

double Throughput(const FixtureCell& c, size_t rep) {
  const double p50 = rep < c.p50.size() ? c.p50[rep] : c.p99[rep] / 2;
  return rep < c.throughput.size() ? c.throughput[rep] : 1e9 / p50;
}

json Commands(const FixtureCell& c, size_t rep) {
  const double p99 = c.p99[rep];
  const double p50 = rep < c.p50.size() ? c.p50[rep] : p99 / 2;
  const double tput = Throughput(c, rep);
  json kv = json::object(), kv_per_call = json::object();
  for (const char* f :
       {"gets", "multiget_calls", "multiget_keys", "puts", "deletes", "range_deletes", "batches",
        "batch_records", "seeks", "nexts", "prevs", "bytes_read", "bytes_written"}) {
    const auto it = c.kv.find(f);
    const uint64_t v = it == c.kv.end() ? 0 : it->second;
    kv[f] = v;
    kv_per_call[f] = static_cast<double>(v) / static_cast<double>(c.calls);
  }
  json counters = json::object(), per_call = json::object();
  for (const auto& [name, v] : c.counters) {
    counters[name] = v;
    per_call[name] = static_cast<double>(v) / static_cast<double>(c.calls);
  }
  json st = {{"calls", c.calls},
             {"errors", 0},
             {"throughput_per_s", tput},
             {"latency_ns",
              {{"min", p50 / 4},
               {"p50", p50},
               {"p90", (p50 + p99) / 2},
               {"p99", p99},
               {"p999", p99 * 1.5},
               {"max", p99 * 3},
               {"mean", p50 * 1.1},
               {"relative_precision", 0.0039}}},
             {"kv", kv},
             {"kv_per_call", kv_per_call},
             {"counters", counters},
             {"counters_per_call", per_call}};
  return {{c.command, st}};
}

}  // namespace

json BenchResult(const std::vector<FixtureCell>& cells, int schema, const FixtureContext& ctx) {
  json context = {{"date", ctx.date},
                  {"kvlab_version", "0.1"},
                  {"command_line", {"kvlab", "bench", "run", "ycsb-c-field"}},
                  {"build",
                   {{"commit", ctx.commit},
                    {"commit_dirty", false},
                    {"build_type", ctx.build_type},
                    {"compiler", "GNU 12.2.0"},
                    {"cxx_flags", "-O2 -g"},
                    {"assertions", false},
                    {"sanitizer", false},
                    {"sanitizers", ""}}},
                  {"host",
                   {{"cpu_model", ctx.cpu_model},
                    {"logical_cpus", ctx.logical_cpus},
                    {"usable_cpus", ctx.logical_cpus},
                    {"kernel", "6.1"},
                    {"hostname", "test"},
                    {"load_average_1m", ctx.load_average}}},
                  {"timing_valid", ctx.timing_valid},
                  {"timing_invalid_reason", ctx.timing_valid ? "" : "debug build"},
                  {"repetitions", 3}};
  std::map<std::string, json> workloads;
  std::vector<std::string> order;
  for (const FixtureCell& c : cells) {
    if (!workloads.count(c.workload)) {
      order.push_back(c.workload);
      workloads[c.workload] = {{"name", c.workload}, {"runs", json::array()}};
    }
    for (size_t rep = 0; rep < c.p99.size(); ++rep) {
      json run = {{"target", "in-process"},
                  {"backend", c.backend},
                  {"repetition", rep},
                  {"partial", false},
                  {"error", c.error.empty() ? json(nullptr) : json(c.error)},
                  {"phases",
                   {{{"name", c.phase},
                     {"kind", "run"},
                     {"wall_seconds", 1.0},
                     {"operations", c.calls},
                     {"throughput_per_s", Throughput(c, rep)},
                     {"commands", Commands(c, rep)},
                     {"ops", json::object()},
                     {"store_counters", json::object()}}}}};
      if (schema >= 2) {
        run["profile"] = Profile(c);
        run["profile_label"] = ProfileLabel(c);
      } else {
        run["hash_version"] = c.hash_version >= 0 ? json(c.hash_version) : json(nullptr);
        run["zset_version"] = c.zset_version >= 0 ? json(c.zset_version) : json(nullptr);
      }
      workloads[c.workload]["runs"].push_back(run);
    }
  }
  json list = json::array();
  for (const std::string& w : order) list.push_back(workloads[w]);
  return {{"schema", "kvlab-bench-result"},
          {"schema_version", schema},
          {"partial", ctx.partial},
          {"partial_reason", ctx.partial ? json("interrupted") : json(nullptr)},
          {"timing_valid", ctx.timing_valid},
          {"context", context},
          {"workloads", list},
          {"sweeps", json::array()},
          {"growth", json::array()},
          {"notes", json::array()}};
}

json ConformResult(const std::vector<FixtureFailure>& failures) {
  json matrix = json::array();
  for (const char* command : {"HGET", "ZADD"}) {
    uint64_t fail = 0;
    for (const FixtureFailure& f : failures) {
      if (f.command.rfind(command, 0) == 0) ++fail;
    }
    matrix.push_back({{"subject", "memory"},
                      {"version", std::string(command) == "HGET" ? "h0" : "z0"},
                      {"command", command},
                      {"group", std::string(command) == "HGET" ? "hash" : "zset"},
                      {"pass", 40 - fail},
                      {"deviation", 0},
                      {"fail", fail}});
  }
  json list = json::array();
  for (const FixtureFailure& f : failures) {
    list.push_back({{"subject", f.subject},
                    {"profile", f.profile},
                    {"source", f.source},
                    {"line", f.line},
                    {"command", f.command},
                    {"redis", f.redis},
                    {"kvlab", f.kvlab},
                    {"explanation", "replies differ"},
                    {"reproducer", ""}});
  }
  return {{"schema_version", 1},
          {"tool", "kvlab conform"},
          {"verdict", failures.empty() ? "pass" : "fail"},
          {"command_line", "kvlab conform --backends memory"},
          {"matrix", matrix},
          {"failures", list},
          {"failures_total", list.size()},
          {"totals", {{"pass", 80}, {"deviation", 0}, {"fail", list.size()}}}};
}

json GoogleBenchmark(const std::string& name, const std::vector<double>& real_time, double gets,
                     int num_cpus) {
  json benchmarks = json::array();
  for (size_t i = 0; i < real_time.size(); ++i) {
    benchmarks.push_back({{"name", name},
                          {"family_index", 0},
                          {"per_family_instance_index", 0},
                          {"run_name", name},
                          {"run_type", "iteration"},
                          {"repetitions", real_time.size()},
                          {"repetition_index", i},
                          {"threads", 1},
                          {"iterations", 100000},
                          {"real_time", real_time[i] / 1000},
                          {"cpu_time", real_time[i] / 1000 * 0.98},
                          {"time_unit", "us"},
                          {"gets", gets},
                          {"engine_cpu_ns", real_time[i]},
                          {"label", "memory"}});
  }
  benchmarks.push_back({{"name", name + "_mean"},
                        {"run_name", name},
                        {"run_type", "aggregate"},
                        {"aggregate_name", "mean"},
                        {"real_time", 1.0},
                        {"cpu_time", 1.0},
                        {"time_unit", "us"}});
  return {{"context",
           {{"date", "2026-01-01T00:00:00+00:00"},
            {"host_name", "test"},
            {"executable", "engine_bench"},
            {"num_cpus", num_cpus},
            {"mhz_per_cpu", 3000},
            {"caches", {{{"type", "Data"}, {"level", 1}, {"size", 32768}, {"num_sharing", 1}}}},
            {"library_build_type", "release"},
            {"kvlab_build_type", "RelWithDebInfo"},
            {"kvlab_timing_valid", "true"}}},
          {"benchmarks", benchmarks}};
}

const std::string& TempDir() {
  // Removed by its destructor when the test binary exits.
  struct Dir {
    std::string path;
    Dir() {
      const char* base = std::getenv("TMPDIR");
      path = std::string(base && *base ? base : "/tmp") + "/kvlab-gate-test-XXXXXX";
      if (::mkdtemp(path.data()) == nullptr) std::abort();
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

std::vector<double> Noisy(double center, double spread, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(1 - spread, 1 + spread);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * u(rng));
  return out;
}

}  // namespace kvlab::gate::testing
