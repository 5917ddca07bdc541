// The criteria `kvlab study` ranks encode-versions on, and their weights.
//
// A criterion is either timed (noisy: p50, p99, throughput; its uncertainty comes from the
// repetitions) or counted (exact for a given workload and seed: KV operations, bytes, Redis round
// trips, space, deviations, needs). docs/study.md explains each and how the score is built.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::study {

struct Criterion {
  const char* name;       // as in --weights: "latency"
  const char* title;      // table heading: "p50"
  const char* unit;       // "µs", "ops/s", "B", ...
  const char* what;       // one line: what is measured
  bool higher_is_better;  // throughput
  bool timed;             // noisy: uncertainty from repetitions; otherwise counted (exact)
  // Depends on the mix of the type's commands: recomputed from the per-command numbers when the
  // break-even analysis moves the mix (break_even.h). The others are held at their measured
  // value there.
  bool per_command;
  double floor;  // added to both sides of a ratio, so that 0 against 1 stays finite
  double default_weight;
};

// The criteria, in table order.
const std::vector<Criterion>& Criteria();
const Criterion* FindCriterion(const std::string& name);

using Weights = std::map<std::string, double>;
Weights DefaultWeights();
// Parses "latency=2,space=1" over the defaults: named criteria get the given weights (>= 0),
// the others keep theirs. Unknown names and bad numbers are errors that list the valid names.
Status ParseWeights(const std::string& text, Weights* out);
// "latency=2, tail_latency=1, ...", in table order.
std::string FormatWeights(const Weights& w);
// "latency, tail_latency, ...": the names, for help texts and errors.
std::string CriterionNames();

}  // namespace kvlab::study
