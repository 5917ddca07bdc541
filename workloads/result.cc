#include "workloads/result.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
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

// {"hash": "0", "zset": null}: type name -> version name, null when unknown.
json ProfileJson(const encodings::EncodingProfile& profile) {
  json j = json::object();
  for (const auto& [type, version] : profile.versions) {
    j[type] = version ? json(*version) : json(nullptr);
  }
  return j;
}

// Schema 1's "h0 z1" from hash_version and zset_version (null or absent: left out).
std::string LabelOfVersionPair(const json& run) {
  std::string label;
  for (const auto& [member, letter] : {std::pair{"hash_version", "h"}, {"zset_version", "z"}}) {
    auto it = run.find(member);
    if (it == run.end() || it->is_null()) continue;
    label += (label.empty() ? "" : " ") + std::string(letter) + std::to_string(it->get<int>());
  }
  return label;
}

// Schema 1's pair as a schema 2 profile: {"hash": "0"} for each member present; a member that
// is null means the type was unused or the server did not say, which schema 1 cannot tell
// apart: it is left out.
json ProfileOfVersionPair(const json& run) {
  json profile = json::object();
  for (const auto& [member, type] : {std::pair{"hash_version", "hash"}, {"zset_version", "zset"}}) {
    auto it = run.find(member);
    if (it != run.end() && !it->is_null()) profile[type] = std::to_string(it->get<int>());
  }
  return profile;
}

// Rewrites a schema 1 document in place into schema 2's shape (docs/results-schema.md).
void UpgradeFromSchema1(json* doc) {
  for (json& w : (*doc)["workloads"]) {
    for (json& run : w["runs"]) {
      run["profile"] = ProfileOfVersionPair(run);
      run["profile_label"] = LabelOfVersionPair(run);
      run.erase("hash_version");
      run.erase("zset_version");
    }
  }
  for (json& p : (*doc)["sweeps"]) {
    p["profile"] = ProfileOfVersionPair(p);
    p["profile_label"] = LabelOfVersionPair(p);
    p.erase("hash_version");
    p.erase("zset_version");
  }
  for (json& g : (*doc)["growth"]) {
    if (g.contains("version") && g["version"].is_number_integer()) {
      g["version"] = std::to_string(g["version"].get<int>());
    }
  }
  json& context = (*doc)["context"];
  if (context.contains("engine")) {
    json versions = json::object();
    for (const auto& [member, type] :
         {std::pair{"hash_versions", "hash"}, {"zset_versions", "zset"}}) {
      if (!context["engine"].contains(member)) continue;
      json names = json::array();
      for (const json& v : context["engine"][member]) names.push_back(std::to_string(v.get<int>()));
      versions[type] = names;
      context["engine"].erase(member);
    }
    context["versions"] = versions;
  }
  (*doc)["schema_version"] = kResultSchemaVersion;
  (*doc)["upgraded_from_schema_version"] = 1;
}

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
                {"column_families", !s.store.options.key_spaces.empty()},
                {"rtt_us", s.store.remote_latency ? s.store.remote.round_trip.count() : 0},
                {"scan_page_rows", s.store.remote.scan_page_rows},
                {"dir", s.store.options.dir}};
  json engine = {{"namespace_prefix", s.engine.keys.ns_prefix},
                 {"md5_prefix", s.engine.keys.md5_prefix}};
  // The matrix's versions, by type; and what every version of the registry is, for reports.
  json versions = json::object();
  for (const auto& [type, names] : s.versions) versions[type] = names;
  const encodings::EncodingRegistry& registry = RegistryOf(s.engine);
  json encodings = json::object();
  for (const encodings::TypeSpec& type : registry.types()) {
    json rows = json::array();
    for (const encodings::EncodingSpec* row : registry.VersionsOf(type.type)) {
      rows.push_back({{"name", row->name},
                      {"id", row->id},
                      {"summary", row->summary},
                      {"color", row->color},
                      {"meta_has_count", row->meta_has_count},
                      {"tier", encodings::TierUseName(row->tier)}});
    }
    encodings[std::string(type.name)] = {{"letter", type.letter}, {"versions", rows}};
  }
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
          {"versions", versions},
          {"encodings", encodings},
          {"targets",
           {{"in_process", s.in_process}, {"resp", s.resp.empty() ? json(nullptr) : json(s.resp)}}},
          {"repetitions", s.repetitions},
          {"physical", s.physical},
          {"allow_degraded", s.allow_degraded},
          {"gc_at_end", s.gc_at_end},
          {"load_model", LoadModelJson(s.open_loop)},
          // --reclaim: null without the axis.
          {"reclaim", s.reclaim.empty()
                          ? json(nullptr)
                          : json{{"mechanisms", s.reclaim},
                                 {"interval_ms", s.reclaim_options.interval.count()},
                                 {"sample_interval_ms", s.reclaim_options.sample_interval.count()},
                                 {"compaction_grace_ms", s.compaction_grace_ms}}},
          {"workloads", json::array()}};
}

