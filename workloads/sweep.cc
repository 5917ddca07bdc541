#include "workloads/sweep.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

namespace kvlab::workloads {

using backends::OpCounts;
using backends::OpenedStore;
using engine::Engine;

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Probe {
  const char* name;
  std::vector<const char*> commands;
};

// Mutating probes leave the size as it was: an existing element is overwritten, or a new one is
// added and removed again ("new{now}" is unique per operation).
const std::vector<Probe>& Probes(const std::string& type) {
  static const std::vector<Probe> kHash = {
      {"HGET", {"HGET {key} {element}"}},
      {"HSET-existing", {"HSET {key} {element} {value}"}},
      {"HSET-new+HDEL", {"HSET {key} new{now} {value}", "HDEL {key} new{now}"}},
      {"HLEN", {"HLEN {key}"}},
      {"HSCAN-10", {"HSCAN {key} 0 COUNT 10"}},
      {"HGETALL", {"HGETALL {key}"}},
  };
  static const std::vector<Probe> kZset = {
      {"ZSCORE", {"ZSCORE {key} {element}"}},
      {"ZADD-existing", {"ZADD {key} {score} {element}"}},
      {"ZINCRBY", {"ZINCRBY {key} 1 {element}"}},
      {"ZADD-new+ZREM", {"ZADD {key} {score} new{now}", "ZREM {key} new{now}"}},
      {"ZCARD", {"ZCARD {key}"}},
      {"ZRANK", {"ZRANK {key} {element}"}},
      {"ZREVRANK", {"ZREVRANK {key} {element}"}},
      {"ZRANGE-10", {"ZRANGE {key} 0 9"}},
      {"ZREVRANGE-10", {"ZREVRANGE {key} 0 9"}},
      {"ZRANGEBYSCORE-10", {"ZRANGEBYSCORE {key} {score} +inf LIMIT 0 10"}},
      {"ZCOUNT-all", {"ZCOUNT {key} -inf +inf"}},
      {"ZRANGE-all", {"ZRANGE {key} 0 -1"}},
  };
  return type == "zset" ? kZset : kHash;
}

double Elapsed(SteadyClock::time_point since) {
  return std::chrono::duration<double>(SteadyClock::now() - since).count();
}

// One series: a store per cell, the collection grown through `sizes`.
void RunSeries(const std::string& kind, const std::string& type, const Cell& cell,
               const std::vector<uint64_t>& sizes, uint64_t rtt_us, const SweepOptions& sweep,
               const MatrixOptions& matrix, const std::function<void(const std::string&)>& note,
               SweepResult* result) {
  MatrixOptions m = matrix;
  if (kind == "rtt") {
    m.store.remote_latency = true;
    m.store.remote.round_trip = std::chrono::microseconds(rtt_us);
  }
  std::unique_ptr<OpenedStore> opened;
  const std::string name =
      "sweep-" + kind + "-" + type + (kind == "rtt" ? "-rtt" + std::to_string(rtt_us) : "");
  Status s = OpenCellStore(m, cell, name, &opened);
  if (!s.ok()) {
    result->notes.push_back(cell.Label() + ": " + s.ToString());
    return;
  }
  const auto series_start = SteadyClock::now();
  {
    Engine engine(opened->store(), m.engine);
    // One thread: per-command physical counters and round trips are exact.
    EngineTarget target(&engine, opened.get(), TargetOptionsFor(m, cell, 1));
    std::unique_ptr<TargetConnection> setup;
    s = ConfigureEngine(m, &engine);
    if (s.ok()) s = target.Connect(&setup);
    if (s.ok()) s = SetVersions(*setup, cell);
    if (!s.ok()) {
      result->notes.push_back(cell.Label() + ": " + s.ToString());
      return;
    }
    uint64_t loaded = 0;
    double last_point_s = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const uint64_t size = sizes[i];
      if (StopRequested(m.stop)) {
        result->partial = true;
        return;
      }
      // The next decade costs about ten times the last one (loading and the O(n) probes).
      const double spent = Elapsed(series_start);
      if (kind == "size" && i > 0 && spent + 10 * last_point_s > sweep.series_budget_s) {
        std::string skipped;
        for (size_t j = i; j < sizes.size(); ++j) {
          skipped += (skipped.empty() ? "" : ", ") + std::to_string(sizes[j]);
        }
        result->notes.push_back(type + " " + cell.Label() + ": sizes " + skipped +
                                " skipped (series time budget of " +
                                std::to_string(static_cast<int>(sweep.series_budget_s)) +
                                " s; raise it with --series-budget)");
        return;
      }
      if (note) {
        note(kind + " " + type + " " + cell.Label() + " size " + std::to_string(size) +
             (kind == "rtt" ? " rtt " + std::to_string(rtt_us) + "us" : ""));
      }
      const auto point_start = SteadyClock::now();
      Workload w;
      s = SweepWorkload(type, size, sweep, &w);
      if (!s.ok()) {
        result->notes.push_back(s.ToString());
        return;
      }
      SweepPoint point;
      point.kind = kind;
      point.type = type;
      point.cell = cell;
      point.size = size;
      point.rtt_us = rtt_us;
      RunOptions run_options;
      run_options.stop = m.stop;
      run_options.load_elements_from = loaded;
      RunWorkload(w, target, run_options, &point.run);
      loaded = size;
      last_point_s = Elapsed(point_start);
      const bool failed = !point.run.error.empty();
      if (failed)
        result->notes.push_back(cell.Label() + " size " + std::to_string(size) + ": " +
                                point.run.error);
      if (point.run.partial) result->partial = true;
      result->points.push_back(std::move(point));
      if (failed || result->partial) return;
    }
  }
  opened->Close();
}

