#include "study/ranking.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/mann_whitney.h"
#include "analysis/summary.h"
#include "conformance/deviations.h"
#include "encodings/registry.h"
#include "engine/command_table.h"
#include "study/version_legend.h"

namespace kvlab::study {
using namespace kvlab::engine;  // NOLINT: this file drives that module
namespace {

using nlohmann::json;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// j[name] when present, else an empty array: a reference that outlives the call (json::value()
// returns a copy, which must not be pointed into).
const json& Array(const json& j, const char* name) {
  static const json kEmpty = json::array();
  auto it = j.find(name);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

double Num(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || !it->is_number()) return 0;
  return it->get<double>();
}

// The versions a run used, by type ("hash" -> 0); types the workload does not use are absent.
// Reads schema 1 (hash_version, zset_version) and schema 2 ("profile": {"hash": "0"}, by
// version name, "ardb" and "kvrocks" included).
std::map<std::string, int> ProfileOf(const json& run) {
  std::map<std::string, int> out;
  if (run.contains("profile") && run["profile"].is_object()) {
    for (auto it = run["profile"].begin(); it != run["profile"].end(); ++it) {
      const json& v = it.value();
      if (v.is_number_integer()) {
        out[it.key()] = v.get<int>();
      } else if (v.is_string()) {
        // By name ("0", "ardb", "kvrocks"): the registry row's id.
        const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
        const encodings::TypeSpec* type = registry.FindType(it.key());
        const encodings::EncodingSpec* row =
            type != nullptr ? registry.Find(type->type, v.get<std::string>()) : nullptr;
        if (row != nullptr) out[it.key()] = row->id;
      }
    }
    return out;
  }
  for (const char* type : {"hash", "zset"}) {
    const std::string field = std::string(type) + "_version";
    if (run.contains(field) && run[field].is_number_integer() && run[field].get<int>() >= 0) {
      out[type] = run[field].get<int>();
    }
  }
  return out;
}

std::string ProfileLabel(const std::map<std::string, int>& p) {
  std::string s;
  for (const auto& [type, v] : p) s += (s.empty() ? "" : " ") + VersionLabel(type, v);
  return s;
}

// One repetition's numbers for the commands of one type.
struct RepMetrics {
  std::map<std::string, double> criteria;  // by criterion name; absent = not measured
  json commands = json::object();          // per command detail
};

struct CommandTotals {
  double calls = 0;
  double p50_weighted = 0, p99_weighted = 0;  // sum of calls * percentile (ns)
  double kv_reads = 0, kv_writes = 0, bytes = 0, round_trips = 0;
  json kv = json::object();  // summed KV counters
};

double KvReads(const json& kv) {
  return Num(kv, "gets") + Num(kv, "multiget_keys") + Num(kv, "seeks") + Num(kv, "nexts") +
         Num(kv, "prevs");
}

double KvWrites(const json& kv) {
  return Num(kv, "puts") + Num(kv, "deletes") + Num(kv, "range_deletes") + Num(kv, "batch_records");
}

// Elements of `type` the load phase creates, from the workload definition: a command with
// {elements} loads every element of every record; another loads one element per field-value or
// score-member pair after the key, once per record.
double ElementsLoaded(const json& def, const std::string& type) {
  const json& ks = def.value("keyspace", json::object());
  const std::string ks_type = ks.value("type", "hash");
  const double records = ks.value("records", 0.0);
  const double elements = ks.value("elements", 0.0);
  double total = 0;
  for (const json& c : def.value("load", json::object()).value("commands", json::array())) {
    std::vector<std::string> args;
    if (c.is_string()) {
      std::istringstream in(c.get<std::string>());
      std::string a;
      while (in >> a) args.push_back(a);
    } else if (c.is_array()) {
      for (const json& a : c) args.push_back(a.get<std::string>());
    }
    if (args.empty() || CommandType(args[0], ks_type) != type) continue;
    const std::string name = Upper(args[0]);
    if (name != "HSET" && name != "HMSET" && name != "ZADD") continue;
    const bool all = std::find(args.begin(), args.end(), "{elements}") != args.end();
    if (all) {
      total += records * elements;
    } else if (args.size() >= 4) {
      total += records * static_cast<double>((args.size() - 2) / 2);
    }
  }
  return total;
}

RepMetrics MetricsOf(const json& run, const json& def, const std::string& type) {
  RepMetrics m;
  const std::string ks_type = def.value("keyspace", json::object()).value("type", "hash");
  std::map<std::string, CommandTotals> per_command;
  double ops = 0, wall = 0, load_bytes_written = 0;
  for (const json& phase : run.value("phases", json::array())) {
    const bool load = phase.value("kind", "") == "load";
    if (!load) {
      ops += Num(phase, "operations");
      wall += Num(phase, "wall_seconds");
    }
    const json& commands = phase.value("commands", json::object());
    for (auto it = commands.begin(); it != commands.end(); ++it) {
      if (CommandType(it.key(), ks_type) != type) continue;
      const json& st = it.value();
      const json& kv = st.contains("kv") && st["kv"].is_object() ? st["kv"] : json::object();
      if (load) {
        load_bytes_written += Num(kv, "bytes_written");
        continue;
      }
      CommandTotals& t = per_command[it.key()];
      const double calls = Num(st, "calls");
      t.calls += calls;
      const json& lat = st.value("latency_ns", json::object());
      t.p50_weighted += calls * Num(lat, "p50");
      t.p99_weighted += calls * Num(lat, "p99");
      t.kv_reads += KvReads(kv);
      t.kv_writes += KvWrites(kv);
      t.bytes += Num(kv, "bytes_read") + Num(kv, "bytes_written");
      t.round_trips += Num(st.value("counters", json::object()), "tier.tier_round_trips");
      for (auto k = kv.begin(); k != kv.end(); ++k) {
        t.kv[k.key()] = t.kv.value(k.key(), 0.0) + k.value().get<double>();
      }
    }
  }
  CommandTotals all;
  for (auto& [name, t] : per_command) {
    if (t.calls <= 0) continue;
    all.calls += t.calls;
    all.p50_weighted += t.p50_weighted;
    all.p99_weighted += t.p99_weighted;
    all.kv_reads += t.kv_reads;
    all.kv_writes += t.kv_writes;
    all.bytes += t.bytes;
    all.round_trips += t.round_trips;
    json kv_per_call = json::object();
    for (auto k = t.kv.begin(); k != t.kv.end(); ++k) {
      kv_per_call[k.key()] = k.value().get<double>() / t.calls;
    }
    m.commands[name] = {{"calls", t.calls},
                        {"p50_us", t.p50_weighted / t.calls / 1000.0},
                        {"p99_us", t.p99_weighted / t.calls / 1000.0},
                        {"kv_reads", t.kv_reads / t.calls},
                        {"kv_writes", t.kv_writes / t.calls},
                        {"kv_bytes", t.bytes / t.calls},
                        {"round_trips", t.round_trips / t.calls},
                        {"kv_per_call", kv_per_call}};
  }
  if (all.calls > 0) {
    m.criteria["latency"] = all.p50_weighted / all.calls / 1000.0;
    m.criteria["tail_latency"] = all.p99_weighted / all.calls / 1000.0;
    m.criteria["kv_ops"] = (all.kv_reads + all.kv_writes) / all.calls;
    m.criteria["kv_bytes"] = all.bytes / all.calls;
    m.criteria["round_trips"] = all.round_trips / all.calls;
  }
  if (wall > 0) m.criteria["throughput"] = ops / wall;
  const double loaded = ElementsLoaded(def, type);
  if (loaded > 0) {
    // Space is where the data persists: the KV bytes plus a store Redis's dataset (zset v3
    // keeps its zsets there). Redis memory is the tier's RAM: cache and store.
    const json& tier = run.contains("tier_memory") ? run["tier_memory"] : json::object();
    const double store = tier.contains("store") ? Num(tier["store"], "used_memory_dataset") : 0;
    const double cache = tier.contains("cache") ? Num(tier["cache"], "used_memory_dataset") : 0;
    m.criteria["space"] = (load_bytes_written + store) / loaded;
    m.criteria["redis_memory"] = (cache + store) / loaded;
  }
  return m;
}

// The deviations of the catalogue that `type` v`version` has on the workload's own commands.
json DeviationsHit(const std::vector<DeviationEntry>& catalogue, const std::string& type,
                   int version, const std::set<std::string>& commands_lower) {
  json out = json::array();
  for (const DeviationEntry& d : catalogue) {
    if (d.type != type) continue;
    if (std::find(d.versions.begin(), d.versions.end(), version) == d.versions.end()) continue;
    json hit = json::array();
    for (const std::string& c : d.commands) {
      if (commands_lower.count(c) > 0) hit.push_back(Upper(c));
    }
    if (hit.empty()) continue;
    out.push_back({{"id", d.id}, {"commands", hit}, {"reason", d.reason}});
  }
  return out;
}

double CostOf(const Criterion& c, double value, double best) {
  const double r = (value + c.floor) / (best + c.floor);
  if (!(r > 0) || !std::isfinite(r)) return 0;
  return std::fabs(std::log2(r));
}

struct VersionRuns {
  int version = 0;
  std::string profile;
  std::vector<const json*> runs;
};

// Ranks the versions of `type` on `backend` for workload `w`.
Status RankOne(const json& w, const std::string& backend, const std::string& type,
               const std::map<std::string, int>& fixed, std::vector<VersionRuns> versions,
               const RankOptions& options, json* out) {
  const json& def = w.value("definition", json::object());
  const std::string ks_type = def.value("keyspace", json::object()).value("type", "hash");
  // The workload's commands of this type (load and run), for exactness.
  std::set<std::string> commands_lower;
  std::set<std::string> run_commands;
  for (const VersionRuns& v : versions) {
    for (const json* run : v.runs) {
      for (const json& phase : run->value("phases", json::array())) {
        for (auto it = phase["commands"].begin(); it != phase["commands"].end(); ++it) {
          if (CommandType(it.key(), ks_type) != type) continue;
          commands_lower.insert(Lower(it.key()));
          if (phase.value("kind", "") != "load") run_commands.insert(it.key());
        }
      }
    }
  }
  // Per version: per-repetition metrics, then medians.
  struct Row {
    int version;
    std::string profile;
    std::map<std::string, std::vector<double>> samples;
    std::map<std::string, double> median;
    json commands;
    json deviations;
    std::vector<std::string> needs;
    double needs_units = 0;
    double disk_per_element = -1;
    size_t repetitions = 0;
    std::vector<std::string> errors;
  };
  std::vector<Row> rows;
  for (VersionRuns& v : versions) {
    Row row;
    row.version = v.version;
    row.profile = v.profile;
    std::vector<RepMetrics> reps;
    std::vector<double> disk;
    for (const json* run : v.runs) {
      if (!run->value("error", json()).is_null()) {
        row.errors.push_back(run->value("error", json()).get<std::string>());
        continue;
      }
      reps.push_back(MetricsOf(*run, def, type));
      const json& d = run->value("disk_bytes", json());
      double all_elements = 0;
      for (const char* t : {"hash", "zset"}) all_elements += ElementsLoaded(def, t);
      if (d.is_number() && all_elements > 0) disk.push_back(d.get<double>() / all_elements);
    }
    row.repetitions = reps.size();
    if (reps.empty()) {
      rows.push_back(row);
      continue;
    }
    for (const RepMetrics& r : reps) {
      for (const auto& [name, value] : r.criteria) row.samples[name].push_back(value);
    }
    for (const auto& [name, s] : row.samples) {
      row.median[name] = analysis::Summarize(s).median;
    }
    // Per-command detail: medians over repetitions of each number.
    json commands = json::object();
    for (const std::string& c : run_commands) {
      json entry = json::object();
      for (const char* field :
           {"calls", "p50_us", "p99_us", "kv_reads", "kv_writes", "kv_bytes", "round_trips"}) {
        std::vector<double> s;
        for (const RepMetrics& r : reps) {
          if (r.commands.contains(c)) s.push_back(r.commands[c].value(field, 0.0));
        }
        if (!s.empty()) entry[field] = analysis::Summarize(s).median;
      }
      if (reps[0].commands.contains(c)) entry["kv_per_call"] = reps[0].commands[c]["kv_per_call"];
      if (!entry.empty()) commands[c] = entry;
    }
    row.commands = commands;
    if (!disk.empty()) row.disk_per_element = analysis::Summarize(disk).median;
    rows.push_back(std::move(row));
  }
  for (Row& row : rows) {
    row.deviations = DeviationsHit(options.deviations, type, row.version, commands_lower);
    const VersionInfo* info = FindVersion(type, row.version);
    if (info != nullptr) {
      row.needs = VersionNeeds(*info);
      row.needs_units = (info->cache_redis ? 1 : 0) + (info->store_redis ? 2 : 0);
    }
  }
  size_t fewest_deviations = SIZE_MAX;
  for (const Row& row : rows)
    fewest_deviations = std::min(fewest_deviations, row.deviations.size());

  // Best per criterion, then every version's ratio to it and its cost.
  json criteria_json = json::object();
  std::map<int, double> score;
  std::map<int, json> row_criteria;
  for (const Criterion& c : Criteria()) {
    const std::string name = c.name;
    const double weight = options.weights.count(name) ? options.weights.at(name) : 0;
    if (name == "exactness" || name == "needs") {
      for (const Row& row : rows) {
        if (row.repetitions == 0) continue;
        const double value =
            name == "exactness" ? static_cast<double>(row.deviations.size()) : row.needs_units;
        const double extra =
            name == "exactness" ? value - static_cast<double>(fewest_deviations) : value;
        const double cost = weight * extra;
        row_criteria[row.version][name] = {{"value", value}, {"cost", cost}};
        score[row.version] += cost;
      }
      continue;
    }
    const Row* best = nullptr;
    for (const Row& row : rows) {
      if (!row.median.count(name)) continue;
      if (best == nullptr) {
        best = &row;
        continue;
      }
      const double v = row.median.at(name), b = best->median.at(name);
      if (c.higher_is_better ? v > b : v < b) best = &row;
    }
    if (best == nullptr) continue;
    const double best_value = best->median.at(name);
    for (const Row& row : rows) {
      if (!row.median.count(name)) continue;
      const double value = row.median.at(name);
      json cj = {{"value", value}};
      bool differs = false;
      const double ratio = best_value != 0 ? value / best_value : (value == 0 ? 1.0 : INFINITY);
      cj["ratio"] = std::isfinite(ratio) ? json(ratio) : json(nullptr);
      if (c.timed) {
        cj["samples"] = row.samples.at(name);
        const auto& num = row.samples.at(name);
        const auto& den = best->samples.at(name);
        const bool positive = std::all_of(num.begin(), num.end(), [](double x) { return x > 0; }) &&
                              std::all_of(den.begin(), den.end(), [](double x) { return x > 0; });
        if (&row != best && positive) {
          const analysis::RatioInterval ri = analysis::RatioOfMedians(num, den, options.confidence);
          cj["low"] = ri.low;
          cj["high"] = ri.high;
          cj["confidence"] = ri.confidence;
          cj["attainable"] = ri.attainable;
          differs = ri.significant;
        }
        cj["significant"] = differs;
      } else {
        const double scale = std::max(std::fabs(value), std::fabs(best_value));
        differs = scale > 0 && std::fabs(value - best_value) > options.materiality * scale &&
                  std::fabs(value - best_value) > 1e-9;
        cj["material"] = differs;
      }
      const double cost = differs ? weight * CostOf(c, value, best_value) : 0;
      cj["cost"] = cost;
      cj["best"] = &row == best;
      row_criteria[row.version][name] = cj;
      score[row.version] += cost;
    }
    criteria_json[name] = {{"best_version", best->version},
                           {"best_label", VersionLabel(type, best->version)},
                           {"best_value", best_value}};
  }

  // Order by score; equal scores share a rank; failed versions last.
  std::vector<const Row*> order;
  for (const Row& row : rows) order.push_back(&row);
  std::stable_sort(order.begin(), order.end(), [&](const Row* a, const Row* b) {
    if ((a->repetitions == 0) != (b->repetitions == 0)) return b->repetitions == 0;
    const double sa = score[a->version], sb = score[b->version];
    if (std::fabs(sa - sb) > 1e-9) return sa < sb;
    return a->version < b->version;
  });
  json rows_json = json::array();
  int rank = 0;
  double last_score = -1;
  for (size_t i = 0; i < order.size(); ++i) {
    const Row& row = *order[i];
    const double s = score[row.version];
    if (row.repetitions == 0) {
      rank = 0;
    } else if (i == 0 || std::fabs(s - last_score) > 1e-9) {
      rank = static_cast<int>(i) + 1;
    }
    last_score = s;
    json r = {
        {"rank", row.repetitions == 0 ? json(nullptr) : json(rank)},
        {"version", row.version},
        {"label", VersionLabel(type, row.version)},
        {"profile", row.profile},
        {"score", row.repetitions == 0 ? json(nullptr) : json(s)},
        {"repetitions", row.repetitions},
        {"criteria", row_criteria.count(row.version) ? row_criteria[row.version] : json::object()},
        {"commands", row.commands},
        {"deviations", row.deviations},
        {"needs", row.needs},
        {"disk_bytes_per_element",
         row.disk_per_element >= 0 ? json(row.disk_per_element) : json(nullptr)},
        {"errors", row.errors}};
    rows_json.push_back(r);
  }
  json fixed_json = json::object();
  for (const auto& [t, v] : fixed) fixed_json[t] = {{"version", v}, {"label", VersionLabel(t, v)}};
  *out = {{"workload", w.value("name", "")},
          {"backend", backend},
          {"type", type},
          {"fixed", fixed_json},
          {"commands", std::vector<std::string>(run_commands.begin(), run_commands.end())},
          {"elements_loaded", ElementsLoaded(def, type)},
          {"criteria", criteria_json},
          {"rows", rows_json}};
  return Status::OK();
}

}  // namespace

const std::vector<Criterion>& Criteria() {
  static const std::vector<Criterion> kCriteria = {
      {"latency", "p50", "µs",
       "median latency of the type's commands (call-weighted mean of each command's p50)", false,
       true, 0, 2},
      {"tail_latency", "p99", "µs", "p99 latency of the type's commands (call-weighted mean)",
       false, true, 0, 1},
      {"throughput", "ops/s", "ops/s",
       "operations per second of the whole workload (the other types at their fixed version)", true,
       true, 0, 1},
      {"kv_ops", "KV ops", "/cmd",
       "KV operations per command of the type: point reads, seeks, nexts, prevs and written "
       "records (exact)",
       false, false, 1, 0.5},
      {"kv_bytes", "KV bytes", "B/cmd", "KV bytes read and written per command (exact)", false,
       false, 64, 0.25},
      {"round_trips", "Redis RTs", "/cmd", "Redis-tier round trips per command", false, false, 1,
       0.5},
      {"redis_memory", "Redis B/elem", "B",
       "Redis-tier memory (INFO used_memory_dataset, cache and store) per element loaded", false,
       false, 16, 0.5},
      {"space", "B/elem", "B",
       "bytes of data per element loaded: the KV bytes the load wrote (keys + values, key-meta "
       "rewrites included) plus a store Redis's dataset",
       false, false, 16, 1},
      {"exactness", "deviations", "",
       "catalogued reply deviations the workload's commands hit (cost: each beyond the fewest)",
       false, false, 0, 1},
      {"needs", "needs", "",
       "what the version needs beside the KV store (cost: 1 per cache Redis, 2 per store Redis)",
       false, false, 0, 1},
  };
  return kCriteria;
}

const Criterion* FindCriterion(const std::string& name) {
  for (const Criterion& c : Criteria()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

Weights DefaultWeights() {
  Weights w;
  for (const Criterion& c : Criteria()) w[c.name] = c.default_weight;
  return w;
}

Status ParseWeights(const std::string& text, Weights* out) {
  std::string names;
  for (const Criterion& c : Criteria()) names += std::string(names.empty() ? "" : ", ") + c.name;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("--weights: '" + item +
                                     "' is not NAME=WEIGHT (names: " + names + ")");
    }
    const std::string name = item.substr(0, eq);
    const std::string value = item.substr(eq + 1);
    if (FindCriterion(name) == nullptr) {
      return Status::InvalidArgument("--weights: unknown criterion '" + name +
                                     "' (names: " + names + ")");
    }
    double w = 0;
    size_t used = 0;
    try {
      w = std::stod(value, &used);
    } catch (...) {
      used = 0;
    }
    if (used != value.size() || value.empty() || !std::isfinite(w) || w < 0) {
      return Status::InvalidArgument("--weights: " + name + "=" + value +
                                     ": a weight is a number >= 0");
    }
    (*out)[name] = w;
  }
  return Status::OK();
}

std::string FormatWeights(const Weights& w) {
  std::string s;
  for (const Criterion& c : Criteria()) {
    std::ostringstream v;
    v << (w.count(c.name) ? w.at(c.name) : 0.0);
    s += std::string(s.empty() ? "" : ", ") + c.name + "=" + v.str();
  }
  return s;
}

Status LoadDeviationEntries(const std::string& path, std::vector<DeviationEntry>* out) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read the deviations catalogue " + path);
  try {
    const json doc = json::parse(in);
    out->clear();
    for (const json& d : doc.at("deviations")) {
      DeviationEntry e;
      e.id = d.at("id").get<std::string>();
      e.type = d.at("type").get<std::string>();
      // Schema 2 catalogues leave the versions to the registry rows that list the entry.
      // Entries of type "any" (OBJECT, MEMORY) hold for every version alike, so they never set
      // versions apart: a ranking leaves them out.
      if (e.type == conformance::kAnyType) continue;
      if (d.contains("versions")) {
        e.versions = d.at("versions").get<std::vector<int>>();
      } else {
        const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
        const encodings::TypeSpec* type = registry.FindType(e.type);
        if (type == nullptr) {
          return Status::InvalidArgument(path + ": " + e.id + ": type " + e.type +
                                         " is not a type of the encoding registry");
        }
        for (const encodings::EncodingSpec* row : registry.VersionsOf(type->type)) {
          if (std::find(row->deviations.begin(), row->deviations.end(), e.id) !=
              row->deviations.end()) {
            e.versions.push_back(row->id);
          }
        }
      }
      e.commands = d.at("commands").get<std::vector<std::string>>();
      e.reason = d.value("reason", "");
      out->push_back(std::move(e));
    }
  } catch (const std::exception& e) {
    return Status::InvalidArgument(path + ": " + e.what());
  }
  return Status::OK();
}

