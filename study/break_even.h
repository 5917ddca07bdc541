// Where the first place of a ranking changes: its break-even points.
//
// No benchmark tells a user how far their workload is from another answer. A ranking holds, per
// version, each command's measured numbers (p50, p99, exact KV operations and bytes, Redis and
// KV round trips per call) and the command mix the workload ran. The model re-scores the versions
// for another mix or another store:
//
//   - the per-command criteria (Criterion::per_command: p50, p99, KV ops, KV bytes, Redis round
//     trips) become the call-weighted means of the commands' numbers under the new mix, scored
//     as ranking.h scores them (each against the best version, materiality on counted ones);
//   - every other criterion (throughput, space, write bytes, Redis memory, exactness, needs)
//     keeps the cost the ranking gave it.
//
// Two axes are searched:
//   share  one command's share of the type's calls, from 0 to 1, the other commands keeping
//          their proportions: the nearest shares below and above the workload's own at which the
//          model's first place changes (found on a grid of 1/2000, refined by bisection);
//   rtt    a round trip added to every KV call, as a remote store adds it
//          (backends::RemoteLatencyStore's rules): each command's p50 and p99 grow by rtt times
//          its KV round trips per call; the smallest rtt up to 10 ms at which the first place
//          changes.
// The first place changes where the model's first place leaves the versions the ranking puts first
// (alone or tied): a move among versions tied within the noise is not a change. The model holds
// only where it reproduces the ranking: at the workload's own mix and no added round trip, its
// first place must be one of those versions (`agrees`); otherwise no point is given.
#pragma once

#include <nlohmann/json.hpp>

#include "study/ranking.h"

namespace kvlab::study {

// The break-even analysis of one entry of RankResult's rankings (before it is added):
// {"agrees": bool, "model_leader": label, "points": [...]}, each point
// {"kind": "share", "command", "now", "at", "direction": "below"|"above", "from", "to"} (`to`
// ranks first once the command's share passes `at` in that direction) or
// {"kind": "rtt", "at_us", "from", "to"}. Empty points: nothing on the axes changes the first
// place. docs/study.md describes it.
nlohmann::json BreakEven(const nlohmann::json& ranking, const RankOptions& options);

}  // namespace kvlab::study
