#include "workloads/result.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "workloads/build_info.h"

namespace kvlab::workloads {

using backends::PhysicalCounters;

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json CountersJson(const PhysicalCounters& counters) {
  json j = json::object();
  for (const auto& [name, value] : counters) j[name] = value;
  return j;
}

json VersionJson(int v) { return v >= 0 ? json(v) : json(nullptr); }

}  // namespace

json ContextJson(const RunSettings& s) {
  const BuildInfo b = GetBuildInfo();
  const HostInfo h = GetHostInfo();
  std::string reason;
  const bool valid = TimingValid(&reason);
  json store = {{"backends", s.backends},
                {"sync_writes", s.store.options.sync_writes},
                {"cache_mb", s.store.options.cache_bytes >> 20},
                {"no_reverse_scan", s.store.no_reverse_scan},
                {"rtt_us", s.store.remote_latency ? s.store.remote.round_trip.count() : 0},
                {"scan_page_rows", s.store.remote.scan_page_rows},
                {"dir", s.store.options.dir}};
  json engine = {{"hash_versions", s.hash_versions},
                 {"zset_versions", s.zset_versions},
                 {"namespace_prefix", s.engine.keys.ns_prefix},
                 {"md5_prefix", s.engine.keys.md5_prefix}};
  return {{"date", UtcTimestamp()},
          {"kvlab_version", "0.1"},
          {"command_line", s.command_line},
          {"build",
           {{"commit", b.commit},
            {"commit_dirty", b.commit_dirty},
            {"build_type", b.build_type},
            {"compiler", b.compiler},
            {"cxx_flags", b.cxx_flags},
            {"assertions", b.assertions},
            {"sanitizer", b.sanitizer},
            {"sanitizers", b.sanitizers}}},
          {"host",
           {{"cpu_model", h.cpu_model},
            {"logical_cpus", h.logical_cpus},
            {"usable_cpus", h.usable_cpus},
            {"kernel", h.kernel},
            {"hostname", h.hostname},
            {"load_average_1m", h.load_average_1m}}},
          {"timing_valid", valid},
          {"timing_invalid_reason", reason},
          {"store", store},
          {"engine", engine},
          {"targets",
           {{"in_process", s.in_process}, {"resp", s.resp.empty() ? json(nullptr) : json(s.resp)}}},
          {"repetitions", s.repetitions},
          {"physical", s.physical},
          {"workloads", json::array()}};
}

json CallStatsJson(const CallStats& st, double wall_seconds) {
  const LatencyHistogram& h = st.latency_ns;
  const double calls = static_cast<double>(st.calls);
  json latency = {{"min", h.min()},
                  {"p50", h.Percentile(0.50)},
                  {"p90", h.Percentile(0.90)},
                  {"p99", h.Percentile(0.99)},
                  {"p999", h.Percentile(0.999)},
                  {"max", h.max()},
                  {"mean", h.mean()},
                  {"relative_precision", LatencyHistogram::kRelativePrecision}};
  json j = {{"calls", st.calls},
            {"errors", st.errors},
            {"throughput_per_s", wall_seconds > 0 ? calls / wall_seconds : 0.0},
            {"latency_ns", latency}};
  if (!st.first_error.empty()) j["first_error"] = st.first_error;
  if (st.has_kv && st.calls > 0) {
    json kv = json::object();
    json per_call = json::object();
    for (const auto& [name, value] : st.kv.Fields()) {
      kv[name] = value;
      per_call[name] = static_cast<double>(value) / calls;
    }
    j["kv"] = kv;
    j["kv_per_call"] = per_call;
    j["bytes_read_per_call"] = static_cast<double>(st.kv.bytes_read) / calls;
    j["bytes_written_per_call"] = static_cast<double>(st.kv.bytes_written) / calls;
  } else {
    j["kv"] = nullptr;
    j["kv_per_call"] = nullptr;
  }
  json counters = json::object();
  json counters_per_call = json::object();
  for (const auto& [name, value] : st.counters) {
    counters[name] = value;
    counters_per_call[name] = calls > 0 ? static_cast<double>(value) / calls : 0.0;
  }
  j["counters"] = counters;
  j["counters_per_call"] = counters_per_call;
  return j;
}

