// CommandTemplate: one Redis command of a workload, with placeholders that each operation fills
// in (docs/workloads.md lists them):
//
//   {key} {key_id}           the operation's record: key_prefix + id, and the id
//   {new_key} {new_key_id}   a record this operation inserts (the next id of the insert counter)
//   {element} {element_id}   an element of the record: element_prefix + index, and the index
//   {elements}               (a whole argument) every element of the record, or of the load
//                            batch: "field value" pairs for hashes, "score member" for zsets
//   {value}                  value_bytes random printable bytes
//   {score}                  a random integer in [0, score_range)
//   {int:A:B}                a random integer in [A, B]
//   {now} {now+N} {now-N}    the logical clock: clock_start + the operation's sequence number
//   {scan_length}            a scan length drawn from the phase's scan_length distribution
//   {draw:D}                 an integer drawn from the workload's distribution D
//   {bytes:D}                random printable bytes, their length drawn from D
//   {member:N:L}             a member (field) of the command's key, of the synthetic
//                            collections below: its index uniform below the key's size
//   {fields:N:L:V}           (a whole argument) the key's synthetic collection: N gives its
//   {members:N:L}            size, L its members' lengths, V its values' lengths; "field value"
//   {scored:N:L}             pairs, members, or "score member" pairs (profile.h writes them)
//
// Every placeholder is drawn once per operation: "HGET {key} {element}" followed by
// "HSET {key} {element} {value}" reads and writes the same field of the same record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::workloads {

struct TemplatePart {
  enum class Kind {
    kLiteral,
    kKey,
    kKeyId,
    kNewKey,
    kNewKeyId,
    kElement,
    kElementId,
    kValue,
    kScore,
    kInt,
    kNow,
    kScanLength,
    kDraw,
    kBytes,
    kMember,
  };
  Kind kind = Kind::kLiteral;
  std::string literal;  // kLiteral
  int64_t a = 0;        // kInt: low bound; kNow: offset
  int64_t b = 0;        // kInt: high bound
  // kDraw, kBytes: the distribution; kMember: the size's (N) and the length's (L).
  std::vector<std::string> distributions;
};

// A whole argument that expands into a key's synthetic collection (profile workloads): its size
// and its members' and values' lengths are functions of the key's number and the members' index
// (docs/workloads.md, "Synthetic collections"), so a load and later reads agree without state.
struct CollectionExpansion {
  enum class Kind { kNone, kFields, kMembers, kScored };
  Kind kind = Kind::kNone;
  std::string size, length, value_length;  // distribution names (value_length: kFields)
};

struct TemplateArg {
  // True for the "{elements}" argument, which expands into several arguments.
  bool expand_elements = false;
  CollectionExpansion collection;
  std::vector<TemplatePart> parts;
};

struct CommandTemplate {
  std::string text;  // as written, for messages and results
  std::string name;  // the command name, upper case (HGET); a literal, never a placeholder
  std::vector<TemplateArg> args;  // argv[1..]
  // Load commands only: the records [records_from, records_to) that run it (a profile workload
  // gives each Redis type a range of records); every record by default.
  uint64_t records_from = 0;
  uint64_t records_to = UINT64_MAX;

  bool Uses(TemplatePart::Kind kind) const;
  bool UsesElements() const;
  bool UsesCollection() const;
  // The distributions its placeholders name.
  std::vector<std::string> Distributions() const;
};

// Compiles a command given as its arguments (argv[0] is the command name). Fails with
// InvalidArgument naming the bad placeholder; `where` prefixes the message (a JSON path).
Status CompileTemplate(const std::vector<std::string>& argv, const std::string& where,
                       CommandTemplate* out);
// The same from one line in redis-cli quoting ("HSET {key} {element} {value}").
Status CompileTemplateLine(const std::string& line, const std::string& where, CommandTemplate* out);

}  // namespace kvlab::workloads
