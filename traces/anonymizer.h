// Anonymization of a trace's commands (`kvlab serve --record --anonymize`, `kvlab trace import
// --anonymize`; docs/traces.md, "Anonymization", says exactly what is hashed and what is kept).
//
// - Keys (their positions from the engine's command table and key specs) and members, fields,
//   patterns and lex bounds (from per-command argument roles, the table in anonymizer.cc) are
//   replaced by a keyed hash: HMAC-SHA256 under a secret drawn when the anonymizer is made,
//   as lower-case hex of the input's length (at least 16 characters, so that short names do
//   not collide). The same input gives the same output across the trace, so keys keep their
//   identity, a member stays the same member, and a member equal to a key name stays equal.
// - Values (SET's value, HSET's values, list elements) are not stored at all: the trace keeps
//   their length (ArgKind::kValue), or for a value that is a number its length as a number
//   (ArgKind::kNumber), so that INCR-style commands still find an integer.
// - Everything else is kept: command names, option keywords, counts, scores, ranks, TTLs.
// - Arguments of commands the table does not describe are hashed unless they are numbers.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/trace_format.h"

namespace kvlab::traces {

class Anonymizer {
 public:
  // A secret of random bytes: the hash cannot be reversed by guessing likely key names.
  Anonymizer();
  // A given secret (tests, and the same mapping across several traces).
  explicit Anonymizer(std::string secret);

  // Rewrites argv in place: hashed arguments replaced, values kept as they are in argv but
  // marked in *kinds (the writer stores only their length). *kinds gets one entry per argument.
  void Apply(std::vector<std::string>* argv, std::vector<ArgKind>* kinds) const;

  // The keyed hash of one name.
  std::string Hash(std::string_view in) const;

 private:
  std::string secret_;
  std::unordered_map<std::string, std::string_view> roles_;
};

}  // namespace kvlab::traces
