#include "workloads/workload.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/command_table.h"

namespace kvlab::workloads {

using engine::CommandSpec;
using engine::CommandTable;

namespace {

using nlohmann::json;

// Reads optional members of a JSON object, remembering the first error with its path, and
// rejecting members nobody asked for (a typo in a workload file must not pass silently).
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, Status* status)
      : j_(j), path_(std::move(path)), status_(status) {
    if (!j_.is_object()) Fail(path_ + ": expected an object");
  }
  bool Has(const char* key) const { return j_.is_object() && j_.contains(key); }
  const json* Raw(const char* key) {
    used_.push_back(key);
    return Has(key) ? &j_.at(key) : nullptr;
  }

  void String(const char* key, std::string* out) {
    if (const json* v = Raw(key)) {
      if (v->is_string()) {
        *out = v->get<std::string>();
      } else {
        Fail(Path(key) + ": expected a string");
      }
    }
  }
  void Unsigned(const char* key, uint64_t* out, uint64_t min = 0) {
    if (const json* v = Raw(key)) {
      if (v->is_number_unsigned() && v->get<uint64_t>() >= min) {
        *out = v->get<uint64_t>();
      } else if (v->is_number_integer() && v->get<int64_t>() >= 0 &&
                 static_cast<uint64_t>(v->get<int64_t>()) >= min) {
        *out = static_cast<uint64_t>(v->get<int64_t>());
      } else {
        Fail(Path(key) + ": expected an integer >= " + std::to_string(min));
      }
    }
  }
  void Number(const char* key, double* out, double min, double max) {
    if (const json* v = Raw(key)) {
      if (v->is_number() && v->get<double>() >= min && v->get<double>() <= max) {
        *out = v->get<double>();
      } else {
        Fail(Path(key) + ": expected a number in [" + Format(min) + ", " + Format(max) + "]");
      }
    }
  }
  void Bool(const char* key, bool* out) {
    if (const json* v = Raw(key)) {
      if (v->is_boolean()) {
        *out = v->get<bool>();
      } else {
        Fail(Path(key) + ": expected true or false");
      }
    }
  }
  // Call last: fails on members that were never read.
  void CheckNoOthers() {
    if (!j_.is_object()) return;
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (std::find(used_.begin(), used_.end(), it.key()) == used_.end()) {
        Fail(Path(it.key().c_str()) + ": unknown member (see docs/workloads.md)");
      }
    }
  }

  std::string Path(const std::string& key) const { return path_ + "." + key; }
  void Fail(const std::string& message) {
    if (status_->ok()) *status_ = Status::InvalidArgument(message);
  }

 private:
  static std::string Format(double d) {
    std::ostringstream s;
    s << d;
    return s.str();
  }

  const json& j_;
  std::string path_;
  Status* status_;
  std::vector<std::string> used_;
};

void ParseDistribution(const json* j, const std::string& path, DistributionSpec* out,
                       Status* status) {
  if (j == nullptr) return;
  if (j->is_string()) {
    Status s = DistributionSpec::Parse(j->get<std::string>(), out);
    if (!s.ok() && status->ok()) *status = Status::InvalidArgument(path + ": " + s.message());
    return;
  }
  ObjectReader r(*j, path, status);
  std::string type;
  r.String("type", &type);
  Status s = DistributionSpec::Parse(type, out);
  if (!s.ok()) r.Fail(path + ".type: " + s.message());
  r.Number("constant", &out->theta, 0.01, 0.9999);
  r.Bool("scrambled", &out->scrambled);
  r.CheckNoOthers();
}

json DistributionJson(const DistributionSpec& d) {
  json j = {{"type", d.Name()}};
  if (d.kind == DistributionSpec::Kind::kZipfian || d.kind == DistributionSpec::Kind::kLatest) {
    j["constant"] = d.theta;
  }
  if (d.kind == DistributionSpec::Kind::kZipfian) j["scrambled"] = d.scrambled;
  return j;
}

