#include "study/criteria.h"

#include <cmath>
#include <sstream>

namespace kvlab::study {

const std::vector<Criterion>& Criteria() {
  static const std::vector<Criterion> kCriteria = {
      {"latency", "p50", "µs",
       "median latency of the type's commands (call-weighted mean of each command's p50)", false,
       true, true, 0, 2},
      {"tail_latency", "p99", "µs", "p99 latency of the type's commands (call-weighted mean)",
       false, true, true, 0, 1},
      {"throughput", "ops/s", "ops/s",
       "operations per second of the whole workload (the other types at their fixed version)", true,
       true, false, 0, 1},
      {"kv_ops", "KV ops", "/cmd",
       "KV operations per command of the type: point reads, seeks, nexts, prevs and written "
       "records (exact)",
       false, false, true, 1, 0.5},
      {"kv_bytes", "KV bytes", "B/cmd", "KV bytes read and written per command (exact)", false,
       false, true, 64, 0.25},
      {"round_trips", "Redis RTs", "/cmd", "Redis-tier round trips per command", false, false, true,
       1, 0.5},
      {"redis_memory", "Redis B/elem", "B",
       "Redis-tier memory (INFO used_memory_dataset of the cache and store Redis the version uses) "
       "per element, at the end of the load",
       false, false, false, 16, 0.5},
      {"space", "B/elem", "B",
       "what keeping the data costs: the live bytes (keys + values) of the type's records per "
       "element at the end of the load, garbage excluded, plus a store Redis's dataset; the same "
       "however the load was batched",
       false, false, false, 16, 1},
      {"write_bytes", "write B/elem", "B",
       "KV bytes the load wrote per element (every key-meta rewrite of each load batch included): "
       "write volume, not space",
       false, false, false, 16, 0},
      {"exactness", "deviations", "",
       "catalogued reply deviations the workload's commands hit (cost: each beyond the fewest)",
       false, false, false, 0, 1},
      {"needs", "needs", "",
       "what the version needs beside the KV store (cost: 1 per cache Redis, 2 per store Redis)",
       false, false, false, 0, 1},
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

std::string CriterionNames() {
  std::string names;
  for (const Criterion& c : Criteria()) names += std::string(names.empty() ? "" : ", ") + c.name;
  return names;
}

Status ParseWeights(const std::string& text, Weights* out) {
  const std::string names = CriterionNames();
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

}  // namespace kvlab::study
