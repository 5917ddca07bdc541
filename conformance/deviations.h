// The deviations catalogue (docs/deviations.json): the only ways kvlab's replies may differ from
// Redis's. A mismatch is a catalogued deviation when an entry covers the command and the
// encode-version in use, and kvlab's reply is exactly what the entry's rule says; anything
// else is a failure.
//
// Rules:
//   integer_argument_count        kvlab replies the number of arguments from first_argument
//                                 on, divided by step (e.g. HSET's field-value pairs).
//   negative_zero_printed_as_zero kvlab's reply is Redis's with every "-0" bulk string read
//                                 as "0".
//   negative_zero_increment       the increment (the second-to-last argument: ZINCRBY's, ZADD
//                                 INCR's score) is -0, Redis replied "-0" and kvlab "0".
//   integral_score_text           the two member-score arrays are equal once every score printed
//                                 as an integer of 18 digits or more is re-printed with "%.17g"
//                                 (123456789012345680 -> 1.2345678901234568e+17), on both sides.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "resp/reply.h"

namespace kvlab::conformance {

struct Deviation {
  std::string id;
  std::string type;  // "hash" or "zset"
  std::vector<int> versions;
  std::vector<std::string> commands;  // lower case
  std::string rule;
  int first_argument = 0;
  int step = 1;
  std::string reason;
};

class DeviationCatalogue {
 public:
  static Status Load(const std::string& path, DeviationCatalogue* out);
  const std::vector<Deviation>& entries() const { return entries_; }

  // The id of the entry that explains kvlab's reply, or "" when none does. hash_version and
  // zset_version are the encode-versions of the keys the command touched.
  std::string Explain(const std::vector<std::string>& argv, int hash_version, int zset_version,
                      const resp::Reply& redis, const resp::Reply& kvlab) const;

 private:
  std::vector<Deviation> entries_;
};

// The catalogue's path in the source tree.
std::string DefaultDeviationCataloguePath();

}  // namespace kvlab::conformance