namespace {

json LatencyJson(const LatencyHistogram& h) {
  return {{"min", h.min()},
          {"p50", h.Percentile(0.50)},
          {"p90", h.Percentile(0.90)},
          {"p99", h.Percentile(0.99)},
          {"p999", h.Percentile(0.999)},
          {"max", h.max()},
          {"mean", h.mean()},
          {"relative_precision", LatencyHistogram::kRelativePrecision}};
}

}  // namespace

json CallStatsJson(const CallStats& st, double wall_seconds) {
  const double calls = static_cast<double>(st.calls);
  json j = {{"calls", st.calls},
            {"errors", st.errors},
            {"throughput_per_s", wall_seconds > 0 ? calls / wall_seconds : 0.0},
            {"latency_ns", LatencyJson(st.latency_ns)}};
  // Open loop: the latency from each call's intended start (coordinated omission corrected).
  if (st.intended_ns.count() > 0) j["intended_latency_ns"] = LatencyJson(st.intended_ns);
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
  json j = {{"name", p.name},
            {"kind", p.is_load    ? "load"
                     : p.is_probe ? "probe"
                                  : "run"},
            {"wall_seconds", p.wall_seconds},
            {"operations", p.operations},
            {"warmup_operations", p.warmup_operations},
            {"throughput_per_s",
             p.wall_seconds > 0 ? static_cast<double>(p.operations) / p.wall_seconds : 0.0},
            {"interrupted", p.interrupted},
            {"commands", commands},
            {"ops", ops},
            {"store_counters", CountersJson(p.store_counters)}};
  if (p.at) j["at"] = *p.at;
  if (p.open_loop) j["open_loop"] = OpenLoopRecordJson(*p.open_loop);
  if (!p.not_replayed.empty()) {
    json skipped = json::object();
    for (const auto& [name, n] : p.not_replayed) {
      skipped[name] = {{"count", n.count}, {"reason", n.reason}};
    }
    j["not_replayed"] = skipped;
  }
  return j;
}

// The probe samples of a run's probed phases, per probe command: its cost at each sample and
// relative to the first sample (the cost before the phase's first operation).
json ProbesJson(const std::vector<PhaseResult>& phases) {
  // (probe phase name, command) -> the samples' stats, in order.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<uint64_t, const CallStats*>>>
      series;
  for (const PhaseResult& p : phases) {
    if (!p.is_probe) continue;
    for (const auto& [command, st] : p.commands) {
      series[{p.name, command}].emplace_back(p.at.value_or(0), &st);
    }
  }
  json out = json::array();
  for (const auto& [key, samples] : series) {
    json at = json::array(), p50 = json::array(), mean = json::array(), p50_ratio = json::array(),
         mean_ratio = json::array(), kv_steps = json::array(), kv_steps_ratio = json::array();
    std::map<std::string, json> counters;
    const CallStats& first = *samples.front().second;
    const double p50_0 = first.latency_ns.Percentile(0.50);
    const double mean_0 = first.latency_ns.mean();
    const double steps_0 = KvStepsPerCall(first.kv, first.calls);
    double max_p50_ratio = 0, max_mean_ratio = 0;
    auto ratio = [](double v, double v0) { return v0 > 0 ? json(v / v0) : json(nullptr); };
    for (const auto& [when, st] : samples) {
      at.push_back(when);
      const double p = st->latency_ns.Percentile(0.50), m = st->latency_ns.mean();
      const double steps = st->has_kv ? KvStepsPerCall(st->kv, st->calls) : 0;
      p50.push_back(p);
      mean.push_back(m);
      p50_ratio.push_back(ratio(p, p50_0));
      mean_ratio.push_back(ratio(m, mean_0));
      if (p50_0 > 0) max_p50_ratio = std::max(max_p50_ratio, p / p50_0);
      if (mean_0 > 0) max_mean_ratio = std::max(max_mean_ratio, m / mean_0);
      kv_steps.push_back(st->has_kv ? json(steps) : json(nullptr));
      kv_steps_ratio.push_back(st->has_kv ? ratio(steps, steps_0) : json(nullptr));
      for (const auto& [name, value] : st->counters) {
        json& c = counters[name];
        if (c.is_null()) c = json::array();
        while (c.size() + 1 < at.size()) c.push_back(nullptr);
        c.push_back(st->calls > 0 ? static_cast<double>(value) / st->calls : 0.0);
      }
    }
    json counters_per_call = json::object();
    for (auto& [name, values] : counters) {
      while (values.size() < at.size()) values.push_back(nullptr);
      counters_per_call[name] = values;
    }
    out.push_back({{"phase", key.first},
                   {"command", key.second},
                   {"at", at},
                   {"p50_ns", p50},
                   {"p50_ratio", p50_ratio},
                   {"max_p50_ratio", max_p50_ratio},
                   {"mean_ns", mean},
                   {"mean_ratio", mean_ratio},
                   {"max_mean_ratio", max_mean_ratio},
                   {"kv_steps_per_call", kv_steps},
                   {"kv_steps_ratio", kv_steps_ratio},
                   {"counters_per_call", counters_per_call}});
  }
  return out;
}

