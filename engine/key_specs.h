// Key specs: where a command's keys are among its arguments, as Redis 7 describes them
// (src/commands/*.json, "key_specs"; COMMAND INFO's 9th element). Kvrocks' per-command key
// ranges play the same part.
//
// A spec is a begin search and a find step:
//   begin_search  index N: the search begins at argument N;
//                 keyword K (startfrom S): at the argument after the first one equal to K
//                 (case-insensitive), searched from argument S on (negative S: from argc+S
//                 backwards).
//   find_keys     range (lastkey L, keystep T, limit M): the keys run from the begin to begin+L
//                 (L < 0: to argc+L; with M > 1 and L == -1, the first 1/M of the remaining
//                 arguments), every T-th;
//                 keynum (keynumidx I, firstkey F, keystep T): the argument at begin+I is the
//                 number of keys, which start at begin+F, every T-th (ZUNIONSTORE's numkeys).
// A command with no spec has no keys. FindKeys follows Redis 7.0's getKeysUsingKeySpecs: the
// engine locks the keys it finds, COMMAND GETKEYS and COMMAND INFO report them, and conformance
// slices failing sequences by them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvlab::engine {

struct KeySpec {
  // begin_search: `keyword` empty for an index search.
  int index = 0;
  std::string_view keyword;
  int startfrom = 0;

  enum class Find : uint8_t { kRange, kKeynum };
  Find find = Find::kRange;
  int lastkey = 0;    // range
  int keystep = 1;    // range and keynum
  int limit = 0;      // range
  int keynumidx = 0;  // keynum
  int firstkey = 1;   // keynum

  // Redis's notes on the spec, COMMAND INFO's "notes" (BITFIELD's); empty for none.
  std::string_view notes;

  // Redis's flags of the spec for COMMAND INFO ("RW", "access", "update", "OW", ...). Empty:
  // "RW update" for a write command, "RO access" for a read (kvlab's approximation).
  std::vector<std::string_view> flags;

  // An index begin with a range: the keys from argument `first` to `lastkey` (relative to
  // first; negative: from the end), every `step`.
  static KeySpec Range(int first, int lastkey, int step, std::vector<std::string_view> flags = {}) {
    KeySpec s;
    s.index = first;
    s.lastkey = lastkey;
    s.keystep = step;
    s.flags = std::move(flags);
    return s;
  }
  // An index begin with a keynum: argument `index` + `keynumidx` is the number of keys, which
  // start at `index` + `firstkey`.
  static KeySpec Keynum(int index, int keynumidx, int firstkey, int step,
                        std::vector<std::string_view> flags = {}) {
    KeySpec s;
    s.index = index;
    s.find = Find::kKeynum;
    s.keynumidx = keynumidx;
    s.firstkey = firstkey;
    s.keystep = step;
    s.flags = std::move(flags);
    return s;
  }
  // begin_search and find_keys "unknown" (SORT's BY/GET and STORE keys): no search can find
  // these keys; the command's CommandSpec::find_keys does (Redis's getkeys_proc).
  bool unknown = false;
  static KeySpec Unknown(std::string_view notes, std::vector<std::string_view> flags) {
    KeySpec s;
    s.unknown = true;
    s.notes = notes;
    s.flags = std::move(flags);
    return s;
  }
  // Whether the keys' positions depend on the arguments (Redis's "movablekeys" flag).
  bool movable() const { return unknown || find == Find::kKeynum || !keyword.empty(); }
};

// Appends to *positions the argument positions of argv's keys under `specs`, in spec order
// (an unknown spec finds none).
// Returns false when a spec cannot be applied to argv (a numkeys argument that is missing, not a
// positive integer, or larger than the arguments that follow it): then *positions is emptied,
// as Redis reports no keys. Positions at or
// past argv's end are skipped (the command's own checks report the missing arguments).
bool FindKeys(const std::vector<KeySpec>& specs, const std::vector<std::string>& argv,
              std::vector<size_t>* positions);

}  // namespace kvlab::engine
