#include "study/ranking.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/mann_whitney.h"
#include "analysis/summary.h"
#include "encodings/registry.h"
#include "study/break_even.h"
#include "study/metrics.h"
#include "study/version_legend.h"
#include "workloads/result.h"

namespace kvlab::study {
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

// j[name] when it is an array, else an empty array (a reference that outlives the call).
const json& Array(const json& j, const char* name) {
  static const json kEmpty = json::array();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(name);
  return it != j.end() && it->is_array() ? *it : kEmpty;
}

double Median(const std::vector<double>& s) { return analysis::Summarize(s).median; }

// A version's place in the registry (its type's rows in id order), for a stable order of
// versions that tie on everything; unknown names go last.
size_t RegistryOrder(const std::string& type, const std::string& version) {
  const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
  const encodings::TypeSpec* t = registry.FindType(type);
  if (t == nullptr) return SIZE_MAX;
  const auto rows = registry.VersionsOf(t->type);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i]->name == version) return i;
  }
  return SIZE_MAX;
}

struct VersionRuns {
  std::string version;
  std::string profile;  // the label of the runs' whole profile: "h1 z0"
  std::vector<const json*> runs;
};

// One version of the ranked type: what was measured, then its costs.
struct Row {
  std::string version, label, profile;
  std::map<std::string, std::vector<double>> samples;  // per criterion, one per repetition
  std::map<std::string, double> value;                 // the criterion's value (median)
  json commands = json::object();
  json deviations = json::array();
  std::vector<std::string> needs;
  double needs_units = 0;
  double disk_per_element = -1;
  double space_after_run = -1;
  size_t repetitions = 0;
  std::vector<std::string> errors;
  std::set<std::string> notes;
  // Each repetition's criteria, in run order (the timed ones are scored together per repetition).
  std::vector<std::map<std::string, double>> reps;
  // The scoring: the score, its part from counted criteria, and per repetition the weighted
  // timed part (TimedPart); the score's range over the repetitions.
  json criteria = json::object();
  double score = 0, counted = 0, low = 0, high = 0;
  std::vector<double> timed;
  int rank = 0;
  bool failed() const { return repetitions == 0; }
};

