#include "conformance/case_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/split_args.h"

namespace kvlab {

Status ParseCaseText(const std::string& name, const std::string& text, CaseFile* out) {
  out->name = name;
  out->steps.clear();
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    CaseStep step;
    step.line = lineno;
    if (line[first] == '@') {
      int ms = 0;
      char extra = 0;
      if (std::sscanf(line.c_str() + first, "@sleep %d %c", &ms, &extra) != 1 || ms < 0) {
        return Status::InvalidArgument(name + ":" + std::to_string(lineno) +
                                       ": unknown directive (expected '@sleep MS')");
      }
      step.sleep_ms = ms;
    } else if (!SplitArgs(line, &step.argv) || step.argv.empty()) {
      return Status::InvalidArgument(name + ":" + std::to_string(lineno) + ": unbalanced quotes");
    }
    out->steps.push_back(std::move(step));
  }
  return Status::OK();
}

Status LoadCaseFile(const std::string& path, CaseFile* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read case file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  out->path = path;
  return ParseCaseText(std::filesystem::path(path).stem().string(), ss.str(), out);
}

Status LoadCaseDirectory(const std::string& dir, std::vector<CaseFile>* out) {
  out->clear();
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".txt") paths.push_back(e.path().string());
  }
  if (ec) return Status::IOError("cannot list " + dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  for (const std::string& p : paths) {
    CaseFile c;
    KVLAB_RETURN_IF_ERROR(LoadCaseFile(p, &c));
    out->push_back(std::move(c));
  }
  return Status::OK();
}

std::string FormatCommandLine(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty();
    for (unsigned char c : a) {
      if (c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\') plain = false;
    }
    if (plain) {
      out += a;
      continue;
    }
    out += '"';
    for (unsigned char c : a) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < ' ' || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\x%02x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    out += '"';
  }
  return out;
}

}  // namespace kvlab
