#include "conformance/case_file.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "resp/split_args.h"

namespace kvlab::conformance {

using resp::SplitArgs;

namespace {

constexpr size_t kMaxDefinedBytes = size_t{64} << 20;

bool ValidName(const std::string& name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// The ${name} an argument stands for, or "" when it is not a substitution.
std::string SubstitutionName(const std::string& arg) {
  if (arg.size() < 4 || !arg.starts_with("${") || arg.back() != '}') return "";
  return arg.substr(2, arg.size() - 3);
}

// The tokens of a command line as written (quotes and escapes kept), split where SplitArgs
// splits them: at whitespace outside quotes. Only a token written bare as ${name} is a
// substitution, so that a quoted "${name}" stays literal.
std::vector<std::string> RawTokens(const std::string& line) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < line.size()) {
    while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
    if (p >= line.size()) break;
    const size_t start = p;
    char quote = 0;
    for (; p < line.size(); ++p) {
      const char c = line[p];
      if (quote == 0 && std::isspace(static_cast<unsigned char>(c))) break;
      if (quote != 0 && c == '\\' && p + 1 < line.size()) {
        ++p;
      } else if (quote == 0 && (c == '"' || c == '\'')) {
        quote = c;
      } else if (quote != 0 && c == quote) {
        quote = 0;
      }
    }
    out.push_back(line.substr(start, p - start));
  }
  return out;
}

Status ParseDirective(const std::string& where, const std::string& line,
                      std::map<std::string, std::string>* values, CaseStep* step, bool* is_step) {
  std::vector<std::string> words;
  if (!SplitArgs(line, &words) || words.empty()) {
    return Status::InvalidArgument(where + ": unbalanced quotes");
  }
  auto number = [&](const std::string& text, uint64_t max, uint64_t* out) {
    if (text.empty() || text.size() > 12 ||
        !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return false;
    }
    *out = std::stoull(text);
    return *out <= max;
  };
  if (words[0] == "@sleep") {
    uint64_t ms = 0;
    if (words.size() != 2 || !number(words[1], 600000, &ms)) {
      return Status::InvalidArgument(where + ": expected '@sleep MS' (0 to 600000)");
    }
    step->sleep_ms = static_cast<int>(ms);
    *is_step = true;
    return Status::OK();
  }
  if (words[0] == "@define") {
    uint64_t bytes = 0;
    if (words.size() < 3 || words.size() > 4 || !ValidName(words[1]) ||
        !number(words[2], kMaxDefinedBytes, &bytes) || (words.size() == 4 && words[3].empty())) {
      return Status::InvalidArgument(where +
                                     ": expected '@define NAME BYTES [TEXT]' (NAME of letters, "
                                     "digits and _; BYTES at most 64 MiB; TEXT not empty)");
    }
    const std::string unit = words.size() == 4 ? words[3] : "x";
    std::string value;
    value.reserve(bytes);
    while (value.size() < bytes) value.append(unit, 0, bytes - value.size());
    (*values)[words[1]] = std::move(value);
    *is_step = false;
    return Status::OK();
  }
  return Status::InvalidArgument(where + ": unknown directive " + words[0] +
                                 " (expected @sleep or @define)");
}

}  // namespace

Status ParseCaseText(const std::string& name, const std::string& text, CaseFile* out) {
  out->name = name;
  out->steps.clear();
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = name + ":" + std::to_string(lineno);
    CaseStep step;
    step.line = lineno;
    if (line[first] == '@') {
      bool is_step = false;
      KVLAB_RETURN_IF_ERROR(ParseDirective(where, line.substr(first), &values, &step, &is_step));
      if (is_step) out->steps.push_back(std::move(step));
      continue;
    }
    if (!SplitArgs(line, &step.argv) || step.argv.empty()) {
      return Status::InvalidArgument(where + ": unbalanced quotes");
    }
    const std::vector<std::string> raw = RawTokens(line);
    for (size_t i = 0; i < step.argv.size() && i < raw.size(); ++i) {
      std::string& arg = step.argv[i];
      const std::string ref = SubstitutionName(raw[i]);
      if (ref.empty()) continue;
      auto it = values.find(ref);
      if (it == values.end()) {
        return Status::InvalidArgument(where + ": ${" + ref + "} is not defined above");
      }
      arg = it->second;
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
    // A bare word must not read back as a substitution, a directive or a comment either.
    bool plain = !a.empty() && a[0] != '@' && a[0] != '#' && SubstitutionName(a).empty();
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

std::string DisplayCommandLine(const std::vector<std::string>& argv, size_t max_arg_bytes) {
  std::vector<std::string> shown;
  std::vector<size_t> cut;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i].size() > max_arg_bytes) {
      shown.push_back(argv[i].substr(0, max_arg_bytes));
      cut.push_back(i);
    } else {
      shown.push_back(argv[i]);
    }
  }
  if (cut.empty()) return FormatCommandLine(argv);
  // Format each argument on its own, so the length note lands after the right one.
  std::string out;
  size_t next_cut = 0;
  for (size_t i = 0; i < shown.size(); ++i) {
    if (i > 0) out += ' ';
    out += FormatCommandLine({shown[i]});
    if (next_cut < cut.size() && cut[next_cut] == i) {
      out += "...(" + std::to_string(argv[i].size()) + " bytes)";
      ++next_cut;
    }
  }
  return out;
}

}  // namespace kvlab::conformance
