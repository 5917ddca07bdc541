// Case files: the curated command streams that kvlab replays against a real redis-server and
// against the engine.
//
// Format (plain text, one command per line, redis-cli quoting):
//   # a comment, to the end of the line (only at the start of a line)
//   SET k "a value with spaces\x00and a NUL"
//   @sleep 150                 pause both sides for 150 ms (expiry cases)
//   @define big 1048577 "ab"   define ${big}: "ab" repeated and cut to exactly 1048577 bytes
//                              (the text is optional and defaults to "x"; names are letters,
//                              digits and '_'; at most 64 MiB)
//   SET k ${big}               an argument written bare as ${name} is replaced by the value
// Only a whole, unquoted argument is a substitution: "${big}" in quotes, or x${big}, are sent
// as written. A name used before its @define is an error. Blank lines are ignored. Each
// file is one case; its commands run in order on a fresh keyspace (FLUSHALL and SELECT 0 on
// both sides before the first command).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace kvlab::conformance {

struct CaseStep {
  int line = 0;                   // 1-based line in the file
  std::vector<std::string> argv;  // the command, ${name}s replaced; empty for @sleep
  int sleep_ms = 0;               // @sleep
};

struct CaseFile {
  std::string name;  // file name without directory and extension
  std::string path;  // empty for a case made in memory (random sequences)
  std::vector<CaseStep> steps;
};

Status ParseCaseText(const std::string& name, const std::string& text, CaseFile* out);
Status LoadCaseFile(const std::string& path, CaseFile* out);
// Every *.txt under dir, sorted by name.
Status LoadCaseDirectory(const std::string& dir, std::vector<CaseFile>* out);
// The line that reproduces a command in a case file (quoted as needed; SplitArgs reads it back
// to the same argv).
std::string FormatCommandLine(const std::vector<std::string>& argv);
// The same, for people: arguments over `max_arg_bytes` are cut and marked with their length.
std::string DisplayCommandLine(const std::vector<std::string>& argv, size_t max_arg_bytes = 80);

}  // namespace kvlab::conformance
