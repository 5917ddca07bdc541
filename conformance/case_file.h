// Case files: the curated command streams that kvlab replays against a real redis-server and
// against the engine.
//
// Format (plain text, one command per line, redis-cli quoting):
//   # a comment, to the end of the line (only at the start of a line)
//   SET k "a value with spaces\x00and a NUL"
//   @sleep 150          pause both sides for 150 ms (expiry cases)
// Blank lines are ignored. Each file is one case; its commands run in order on a fresh
// keyspace (FLUSHALL on both sides before the first command).
#pragma once

#include <string>
#include <vector>

#include "backends/status.h"

namespace kvlab {

struct CaseStep {
  int line = 0;                   // 1-based line in the file
  std::vector<std::string> argv;  // the command; empty for a directive
  int sleep_ms = 0;               // @sleep
};

struct CaseFile {
  std::string name;  // file name without directory and extension
  std::string path;
  std::vector<CaseStep> steps;
};

Status ParseCaseText(const std::string& name, const std::string& text, CaseFile* out);
Status LoadCaseFile(const std::string& path, CaseFile* out);
// Every *.txt under dir, sorted by name.
Status LoadCaseDirectory(const std::string& dir, std::vector<CaseFile>* out);
// The line that reproduces a step (quoted as needed), for reports and shrunk cases.
std::string FormatCommandLine(const std::vector<std::string>& argv);

}  // namespace kvlab
