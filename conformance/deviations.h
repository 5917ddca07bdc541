// The deviations catalogue (docs/deviations.json): the only ways kvlab's replies may differ from
// Redis's. A mismatch is a catalogued deviation when an entry covers the command, the entry is
// one of the deviations the registry row of the encode-version in use lists
// (EncodingSpec::deviations), and kvlab's reply is exactly what the entry's rule says; anything
// else is a failure.
//
// Rules:
//   integer_argument_count        kvlab replies the number of arguments from first_argument
//                                 on, divided by step (e.g. HSET's field-value pairs).
//   negative_zero_printed_as_zero kvlab's reply is Redis's with every "-0" bulk string read
//                                 as "0".
//   negative_zero_either_sign     the replies are equal once every "-0" bulk string, on either
//                                 side, is read as "0".
//   negative_zero_increment       the increment (the second-to-last argument: ZINCRBY's, ZADD
//                                 INCR's score) is -0, Redis replied "-0" and kvlab "0".
//   integral_score_text           the two member-score arrays are equal once every score printed
//                                 as an integer of 18 digits or more is re-printed with "%.17g"
//                                 (123456789012345680 -> 1.2345678901234568e+17), on both sides.
//   kv_encoding_name              Redis replied a bulk string (its in-memory encoding) and kvlab
//                                 the name of a kvlab encoding in use: "kv-string", or
//                                 encodings::KvEncodingName of a type and version of the profile.
//   value_refcount_one            Redis replied an integer and kvlab 1.
//   store_bytes                   both replied integers, kvlab's positive (bytes in the store).
//   unsupported_error             Redis replied, and kvlab replied an error starting "ERR kvlab ".
//   watched_blind_write           EXEC: kvlab replied a null array (a watched key was modified)
//                                 and Redis ran the transaction (an array).
//   dump_canonical_form           DUMP: both payloads parse, and kvlab's bytes are kvlab's own
//                                 serialization of the value in Redis's payload.
//   unsorted_set_order            SORT/SORT_RO BY a pattern without '*', no STORE, no LIMIT that
//                                 cuts the set: both replies hold the same groups of elements
//                                 (one per member: the member or its GET values), in another
//                                 order.
//
// An entry's type is a registry type, or "any" for a keyspace command's entry, which holds for
// every type and version: no registry row lists it.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "encodings/registry.h"
#include "resp/reply.h"

namespace kvlab::conformance {

inline constexpr const char* kAnyType = "any";

struct Deviation {
  std::string id;
  std::string type;  // a registry type name: "hash", "zset"; or kAnyType
  // The versions of `type` whose registry row lists this entry, by name (from the registry);
  // {kAnyType} for an entry of type kAnyType.
  std::vector<std::string> versions;
  std::vector<std::string> commands;  // lower case
  std::string rule;
  // When not empty, the entry holds only for these subcommands (argv[1], case-insensitive) of
  // its commands: {"encoding"} for OBJECT ENCODING.
  std::vector<std::string> subcommands;
  int first_argument = 0;
  int step = 1;
  std::string reason;
};

class DeviationCatalogue {
 public:
  // Loads the catalogue and joins it with the registry: every entry must name a registry type
  // and be listed by at least one of its rows, and every id a row lists must be an entry of
  // that row's type. Fails with InvalidArgument naming the entry or the row otherwise.
  static Status Load(const std::string& path, const encodings::EncodingRegistry& registry,
                     DeviationCatalogue* out);
  const std::vector<Deviation>& entries() const { return entries_; }

  // The id of the entry that explains kvlab's reply, or "" when none does. `profile` holds the
  // encode-versions of the keys the command touched, by type: an entry applies when the
  // command is one of its commands and the profile's version of its type lists it.
  std::string Explain(const std::vector<std::string>& argv,
                      const encodings::EncodingProfile& profile, const resp::Reply& redis,
                      const resp::Reply& kvlab) const;

 private:
  std::vector<Deviation> entries_;
};

// The catalogue's path in kvlab's data directory (base/data_dir.h).
std::string DefaultDeviationCataloguePath();

}  // namespace kvlab::conformance