json CellJson(const CellResult& c) {
  json phases = json::array();
  for (const auto& p : c.run.phases) phases.push_back(PhaseJson(p));
  json out = {{"target", c.cell.target},
              {"backend", c.cell.backend},
              {"profile", ProfileJson(c.cell.profile)},
              {"profile_label", c.cell.profile_label},
              {"repetition", c.cell.repetition},
              {"partial", c.run.partial},
              {"error", c.run.error.empty() ? json(nullptr) : json(c.run.error)},
              {"degraded", !c.degraded.empty()},
              {"degraded_reason", c.degraded.empty() ? json(nullptr) : json(c.degraded)},
              {"phases", phases},
              {"key_spaces", c.key_spaces.empty() ? json(nullptr) : json(c.key_spaces)},
              {"disk_bytes", c.persistent ? json(c.disk_bytes) : json(nullptr)},
              {"disk_log_bytes", c.persistent ? json(c.disk_log_bytes) : json(nullptr)},
              {"store_counters_end", CountersJson(c.store_counters_end)},
              {"tier_memory", c.tier_memory},
              {"space", SpaceJson(c.space, c.persistent, c.disk_bytes)},
              {"load_space", LoadSpaceJson(c.load_space)},
              {"store_dir", c.store_kept ? json(c.store_dir) : json(nullptr)}};
  // The reclaim axis (--reclaim): present in its cells only.
  if (!c.cell.reclaim.empty()) out["reclaim"] = ReclaimJson(c.reclaim, c.run);
  const bool probed = std::any_of(c.run.phases.begin(), c.run.phases.end(),
                                  [](const PhaseResult& p) { return p.is_probe; });
  if (probed) out["probes"] = ProbesJson(c.run.phases);
  return out;
}

json SweepPointJson(const SweepPoint& p) {
  json phases = json::array();
  for (const auto& ph : p.run.phases) phases.push_back(PhaseJson(ph));
  return {{"kind", p.kind},
          {"type", p.type},
          {"backend", p.cell.backend},
          {"profile", ProfileJson(p.cell.profile)},
          {"profile_label", p.cell.profile_label},
          {"size", p.size},
          {"rtt_us", p.rtt_us},
          {"cache", p.cache},
          {"repetition", p.repetition},
          {"partial", p.run.partial},
          {"error", p.run.error.empty() ? json(nullptr) : json(p.run.error)},
          {"degraded", !p.degraded.empty()},
          {"degraded_reason", p.degraded.empty() ? json(nullptr) : json(p.degraded)},
          {"phases", phases}};
}

