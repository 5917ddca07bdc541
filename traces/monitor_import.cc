#include "traces/monitor_import.h"

#include <cstdio>
#include <filesystem>
#include <map>

#include "traces/anonymizer.h"

namespace kvlab::traces {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status Bad(const std::string& what, size_t column) {
  return Status::InvalidArgument(what + " (column " + std::to_string(column + 1) + ")");
}

// Parses a quoted argument starting at line[*pos] == '"' (sdscatrepr's form).
Status ParseQuoted(std::string_view line, size_t* pos, std::string* out) {
  const size_t start = *pos;
  out->clear();
  size_t i = start + 1;
  while (i < line.size()) {
    const char c = line[i];
    if (c == '"') {
      *pos = i + 1;
      return Status::OK();
    }
    if (c != '\\') {
      out->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= line.size()) break;
    const char e = line[i + 1];
    switch (e) {
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'a':
        out->push_back('\a');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '"':
        out->push_back('"');
        break;
      case 'x': {
        const int hi = i + 2 < line.size() ? HexDigit(line[i + 2]) : -1;
        const int lo = i + 3 < line.size() ? HexDigit(line[i + 3]) : -1;
        if (hi < 0 || lo < 0) return Bad("a \\x escape without two hex digits", i);
        out->push_back(static_cast<char>(hi * 16 + lo));
        i += 4;
        continue;
      }
      default:
        return Bad(std::string("an unknown escape \\") + e, i);
    }
    i += 2;
  }
  return Bad("unbalanced quotes: the argument that starts here is not closed", start);
}

}  // namespace

Status ParseMonitorLine(std::string_view line, MonitorLine* out) {
  *out = MonitorLine();
  // "<seconds>.<micros> "
  size_t i = 0;
  uint64_t seconds = 0, micros = 0;
  size_t digits = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 12) {
    seconds = seconds * 10 + static_cast<uint64_t>(line[i++] - '0');
    ++digits;
  }
  if (digits == 0 || i >= line.size() || line[i] != '.') {
    return Bad("not a MONITOR line: it does not begin with a <seconds>.<microseconds> time", 0);
  }
  ++i;
  size_t frac = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') {
    if (frac < 6) micros = micros * 10 + static_cast<uint64_t>(line[i] - '0');
    ++frac;
    ++i;
  }
  if (frac == 0) return Bad("a time without microseconds", i);
  for (; frac < 6; ++frac) micros *= 10;
  out->time_us = seconds * 1000000 + micros;
  if (line.substr(i, 2) != " [") return Bad("expected ' [<db> <client>]' after the time", i);
  i += 2;
  uint64_t db = 0;
  digits = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 6) {
    db = db * 10 + static_cast<uint64_t>(line[i++] - '0');
    ++digits;
  }
  if (digits == 0 || db > 0xffff || i >= line.size() || line[i] != ' ') {
    return Bad("expected a database number after '['", i);
  }
  out->db = static_cast<uint32_t>(db);
  ++i;
  const size_t close = line.find("] ", i);
  if (close == std::string_view::npos || close == i) return Bad("expected '<client>] '", i);
  out->client = std::string(line.substr(i, close - i));
  i = close + 2;
  while (i < line.size()) {
    if (line[i] != '"') return Bad("expected a quoted argument", i);
    std::string arg;
    const size_t start = i;
    KVLAB_RETURN_IF_ERROR(ParseQuoted(line, &i, &arg));
    out->argv.push_back(std::move(arg));
    if (i == line.size()) break;
    if (line[i] != ' ') {
      // Redis escapes every quote inside an argument: this one is not, so the quotes of the
      // line do not pair up.
      return Bad("unbalanced quotes: the argument that starts at column " +
                     std::to_string(start + 1) + " is closed by a quote that text follows",
                 i - 1);
    }
    ++i;
  }
  if (out->argv.empty()) return Bad("a MONITOR line without a command", i);
  return Status::OK();
}

Status ImportMonitor(std::istream& in, const std::string& source, const std::string& out_path,
                     const Anonymizer* anonymizer, ImportStats* stats) {
  *stats = ImportStats();
  TraceWriter writer;
  bool opened = false;
  std::map<std::string, uint64_t> clients;
  uint64_t start_us = 0;
  Status status;
  std::string line;
  MonitorLine parsed;
  std::vector<ArgKind> kinds;
  while (status.ok() && std::getline(in, line)) {
    ++stats->lines;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || (stats->lines == 1 && line == "OK")) continue;
    Status s = ParseMonitorLine(line, &parsed);
    if (!s.ok()) {
      status =
          Status::InvalidArgument(source + ":" + std::to_string(stats->lines) + ": " + s.message());
      break;
    }
    if (!opened) {
      start_us = parsed.time_us;
      TraceHeader header;
      header.start_unix_us = start_us;
      header.flags = anonymizer != nullptr ? kTraceAnonymized : 0;
      header.context = "recorded-by: redis-cli MONITOR\nimported-from: " + source + "\n";
      if (anonymizer != nullptr) header.context += "anonymized: yes\n";
      status = writer.Open(out_path, header);
      opened = true;
      if (!status.ok()) break;
    }
    auto [it, added] = clients.emplace(parsed.client, clients.size() + 1);
    kinds.clear();
    if (anonymizer != nullptr) anonymizer->Apply(&parsed.argv, &kinds);
    const uint64_t t = parsed.time_us >= start_us ? parsed.time_us - start_us : 0;
    status = writer.Add(t, it->second, parsed.db, parsed.argv, kinds);
    ++stats->commands;
  }
  if (status.ok() && !opened) {
    status = Status::InvalidArgument(source + ": no MONITOR lines (" +
                                     std::to_string(stats->lines) + " lines read)");
  }
  if (status.ok()) status = writer.Close();
  stats->clients = clients.size();
  if (!status.ok() && opened) {
    writer.Close().IgnoreError();  // the error being returned is the one that matters
    std::error_code ec;
    std::filesystem::remove(out_path, ec);
  }
  return status;
}

}  // namespace kvlab::traces
