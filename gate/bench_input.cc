// Reading a `kvlab bench` result (docs/results-schema.md) into gate cells.
#include <fmt/format.h>

#include <cctype>
#include <set>

#include "gate/dataset.h"

namespace kvlab::gate {

using nlohmann::json;

namespace {

// Physical counters depend on the storage engine's background work (flushes, compactions,
// page splits): reported by bench, not compared by the gate.
bool IsPhysicalCounter(const std::string& name) {
  return name.starts_with("rocksdb.") || name.starts_with("wiredtiger.") ||
         name.starts_with("lmdb.");
}

// A type's one-letter tag in profile labels: "hash" -> 'h'.
std::string Label(const std::map<std::string, std::string>& profile) {
  std::string out;
  for (const auto& [type, version] : profile) {
    if (!out.empty()) out += " ";
    out += type.substr(0, 1) + version;
  }
  return out;
}

std::string Canonical(const std::map<std::string, std::string>& profile) {
  std::string out;
  for (const auto& [type, version] : profile) {
    if (!out.empty()) out += " ";
    out += type + "=" + version;
  }
  return out;
}

// The encoding profile of a run or sweep point: schema 2's "profile" map, or schema 1's
// hash_version / zset_version (null when the workload does not use the type).
void ReadProfile(const json& j, int schema, std::string* canonical, std::string* label) {
  std::map<std::string, std::string> profile;
  if (schema >= 2 && j.contains("profile") && j["profile"].is_object()) {
    for (const auto& [type, version] : j["profile"].items()) {
      profile[type] = version.is_string() ? version.get<std::string>() : version.dump();
    }
  } else {
    for (const char* type : {"hash", "zset"}) {
      const std::string member = std::string(type) + "_version";
      if (j.contains(member) && j[member].is_number_integer()) {
        profile[type] = std::to_string(j[member].get<int64_t>());
      }
    }
  }
  *canonical = Canonical(profile);
  *label = j.contains("profile_label") && j["profile_label"].is_string()
               ? j["profile_label"].get<std::string>()
               : Label(profile);
}

void AddSample(Cell* cell, const std::string& name, MetricKind kind, analysis::Direction dir,
               const std::string& unit, double value) {
  Metric& m = cell->metrics[name];
  m.kind = kind;
  m.direction = dir;
  m.unit = unit;
  m.samples.push_back(value);
}

bool IsKvField(const std::string& name) {
  static const std::set<std::string> kv = {
      "gets",          "multiget_calls", "multiget_keys", "puts",  "deletes",
      "range_deletes", "batches",        "batch_records", "seeks", "nexts",
      "prevs",         "bytes_read",     "bytes_written"};
  return kv.count(name) > 0;
}

// Over RESP the client sees no KV counts ("kv": null); against kvlab serve the phase's
// store_counters carry the server's own per-command totals from INFO kvlab,
// "server.<command>.<field>" (zeros left out, warm-up included), exact when the workload is the
// server's only client. They become the cell's counters, per server-side call.
void AddServerCounters(const json& store_counters, const std::string& command, Cell* cell) {
  std::string lower = command;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string prefix = "server." + lower + ".";
  if (!store_counters.contains(prefix + "calls")) return;
  const double calls = store_counters[prefix + "calls"].get<double>();
  if (calls <= 0) return;
  using analysis::Direction;
  for (const auto& [name, value] : store_counters.items()) {
    if (!name.starts_with(prefix)) continue;
    const std::string field = name.substr(prefix.size());
    if (field == "calls" || field == "rejected_calls") continue;
    const std::string metric = field == "failed_calls" ? "errors"
                               : IsKvField(field)      ? "kv." + field
                                                       : field;
    if (field == "cache_degraded" && value.get<double>() > 0 && cell->degraded.empty()) {
      cell->degraded = "the server's commands ran without their Redis tier (cache_degraded)";
    }
    AddSample(cell, metric, MetricKind::kCounter, Direction::kLowerIsBetter, "per call",
              value.get<double>() / calls);
  }
}

// One command's call statistics of one repetition.
void AddCommand(const json& st, const LoadOptions& options, Cell* cell) {
  const uint64_t calls = st.at("calls").get<uint64_t>();
  cell->calls += calls;
  if (calls == 0) return;
  const double n = static_cast<double>(calls);
  using analysis::Direction;
  AddSample(cell, "errors", MetricKind::kCounter, Direction::kLowerIsBetter, "per call",
            static_cast<double>(st.value("errors", uint64_t{0})) / n);
  if (st.contains("kv") && st["kv"].is_object()) {
    // Totals divided here rather than the rounded kv_per_call: both files divide the same way.
    for (const auto& [name, value] : st["kv"].items()) {
      AddSample(cell, "kv." + name, MetricKind::kCounter, Direction::kLowerIsBetter, "per call",
                value.get<double>() / n);
    }
  }
  if (st.contains("counters") && st["counters"].is_object()) {
    for (const auto& [name, value] : st["counters"].items()) {
      if (IsPhysicalCounter(name)) continue;
      if (name == "cache_degraded" && value.get<double>() > 0 && cell->degraded.empty()) {
        cell->degraded = fmt::format("{} commands ran without their Redis tier (cache_degraded)",
                                     value.get<uint64_t>());
      }
      AddSample(cell, name, MetricKind::kCounter, Direction::kLowerIsBetter, "per call",
                value.get<double>() / n);
    }
  }
  const json& latency = st.at("latency_ns");
  for (const std::string& p : options.latency_metrics) {
    if (!latency.contains(p)) continue;
    AddSample(cell, p + "_ns", MetricKind::kTiming, Direction::kLowerIsBetter, "ns",
              latency[p].get<double>());
  }
}

// A counter absent from one repetition's map (the maps list non-zero counters only) is 0 there:
// pads every counter to one sample per repetition of the cell.
void PadCounters(Cell* cell, size_t repetitions) {
  for (auto& [name, m] : cell->metrics) {
    if (m.kind == MetricKind::kCounter && m.samples.size() < repetitions) {
      m.samples.insert(m.samples.begin(), repetitions - m.samples.size(), 0.0);
    }
  }
}

void AddPhases(const json& phases, const std::string& workload, const std::string& backend,
               const std::string& profile, const std::string& label, const std::string& error,
               const std::string& degraded, const std::string& point, const LoadOptions& options,
               Dataset* out, std::map<CellKey, size_t>* repetitions) {
  for (const json& ph : phases) {
    // The parts of a probed phase (probe samples and chunks, results-schema.md) share their
    // names; each is a cell of its own, by the phase's operations done before it.
    const std::string at =
        ph.contains("at") ? fmt::format(" @{} ops", ph["at"].get<uint64_t>()) : std::string();
    const std::string phase = ph.at("name").get<std::string>() + at + point;
    // Throughput is the phase's: a command's throughput_per_s is its calls over the phase's
    // wall time, so every command of a phase moves with the phase's throughput. One row per
    // phase (the cell without a command), not one per command saying the same thing.
    if (options.throughput && ph.contains("throughput_per_s") &&
        ph["throughput_per_s"].is_number()) {
      CellKey key{workload, phase, "", backend, profile};
      Cell& cell = out->cells[key];
      cell.key = key;
      cell.profile_label = label;
      // (A degraded run's commands make the result untrustworthy; the phase adds nothing.)
      if (!error.empty() && cell.error.empty()) cell.error = error;
      AddSample(&cell, "throughput", MetricKind::kTiming, analysis::Direction::kHigherIsBetter,
                "ops/s", ph["throughput_per_s"].get<double>());
    }
    for (const auto& [command, st] : ph.at("commands").items()) {
      CellKey key{workload, phase, command, backend, profile};
      Cell& cell = out->cells[key];
      cell.key = key;
      cell.profile_label = label;
      if (!error.empty() && cell.error.empty()) cell.error = error;
      if (!degraded.empty() && cell.degraded.empty()) cell.degraded = degraded;
      const size_t rep = (*repetitions)[key]++;
      PadCounters(&cell, rep);
      AddCommand(st, options, &cell);
      if (!st.contains("kv") || st["kv"].is_null()) {
        if (ph.contains("store_counters") && ph["store_counters"].is_object()) {
          AddServerCounters(ph["store_counters"], command, &cell);
        }
      }
    }
  }
}

std::string RunDegraded(const json& run) {
  if (run.contains("degraded")) {
    const json& d = run["degraded"];
    if (d.is_boolean() && d.get<bool>()) return "the run is marked degraded";
    if (d.is_string() && !d.get<std::string>().empty()) return d.get<std::string>();
    if (d.is_object() && !d.empty()) return "the run is marked degraded: " + d.dump();
  }
  return "";
}

std::string RunError(const json& run) {
  if (run.contains("error") && run["error"].is_string()) return run["error"].get<std::string>();
  return "";
}

}  // namespace

Status ParseBenchResult(const json& doc, const LoadOptions& options, Dataset* out) {
  const int schema = doc.at("schema_version").get<int>();
  if (schema != 1 && schema != 2) {
    return Status::InvalidArgument(fmt::format(
        "kvlab bench result of schema_version {}, this kvlab reads versions 1 and 2", schema));
  }
  out->description = fmt::format("kvlab bench result (schema {})", schema);
  const json& ctx = doc.at("context");
  Environment& env = out->env;
  if (ctx.contains("host")) {
    const json& h = ctx["host"];
    env.machine =
        fmt::format("{}, {} logical cpus", h.value("cpu_model", "?"), h.value("logical_cpus", 0));
    env.hostname = h.value("hostname", "");
    env.load_average = h.value("load_average_1m", -1.0);
    env.usable_cpus = h.value("usable_cpus", 0);
  }
  if (ctx.contains("build")) {
    const json& b = ctx["build"];
    env.build = b.value("build_type", "");
    if (b.value("assertions", false)) env.build += ", assertions";
    const std::string sanitizers = b.value("sanitizers", "");
    if (!sanitizers.empty()) env.build += ", sanitizers " + sanitizers;
    env.commit = b.value("commit", "");
    if (b.value("commit_dirty", false)) env.commit += " (dirty)";
  }
  if (ctx.contains("date") && ctx["date"].is_string()) env.date = ctx["date"].get<std::string>();
  env.timing_valid = doc.value("timing_valid", true);
  env.timing_invalid_reason = ctx.value("timing_invalid_reason", "");
  if (ctx.contains("command_line") && ctx["command_line"].is_array()) {
    const json& argv = ctx["command_line"];
    for (size_t i = 1; i < argv.size(); ++i)
      out->command_args.push_back(argv[i].get<std::string>());
  }

  std::map<CellKey, size_t> repetitions;
  for (const json& w : doc.at("workloads")) {
    const std::string workload = w.at("name").get<std::string>();
    for (const json& run : w.at("runs")) {
      std::string profile, label;
      ReadProfile(run, schema, &profile, &label);
      std::string backend = run.at("backend").get<std::string>();
      if (run.value("target", "in-process") == "resp") backend = "resp";
      std::string error = RunError(run);
      if (error.empty() && run.value("partial", false)) error = "the run is partial";
      AddPhases(run.at("phases"), workload, backend, profile, label, error, RunDegraded(run), "",
                options, out, &repetitions);
    }
  }
  if (doc.contains("sweeps")) {
    for (const json& p : doc["sweeps"]) {
      std::string profile, label;
      ReadProfile(p, schema, &profile, &label);
      const std::string kind = p.at("kind").get<std::string>();
      const std::string workload = "sweep " + kind + " " + p.value("type", "");
      std::string point = kind == "rtt" ? fmt::format(" @rtt {} us", p.value("rtt_us", 0))
                                        : fmt::format(" @n={}", p.value("size", 0));
      // A Redis-tier version is measured with its cache cold and warm: two cells, not one
      // with the two states as repetitions.
      const std::string cache = p.value("cache", std::string("none"));
      if (cache != "none") point += " " + cache;
      std::string error = RunError(p);
      if (error.empty() && p.value("partial", false)) error = "the sweep point is partial";
      AddPhases(p.at("phases"), workload, p.at("backend").get<std::string>(), profile, label, error,
                RunDegraded(p), point, options, out, &repetitions);
    }
  }
  for (auto& [key, cell] : out->cells) PadCounters(&cell, repetitions[key]);
  for (auto& [key, cell] : out->cells) {
    if (!cell.degraded.empty()) {
      out->untrustworthy.push_back(CellName(cell) + ": " + cell.degraded);
    }
  }
  return Status::OK();
}

}  // namespace kvlab::gate
