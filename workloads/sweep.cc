#include "workloads/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "analysis/mann_whitney.h"

namespace kvlab::workloads {

using backends::OpCounts;
using backends::OpenedStore;
using engine::Engine;
using redis::TierCounts;
using resp::Reply;

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
  // A list's element at position p is "item<p>" (loaded by RPUSH, and the probes keep it
  // so): LINDEX and LSET at {element_id} cost what a position costs (v1 walks to it), LINSERT
  // before {element} and LREM of the inserted element cost a middle edit (v0 renumbers).
  static const std::vector<Probe> kList = {
      {"LINDEX", {"LINDEX {key} {element_id}"}},
      {"LSET", {"LSET {key} {element_id} item{element_id}"}},
      {"LPUSH+LPOP", {"LPUSH {key} {value}", "LPOP {key}"}},
      {"RPUSH+RPOP", {"RPUSH {key} {value}", "RPOP {key}"}},
      {"LINSERT+LREM", {"LINSERT {key} BEFORE {element} new{now}", "LREM {key} 1 new{now}"}},
      {"LLEN", {"LLEN {key}"}},
      {"LRANGE-10", {"LRANGE {key} 0 9"}},
      {"LRANGE-last10", {"LRANGE {key} -10 -1"}},
      {"LPOS", {"LPOS {key} {element}"}},
      {"LRANGE-all", {"LRANGE {key} 0 -1"}},
  };
  static const std::vector<Probe> kSet = {
      {"SISMEMBER", {"SISMEMBER {key} {element}"}},
      {"SADD-existing", {"SADD {key} {element}"}},
      {"SADD-new+SREM", {"SADD {key} new{now}", "SREM {key} new{now}"}},
      {"SCARD", {"SCARD {key}"}},
      {"SSCAN-10", {"SSCAN {key} 0 COUNT 10"}},
      {"SMEMBERS", {"SMEMBERS {key}"}},
  };
  if (type == "list") return kList;
  if (type == "set") return kSet;
  return type == "zset" ? kZset : kHash;
}

double Elapsed(SteadyClock::time_point since) {
  return std::chrono::duration<double>(SteadyClock::now() - since).count();
}

std::optional<std::string> VersionOf(const std::string& type, const Cell& cell) {
  return cell.profile.VersionOf(type);
}

std::string PointLabel(const std::string& kind, const std::string& type, const Cell& cell,
                       uint64_t size, uint64_t rtt_us, const std::string& cache, int repetition,
                       int repetitions) {
  std::string label = kind + " " + type + " " + cell.Label() + " n=" + std::to_string(size);
  if (kind == "rtt") label += " rtt " + std::to_string(rtt_us) + "us";
  if (cache != "none") label += " " + cache;
  if (repetitions > 1) label += " rep " + std::to_string(repetition + 1);
  return label;
}

// Reads the sweep's whole collection once, as a client would: the caches a full read fills
// (SweepWorkload's record 0).
Status FillCache(const std::string& type, Target& target) {
  std::unique_ptr<TargetConnection> c;
  KVLAB_RETURN_IF_ERROR(target.Connect(&c));
  const std::string key = "sweep:" + type + ":0";
  const std::vector<std::string> argv =
      type == "zset"  ? std::vector<std::string>{"ZRANGE", key, "0", "-1", "WITHSCORES"}
      : type == "set" ? std::vector<std::string>{"SMEMBERS", key}
                      : std::vector<std::string>{"HGETALL", key};
  Reply reply;
  CommandSample sample;
  KVLAB_RETURN_IF_ERROR(c->Execute(argv, &reply, &sample));
  if (reply.is_error()) return Status::InvalidArgument(argv[0] + ": " + reply.str());
  return Status::OK();
}