// A command is a string in redis-cli quoting or an array of arguments.
// Load commands (allow_records) may also be {"records": [from, to], "command": ...}.
void ParseCommands(const json* j, const std::string& path, std::vector<CommandTemplate>* out,
                   Status* status, bool allow_records = false) {
  if (j == nullptr) return;
  if (!j->is_array()) {
    if (status->ok()) *status = Status::InvalidArgument(path + ": expected an array of commands");
    return;
  }
  for (size_t i = 0; i < j->size(); ++i) {
    const std::string where = path + "[" + std::to_string(i) + "]";
    const json& c = (*j)[i];
    CommandTemplate t;
    Status s;
    if (allow_records && c.is_object()) {
      // {"records": [from, to], "command": ...}: a load command for some records only.
      ObjectReader r(c, where, status);
      const json* range = r.Raw("records");
      const json* command = r.Raw("command");
      r.CheckNoOthers();
      if (!status->ok()) return;
      if (range == nullptr || command == nullptr || !range->is_array() || range->size() != 2 ||
          !(*range)[0].is_number_unsigned() || !(*range)[1].is_number_unsigned() ||
          (*range)[0].get<uint64_t>() >= (*range)[1].get<uint64_t>()) {
        *status = Status::InvalidArgument(
            where +
            ": a load command object is {\"records\": [from, to], \"command\": ...} "
            "with from < to");
        return;
      }
      json inner = json::array({*command});
      std::vector<CommandTemplate> one;
      ParseCommands(&inner, where + ".command", &one, status, false);
      if (!status->ok()) return;
      t = std::move(one[0]);
      t.records_from = (*range)[0].get<uint64_t>();
      t.records_to = (*range)[1].get<uint64_t>();
      out->push_back(std::move(t));
      continue;
    }
    if (c.is_string()) {
      s = CompileTemplateLine(c.get<std::string>(), where, &t);
    } else if (c.is_array() &&
               std::all_of(c.begin(), c.end(), [](const json& a) { return a.is_string(); })) {
      s = CompileTemplate(c.get<std::vector<std::string>>(), where, &t);
    } else {
      s = Status::InvalidArgument(where + ": a command is a string or an array of strings");
    }
    if (s.ok() && CommandTable::Get().Find(t.name) == nullptr) {
      s = Status::InvalidArgument(where + ": kvlab has no command '" + t.name + "'");
    }
    if (!s.ok()) {
      if (status->ok()) *status = s;
      return;
    }
    out->push_back(std::move(t));
  }
}

// A phase's (or a probe's) weighted operations.
void ParseOps(const json* j, const std::string& path, std::vector<OpSpec>* out, Status* status) {
  if (j == nullptr) return;
  if (!j->is_array()) {
    if (status->ok()) *status = Status::InvalidArgument(path + ": expected an array");
    return;
  }
  for (size_t o = 0; o < j->size(); ++o) {
    const std::string op_path = path + "[" + std::to_string(o) + "]";
    ObjectReader orr((*j)[o], op_path, status);
    OpSpec op;
    orr.String("name", &op.name);
    orr.Number("weight", &op.weight, 0, 1e9);
    ParseCommands(orr.Raw("commands"), op_path + ".commands", &op.commands, status);
    orr.Bool("expect_errors", &op.expect_errors);
    orr.CheckNoOthers();
    if (op.name.empty() && !op.commands.empty()) op.name = op.commands[0].name;
    out->push_back(std::move(op));
  }
}

json CommandsJson(const std::vector<CommandTemplate>& commands) {
  json a = json::array();
  for (const auto& c : commands) {
    if (c.records_from == 0 && c.records_to == UINT64_MAX) {
      a.push_back(c.text);
    } else {
      a.push_back({{"records", {c.records_from, c.records_to}}, {"command", c.text}});
    }
  }
  return a;
}

