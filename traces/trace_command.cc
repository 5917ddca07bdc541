#include "traces/trace_command.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "flags/conventions.h"
#include "traces/anonymizer.h"
#include "traces/monitor_import.h"
#include "traces/trace_format.h"

namespace kvlab::traces {

using flags::kExitOk;
using flags::kExitUsage;

namespace {

struct TraceFlags {
  std::string input;
  std::string output;
  bool anonymize = false;
  std::string file;
  size_t top = 20;
};

int Import(const TraceFlags& f) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (f.input != "-") {
    file.open(f.input, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "kvlab trace import: cannot read '%s'\n", f.input.c_str());
      return kExitUsage;
    }
    in = &file;
  }
  std::unique_ptr<Anonymizer> anonymizer;
  if (f.anonymize) anonymizer = std::make_unique<Anonymizer>();
  ImportStats stats;
  Status s =
      ImportMonitor(*in, f.input == "-" ? "stdin" : f.input, f.output, anonymizer.get(), &stats);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab trace import: %s\n", s.message().c_str());
    return kExitUsage;
  }
  std::fprintf(stderr,
               "kvlab trace import: %llu commands of %llu clients from %llu lines into %s\n",
               static_cast<unsigned long long>(stats.commands),
               static_cast<unsigned long long>(stats.clients),
               static_cast<unsigned long long>(stats.lines), f.output.c_str());
  return kExitOk;
}

int Info(const TraceFlags& f) {
  TraceSummary t;
  Status s = SummarizeTrace(f.file, &t);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab trace info: %s\n", s.message().c_str());
    return kExitUsage;
  }
  std::printf("trace %s: format version %u, %llu bytes\n", f.file.c_str(), t.header.version,
              static_cast<unsigned long long>(t.bytes));
  std::string context = t.header.context;
  while (!context.empty() && context.back() == '\n') context.pop_back();
  for (size_t at = 0; at <= context.size() && !context.empty();) {
    const size_t nl = context.find('\n', at);
    std::printf("  %s\n", context.substr(at, nl - at).c_str());
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  std::string dbs;
  for (uint32_t db : t.dbs) dbs += (dbs.empty() ? "" : ",") + std::to_string(db);
  const double seconds = static_cast<double>(t.duration_us) / 1e6;
  std::printf("commands %llu, clients %llu, databases %s, duration %.3f s",
              static_cast<unsigned long long>(t.commands),
              static_cast<unsigned long long>(t.clients), dbs.empty() ? "-" : dbs.c_str(), seconds);
  if (seconds > 0) std::printf(" (%.0f commands/s)", static_cast<double>(t.commands) / seconds);
  std::printf("\n");
  if (t.commands > 0) {
    // Beyond the bytes stored for the arguments: an anonymized trace stores a value's length,
    // not its bytes (the summary counts such arguments at their length), so they count as
    // nothing stored; without this, an anonymized trace's overhead came out negative.
    uint64_t literal_bytes = 0;
    TraceReader reader;
    Status rs = reader.Open(f.file);
    TraceCommand c;
    for (bool done = false; rs.ok() && !done;) {
      rs = reader.Next(&c, &done);
      for (size_t i = 0; rs.ok() && !done && i < c.argv.size(); ++i) {
        if (c.kinds.empty() || c.kinds[i] == ArgKind::kLiteral) literal_bytes += c.argv[i].size();
      }
    }
    const double overhead = (static_cast<double>(t.bytes) - static_cast<double>(literal_bytes)) /
                            static_cast<double>(t.commands);
    std::printf("bytes per command: %.1f beyond its stored arguments", overhead);
    if (t.arg_bytes > literal_bytes) {
      std::printf(
          " (%.1f bytes of arguments per command replaced by their lengths)",
          static_cast<double>(t.arg_bytes - literal_bytes) / static_cast<double>(t.commands));
    }
    std::printf("\n");
  }
  if ((t.end.flags & kTraceStoppedAtSizeBound) != 0) {
    std::printf("recording stopped at its size bound; %llu later commands were not recorded\n",
                static_cast<unsigned long long>(t.end.unrecorded));
  }
  std::printf("mix:\n");
  size_t shown = 0;
  for (const auto& [name, count] : t.mix) {
    if (shown++ == f.top) {
      std::printf("  ... %zu more commands\n", t.mix.size() - f.top);
      break;
    }
    std::printf("  %-20s %10llu  %5.1f%%\n", name.c_str(), static_cast<unsigned long long>(count),
                100.0 * static_cast<double>(count) / static_cast<double>(t.commands));
  }
  return kExitOk;
}

}  // namespace

void AddTraceCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<TraceFlags>();
  CLI::App* cmd =
      app.add_subcommand("trace",
                         "Import redis-cli MONITOR output into a kvlab trace, or summarise a trace "
                         "(replay one with `kvlab bench run trace:FILE`; docs/traces.md)");
  cmd->require_subcommand(1);
  CLI::App* import = cmd->add_subcommand(
      "import", "Read `redis-cli MONITOR` output (a file, or - for stdin) into a trace");
  import->add_option("MONITOR_FILE", f->input, "The MONITOR output")->required();
  import->add_option("-o,--output", f->output, "The trace to write")->required();
  import->add_flag("--anonymize", f->anonymize,
                   "Hash keys and members with a keyed hash and keep only values' lengths "
                   "(docs/traces.md says exactly what)");
  import->callback([f, exit_code] { *exit_code = Import(*f);
});
CLI::App* info = cmd->add_subcommand(
    "info", "Summarise a trace: commands, clients, duration, command mix; checks every block");
info->add_option("FILE", f->file, "The trace")->required();
info->add_option("--top", f->top, "Commands of the mix to show")->capture_default_str();
info->callback([f, exit_code] { *exit_code = Info(*f); });
}  // namespace kvlab::traces

}  // namespace kvlab::traces
