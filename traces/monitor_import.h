// `redis-cli MONITOR` output into a trace (docs/traces.md, "Importing MONITOR output").
//
// A MONITOR line is `<unix seconds>.<micros> [<db> <client>] "arg" "arg" ...`, each argument in
// the quoting of Redis's sdscatrepr: \" \\ \n \r \t \a \b and \xHH for every other byte outside
// printable ASCII. Client addresses ("127.0.0.1:60866", "unix:/tmp/r.sock", "lua") become
// client numbers 1, 2, ... in order of first appearance. redis-cli's leading "OK" and empty
// lines are skipped; any other line that does not parse is an error naming its line.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "traces/trace_format.h"

namespace kvlab::traces {

class Anonymizer;

struct MonitorLine {
  uint64_t time_us = 0;  // since the epoch
  uint32_t db = 0;
  std::string client;
  std::vector<std::string> argv;
};

// Parses one line (without its newline). InvalidArgument with what is wrong and where in the
// line: "unbalanced quotes: the argument that starts at column 40 is not closed".
Status ParseMonitorLine(std::string_view line, MonitorLine* out);

struct ImportStats {
  uint64_t lines = 0;
  uint64_t commands = 0;
  uint64_t clients = 0;
};

// Reads MONITOR output from `in` (named `source` in messages and in the trace's context) into
// a new trace at `out_path`. anonymizer may be null. An error names the line: "monitor.txt:12:
// unbalanced quotes ...". On error the output file is removed.
Status ImportMonitor(std::istream& in, const std::string& source, const std::string& out_path,
                     const Anonymizer* anonymizer, ImportStats* stats);

}  // namespace kvlab::traces