std::string CommandType(const std::string& command, const std::string& keyspace_type) {
  const CommandSpec* spec = CommandTable::Get().Find(command);
  if (spec == nullptr) return keyspace_type;
  if (spec->group == "hash") return "hash";
  if (spec->group == "sorted-set") return "zset";
  if (spec->group == "string") return "string";
  return keyspace_type;
}

Status RankResult(const json& bench_result, const RankOptions& options, json* rankings) {
  size_t added = 0;
  for (const json& w : Array(bench_result, "workloads")) {
    // Cells by backend; the profiles seen.
    std::map<std::string, std::vector<const json*>> by_backend;
    std::vector<std::string> backend_order;
    for (const json& run : Array(w, "runs")) {
      const std::string b = run.value("backend", "");
      if (!by_backend.count(b)) backend_order.push_back(b);
      by_backend[b].push_back(&run);
    }
    for (const std::string& backend : backend_order) {
      const auto& runs = by_backend[backend];
      std::set<std::string> types;
      for (const json* r : runs) {
        for (const auto& [t, v] : ProfileOf(*r)) types.insert(t);
      }
      for (const std::string& type : types) {
        if (!options.types.empty() &&
            std::find(options.types.begin(), options.types.end(), type) == options.types.end()) {
          continue;
        }
        // The fixed versions of the other types: the most common profile among the runs is
        // the baseline (version 0 of each, unless the study said otherwise); the versions of
        // `type` are those of the runs that agree with it on every other type.
        std::map<std::map<std::string, int>, int> others_count;
        for (const json* r : runs) {
          auto p = ProfileOf(*r);
          p.erase(type);
          ++others_count[p];
        }
        std::map<std::string, int> fixed;
        int best_count = -1;
        for (const auto& [p, n] : others_count) {
          // Prefer the profile with the most runs; on a tie, the lowest versions (map order).
          if (n > best_count) {
            fixed = p;
            best_count = n;
          }
        }
        std::map<int, VersionRuns> by_version;
        for (const json* r : runs) {
          auto p = ProfileOf(*r);
          if (!p.count(type)) continue;
          const int v = p[type];
          auto others = p;
          others.erase(type);
          if (others != fixed) continue;
          VersionRuns& vr = by_version[v];
          vr.version = v;
          vr.profile = ProfileLabel(p);
          vr.runs.push_back(r);
        }
        if (by_version.size() < 2) continue;
        std::vector<VersionRuns> versions;
        for (auto& [v, vr] : by_version) versions.push_back(vr);
        json one;
        KVLAB_RETURN_IF_ERROR(RankOne(w, backend, type, fixed, versions, options, &one));
        rankings->push_back(std::move(one));
        ++added;
      }
    }
  }
  if (added == 0) {
    return Status::InvalidArgument(
        "nothing to rank: the result has no backend with two or more versions of a type (run "
        "every version of a type the workload uses)");
  }
  return Status::OK();
}

}  // namespace kvlab::study
