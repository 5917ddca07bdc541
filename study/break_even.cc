#include "study/break_even.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kvlab::study {
namespace {

using nlohmann::json;

// The per-command number behind each per-command criterion.
const std::map<std::string, std::string>& FieldOf() {
  static const std::map<std::string, std::string> kFields = {{"latency", "p50_us"},
                                                             {"tail_latency", "p99_us"},
                                                             {"kv_ops", "kv_ops"},
                                                             {"kv_bytes", "kv_bytes"},
                                                             {"round_trips", "round_trips"}};
  return kFields;
}

struct Version {
  std::string label;
  double fixed_cost = 0;  // the costs of the criteria the mix does not change
  // command -> field -> value per call
  std::map<std::string, std::map<std::string, double>> per_command;
};

class Model {
 public:
  Model(const json& ranking, const RankOptions& options) : options_(options) {
    const json timed = ranking.value("timed_criteria", json::object());
    for (const Criterion& c : Criteria()) {
      if (!c.timed) continue;
      const json& t = timed.value(c.name, json());
      // A ranking without the member (older) counts its timed criteria when its timings do.
      if (t.is_object() ? t.value("counts", false) : ranking.value("timings_count", true)) {
        timed_counted_[c.name] = t.is_object() ? t.value("noise", 1.0) : 1.0;
      }
    }
    const json shares = ranking.value("command_shares", json::object());
    for (const auto& [command, share] : shares.items()) {
      commands_.push_back(command);
      shares_.push_back(share.get<double>());
    }
    for (const json& row : ranking.value("rows", json::array())) {
      if (!row.value("rank", json()).is_number()) continue;
      Version v;
      v.label = row.value("label", "");
      for (const Criterion& c : Criteria()) {
        if (c.per_command) continue;
        const json& cj = row["criteria"].value(c.name, json());
        if (cj.is_object()) v.fixed_cost += cj.value("cost", 0.0);
      }
      bool complete = true;
      for (const std::string& command : commands_) {
        const json& e = row["commands"].value(command, json());
        if (!e.is_object()) {
          complete = false;
          break;
        }
        for (const auto& [criterion, field] : FieldOf()) {
          v.per_command[command][field] = e.value(field, 0.0);
        }
        v.per_command[command]["kv_round_trips"] = e.value("kv_round_trips", 0.0);
      }
      if (complete) versions_.push_back(std::move(v));
    }
  }

  bool usable() const { return versions_.size() >= 2 && !commands_.empty(); }
  size_t size() const { return versions_.size(); }
  const std::vector<std::string>& commands() const { return commands_; }
  const std::vector<double>& shares() const { return shares_; }
  const std::string& label(size_t v) const { return versions_[v].label; }

  // The first place (an index into the versions) under `mix` (one share per command, summing
  // to 1) with `rtt_us` added to every KV round trip.
  size_t Leader(const std::vector<double>& mix, double rtt_us) const {
    std::vector<double> score(versions_.size());
    for (size_t v = 0; v < versions_.size(); ++v) score[v] = versions_[v].fixed_cost;
    for (const Criterion& c : Criteria()) {
      if (!c.per_command) continue;
      const double weight = options_.weights.count(c.name) ? options_.weights.at(c.name) : 0;
      if (weight == 0 || (c.timed && !timed_counted_.count(c.name))) continue;
      const std::string& field = FieldOf().at(c.name);
      std::vector<double> x(versions_.size(), 0);
      for (size_t v = 0; v < versions_.size(); ++v) {
        for (size_t k = 0; k < commands_.size(); ++k) {
          const auto& numbers = versions_[v].per_command.at(commands_[k]);
          double value = numbers.at(field);
          if (c.timed) value += rtt_us * numbers.at("kv_round_trips");
          x[v] += mix[k] * value;
        }
      }
      double best = x[0];
      for (double value : x)
        best = c.higher_is_better ? std::max(best, value) : std::min(best, value);
      for (size_t v = 0; v < versions_.size(); ++v) {
        if (!c.timed && !Material(x[v], best, options_.materiality)) continue;
        // As in the ranking: a timed difference inside the ranking's noise is none.
        if (c.timed && best > 0 && x[v] > 0 &&
            std::max(x[v] / best, best / x[v]) <= timed_counted_.at(c.name)) {
          continue;
        }
        score[v] += weight * CostOf(c, x[v], best);
      }
    }
    size_t leader = 0;
    for (size_t v = 1; v < versions_.size(); ++v) {
      if (score[v] < score[leader] - 1e-12) leader = v;
    }
    return leader;
  }

