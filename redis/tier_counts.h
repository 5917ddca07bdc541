// TierCounts: what one command cost in the Redis tier.
//
// Header-only, so that layers that carry a command's counts without talking to Redis (KvTxn, in
// the KV-only encodings library) do not link the tier, hiredis or the process spawner.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace kvlab::redis {

struct TierCounts {
  uint64_t round_trips = 0;  // pipelines sent
  uint64_t commands = 0;     // Redis commands in them
  uint64_t cache_hits = 0;
  uint64_t cache_misses = 0;
  uint64_t degraded = 0;  // cache reads or writes skipped because the cache was unusable

  TierCounts& operator+=(const TierCounts& o) {
    round_trips += o.round_trips;
    commands += o.commands;
    cache_hits += o.cache_hits;
    cache_misses += o.cache_misses;
    degraded += o.degraded;
    return *this;
  }
  bool operator==(const TierCounts&) const = default;
  // The counters under the names INFO and results JSON use.
  std::vector<std::pair<const char*, uint64_t>> Fields() const {
    return {{"tier_round_trips", round_trips},
            {"tier_commands", commands},
            {"cache_hits", cache_hits},
            {"cache_misses", cache_misses},
            {"cache_degraded", degraded}};
  }
};

}  // namespace kvlab::redis
