#include "conformance/redis_tier_hook.h"

namespace kvlab::conformance {

std::string_view TierStateName(TierState state) {
  switch (state) {
    case TierState::kNone:
      return "none";
    case TierState::kCold:
      return "cold";
    case TierState::kWarm:
      return "warm";
    case TierState::kFlushed:
      return "flushed";
  }
  return "?";
}

bool ParseTierState(std::string_view name, TierState* out) {
  for (TierState s : AllTierStates()) {
    if (name == TierStateName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

}  // namespace kvlab::conformance
