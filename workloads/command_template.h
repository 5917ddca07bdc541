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
  };
  Kind kind = Kind::kLiteral;
  std::string literal;  // kLiteral
  int64_t a = 0;        // kInt: low bound; kNow: offset
  int64_t b = 0;        // kInt: high bound
};

struct TemplateArg {
  // True for the "{elements}" argument, which expands into several arguments.
  bool expand_elements = false;
  std::vector<TemplatePart> parts;
};

struct CommandTemplate {
  std::string text;  // as written, for messages and results
  std::string name;  // the command name, upper case (HGET); a literal, never a placeholder
  std::vector<TemplateArg> args;  // argv[1..]

  bool Uses(TemplatePart::Kind kind) const;
  bool UsesElements() const;
};

// Compiles a command given as its arguments (argv[0] is the command name). Fails with
// InvalidArgument naming the bad placeholder; `where` prefixes the message (a JSON path).
Status CompileTemplate(const std::vector<std::string>& argv, const std::string& where,
                       CommandTemplate* out);
// The same from one line in redis-cli quoting ("HSET {key} {element} {value}").
Status CompileTemplateLine(const std::string& line, const std::string& where, CommandTemplate* out);

}  // namespace kvlab::workloads