namespace {

double Counter(const CallStats& st, const char* name) {
  auto it = st.counters.find(name);
  return it == st.counters.end() || st.calls == 0
             ? 0.0
             : static_cast<double>(it->second) / static_cast<double>(st.calls);
}

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

json GrowthJson(const std::vector<SweepPoint>& points) {
  // (type, backend, version, cache, probe, command) -> size -> one value per repetition.
  struct AtSize {
    std::vector<double> kv_steps, tier_round_trips, tier_commands, p50_ns;
  };
  using Key =
      std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, std::map<uint64_t, AtSize>> series;
  for (const SweepPoint& p : points) {
    if (p.kind != "size" || !p.degraded.empty()) continue;
    const std::string version = p.cell.profile.VersionOf(p.type).value_or("");
    for (const PhaseResult& ph : p.run.phases) {
      if (ph.is_load || ph.interrupted) continue;
      for (const auto& [command, st] : ph.commands) {
        if (st.calls == 0) continue;
        AtSize& at = series[{p.type, p.cell.backend, version, p.cache, ph.name, command}][p.size];
        at.kv_steps.push_back(KvStepsPerCall(st.kv, st.calls));
        at.tier_round_trips.push_back(Counter(st, "tier.tier_round_trips"));
        at.tier_commands.push_back(Counter(st, "tier.tier_commands"));
        at.p50_ns.push_back(static_cast<double>(st.latency_ns.Percentile(0.5)));
      }
    }
  }
  json out = json::array();
  for (const auto& [key, by_size] : series) {
    const auto& [type, backend, version, cache, probe, command] = key;
    std::vector<uint64_t> sizes;
    std::vector<double> kv, round_trips, commands, cost, p50;
    std::vector<std::vector<double>> p50_reps;
    for (const auto& [size, at] : by_size) {
      sizes.push_back(size);
      // Counts are exact and equal in every repetition; the median guards against none.
      kv.push_back(MedianOf(at.kv_steps));
      round_trips.push_back(MedianOf(at.tier_round_trips));
      commands.push_back(MedianOf(at.tier_commands));
      cost.push_back(kv.back() + commands.back());
      p50.push_back(MedianOf(at.p50_ns));
      p50_reps.push_back(at.p50_ns);
    }
    const Growth kv_growth = ClassifyGrowth(sizes, kv, /*noisy=*/false);
    const Growth cost_growth = ClassifyGrowth(sizes, cost, /*noisy=*/false);
    const TimeGrowth time = ClassifyTimeGrowth(sizes, p50_reps);
    out.push_back({{"type", type},
                   {"backend", backend},
                   {"version", version},
                   {"cache", cache},
                   {"probe", probe},
                   {"command", command},
                   {"sizes", sizes},
                   {"kv_steps_per_call", kv},
                   {"tier_round_trips_per_call", round_trips},
                   {"tier_commands_per_call", commands},
                   {"cost_steps_per_call", cost},
                   {"p50_ns", p50},
                   {"p50_ns_repetitions", p50_reps},
                   {"kv_class", kv_growth.growth_class},
                   {"kv_slope", kv_growth.slope},
                   {"cost_class", cost_growth.growth_class},
                   {"cost_slope", cost_growth.slope},
                   {"time_class", time.growth_class},
                   {"time_slope", time.slope},
                   {"time_slope_interval", {time.slope_low, time.slope_high}},
                   {"time_confidence", time.confidence},
                   {"time_repetitions", time.repetitions},
                   {"time_note", time.why}});
  }
  return out;
}

BenchResult::BenchResult(const RunSettings& settings, std::string dir, std::string name)
    : dir_(std::move(dir)), name_(std::move(name)) {
  json context = ContextJson(settings);
  json_ = {{"schema", kResultSchema},
           {"schema_version", kResultSchemaVersion},
           {"complete", false},
           {"partial", true},
           {"partial_reason", kIncompleteReason},
           {"timing_valid", context["timing_valid"]},
           {"warnings", json::array()},
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
  if (partial_reason_.empty()) partial_reason_ = reason;
  if (json_["complete"].get<bool>()) json_["partial_reason"] = partial_reason_;
}

void BenchResult::MarkComplete() {
  json_["complete"] = true;
  json_["partial"] = !partial_reason_.empty();
  json_["partial_reason"] = partial_reason_.empty() ? json(nullptr) : json(partial_reason_);
}

void BenchResult::AddNote(const std::string& note) { json_["notes"].push_back(note); }

void BenchResult::AddWarning(const std::string& warning) { json_["warnings"].push_back(warning); }

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
  const std::string text = json_.dump(1) + "\n";
  std::FILE* out = std::fopen(tmp.c_str(), "w");
  if (out == nullptr) return Status::IOError("cannot write " + tmp + ": " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  const int write_errno = errno;
  if (std::fclose(out) != 0 || !written) {
    const int e = written ? errno : write_errno;
    fs::remove(tmp, ec);
    return Status::IOError("cannot write " + tmp + ": " + std::strerror(e));
  }
  fs::rename(tmp, path_, ec);
  if (ec) return Status::IOError("cannot rename " + tmp + " to " + path_ + ": " + ec.message());
  return Status::OK();
}

Status NormalizeResult(json* doc, const std::string& source) {
  if (!doc->is_object() || doc->value("schema", "") != kResultSchema) {
    return Status::InvalidArgument(source + ": not a kvlab bench result (schema is not '" +
                                   std::string(kResultSchema) + "')");
  }
  const json& v = (*doc)["schema_version"];
  const int version = v.is_number_integer() ? v.get<int>() : 0;
  if (version == 1) {
    UpgradeFromSchema1(doc);
  } else if (version != kResultSchemaVersion) {
    return Status::InvalidArgument(source + ": schema_version " + v.dump() +
                                   ", this kvlab reads versions 1 and " +
                                   std::to_string(kResultSchemaVersion));
  }
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
  return NormalizeResult(out, path);
}

}  // namespace kvlab::workloads