json PhaseJson(const PhaseResult& p) {
  json commands = json::object();
  for (const auto& [name, st] : p.commands) commands[name] = CallStatsJson(st, p.wall_seconds);
  json ops = json::object();
  for (const auto& [name, st] : p.ops) ops[name] = CallStatsJson(st, p.wall_seconds);
  return {{"name", p.name},
          {"kind", p.is_load ? "load" : "run"},
          {"wall_seconds", p.wall_seconds},
          {"operations", p.operations},
          {"warmup_operations", p.warmup_operations},
          {"throughput_per_s",
           p.wall_seconds > 0 ? static_cast<double>(p.operations) / p.wall_seconds : 0.0},
          {"interrupted", p.interrupted},
          {"commands", commands},
          {"ops", ops},
          {"store_counters", CountersJson(p.store_counters)}};
}

json CellJson(const CellResult& c) {
  json phases = json::array();
  for (const auto& p : c.run.phases) phases.push_back(PhaseJson(p));
  return {{"target", c.cell.target},
          {"backend", c.cell.backend},
          {"hash_version", VersionJson(c.cell.hash_version)},
          {"zset_version", VersionJson(c.cell.zset_version)},
          {"repetition", c.cell.repetition},
          {"partial", c.run.partial},
          {"error", c.run.error.empty() ? json(nullptr) : json(c.run.error)},
          {"phases", phases},
          {"disk_bytes", c.persistent ? json(c.disk_bytes) : json(nullptr)},
          {"store_counters_end", CountersJson(c.store_counters_end)},
          {"tier_memory", c.tier_memory},
          {"store_dir", c.store_kept ? json(c.store_dir) : json(nullptr)}};
}

json SweepPointJson(const SweepPoint& p) {
  json phases = json::array();
  for (const auto& ph : p.run.phases) phases.push_back(PhaseJson(ph));
  return {{"kind", p.kind},
          {"type", p.type},
          {"backend", p.cell.backend},
          {"hash_version", VersionJson(p.cell.hash_version)},
          {"zset_version", VersionJson(p.cell.zset_version)},
          {"size", p.size},
          {"rtt_us", p.rtt_us},
          {"partial", p.run.partial},
          {"error", p.run.error.empty() ? json(nullptr) : json(p.run.error)},
          {"phases", phases}};
}

json GrowthJson(const std::vector<SweepPoint>& points) {
  // (type, backend, version, probe, command) -> sizes and values, in size order.
  struct Series {
    std::vector<uint64_t> sizes;
    std::vector<double> kv_steps;
    std::vector<double> p50_ns;
  };
  std::map<std::tuple<std::string, std::string, int, std::string, std::string>, Series> series;
  for (const SweepPoint& p : points) {
    if (p.kind != "size") continue;
    const int version = p.type == "zset" ? p.cell.zset_version : p.cell.hash_version;
    for (const PhaseResult& ph : p.run.phases) {
      if (ph.is_load || ph.interrupted) continue;
      for (const auto& [command, st] : ph.commands) {
        if (st.calls == 0) continue;
        Series& s = series[{p.type, p.cell.backend, version, ph.name, command}];
        s.sizes.push_back(p.size);
        s.kv_steps.push_back(KvStepsPerCall(st.kv, st.calls));
        s.p50_ns.push_back(static_cast<double>(st.latency_ns.Percentile(0.5)));
      }
    }
  }
  json out = json::array();
  for (const auto& [key, s] : series) {
    const auto& [type, backend, version, probe, command] = key;
    const Growth kv = ClassifyGrowth(s.sizes, s.kv_steps, /*noisy=*/false);
    const Growth time = ClassifyGrowth(s.sizes, s.p50_ns, /*noisy=*/true);
    out.push_back({{"type", type},
                   {"backend", backend},
                   {"version", version},
                   {"probe", probe},
                   {"command", command},
                   {"sizes", s.sizes},
                   {"kv_steps_per_call", s.kv_steps},
                   {"p50_ns", s.p50_ns},
                   {"kv_class", kv.growth_class},
                   {"kv_slope", kv.slope},
                   {"time_class", time.growth_class},
                   {"time_slope", time.slope}});
  }
  return out;
}

