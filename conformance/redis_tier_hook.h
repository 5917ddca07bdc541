// The Redis-tier dimension of the conformance matrix.
//
// Hash v2/v3 and zset v1-v3 keep state in a Redis tier (a cache in front of KV, or zset v3's
// store beside it). Their replies must not depend on what that cache holds, so the harness runs
// them in several cache states:
//   cold     the cache is emptied once at the start of every case, after its FLUSHALL; the
//            case then warms it as it goes, as a fresh server would;
//   warm     every read-only command is run twice on the subject: the first run fills the
//            cache, the second is served from it; both replies must equal Redis's;
//   flushed  the cache is emptied before every command, so every read misses (eviction
//            between commands).
// Versions without a tier run once, in state kNone.
//
// The harness drives the tier only through RedisTierControl; EngineTierWiring
// (conformance/subjects.h) provides it for the engine's own tier.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kvlab::conformance {

enum class TierState { kNone, kCold, kWarm, kFlushed };

// "none", "cold", "warm", "flushed".
std::string_view TierStateName(TierState state);
// Parses one of the names above (not "none"); false when it is none of them.
bool ParseTierState(std::string_view name, TierState* out);
// The states a tier version runs in, in report order.
inline std::vector<TierState> AllTierStates() {
  return {TierState::kCold, TierState::kWarm, TierState::kFlushed};
}

// What the harness needs from an engine's Redis tier.
class RedisTierControl {
 public:
  virtual ~RedisTierControl() = default;
  // Empties the cache tier (FLUSHALL on the cache Redis, and the key-meta cache if any). Must
  // never touch a storage tier such as zset v3's store: that would lose data, not just cost.
  virtual Status FlushCache() = 0;
};

}  // namespace kvlab::conformance