// Measures every probe at the current size in one cache state; appends their phases to *run.
// Returns false when the series must end (a failure, or a stop).
bool MeasureProbes(const std::string& type, uint64_t size, const std::string& cache,
                   const SweepOptions& sweep, const MatrixOptions& m, Engine& engine,
                   Target& target, WorkloadRunResult* run) {
  Status flush_failure;
  auto flush = [&] {
    TierCounts ignored;
    Status s = engine.tier()->FlushCache(&ignored);
    if (!s.ok() && flush_failure.ok()) flush_failure = s;
  };
  const std::vector<std::string> probes = ProbeNames(type);
  for (size_t p = 0; p < probes.size(); ++p) {
    Workload w;
    Status s = SweepWorkload(type, size, sweep, &w, p);
    if (!s.ok()) {
      run->error = s.ToString();
      return false;
    }
    RunOptions options;
    options.stop = m.stop;
    options.load = false;
    if (cache == "cold") options.before_operation = flush;
    if (cache == "warm") {
      // Fill what the version caches: the whole collection, as a full read leaves it (the
      // whole-hash cache, whence HLEN v3's length; the zset of v1/v2), then an unrecorded pass
      // of the probe with the same seed (the same commands on the same elements: the field
      // caches). The recorded pass then finds whatever the version keeps in its cache.
      flush();
      Status s = FillCache(type, target);
      if (!s.ok()) {
        run->error = "cannot fill the Redis cache for the warm state: " + s.ToString();
        return false;
      }
      WorkloadRunResult fill;
      RunWorkload(w, target, options, &fill);
      if (!fill.error.empty() || fill.partial) {
        run->error = fill.error;
        run->partial = true;
        return false;
      }
    }
    WorkloadRunResult probe_run;
    RunWorkload(w, target, options, &probe_run);
    for (PhaseResult& phase : probe_run.phases) run->phases.push_back(std::move(phase));
    if (!probe_run.error.empty() || probe_run.partial) {
      run->error = probe_run.error;
      run->partial = true;
      return false;
    }
  }
  if (!flush_failure.ok() && !m.allow_degraded) {
    run->error = "cannot empty the Redis cache for the cold state: " + flush_failure.ToString();
    return false;
  }
  return true;
}

// One series: a store per cell, the collection grown through `sizes`.
void RunSeries(const std::string& kind, const std::string& type, const Cell& cell,
               const std::vector<uint64_t>& sizes, uint64_t rtt_us, const SweepOptions& sweep,
               const MatrixOptions& matrix, const SweepProgress& progress, SweepResult* result) {
  MatrixOptions m = matrix;
  if (kind == "rtt") {
    m.store.remote_latency = true;
    m.store.remote.round_trip = std::chrono::microseconds(rtt_us);
  }
  const std::vector<std::string> states =
      CacheStates(VersionUsesTier(RegistryOf(matrix.engine), type, VersionOf(type, cell)));
  const int repetitions = std::max(1, sweep.repetitions);
  const size_t points_per_size = states.size() * static_cast<size_t>(repetitions);
  auto skip = [&](size_t from_size) {
    if (progress.skipped) progress.skipped((sizes.size() - from_size) * points_per_size);
  };
  std::unique_ptr<OpenedStore> opened;
  const std::string name =
      "sweep-" + kind + "-" + type + (kind == "rtt" ? "-rtt" + std::to_string(rtt_us) : "");
  Status s = OpenCellStore(m, cell, name, &opened);
  if (!s.ok()) {
    result->notes.push_back(cell.Label() + ": " + s.ToString());
    skip(0);
    return;
  }
  const auto series_start = SteadyClock::now();
  {
    Engine engine(opened->store(), EngineOptionsFor(m));
    // One thread: per-command physical counters and round trips are exact.
    EngineTarget target(&engine, opened.get(), TargetOptionsFor(m, cell, 1));
    std::unique_ptr<TargetConnection> setup;
    s = ConfigureEngine(m, &engine);
    if (s.ok()) s = target.Connect(&setup);
    if (s.ok()) s = SetVersions(*setup, cell);
    if (!s.ok()) {
      result->notes.push_back(cell.Label() + ": " + s.ToString());
      skip(0);
      return;
    }
    const std::string tier_problem = m.allow_degraded ? TierProblem(engine, cell) : "";
    uint64_t loaded = 0;
    double last_size_s = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const uint64_t size = sizes[i];
      if (StopRequested(m.stop)) {
        result->partial = true;
        return;
      }
      // The next decade costs about ten times the last one (loading and the O(n) probes).
      const double spent = Elapsed(series_start);
      if (kind == "size" && i > 0 && spent + 10 * last_size_s > sweep.series_budget_s) {
        std::string skipped;
        for (size_t j = i; j < sizes.size(); ++j) {
          skipped += (skipped.empty() ? "" : ", ") + std::to_string(sizes[j]);
        }
        result->notes.push_back(type + " " + cell.Label() + ": sizes " + skipped +
                                " skipped (series time budget of " +
                                std::to_string(static_cast<int>(sweep.series_budget_s)) +
                                " s; raise it with --series-budget)");
        skip(i);
        return;
      }
      const auto size_start = SteadyClock::now();
      Workload w;
      s = SweepWorkload(type, size, sweep, &w);
      if (!s.ok()) {
        result->notes.push_back(s.ToString());
        skip(i);
        return;
      }
      // Grow the collection to this size: only the new elements are loaded.
      RunOptions load_options;
      load_options.stop = m.stop;
      load_options.load_elements_from = loaded;
      load_options.run_phases = false;
      WorkloadRunResult load;
      RunWorkload(w, target, load_options, &load);
      loaded = size;
      for (int rep = 0; rep < repetitions; ++rep) {
        for (size_t c = 0; c < states.size(); ++c) {
          const std::string& cache = states[c];
          SweepPoint point;
          point.kind = kind;
          point.type = type;
          point.cell = cell;
          point.size = size;
          point.rtt_us = rtt_us;
          point.cache = cache;
          point.repetition = rep;
          if (progress.begin) {
            progress.begin(PointLabel(kind, type, cell, size, rtt_us, cache, rep, repetitions));
          }
          const bool first = rep == 0 && c == 0;
          if (first) point.run = load;
          if (point.run.error.empty() && !point.run.partial) {
            MeasureProbes(type, size, cache, sweep, m, engine, target, &point.run);
          }
          point.degraded = tier_problem;
          JudgeDegraded(m, cell, point.run, &point.degraded, &point.run.error);
          const bool failed = !point.run.error.empty();
          if (failed) {
            result->notes.push_back(
                PointLabel(kind, type, cell, size, rtt_us, cache, rep, repetitions) + ": " +
                point.run.error);
          }
          if (point.run.partial || StopRequested(m.stop)) result->partial = true;
          if (progress.end) progress.end(point);
          result->points.push_back(std::move(point));
          if (failed || result->partial) {
            if (failed && progress.skipped) {
              const size_t done = static_cast<size_t>(rep) * states.size() + c + 1;
              progress.skipped(points_per_size - done + (sizes.size() - i - 1) * points_per_size);
            }
            return;
          }
        }
      }
      last_size_s = Elapsed(size_start);
    }
  }
  opened->Close();
}