BenchResult::BenchResult(const RunSettings& settings, std::string dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)) {
  json context = ContextJson(settings);
  json_ = {{"schema", kResultSchema},
           {"schema_version", kResultSchemaVersion},
           {"partial", false},
           {"partial_reason", nullptr},
           {"timing_valid", context["timing_valid"]},
           {"context", context},
           {"workloads", json::array()},
           {"sweeps", json::array()},
           {"growth", json::array()},
           {"notes", json::array()}};
}

size_t BenchResult::AddWorkload(const Workload& w) {
  json definition = json::parse(w.ToJson());
  const std::string effective = w.EffectiveSha256();
  json_["context"]["workloads"].push_back({{"name", w.name},
                                           {"source", w.source},
                                           {"source_sha256", w.source_sha256},
                                           {"effective_sha256", effective},
                                           {"seed", w.seed},
                                           {"threads", w.threads}});
  json_["workloads"].push_back({{"name", w.name},
                                {"source", w.source},
                                {"source_sha256", w.source_sha256},
                                {"effective_sha256", effective},
                                {"seed", w.seed},
                                {"threads", w.threads},
                                {"definition", definition},
                                {"runs", json::array()}});
  return json_["workloads"].size() - 1;
}

void BenchResult::AddCell(size_t workload_index, const CellResult& cell) {
  json_["workloads"][workload_index]["runs"].push_back(CellJson(cell));
}

void BenchResult::AddSweep(const SweepResult& sweep) {
  for (const auto& p : sweep.points) json_["sweeps"].push_back(SweepPointJson(p));
  for (auto& g : GrowthJson(sweep.points)) json_["growth"].push_back(std::move(g));
  for (const auto& n : sweep.notes) json_["notes"].push_back(n);
  if (sweep.partial) MarkPartial("sweep interrupted");
}

void BenchResult::MarkPartial(const std::string& reason) {
  if (!json_["partial"].get<bool>()) json_["partial_reason"] = reason;
  json_["partial"] = true;
}

void BenchResult::AddNote(const std::string& note) { json_["notes"].push_back(note); }

Status BenchResult::Write() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return Status::IOError("cannot create results directory " + dir_ + ": " + ec.message());
  if (path_.empty()) {
    // Results are only ever added: pick a name no earlier run has taken.
    const std::string stem = (fs::path(dir_) / (UtcTimestampCompact() + "-" + name_)).string();
    path_ = stem + ".json";
    for (int i = 2; fs::exists(path_, ec); ++i) path_ = stem + "-" + std::to_string(i) + ".json";
  }
  // Write a temporary file and rename it over the result, so a reader never sees half a file.
  const std::string tmp = path_ + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << json_.dump(1) << "\n";
    if (!out) return Status::IOError("cannot write " + tmp);
  }
  fs::rename(tmp, path_, ec);
  if (ec) return Status::IOError("cannot rename " + tmp + " to " + path_ + ": " + ec.message());
  return Status::OK();
}

Status ReadResultFile(const std::string& path, json* out) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("cannot read result file " + path);
  try {
    *out = json::parse(in);
  } catch (const json::parse_error& e) {
    return Status::InvalidArgument(path + ": not valid JSON: " + e.what());
  }
  if (!out->is_object() || out->value("schema", "") != kResultSchema) {
    return Status::InvalidArgument(path + ": not a kvlab bench result (schema is not '" +
                                   std::string(kResultSchema) + "')");
  }
  const int version = out->value("schema_version", 0);
  if (version != kResultSchemaVersion) {
    return Status::InvalidArgument(path + ": schema_version " + std::to_string(version) +
                                   ", this kvlab reads version " +
                                   std::to_string(kResultSchemaVersion));
  }
  return Status::OK();
}

}  // namespace kvlab::workloads