// The catalogued deviations that `type` `version` has on the workload's own commands.
json DeviationsHit(const std::vector<conformance::Deviation>& catalogue, const std::string& type,
                   const std::string& version, const std::set<std::string>& commands_lower) {
  json out = json::array();
  for (const conformance::Deviation& d : catalogue) {
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

// Reads the version's runs into a Row: medians over repetitions of every number.
Row ReadVersion(const VersionRuns& v, const std::string& type, const json& def,
                const std::set<std::string>& run_commands) {
  Row row;
  row.version = v.version;
  row.label = VersionLabel(type, v.version);
  row.profile = v.profile;
  std::vector<RepMetrics> reps;
  std::vector<double> disk, after;
  for (const json* run : v.runs) {
    if (!run->value("error", json()).is_null()) {
      row.errors.push_back(run->value("error", json()).get<std::string>());
      continue;
    }
    reps.push_back(MetricsOf(*run, def, type));
    if (reps.back().disk_per_element >= 0) disk.push_back(reps.back().disk_per_element);
    if (reps.back().space_after_run >= 0) after.push_back(reps.back().space_after_run);
    row.notes.insert(reps.back().notes.begin(), reps.back().notes.end());
  }
  row.repetitions = reps.size();
  if (reps.empty()) return row;
  for (const RepMetrics& r : reps) {
    for (const auto& [name, value] : r.criteria) row.samples[name].push_back(value);
    row.reps.push_back(r.criteria);
  }
  for (const auto& [name, s] : row.samples) row.value[name] = Median(s);
  for (const std::string& c : run_commands) {
    json entry = json::object();
    for (const char* field : {"calls", "p50_us", "p99_us", "kv_reads", "kv_writes", "kv_ops",
                              "kv_bytes", "round_trips", "kv_round_trips"}) {
      std::vector<double> s;
      for (const RepMetrics& r : reps) {
        if (r.commands.contains(c)) s.push_back(r.commands[c].value(field, 0.0));
      }
      if (!s.empty()) entry[field] = Median(s);
    }
    if (reps[0].commands.contains(c)) entry["kv_per_call"] = reps[0].commands[c]["kv_per_call"];
    if (!entry.empty()) row.commands[c] = entry;
  }
  if (!disk.empty()) row.disk_per_element = Median(disk);
  if (!after.empty()) row.space_after_run = Median(after);
  const VersionInfo* info = FindVersion(type, v.version);
  if (info != nullptr) {
    row.needs = VersionNeeds(*info);
    row.needs_units = (info->cache_redis ? 1 : 0) + (info->store_redis ? 2 : 0);
  }
  return row;
}

// The weighted timed part of a version's score in each repetition: the sum over the timed
// criteria of weight * log2(value), negated for a higher-is-better one. Two versions' timed
// costs differ by the difference of these (each cost is a log ratio to the same best), so a
// repetition's latency, tail latency and throughput, which a loaded machine moves together,
// count together. Empty when a repetition lacks a positive value of a weighted timed criterion.
std::vector<double> TimedPart(const Row& row, const Weights& weights) {
  std::vector<double> out;
  for (const std::map<std::string, double>& rep : row.reps) {
    double t = 0;
    for (const Criterion& c : Criteria()) {
      const double w = weights.count(c.name) ? weights.at(c.name) : 0;
      if (!c.timed || w == 0) continue;
      const auto it = rep.find(c.name);
      if (it == rep.end() || !(it->second > 0)) return {};
      t += w * (c.higher_is_better ? -1 : 1) * std::log2(it->second);
    }
    out.push_back(t);
  }
  return out;
}

// Whether `a` beats `b`: b's score exceeds a's by more than the tie margin with confidence. The
// counted parts differ exactly; the timed parts by the interval of the difference of the two
// versions' per-repetition timed parts (Hodges-Lehmann with Mann-Whitney bounds at the
// confidence, analysis::RatioOfMedians on 2^part: at 3 against 3 repetitions, every pairing of a
// repetition of b with one of a).
bool Beats(const Row& a, const Row& b, const RankOptions& options) {
  double timed_low = 0;
  if (!a.timed.empty() && !b.timed.empty()) {
    std::vector<double> pb, pa;
    for (double t : b.timed) pb.push_back(std::exp2(t));
    for (double t : a.timed) pa.push_back(std::exp2(t));
    timed_low = std::log2(analysis::RatioOfMedians(pb, pa, options.confidence).low);
  } else {
    timed_low = (b.score - b.counted) - (a.score - a.counted);
  }
  return b.counted - a.counted + timed_low > options.tie_margin;
}

// Scores every row on every criterion (the header comment of ranking.h).
json Score(std::vector<Row>& rows, const RankOptions& options, bool timings_count,
           const std::string& type) {
  size_t fewest_deviations = SIZE_MAX;
  for (const Row& row : rows) {
    if (!row.failed()) fewest_deviations = std::min(fewest_deviations, row.deviations.size());
  }
  json best_json = json::object();
  for (const Criterion& c : Criteria()) {
    const std::string name = c.name;
    const double weight = options.weights.count(name) ? options.weights.at(name) : 0;
    if (name == "exactness" || name == "needs") {
      for (Row& row : rows) {
        if (row.failed()) continue;
        const double value =
            name == "exactness" ? static_cast<double>(row.deviations.size()) : row.needs_units;
        const double extra =
            name == "exactness" ? value - static_cast<double>(fewest_deviations) : value;
        const double cost = weight * extra;
        row.criteria[name] = {{"value", value}, {"cost", cost}};
        row.score += cost;
        row.counted += cost;
      }
      continue;
    }
    const Row* best = nullptr;
    for (const Row& row : rows) {
      if (!row.value.count(name)) continue;
      if (best == nullptr) {
        best = &row;
        continue;
      }
      const double v = row.value.at(name), b = best->value.at(name);
      if (c.higher_is_better ? v > b : v < b) best = &row;
    }
    if (best == nullptr) continue;
    const double best_value = best->value.at(name);
    for (Row& row : rows) {
      if (!row.value.count(name)) continue;
      const double value = row.value.at(name);
      json cj = {{"value", value}, {"best", &row == best}};
      const double ratio = best_value != 0 ? value / best_value : (value == 0 ? 1.0 : INFINITY);
      cj["ratio"] = std::isfinite(ratio) ? json(ratio) : json(nullptr);
      double cost = 0;
      if (c.timed) {
        const std::vector<double>& num = row.samples.at(name);
        const std::vector<double>& den = best->samples.at(name);
        cj["samples"] = num;
        const bool positive = std::all_of(num.begin(), num.end(), [](double x) { return x > 0; }) &&
                              std::all_of(den.begin(), den.end(), [](double x) { return x > 0; });
        bool significant = false;
        if (&row != best) {
          cost = weight * CostOf(c, value, best_value);
          if (positive) {
            const analysis::RatioInterval ri =
                analysis::RatioOfMedians(num, den, options.confidence);
            cj["low"] = ri.low;
            cj["high"] = ri.high;
            cj["confidence"] = ri.confidence;
            cj["attainable"] = ri.attainable;
            significant = ri.significant;
          }
        }
        cj["significant"] = significant;
        if (!timings_count) {
          cost = 0;
          cj["counted"] = false;
        }
      } else {
        const bool material = Material(value, best_value, options.materiality);
        cj["material"] = material;
        cost = material ? weight * CostOf(c, value, best_value) : 0;
        row.counted += cost;
      }
      cj["cost"] = cost;
      row.criteria[name] = cj;
      row.score += cost;
    }
    best_json[name] = {{"best_version", best->version},
                       {"best_label", VersionLabel(type, best->version)},
                       {"best_value", best_value}};
  }
  // The timed part of each repetition, and the score's range over the repetitions.
  for (Row& row : rows) {
    if (row.failed()) continue;
    row.timed = timings_count ? TimedPart(row, options.weights) : std::vector<double>{};
    row.low = row.high = row.score;
    if (!row.timed.empty()) {
      const analysis::Summary t = analysis::Summarize(row.timed);
      row.low = row.score + (t.min - t.median);
      row.high = row.score + (t.max - t.median);
    }
  }
  // Ranks: 1 + the versions that beat this one.
  for (Row& row : rows) {
    if (row.failed()) continue;
    row.rank = 1;
    for (const Row& other : rows) {
      if (&other != &row && !other.failed() && Beats(other, row, options)) ++row.rank;
    }
  }
  return best_json;
}

// Ranks the versions of `type` on `backend` for workload `w`.
json RankOne(const json& w, const std::string& backend, const std::string& type,
             const Profile& fixed, const std::vector<VersionRuns>& versions,
             const RankOptions& options) {
  const json& def = w.value("definition", json::object());
  const std::string ks_type = def.value("keyspace", json::object()).value("type", "hash");
  // The workload's commands of this type (load and run), for exactness; the run's, for costs.
  std::set<std::string> commands_lower, run_commands;
  for (const VersionRuns& v : versions) {
    for (const json* run : v.runs) {
      for (const json& phase : Array(*run, "phases")) {
        const json& commands = phase.value("commands", json::object());
        for (auto it = commands.begin(); it != commands.end(); ++it) {
          if (CommandType(it.key(), ks_type) != type) continue;
          commands_lower.insert(Lower(it.key()));
          if (phase.value("kind", "") != "load") run_commands.insert(it.key());
        }
      }
    }
  }
  std::vector<Row> rows;
  for (const VersionRuns& v : versions) {
    rows.push_back(ReadVersion(v, type, def, run_commands));
    rows.back().deviations =
        DeviationsHit(options.deviations, type, rows.back().version, commands_lower);
  }
  // Whether the repetitions can reach the confidence: every pair of measured versions.
  json warnings = json::array();
  size_t fewest = SIZE_MAX;
  std::vector<std::string> short_of;
  const size_t needed = analysis::RepetitionsNeeded(1 - options.confidence + 1e-12);
  for (const Row& row : rows) {
    if (row.failed()) continue;
    fewest = std::min(fewest, row.repetitions);
    if (row.repetitions < needed) short_of.push_back(row.label);
  }
  const bool timings_count = fewest != SIZE_MAX && analysis::MinimumPValue(fewest, fewest) <=
                                                       1 - options.confidence + 1e-12;
  if (!timings_count && fewest != SIZE_MAX) {
    std::string who;
    for (const std::string& l : short_of) who += (who.empty() ? "" : ", ") + l;
    warnings.push_back(
        "timings do not count: p50, p99 and throughput cannot set versions apart at " +
        std::to_string(static_cast<int>(std::lround(options.confidence * 100))) +
        "% confidence with " + std::to_string(fewest) + " repetition" + (fewest == 1 ? "" : "s") +
        " (" + who + "); --repetitions " + std::to_string(needed) + " would let them count");
  }
  for (const Row& row : rows) {
    for (const std::string& n : row.notes) warnings.push_back(row.label + ": " + n);
  }
  const json best = Score(rows, options, timings_count, type);

  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.failed() != b.failed()) return b.failed();
    if (a.rank != b.rank) return a.rank < b.rank;
    if (std::fabs(a.score - b.score) > 1e-9) return a.score < b.score;
    return RegistryOrder(type, a.version) < RegistryOrder(type, b.version);
  });
  json rows_json = json::array();
  json leaders = json::array();
  for (const Row& row : rows) {
    if (!row.failed() && row.rank == 1) leaders.push_back(row.label);
    rows_json.push_back(
        {{"rank", row.failed() ? json(nullptr) : json(row.rank)},
         {"version", row.version},
         {"label", row.label},
         {"profile", row.profile},
         {"score", row.failed() ? json(nullptr) : json(row.score)},
         {"score_low", row.failed() ? json(nullptr) : json(row.low)},
         {"score_high", row.failed() ? json(nullptr) : json(row.high)},
         {"first", !row.failed() && row.rank == 1},
         {"repetitions", row.repetitions},
         {"criteria", row.criteria},
         {"commands", row.commands},
         {"deviations", row.deviations},
         {"needs", row.needs},
         {"disk_bytes_per_element",
          row.disk_per_element >= 0 ? json(row.disk_per_element) : json(nullptr)},
         {"space_after_run", row.space_after_run >= 0 ? json(row.space_after_run) : json(nullptr)},
         {"errors", row.errors}});
  }
  // The share of each command among the type's calls (the same in every version's cells: one
  // seed, one operation sequence), from the first measured row.
  json shares = json::object();
  if (!rows.empty() && !rows[0].failed()) {
    double total = 0;
    for (const auto& [c, e] : rows[0].commands.items()) total += e.value("calls", 0.0);
    for (const auto& [c, e] : rows[0].commands.items()) {
      if (total > 0) shares[c] = e.value("calls", 0.0) / total;
    }
  }
  json fixed_json = json::object();
  for (const auto& [t, v] : fixed) fixed_json[t] = {{"version", v}, {"label", VersionLabel(t, v)}};
  json out = {{"workload", w.value("name", "")},
              {"backend", backend},
              {"type", type},
              {"fixed", fixed_json},
              {"commands", std::vector<std::string>(run_commands.begin(), run_commands.end())},
              {"command_shares", shares},
              {"elements_loaded", ElementsLoaded(def, type)},
              {"criteria", best},
              {"timings_count", timings_count},
              {"tie_margin", options.tie_margin},
              {"leaders", leaders},
              {"warnings", warnings},
              {"rows", rows_json}};
  out["break_even"] = BreakEven(out, options);
  return out;
}

}  // namespace