  // The mix with command k at share s, the others keeping their proportions.
  std::vector<double> MixAt(size_t k, double s) const {
    std::vector<double> mix = shares_;
    const double rest = 1 - shares_[k];
    for (size_t j = 0; j < mix.size(); ++j) {
      mix[j] = j == k ? s : (rest > 0 ? shares_[j] * (1 - s) / rest : 0);
    }
    return mix;
  }

 private:
  const RankOptions& options_;
  std::map<std::string, double> timed_counted_;  // the timed criteria that count -> noise
  std::vector<std::string> commands_;
  std::vector<double> shares_;
  std::vector<Version> versions_;
};

// The point in (inside, outside] where `changed(x)` first holds, between two grid points where it
// does not and does: bisection to 2^-40 of the interval.
template <typename F>
double Refine(double inside, double outside, const F& changed) {
  for (int i = 0; i < 40; ++i) {
    const double mid = (inside + outside) / 2;
    if (!changed(mid)) {
      inside = mid;
    } else {
      outside = mid;
    }
  }
  return outside;
}

}  // namespace

json BreakEven(const json& ranking, const RankOptions& options) {
  const Model model(ranking, options);
  constexpr double kRttMaxUs = 10000;
  json out = {{"agrees", false},
              {"model_leader", nullptr},
              {"rtt_max_us", kRttMaxUs},
              {"points", json::array()}};
  if (!model.usable()) return out;
  const json& rows = ranking["rows"];
  const size_t now = model.Leader(model.shares(), 0);
  out["model_leader"] = model.label(now);
  // The model's first place must be one the ranking puts first (tied or alone). The first place
  // changes when the model's leaves that group: a move among versions tied for first is noise.
  std::vector<bool> first(model.size(), false);
  for (size_t v = 0; v < model.size(); ++v) {
    for (const json& row : rows) {
      if (row.value("first", false) && row["label"] == model.label(v)) first[v] = true;
    }
  }
  if (!first[now]) return out;
  out["agrees"] = true;
  // Share: each command, down and up from its share in the workload.
  constexpr int kSteps = 2000;
  for (size_t k = 0; k < model.commands().size() && model.commands().size() > 1; ++k) {
    const double s0 = model.shares()[k];
    auto leader_at = [&](double s) { return model.Leader(model.MixAt(k, s), 0); };
    auto changed = [&](double s) { return !first[leader_at(s)]; };
    for (const int dir : {-1, +1}) {
      double prev = s0;
      for (int i = 1; i <= kSteps; ++i) {
        const double s = std::clamp(s0 + dir * static_cast<double>(i) / kSteps, 0.0, 1.0);
        if (changed(s)) {
          const double at = Refine(prev, s, changed);
          out["points"].push_back({{"kind", "share"},
                                   {"command", model.commands()[k]},
                                   {"now", s0},
                                   {"now_percent", 100 * s0},
                                   {"at", at},
                                   {"at_percent", 100 * at},
                                   {"direction", dir < 0 ? "below" : "above"},
                                   {"from", model.label(now)},
                                   {"to", model.label(leader_at(at))}});
          break;
        }
        prev = s;
        if (s == 0.0 || s == 1.0) break;
      }
    }
  }
  // Round trip: 1 µs to 10 ms, on a logarithmic grid.
  auto leader_rtt = [&](double rtt) { return model.Leader(model.shares(), rtt); };
  auto changed_rtt = [&](double rtt) { return !first[leader_rtt(rtt)]; };
  double prev = 0;
  for (int i = 0; i <= 400; ++i) {
    const double rtt = std::pow(kRttMaxUs, static_cast<double>(i) / 400);
    if (changed_rtt(rtt)) {
      const double at = Refine(prev, rtt, changed_rtt);
      out["points"].push_back({{"kind", "rtt"},
                               {"at_us", at},
                               {"from", model.label(now)},
                               {"to", model.label(leader_rtt(at))}});
      break;
    }
    prev = rtt;
  }
  return out;
}

}  // namespace kvlab::study