void ParseDistributions(const json* j, Workload* w, Status* status) {
  if (j == nullptr) return;
  if (!status->ok()) return;
  if (!j->is_object()) {
    *status = Status::InvalidArgument("workload.distributions: expected an object");
    return;
  }
  for (auto it = j->begin(); it != j->end(); ++it) {
    const std::string path = "workload.distributions." + it.key();
    ObjectReader dr(it.value(), path, status);
    const json* q = dr.Raw("quantiles");
    dr.CheckNoOthers();
    if (!status->ok()) return;
    std::vector<EmpiricalDistribution::Point> points;
    bool shape_ok = q != nullptr && q->is_array();
    for (size_t i = 0; shape_ok && i < q->size(); ++i) {
      const json& pt = (*q)[i];
      shape_ok = pt.is_array() && pt.size() == 2 && pt[0].is_number() && pt[1].is_number();
      if (shape_ok) points.push_back({pt[0].get<double>(), pt[1].get<double>()});
    }
    Status s = shape_ok
                   ? EmpiricalDistribution::Make(std::move(points), &w->distributions[it.key()])
                   : Status::InvalidArgument("expected {\"quantiles\": [[p, value], ...]}");
    if (!s.ok()) {
      *status = Status::InvalidArgument(path + ": " + s.message());
      return;
    }
  }
}

json DistributionsJson(const std::map<std::string, EmpiricalDistribution>& ds) {
  json j = json::object();
  for (const auto& [name, d] : ds) {
    json q = json::array();
    for (const auto& pt : d.points()) q.push_back({pt.p, pt.value});
    j[name] = {{"quantiles", q}};
  }
  return j;
}

json OpsJson(const std::vector<OpSpec>& ops) {
  json a = json::array();
  for (const auto& op : ops) {
    json j = {{"name", op.name}, {"weight", op.weight}, {"commands", CommandsJson(op.commands)}};
    if (op.expect_errors) j["expect_errors"] = true;
    a.push_back(std::move(j));
  }
  return a;
}

bool GroupUsed(const Workload& w, std::string_view group) {
  auto uses = [&](const std::vector<CommandTemplate>& cs) {
    for (const auto& c : cs) {
      const CommandSpec* spec = CommandTable::Get().Find(c.name);
      if (spec != nullptr && spec->group == group) return true;
    }
    return false;
  };
  if (uses(w.load.commands)) return true;
  for (const auto& p : w.phases) {
    for (const auto& op : p.ops) {
      if (uses(op.commands)) return true;
    }
    if (!p.probe) continue;
    for (const auto& op : p.probe->ops) {
      if (uses(op.commands)) return true;
    }
  }
  return false;
}