// The versions of `type` the sweep runs: the matrix's list, or every version the engine runs.
std::vector<std::string> VersionsOf(const std::string& type, const MatrixOptions& m) {
  auto listed = m.versions.find(type);
  if (listed != m.versions.end()) return listed->second;
  return AvailableVersions(m.engine)[type];
}

Cell SeriesCell(const MatrixOptions& m, const std::string& type, const std::string& backend,
                const std::string& version) {
  encodings::EncodingProfile profile;
  profile.versions[type] = version;
  return MakeCell(RegistryOf(m.engine), "in-process", backend, profile);
}

}  // namespace

std::vector<std::string> CacheStates(bool uses_tier) {
  if (uses_tier) return {"cold", "warm"};
  return {"none"};
}

std::vector<std::string> ProbeNames(const std::string& type) {
  std::vector<std::string> out;
  for (const Probe& p : Probes(type)) out.push_back(p.name);
  return out;
}

size_t CountSweepPoints(const std::string& kind, const SweepOptions& sweep,
                        const MatrixOptions& matrix) {
  const size_t reps = static_cast<size_t>(std::max(1, sweep.repetitions));
  const size_t sizes = kind == "rtt" ? sweep.rtts_us.size() : sweep.sizes.size();
  size_t n = 0;
  for (const std::string& type : sweep.types) {
    for (const std::string& version : VersionsOf(type, matrix)) {
      n += matrix.backends.size() * sizes * reps *
           CacheStates(VersionUsesTier(RegistryOf(matrix.engine), type, version)).size();
    }
  }
  return n;
}

std::vector<uint64_t> DecadeSizes(uint64_t max_size) {
  std::vector<uint64_t> out;
  for (uint64_t s = 10; s <= max_size; s *= 10) out.push_back(s);
  return out;
}

