#include "study/ranking.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

// The largest spread (largest over smallest repetition of a cell, the median over the versions)
// at which a timed criterion still counts.
constexpr double kMaxTimedSpread = 2.0;

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
std::vector<double> TimedPart(const Row& row, const Weights& weights,
                              const std::set<std::string>& counted) {
  std::vector<double> out;
  for (const std::map<std::string, double>& rep : row.reps) {
    double t = 0;
    for (const Criterion& c : Criteria()) {
      const double w = weights.count(c.name) ? weights.at(c.name) : 0;
      if (!c.timed || w == 0 || !counted.count(c.name)) continue;
      const auto it = rep.find(c.name);
      if (it == rep.end() || !(it->second > 0)) return {};
      t += w * (c.higher_is_better ? -1 : 1) * std::log2(it->second);
    }
    out.push_back(t);
  }
  return out;
}

// Whether `a` beats `b`: b's score exceeds a's by more than the tie margin. The counted parts
// differ exactly. A timed criterion that counts adds weight * log2 of b's value over a's (the
// Hodges-Lehmann estimate of the ratio, analysis::RatioOfMedians; negated for higher-is-better)
// only when that ratio is significant at the confidence and larger than the criterion's spread
// (`noise`: its repetitions' largest over smallest, the median over the versions): a difference
// inside the noise is none. Were the low end of each interval used instead, or a difference
// within the spread allowed to offset an exact one, which versions tie would follow each run's
// noise, and the same study repeated would name different ties.
bool Beats(const Row& a, const Row& b, const RankOptions& options,
           const std::map<std::string, double>& noise) {
  double timed = 0;
  for (const Criterion& c : Criteria()) {
    const auto n = noise.find(c.name);
    const double w = options.weights.count(c.name) ? options.weights.at(c.name) : 0;
    if (!c.timed || n == noise.end() || w == 0) continue;
    const auto sa = a.samples.find(c.name), sb = b.samples.find(c.name);
    if (sa == a.samples.end() || sb == b.samples.end() || sa->second.empty() ||
        sb->second.empty()) {
      continue;
    }
    const auto positive = [](const std::vector<double>& v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
    };
    if (!positive(sa->second) || !positive(sb->second)) continue;
    const analysis::RatioInterval r =
        analysis::RatioOfMedians(sb->second, sa->second, options.confidence);
    if (!r.significant || std::max(r.estimate, 1 / r.estimate) <= n->second) continue;
    timed += w * (c.higher_is_better ? -1 : 1) * std::log2(r.estimate);
  }
  return b.counted - a.counted + timed > options.tie_margin;
}

// Scores every row on every criterion (the header comment of ranking.h).
json Score(std::vector<Row>& rows, const RankOptions& options,
           const std::map<std::string, double>& timed_noise, const std::string& type) {
  std::set<std::string> timed_counted;
  for (const auto& [name, spread] : timed_noise) timed_counted.insert(name);
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
        bool significant = false, beyond_noise = false;
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
            // The ratio of the medians, the one the tables and the verdict show (and the
            // break-even model uses), against the noise.
            const auto noise = timed_noise.find(name);
            beyond_noise = noise != timed_noise.end() && std::isfinite(ratio) && ratio > 0 &&
                           std::max(ratio, 1 / ratio) > noise->second;
          }
        }
        cj["significant"] = significant;
        if (!timed_counted.count(name)) {
          cost = 0;
          cj["counted"] = false;
        } else if (&row != best && !(significant && beyond_noise)) {
          // As in Beats: a difference inside the noise is none.
          cost = 0;
          cj["inside_noise"] = true;
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
    row.timed = TimedPart(row, options.weights, timed_counted);
    row.low = row.high = row.score;
    if (!row.timed.empty()) {
      const analysis::Summary t = analysis::Summarize(row.timed);
      row.low = std::max(0.0, row.score + (t.min - t.median));  // no cost is below 0
      row.high = row.score + (t.max - t.median);
    }
  }
  // Ranks: 1 + the versions that beat this one. "Beats" need not be transitive (a timed
  // difference inside the noise is none, an exact one is not), so it can go round in a cycle in
  // which every version is beaten: the versions ranked first are those of the top cycles (the
  // Schwartz set: every version that beats one of them is beaten back through a chain of them),
  // which is the unbeaten versions when there is no cycle.
  const size_t n = rows.size();
  std::vector<std::vector<bool>> reaches(n, std::vector<bool>(n, false));
  for (size_t i = 0; i < n; ++i) {
    if (rows[i].failed()) continue;
    rows[i].rank = 1;
    for (size_t j = 0; j < n; ++j) {
      if (i != j && !rows[j].failed() && Beats(rows[j], rows[i], options, timed_noise)) {
        ++rows[i].rank;
        reaches[j][i] = true;
      }
    }
  }
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (reaches[i][k] && reaches[k][j]) reaches[i][j] = true;
      }
    }
  }
  for (size_t v = 0; v < n; ++v) {
    if (rows[v].failed()) continue;
    bool top = true;
    for (size_t u = 0; u < n && top; ++u) top = !(reaches[u][v] && !reaches[v][u]);
    if (top) rows[v].rank = 1;
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
  // The timed criteria that count: all when the repetitions reach the confidence, but for one
  // whose repetitions of the same cell spread more than kMaxTimedSpread: it then measures the
  // machine's load (a p99 or a throughput caught by the scheduler), not the encoding.
  std::map<std::string, double> timed_counted;  // criterion -> its spread
  json timed_json = json::object();
  for (const Criterion& c : Criteria()) {
    if (!c.timed) continue;
    std::vector<double> spreads;
    for (const Row& row : rows) {
      const auto it = row.samples.find(c.name);
      if (it == row.samples.end() || it->second.empty()) continue;
      const auto [lo, hi] = std::minmax_element(it->second.begin(), it->second.end());
      if (*lo > 0) spreads.push_back(*hi / *lo);
    }
    const double spread = spreads.empty() ? 1 : Median(spreads);
    const bool noisy = spread > kMaxTimedSpread;
    timed_json[c.name] = {
        {"spread", spread}, {"noise", spread * spread}, {"counts", timings_count && !noisy}};
    if (timings_count && !noisy) timed_counted[c.name] = std::max(spread * spread, 1.0);
    if (timings_count && noisy) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.3g", spread);
      warnings.push_back(std::string(c.title) + " (" + c.name + ") does not count: the " +
                         "repetitions of the same cell spread " + buf +
                         "x (the median over "
                         "versions of their largest over their smallest), more than " +
                         std::to_string(static_cast<int>(kMaxTimedSpread)) +
                         "x: on this machine "
                         "it measures the load, not the encoding (a quieter machine, longer "
                         "phases or more repetitions would let it count)");
    }
  }
  for (const Row& row : rows) {
    for (const std::string& n : row.notes) warnings.push_back(row.label + ": " + n);
  }
  const json best = Score(rows, options, timed_counted, type);

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
              {"timed_criteria", timed_json},
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