Status Validate(const Workload& w) {
  if (w.name.empty()) return Status::InvalidArgument("workload: a name is required");
  if (w.keyspace.records == 0) {
    return Status::InvalidArgument("workload.keyspace.records: must be at least 1");
  }
  if (w.phases.empty()) return Status::InvalidArgument("workload.run: at least one phase");
  auto check_elements = [&](const CommandTemplate& c, const std::string& where) {
    for (const std::string& d : c.Distributions()) {
      if (w.distributions.count(d) == 0) {
        return Status::InvalidArgument(where + ": '" + c.text + "' names distribution '" + d +
                                       "', which workload.distributions does not define");
      }
    }
    // A synthetic collection belongs to the command's key: its first argument.
    const bool collection_first =
        !c.args.empty() &&
        (c.args[0].collection.kind != CollectionExpansion::Kind::kNone ||
         std::any_of(c.args[0].parts.begin(), c.args[0].parts.end(),
                     [](const TemplatePart& p) { return p.kind == TemplatePart::Kind::kMember; }));
    if (collection_first) {
      return Status::InvalidArgument(where + ": '" + c.text +
                                     "': a synthetic collection's key is the first argument");
    }
    if ((c.UsesElements() || c.Uses(TemplatePart::Kind::kElement) ||
         c.Uses(TemplatePart::Kind::kElementId)) &&
        w.keyspace.elements == 0) {
      return Status::InvalidArgument(where + ": '" + c.text +
                                     "' uses elements but keyspace.elements is 0");
    }
    if (c.UsesElements() && w.keyspace.type == KeyspaceSpec::Type::kString) {
      return Status::InvalidArgument(where + ": {elements} needs a hash, zset or list keyspace");
    }
    return Status::OK();
  };
  for (size_t i = 0; i < w.load.commands.size(); ++i) {
    const auto& c = w.load.commands[i];
    const std::string where = "workload.load.commands[" + std::to_string(i) + "]";
    KVLAB_RETURN_IF_ERROR(check_elements(c, where));
    if (c.Uses(TemplatePart::Kind::kNewKey) || c.Uses(TemplatePart::Kind::kNewKeyId) ||
        c.Uses(TemplatePart::Kind::kScanLength) || c.Uses(TemplatePart::Kind::kNow)) {
      return Status::InvalidArgument(where +
                                     ": {new_key}, {scan_length} and {now} belong to run phases");
    }
  }
  for (size_t p = 0; p < w.phases.size(); ++p) {
    const PhaseSpec& phase = w.phases[p];
    const std::string where = "workload.run[" + std::to_string(p) + "]";
    if (phase.operations == 0 && phase.duration_s <= 0) {
      return Status::InvalidArgument(where + ": set operations or duration_s");
    }
    if (phase.ops.empty()) return Status::InvalidArgument(where + ".ops: at least one operation");
    double total = 0;
    for (size_t o = 0; o < phase.ops.size(); ++o) {
      const OpSpec& op = phase.ops[o];
      const std::string ow = where + ".ops[" + std::to_string(o) + "]";
      if (op.commands.empty()) return Status::InvalidArgument(ow + ".commands: at least one");
      total += op.weight;
      for (const auto& c : op.commands) KVLAB_RETURN_IF_ERROR(check_elements(c, ow));
    }
    if (total <= 0) return Status::InvalidArgument(where + ".ops: the weights sum to 0");
    if (phase.scan_length_distribution.kind == DistributionSpec::Kind::kLatest) {
      return Status::InvalidArgument(where + ".scan_length: uniform or zipfian");
    }
    if (phase.probe) {
      const std::string pw = where + ".probe";
      if (phase.operations == 0 || phase.duration_s > 0) {
        return Status::InvalidArgument(
            pw + ": a probed phase is bounded by its operations alone (no duration_s)");
      }
      if (phase.probe->every == 0 || phase.probe->operations == 0) {
        return Status::InvalidArgument(pw + ": every and operations must be at least 1");
      }
      if (phase.probe->ops.empty()) return Status::InvalidArgument(pw + ".ops: at least one");
      for (size_t o = 0; o < phase.probe->ops.size(); ++o) {
        const OpSpec& op = phase.probe->ops[o];
        const std::string ow = pw + ".ops[" + std::to_string(o) + "]";
        if (op.commands.empty()) return Status::InvalidArgument(ow + ".commands: at least one");
        if (!(op.weight > 0)) return Status::InvalidArgument(ow + ".weight: must be more than 0");
        for (const auto& c : op.commands) {
          KVLAB_RETURN_IF_ERROR(check_elements(c, ow));
          if (c.Uses(TemplatePart::Kind::kNewKey) || c.Uses(TemplatePart::Kind::kNewKeyId)) {
            return Status::InvalidArgument(ow + ": a probe reads; {new_key} belongs to the phase");
          }
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace

const char* KeyspaceSpec::TypeName(Type t) {
  switch (t) {
    case Type::kHash:
      return "hash";
    case Type::kZset:
      return "zset";
    case Type::kString:
      return "string";
    case Type::kList:
      return "list";
    case Type::kSet:
      return "set";
  }
  return "?";
}

int64_t Workload::ClockStart() const {
  return keyspace.clock_start >= 0 ? keyspace.clock_start : static_cast<int64_t>(keyspace.elements);
}

std::string Workload::ElementPrefix() const {
  if (!keyspace.element_prefix.empty()) return keyspace.element_prefix;
  if (keyspace.type == KeyspaceSpec::Type::kList) return "item";
  return keyspace.type == KeyspaceSpec::Type::kZset || keyspace.type == KeyspaceSpec::Type::kSet
             ? "member"
             : "field";
}

bool Workload::UsesType(const encodings::TypeSpec& type) const {
  // A trace's keyspace is whatever its commands make: its types are its commands' groups.
  if (trace) return GroupUsed(*this, std::string(type.command_group));
  const bool keyspace_of_type =
      (keyspace.type == KeyspaceSpec::Type::kHash && type.type == encodings::KeyType::kHash) ||
      (keyspace.type == KeyspaceSpec::Type::kZset && type.type == encodings::KeyType::kZset) ||
      (keyspace.type == KeyspaceSpec::Type::kList && type.type == encodings::KeyType::kList) ||
      (keyspace.type == KeyspaceSpec::Type::kSet && type.type == encodings::KeyType::kSet);
  return keyspace_of_type || GroupUsed(*this, std::string(type.command_group));
}

uint64_t Workload::MaxRecords() const {
  uint64_t max = keyspace.records;
  for (const auto& phase : phases) {
    uint64_t inserting = 0;
    for (const auto& op : phase.ops) {
      for (const auto& c : op.commands) {
        if (c.Uses(TemplatePart::Kind::kNewKey) || c.Uses(TemplatePart::Kind::kNewKeyId)) {
          ++inserting;
          break;
        }
      }
    }
    if (inserting == 0) continue;
    // Every operation of a phase might insert; a duration-bound phase has no operation bound,
    // so YCSB's estimate (twice the expected inserts) is not available: allow 10x records.
    max +=
        phase.operations > 0 ? phase.operations + phase.warmup_operations : 10 * keyspace.records;
  }
  return max;
}

std::string Workload::ToJson() const {
  json ks = {{"type", KeyspaceSpec::TypeName(keyspace.type)},
             {"records", keyspace.records},
             {"key_prefix", keyspace.key_prefix},
             {"elements", keyspace.elements},
             {"element_prefix", ElementPrefix()},
             {"value_bytes", keyspace.value_bytes},
             {"score_range", keyspace.score_range},
             {"load_score", keyspace.load_score == KeyspaceSpec::LoadScore::kIndex    ? "index"
                            : keyspace.load_score == KeyspaceSpec::LoadScore::kLonLat ? "lonlat"
                                                                                      : "random"},
             {"clock_start", ClockStart()}};
  json run = json::array();
  for (const auto& p : phases) {
    run.push_back({{"name", p.name},
                   {"operations", p.operations},
                   {"duration_s", p.duration_s},
                   {"warmup_operations", p.warmup_operations},
                   {"key_distribution", DistributionJson(p.key_distribution)},
                   {"element_distribution", DistributionJson(p.element_distribution)},
                   {"scan_length",
                    {{"max", p.scan_length_max},
                     {"distribution", DistributionJson(p.scan_length_distribution)}}},
                   {"ops", OpsJson(p.ops)}});
    if (p.probe) {
      run.back()["probe"] = {{"every", p.probe->every},
                             {"operations", p.probe->operations},
                             {"ops", OpsJson(p.probe->ops)}};
    }
  }
  json j = {{"name", name},
            {"description", description},
            {"seed", seed},
            {"threads", threads},
            {"keyspace", ks},
            {"load", {{"batch", load.batch}, {"commands", CommandsJson(load.commands)}}},
            {"run", run}};
  if (!distributions.empty()) j["distributions"] = DistributionsJson(distributions);
  if (trace) {
    j["trace"] = {{"path", trace->path}, {"commands", trace->commands}, {"pace", trace->pace}};
  }
  return j.dump(2);
}

std::string Workload::EffectiveSha256() const { return Sha256Hex(ToJson()); }

Status ParseWorkload(const std::string& json_text, const std::string& source, Workload* out) {
  *out = Workload();
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return Status::InvalidArgument(source + ": not valid JSON: " + e.what());
  }
  Status status;
  Workload& w = *out;
  ObjectReader top(j, "workload", &status);
  top.String("name", &w.name);
  top.String("description", &w.description);
  top.Unsigned("seed", &w.seed);
  ParseDistributions(top.Raw("distributions"), &w, &status);
  uint64_t threads = 1;
  top.Unsigned("threads", &threads, 1);
  w.threads = static_cast<int>(std::min<uint64_t>(threads, 1024));

  if (const json* ks = top.Raw("keyspace")) {
    ObjectReader r(*ks, "workload.keyspace", &status);
    std::string type = "hash";
    r.String("type", &type);
    if (type == "hash") {
      w.keyspace.type = KeyspaceSpec::Type::kHash;
    } else if (type == "zset") {
      w.keyspace.type = KeyspaceSpec::Type::kZset;
    } else if (type == "string") {
      w.keyspace.type = KeyspaceSpec::Type::kString;
    } else if (type == "list") {
      w.keyspace.type = KeyspaceSpec::Type::kList;
    } else if (type == "set") {
      w.keyspace.type = KeyspaceSpec::Type::kSet;
    } else {
      r.Fail("workload.keyspace.type: expected hash, zset, list, set or string");
    }
    r.Unsigned("records", &w.keyspace.records, 1);
    r.String("key_prefix", &w.keyspace.key_prefix);
    r.Unsigned("elements", &w.keyspace.elements);
    r.String("element_prefix", &w.keyspace.element_prefix);
    uint64_t value_bytes = w.keyspace.value_bytes;
    r.Unsigned("value_bytes", &value_bytes);
    if (value_bytes > (64u << 20)) r.Fail("workload.keyspace.value_bytes: at most 64 MiB");
    w.keyspace.value_bytes = static_cast<uint32_t>(value_bytes);
    r.Unsigned("score_range", &w.keyspace.score_range, 1);
    std::string load_score = "random";
    r.String("load_score", &load_score);
    if (load_score == "index") {
      w.keyspace.load_score = KeyspaceSpec::LoadScore::kIndex;
    } else if (load_score == "lonlat") {
      w.keyspace.load_score = KeyspaceSpec::LoadScore::kLonLat;
    } else if (load_score != "random") {
      r.Fail("workload.keyspace.load_score: expected random, index or lonlat");
    }
    uint64_t clock_start = 0;
    if (r.Has("clock_start")) {
      r.Unsigned("clock_start", &clock_start);
      w.keyspace.clock_start = static_cast<int64_t>(clock_start);
    } else {
      r.Raw("clock_start");
    }
    r.CheckNoOthers();
  }
  if (const json* load = top.Raw("load")) {
    ObjectReader r(*load, "workload.load", &status);
    r.Unsigned("batch", &w.load.batch, 1);
    ParseCommands(r.Raw("commands"), "workload.load.commands", &w.load.commands, &status, true);
    r.CheckNoOthers();
  }
  if (const json* run = top.Raw("run")) {
    if (!run->is_array()) {
      top.Fail("workload.run: expected an array of phases");
    } else {
      for (size_t i = 0; i < run->size(); ++i) {
        const std::string path = "workload.run[" + std::to_string(i) + "]";
        ObjectReader r((*run)[i], path, &status);
        PhaseSpec p;
        r.String("name", &p.name);
        r.Unsigned("operations", &p.operations);
        r.Number("duration_s", &p.duration_s, 0, 1e7);
        r.Unsigned("warmup_operations", &p.warmup_operations);
        ParseDistribution(r.Raw("key_distribution"), path + ".key_distribution",
                          &p.key_distribution, &status);
        ParseDistribution(r.Raw("element_distribution"), path + ".element_distribution",
                          &p.element_distribution, &status);
        if (const json* scan = r.Raw("scan_length")) {
          ObjectReader sr(*scan, path + ".scan_length", &status);
          sr.Unsigned("max", &p.scan_length_max, 1);
          ParseDistribution(sr.Raw("distribution"), path + ".scan_length.distribution",
                            &p.scan_length_distribution, &status);
          sr.CheckNoOthers();
        }
        ParseOps(r.Raw("ops"), path + ".ops", &p.ops, &status);
        if (const json* probe = r.Raw("probe")) {
          ObjectReader pr(*probe, path + ".probe", &status);
          ProbeSpec ps;
          pr.Unsigned("every", &ps.every, 1);
          pr.Unsigned("operations", &ps.operations, 1);
          ParseOps(pr.Raw("ops"), path + ".probe.ops", &ps.ops, &status);
          pr.CheckNoOthers();
          p.probe = std::move(ps);
        }
        r.CheckNoOthers();
        w.phases.push_back(std::move(p));
      }
    }
  }
  top.CheckNoOthers();
  KVLAB_RETURN_IF_ERROR(status);
  KVLAB_RETURN_IF_ERROR(Validate(w));
  w.source = source;
  w.source_sha256 = Sha256Hex(json_text);
  return Status::OK();
}

Status LoadWorkloadFile(const std::string& path, Workload* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("cannot read workload file '" + path + "'");
  std::stringstream buf;
  buf << in.rdbuf();
  return ParseWorkload(buf.str(), "file:" + path, out);
}

Status ApplyOverrides(const WorkloadOverrides& o, Workload* w) {
  if (o.records && *o.records == 0) return Status::InvalidArgument("--records: must be at least 1");
  if (o.operations && *o.operations == 0) {
    return Status::InvalidArgument("--operations: must be at least 1");
  }
  if (o.duration_s && !(*o.duration_s > 0)) {
    return Status::InvalidArgument("--duration: must be more than 0 seconds");
  }
  if (o.threads && *o.threads < 1) return Status::InvalidArgument("--threads: must be at least 1");
  if (o.value_bytes && (*o.value_bytes < 1 || *o.value_bytes > (64u << 20))) {
    return Status::InvalidArgument("--data-size: must be 1 to 67108864 bytes (64 MiB)");
  }
  if (o.value_bytes) w->keyspace.value_bytes = static_cast<uint32_t>(*o.value_bytes);
  if (o.pace && !w->trace) {
    return Status::InvalidArgument("--pace applies to trace workloads (trace:FILE), not to '" +
                                   w->name + "'");
  }
  if (w->trace && (o.records || o.elements || o.value_bytes)) {
    return Status::InvalidArgument(
        "--records, --elements and --data-size do not apply to a trace: its keyspace and values "
        "are what it recorded");
  }
  if (o.pace) {
    double pace = 0;
    if (*o.pace == "recorded") {
      pace = 1;
    } else {
      std::string text = *o.pace;
      for (const std::string suffix : {"x", "X", "\u00d7"}) {
        if (text.size() > suffix.size() && text.ends_with(suffix)) {
          text.resize(text.size() - suffix.size());
          break;
        }
      }
      char* end = nullptr;
      pace = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size() || !(pace > 0) || pace > 1e6) {
        return Status::InvalidArgument("--pace: 'recorded' or a speed-up of it such as 2x, not '" +
                                       *o.pace + "'");
      }
    }
    w->trace->pace = pace;
  }
  if (o.records) w->keyspace.records = *o.records;
  if (o.elements) w->keyspace.elements = *o.elements;
  if (o.seed) w->seed = *o.seed;
  if (o.threads) w->threads = *o.threads;
  for (PhaseSpec& p : w->phases) {
    // A length given alone replaces the phase's length; given together, whichever ends first.
    if (o.operations) {
      p.operations = *o.operations;
      if (!o.duration_s) p.duration_s = 0;
    }
    if (o.duration_s) {
      p.duration_s = *o.duration_s;
      if (!o.operations) p.operations = 0;
    }
    if (o.warmup_operations) p.warmup_operations = *o.warmup_operations;
  }
  return Validate(*w);
}

std::string Sha256Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

}  // namespace kvlab::workloads