double CostOf(const Criterion& c, double value, double best) {
  const double r = (value + c.floor) / (best + c.floor);
  if (!(r > 0) || !std::isfinite(r)) return 0;
  return std::fabs(std::log2(r));
}

bool Material(double value, double best, double materiality) {
  const double scale = std::max(std::fabs(value), std::fabs(best));
  return scale > 0 && std::fabs(value - best) > materiality * scale &&
         std::fabs(value - best) > 1e-9;
}

Status RankResult(const json& bench_result, const RankOptions& options, json* rankings) {
  json result = bench_result;
  KVLAB_RETURN_IF_ERROR(workloads::NormalizeResult(&result, "the bench result"));
  const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
  size_t added = 0;
  for (const json& w : Array(result, "workloads")) {
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
        for (const auto& [t, v] : ProfileOf(*r)) {
          if (registry.FindType(t) != nullptr) types.insert(t);
        }
      }
      for (const encodings::TypeSpec& spec : registry.types()) {
        const std::string type(spec.name);
        if (!types.count(type)) continue;
        if (!options.types.empty() &&
            std::find(options.types.begin(), options.types.end(), type) == options.types.end()) {
          continue;
        }
        // The other types' versions: the most common profile among the runs is the baseline;
        // the versions of `type` are those of the runs that agree with it on every other type.
        std::map<Profile, int> others_count;
        for (const json* r : runs) {
          Profile p = ProfileOf(*r);
          p.erase(type);
          ++others_count[p];
        }
        Profile fixed;
        int best_count = -1;
        for (const auto& [p, n] : others_count) {
          if (n > best_count) {
            fixed = p;
            best_count = n;
          }
        }
        std::map<std::string, VersionRuns> by_version;
        for (const json* r : runs) {
          Profile p = ProfileOf(*r);
          if (!p.count(type)) continue;
          const std::string v = p[type];
          Profile others = p;
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
        std::sort(versions.begin(), versions.end(), [&](const auto& a, const auto& b) {
          return RegistryOrder(type, a.version) < RegistryOrder(type, b.version);
        });
        rankings->push_back(RankOne(w, backend, type, fixed, versions, options));
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
