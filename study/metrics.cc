#include "study/metrics.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "encodings/registry.h"
#include "engine/command_table.h"
#include "workloads/generators.h"
#include "workloads/op_expander.h"

namespace kvlab::study {
namespace {

using encodings::EncodingRegistry;
using encodings::TierUse;
using engine::CommandSpec;
using engine::CommandTable;
using nlohmann::json;

const EncodingRegistry& Registry() { return EncodingRegistry::Builtin(); }

double Num(const json& j, const char* name) {
  if (!j.is_object()) return 0;
  auto it = j.find(name);
  if (it == j.end() || !it->is_number()) return 0;
  return it->get<double>();
}

// j[a][b]... as an object, or an empty object: a reference that outlives the call.
const json& Object(const json& j, std::initializer_list<const char*> path) {
  static const json kEmpty = json::object();
  const json* at = &j;
  for (const char* name : path) {
    if (!at->is_object()) return kEmpty;
    auto it = at->find(name);
    if (it == at->end() || !it->is_object()) return kEmpty;
    at = &*it;
  }
  return *at;
}

double KvReads(const json& kv) {
  return Num(kv, "gets") + Num(kv, "multiget_keys") + Num(kv, "seeks") + Num(kv, "nexts") +
         Num(kv, "prevs");
}

double KvWrites(const json& kv) {
  return Num(kv, "puts") + Num(kv, "deletes") + Num(kv, "range_deletes") + Num(kv, "batch_records");
}

std::string KeyspaceType(const json& definition) {
  return Object(definition, {"keyspace"}).value("type", "hash");
}

// The Redis tier roles a version uses ("cache", "store"), from its registry row.
std::vector<std::string> TierRoles(const std::string& type, const std::string& version) {
  const encodings::TypeSpec* t = Registry().FindType(type);
  const encodings::EncodingSpec* row = t != nullptr ? Registry().Find(t->type, version) : nullptr;
  if (row == nullptr || row->tier == TierUse::kNone) return {};
  if (row->tier == TierUse::kStore) return {"cache", "store"};
  return {"cache"};
}

struct CommandTotals {
  double calls = 0;
  double p50_weighted = 0, p99_weighted = 0;  // sum of calls * percentile (ns)
  double kv_reads = 0, kv_writes = 0, bytes = 0, round_trips = 0;
  json kv = json::object();  // summed KV counters
};

}  // namespace

Profile ProfileOf(const json& run) {
  Profile out;
  const json& p = Object(run, {"profile"});
  for (auto it = p.begin(); it != p.end(); ++it) {
    if (it.value().is_string()) out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

std::string ProfileLabel(const Profile& profile) {
  std::string label;
  std::map<std::string, std::string> rest = profile;
  for (const encodings::TypeSpec& t : Registry().types()) {
    auto it = rest.find(std::string(t.name));
    if (it == rest.end()) continue;
    label += (label.empty() ? "" : " ") + std::string(t.letter) + it->second;
    rest.erase(it);
  }
  for (const auto& [type, version] : rest) {
    label += (label.empty() ? "" : " ") + type + "=" + version;
  }
  return label;
}

std::string CommandType(const std::string& command, const std::string& keyspace_type) {
  const CommandSpec* spec = CommandTable::Get().Find(command);
  if (spec == nullptr) return keyspace_type;
  if (const encodings::TypeSpec* t = Registry().FindTypeByGroup(spec->group); t != nullptr) {
    return std::string(t->name);
  }
  if (spec->group == "string" || spec->group == "bitmap") return "string";
  return keyspace_type;
}

namespace {

// A distribution of the definition by name, or false when it is missing or malformed.
bool DistributionOf(const json& def, const std::string& name,
                    workloads::EmpiricalDistribution* out) {
  const json& d = Object(def, {"distributions"});
  auto it = d.find(name);
  if (it == d.end() || !it->is_object() || !it->contains("quantiles")) return false;
  std::vector<workloads::EmpiricalDistribution::Point> points;
  for (const json& q : (*it)["quantiles"]) {
    if (!q.is_array() || q.size() != 2 || !q[0].is_number() || !q[1].is_number()) return false;
    points.push_back({q[0].get<double>(), q[1].get<double>()});
  }
  return workloads::EmpiricalDistribution::Make(std::move(points), out).ok();
}

// The elements the synthetic collections of records [from, to) hold: `arg` is
// {fields:N:L:V}, {members:N:L} or {scored:N:L}, and `key` the key template. -1 when `arg` is
// not one.
double SyntheticElements(const json& def, const std::string& arg, const std::string& key,
                         uint64_t from, uint64_t to) {
  std::string head;
  for (const char* h : {"{fields:", "{members:", "{scored:"}) {
    if (arg.starts_with(h) && arg.ends_with("}")) head = h;
  }
  if (head.empty()) return -1;
  const std::string inner = arg.substr(head.size(), arg.size() - head.size() - 1);
  const size_t colon = inner.find(':');
  if (colon == std::string::npos) return -1;
  const size_t next = inner.find(':', colon + 1);
  workloads::EmpiricalDistribution size, length;
  if (!DistributionOf(def, inner.substr(0, colon), &size) ||
      !DistributionOf(def, inner.substr(colon + 1, next - colon - 1), &length)) {
    return -1;
  }
  const std::string prefix = Object(def, {"keyspace"}).value("key_prefix", "");
  double total = 0;
  for (uint64_t r = from; r < to; ++r) {
    // The key of record r, as the load expands it: the collection is a function of the key.
    std::string k = key;
    for (const auto& [placeholder, value] :
         {std::pair<std::string, std::string>{"{key_id}", std::to_string(r)},
          std::pair<std::string, std::string>{"{key}", prefix + std::to_string(r)}}) {
      for (size_t at = k.find(placeholder); at != std::string::npos; at = k.find(placeholder)) {
        k.replace(at, placeholder.size(), value);
      }
    }
    total += static_cast<double>(workloads::SyntheticCollection(k, size, length).size());
  }
  return total;
}

}  // namespace

double ElementsLoaded(const json& def, const std::string& type) {
  const encodings::TypeSpec* spec = Registry().FindType(type);
  if (spec == nullptr) return 0;
  const json& ks = Object(def, {"keyspace"});
  const std::string ks_type = ks.value("type", "hash");
  const encodings::TypeSpec* ks_spec = Registry().FindType(ks_type);
  const double records = ks.value("records", 0.0);
  const double elements = ks.value("elements", 0.0);
  double total = 0;
  for (const json& c : Object(def, {"load"}).value("commands", json::array())) {
    // A command is a string, an array of arguments, or {"records": [from, to], "command": ...}
    // for a range of records only (a profile's workload: one range per type).
    double from = 0, to = records;
    const json* command = &c;
    if (c.is_object()) {
      if (!c.contains("command")) continue;
      command = &c["command"];
      const json range = c.value("records", json::array());
      if (range.is_array() && range.size() == 2 && range[0].is_number() && range[1].is_number()) {
        from = std::max(0.0, range[0].get<double>());
        to = std::min(records, range[1].get<double>());
      }
    }
    if (!(to > from)) continue;
    std::vector<std::string> args;
    if (command->is_string()) {
      std::istringstream in(command->get<std::string>());
      std::string a;
      while (in >> a) args.push_back(a);
    } else if (command->is_array()) {
      for (const json& a : *command) {
        if (a.is_string()) args.push_back(a.get<std::string>());
      }
    }
    if (args.size() < 2) continue;
    const CommandSpec* cmd = CommandTable::Get().Find(args[0]);
    if (cmd == nullptr || cmd->group != spec->command_group ||
        (cmd->flags & engine::kCmdDenyOom) == 0) {
      continue;
    }
    const double n = to - from;
    double synthetic = -1;
    for (size_t i = 2; i < args.size() && synthetic < 0; ++i) {
      synthetic = SyntheticElements(def, args[i], args[1], static_cast<uint64_t>(from),
                                    static_cast<uint64_t>(to));
    }
    if (synthetic >= 0) {
      // A synthetic collection ({fields:N:L:V}, {members:N:L}, {scored:N:L}): its size is a
      // function of the key, counted record by record.
      total += synthetic;
    } else if (std::find(args.begin(), args.end(), "{elements}") != args.end()) {
      // {elements} expands in the keyspace type's format ("field value" pairs for a hash
      // keyspace), whatever the command's type.
      const double ks_args = ks_spec != nullptr ? ks_spec->element_args : spec->element_args;
      total += n * elements * ks_args / spec->element_args;
    } else {
      total += n * static_cast<double>((args.size() - 2) / spec->element_args);
    }
  }
  return total;
}

double KvRoundTrips(const json& kv, double page_rows) {
  return Num(kv, "gets") + Num(kv, "multiget_calls") + Num(kv, "puts") + Num(kv, "deletes") +
         Num(kv, "range_deletes") + Num(kv, "batches") + Num(kv, "seeks") +
         (Num(kv, "nexts") + Num(kv, "prevs")) / page_rows;
}

RepMetrics MetricsOf(const json& run, const json& def, const std::string& type) {
  RepMetrics m;
  const std::string ks_type = KeyspaceType(def);
  std::map<std::string, CommandTotals> per_command;
  double ops = 0, wall = 0, load_bytes_written = 0;
  for (const json& phase : run.value("phases", json::array())) {
    const bool load = phase.value("kind", "") == "load";
    if (!load) {
      ops += Num(phase, "operations");
      wall += Num(phase, "wall_seconds");
    }
    const json& commands = Object(phase, {"commands"});
    for (auto it = commands.begin(); it != commands.end(); ++it) {
      if (CommandType(it.key(), ks_type) != type) continue;
      const json& st = it.value();
      const json& kv = Object(st, {"kv"});
      if (load) {
        load_bytes_written += Num(kv, "bytes_written");
        continue;
      }
      CommandTotals& t = per_command[it.key()];
      const double calls = Num(st, "calls");
      t.calls += calls;
      const json& lat = Object(st, {"latency_ns"});
      t.p50_weighted += calls * Num(lat, "p50");
      t.p99_weighted += calls * Num(lat, "p99");
      t.kv_reads += KvReads(kv);
      t.kv_writes += KvWrites(kv);
      t.bytes += Num(kv, "bytes_read") + Num(kv, "bytes_written");
      t.round_trips += Num(Object(st, {"counters"}), "tier.tier_round_trips");
      for (auto k = kv.begin(); k != kv.end(); ++k) {
        if (k.value().is_number())
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
                        {"kv_ops", (t.kv_reads + t.kv_writes) / t.calls},
                        {"kv_bytes", t.bytes / t.calls},
                        {"round_trips", t.round_trips / t.calls},
                        {"kv_round_trips", KvRoundTrips(kv_per_call)},
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

  // Space: what keeping the loaded data costs, read between the load and the run phases
  // (load_space): the type's live records in the store, and the datasets of the Redis roles
  // its version uses (a store Redis holds data; a cache only costs memory).
  const Profile profile = ProfileOf(run);
  const auto version = profile.find(type);
  const std::vector<std::string> roles =
      version == profile.end() ? std::vector<std::string>{} : TierRoles(type, version->second);
  auto uses = [&roles](const char* role) {
    return std::find(roles.begin(), roles.end(), role) != roles.end();
  };
  const double loaded = ElementsLoaded(def, type);
  if (loaded > 0) {
    m.criteria["write_bytes"] = load_bytes_written / loaded;
    const json& load_space = run.value("load_space", json());
    if (load_space.is_object() && load_space.value("store", json()).is_object()) {
      const double live = Num(Object(load_space, {"store", "by_type", type.c_str()}), "bytes");
      const json& tier = Object(load_space, {"tier_dataset_bytes"});
      const double store = uses("store") ? Num(tier, "store") : 0;
      // A cache Redis fills as the run reads (the load may leave it nearly empty): its memory is
      // what it holds at the end of the run, when the cell measured it; a store Redis holds the
      // data from the load on.
      const json& cache_after_run = Object(run, {"tier_memory", "cache"});
      const double cache =
          !uses("cache") ? 0
          : cache_after_run.is_object() && cache_after_run.contains("used_memory_dataset")
              ? Num(cache_after_run, "used_memory_dataset")
              : Num(tier, "cache");
      m.criteria["space"] = (live + store) / loaded;
      m.criteria["redis_memory"] = (cache + store) / loaded;
    } else {
      m.notes.push_back(
          load_space.is_object() && load_space.contains("error")
              ? "space not measured: " + load_space["error"].dump()
              : "space not measured: the result has no load_space (made by an older kvlab, over "
                "RESP, or by kvlab bench without it): run the study again");
    }
  }
  // The whole store's disk per element of every type (indicative: it mixes the types).
  double all_elements = 0;
  for (const encodings::TypeSpec& t : Registry().types()) {
    all_elements += ElementsLoaded(def, std::string(t.name));
  }
  if (run.value("disk_bytes", json()).is_number() && all_elements > 0) {
    m.disk_per_element = run["disk_bytes"].get<double>() / all_elements;
  }
  // After the run phases and the cell's GC pass: the live bytes, per element live then.
  const json& space = Object(run, {"space"});
  const json& after = Object(space, {"gc", "store", "by_type", type.c_str()}).empty()
                          ? Object(space, {"store", "by_type", type.c_str()})
                          : Object(space, {"gc", "store", "by_type", type.c_str()});
  const double elements_end = Num(Object(space, {"logical", "by_type", type.c_str()}), "elements");
  if (!after.empty() && elements_end > 0) {
    const double store =
        uses("store") ? Num(Object(run, {"tier_memory", "store"}), "used_memory_dataset") : 0;
    m.space_after_run = (Num(after, "bytes") + store) / elements_end;
  }
  return m;
}

}  // namespace kvlab::study