std::vector<int> VersionsOf(const std::string& type, const MatrixOptions& m) {
  return type == "zset" ? m.zset_versions : m.hash_versions;
}

Cell SeriesCell(const std::string& type, const std::string& backend, int version) {
  Cell c;
  c.backend = backend;
  c.hash_version = type == "hash" ? version : -1;
  c.zset_version = type == "zset" ? version : -1;
  return c;
}

}  // namespace

std::vector<uint64_t> DecadeSizes(uint64_t max_size) {
  std::vector<uint64_t> out;
  for (uint64_t s = 10; s <= max_size; s *= 10) out.push_back(s);
  return out;
}

Status SweepWorkload(const std::string& type, uint64_t size, const SweepOptions& options,
                     Workload* out) {
  if (type != "hash" && type != "zset") {
    return Status::InvalidArgument("sweep type '" + type + "': expected hash or zset");
  }
  nlohmann::json ops = nlohmann::json::array();
  nlohmann::json run = nlohmann::json::array();
  for (const Probe& p : Probes(type)) {
    run.push_back({{"name", p.name},
                   {"operations", options.calls},
                   {"duration_s", options.probe_budget_s},
                   {"warmup_operations", 3},
                   {"ops", {{{"name", p.name}, {"commands", p.commands}}}}});
  }
  nlohmann::json j = {
      {"name", "sweep-" + type},
      {"description", "size sweep probes of a " + type},
      {"seed", options.seed},
      {"keyspace",
       {{"type", type},
        {"records", 1},
        {"key_prefix", "sweep:" + type + ":"},
        {"elements", size},
        {"value_bytes", options.value_bytes}}},
      {"load",
       {{"batch", 1000},
        {"commands", {type == "hash" ? "HSET {key} {elements}" : "ZADD {key} {elements}"}}}},
      {"run", run}};
  return ParseWorkload(j.dump(), "builtin:sweep-" + type, out);
}

void RunSizeSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                  const std::function<void(const std::string&)>& note, SweepResult* result) {
  for (const std::string& type : sweep.types) {
    for (const std::string& backend : matrix.backends) {
      for (int version : VersionsOf(type, matrix)) {
        if (StopRequested(matrix.stop)) {
          result->partial = true;
          return;
        }
        RunSeries("size", type, SeriesCell(type, backend, version), sweep.sizes, 0, sweep, matrix,
                  note, result);
      }
    }
  }
}

void RunRttSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                 const std::function<void(const std::string&)>& note, SweepResult* result) {
  const std::string backend = matrix.backends.empty() ? "memory" : matrix.backends.front();
  for (const std::string& type : sweep.types) {
    for (uint64_t rtt : sweep.rtts_us) {
      for (int version : VersionsOf(type, matrix)) {
        if (StopRequested(matrix.stop)) {
          result->partial = true;
          return;
        }
        RunSeries("rtt", type, SeriesCell(type, backend, version), {sweep.rtt_size}, rtt, sweep,
                  matrix, note, result);
      }
    }
  }
}

Growth ClassifyGrowth(const std::vector<uint64_t>& sizes, const std::vector<double>& values,
                      bool noisy) {
  Growth g;
  const size_t n = std::min(sizes.size(), values.size());
  if (n < 2) return g;
  const double prev = values[n - 2];
  const double last = values[n - 1];
  const double size_ratio = static_cast<double>(sizes[n - 1]) / static_cast<double>(sizes[n - 2]);
  if (prev <= 0 || last <= 0) {
    g.slope = last > prev ? 1 : 0;
  } else {
    g.slope = std::log(last / prev) / std::log(size_ratio);
  }
  if (noisy) {
    g.growth_class = g.slope < 0.15  ? "O(1)"
                     : g.slope < 0.6 ? "sublinear"
                     : g.slope < 1.4 ? "O(n)"
                                     : "superlinear";
    return g;
  }
  if (std::fabs(last - prev) <= 0.01 * std::max(std::fabs(prev), 1.0)) {
    g.growth_class = "O(1)";
  } else if (g.slope >= 1.3) {
    g.growth_class = "superlinear";
  } else if (g.slope >= 0.8) {
    g.growth_class = "O(n)";
  } else {
    // Logarithmic growth adds about the same amount per decade.
    bool additive = n >= 3 && last > prev;
    double min_step = INFINITY, max_step = 0;
    for (size_t i = 1; i < n && additive; ++i) {
      const double step = values[i] - values[i - 1];
      if (step <= 0) additive = false;
      min_step = std::min(min_step, step);
      max_step = std::max(max_step, step);
    }
    g.growth_class = additive && max_step <= 2 * min_step ? "O(log n)" : "sublinear";
  }
  return g;
}

double KvStepsPerCall(const OpCounts& kv, uint64_t calls) {
  if (calls == 0) return 0;
  const uint64_t steps = kv.point_reads() + kv.seeks + kv.nexts + kv.prevs + kv.puts + kv.deletes +
                         kv.range_deletes + kv.batch_records;
  return static_cast<double>(steps) / static_cast<double>(calls);
}

}  // namespace kvlab::workloads