Status SweepWorkload(const std::string& type, uint64_t size, const SweepOptions& options,
                     Workload* out, std::optional<size_t> probe) {
  if (type != "hash" && type != "zset" && type != "list" && type != "set") {
    return Status::InvalidArgument("sweep type '" + type + "': expected hash, zset, list or set");
  }
  nlohmann::json run = nlohmann::json::array();
  const std::vector<Probe>& probes = Probes(type);
  for (size_t i = 0; i < probes.size(); ++i) {
    if (probe && *probe != i) continue;
    const Probe& p = probes[i];
    run.push_back({{"name", p.name},
                   {"operations", options.calls},
                   {"duration_s", options.probe_budget_s},
                   {"warmup_operations", 3},
                   {"ops", {{{"name", p.name}, {"commands", p.commands}}}}});
  }
  if (run.empty()) return Status::InvalidArgument("no probe " + std::to_string(*probe));
  nlohmann::json j = {{"name", "sweep-" + type},
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
                        {"commands",
                         {type == "hash"   ? "HSET {key} {elements}"
                          : type == "zset" ? "ZADD {key} {elements}"
                          : type == "set"  ? "SADD {key} {elements}"
                                           : "RPUSH {key} {elements}"}}}},
                      {"run", run}};
  return ParseWorkload(j.dump(), "builtin:sweep-" + type, out);
}

void RunSizeSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                  const SweepProgress& progress, SweepResult* result) {
  for (const std::string& type : sweep.types) {
    for (const std::string& backend : matrix.backends) {
      for (const std::string& version : VersionsOf(type, matrix)) {
        if (StopRequested(matrix.stop)) {
          result->partial = true;
          return;
        }
        RunSeries("size", type, SeriesCell(matrix, type, backend, version), sweep.sizes, 0, sweep,
                  matrix, progress, result);
      }
    }
  }
}

void RunRttSweep(const SweepOptions& sweep, const MatrixOptions& matrix,
                 const SweepProgress& progress, SweepResult* result) {
  for (const std::string& type : sweep.types) {
    for (const std::string& backend : matrix.backends) {
      for (uint64_t rtt : sweep.rtts_us) {
        for (const std::string& version : VersionsOf(type, matrix)) {
          if (StopRequested(matrix.stop)) {
            result->partial = true;
            return;
          }
          RunSeries("rtt", type, SeriesCell(matrix, type, backend, version), {sweep.rtt_size}, rtt,
                    sweep, matrix, progress, result);
        }
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
    g.growth_class = TimeSlopeClass(g.slope);
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

TimeGrowth ClassifyTimeGrowth(const std::vector<uint64_t>& sizes,
                              const std::vector<std::vector<double>>& values) {
  TimeGrowth g;
  const size_t n = std::min(sizes.size(), values.size());
  if (n < 2) {
    g.why = "fewer than two sizes";
    return g;
  }
  const std::vector<double>& prev = values[n - 2];
  const std::vector<double>& last = values[n - 1];
  g.repetitions = static_cast<int>(last.size());
  auto positive = [](const std::vector<double>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  if (!positive(prev) || !positive(last)) {
    g.why = "no time measured at the two largest sizes";
    return g;
  }
  const double log_size_ratio =
      std::log(static_cast<double>(sizes[n - 1]) / static_cast<double>(sizes[n - 2]));
  const analysis::RatioInterval r = analysis::RatioOfMedians(last, prev, kTimeGrowthConfidence);
  g.slope = std::log(r.estimate) / log_size_ratio;
  g.slope_low = std::log(r.low) / log_size_ratio;
  g.slope_high = std::log(r.high) / log_size_ratio;
  if (!r.attainable) {
    g.why = std::to_string(last.size()) + " vs " + std::to_string(prev.size()) +
            " repetitions cannot give a " +
            std::to_string(static_cast<int>(kTimeGrowthConfidence * 100)) +
            "% interval (run with --repetitions 3 or more)";
    return g;
  }
  g.confidence = r.confidence;
  const std::string low = TimeSlopeClass(g.slope_low);
  const std::string high = TimeSlopeClass(g.slope_high);
  if (low == high) {
    g.growth_class = low;
  } else {
    g.growth_class = "unclear";
    g.why = "the slope's interval spans " + low + " to " + high;
  }
  return g;
}

std::string TimeSlopeClass(double slope) {
  return slope < 0.15 ? "O(1)" : slope < 0.6 ? "sublinear" : slope < 1.4 ? "O(n)" : "superlinear";
}

double KvStepsPerCall(const OpCounts& kv, uint64_t calls) {
  if (calls == 0) return 0;
  const uint64_t steps = kv.point_reads() + kv.seeks + kv.nexts + kv.prevs + kv.puts + kv.deletes +
                         kv.range_deletes + kv.batch_records;
  return static_cast<double>(steps) / static_cast<double>(calls);
}

}  // namespace kvlab::workloads
