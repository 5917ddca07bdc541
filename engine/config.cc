#include "engine/config.h"

#include <strings.h>

#include <cctype>
#include <fstream>
#include <set>

#include "base/memory_value.h"
#include "engine/glob.h"
#include "resp/redis_numbers.h"
#include "resp/split_args.h"

namespace kvlab::engine {

using resp::ParseInt64;
using resp::SplitArgs;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

const EngineConfig::Param* EngineConfig::Find(std::string_view name) const {
  for (const Param& p : params_) {
    if (EqualsIgnoreCase(p.name, name)) return &p;
    for (const std::string& a : p.aliases) {
      if (EqualsIgnoreCase(a, name)) return &p;
    }
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> EngineConfig::Get(std::string_view pattern) const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Param& p : params_) {
    if (GlobMatch(pattern, p.name, /*nocase=*/true)) out.emplace_back(p.name, p.get());
    for (const std::string& a : p.aliases) {
      if (GlobMatch(pattern, a, /*nocase=*/true)) out.emplace_back(a, p.get());
    }
  }
  return out;
}

Status EngineConfig::Set(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<const Param*> targets;
  // Redis 7.0 registers an alias as a config of its own: a parameter set under its name and its
  // alias in one CONFIG SET is no duplicate (both apply, in order).
  std::set<std::pair<const Param*, std::string>> seen;
  for (const auto& [name, value] : pairs) {
    const Param* p = Find(name);
    if (p == nullptr) {
      // Redis quotes the name with "%s": a C string, so up to the first NUL.
      return Status::InvalidArgument("Unknown option or number of arguments for CONFIG SET - '" +
                                     name.substr(0, name.find('\0')) + "'");
    }
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!seen.insert({p, std::move(lower)}).second) {
      return Status::InvalidArgument("CONFIG SET failed (possibly related to argument '" + name +
                                     "') - duplicate parameter");
    }
    if (!p->validate) {
      return Status::InvalidArgument("CONFIG SET failed (possibly related to argument '" + name +
                                     "') - can't set immutable config");
    }
    targets.push_back(p);
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    Status s = targets[i]->validate(pairs[i].second);
    if (!s.ok()) {
      return Status::InvalidArgument("CONFIG SET failed (possibly related to argument '" +
                                     pairs[i].first + "') - " + s.message());
    }
  }
  for (size_t i = 0; i < pairs.size(); ++i) targets[i]->apply(pairs[i].second);
  return Status::OK();
}

Status EngineConfig::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read config file " + path);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i == line.size() || line[i] == '#') continue;
    size_t name_end = i;
    while (name_end < line.size() && !std::isspace(static_cast<unsigned char>(line[name_end]))) {
      ++name_end;
    }
    std::string name = line.substr(i, name_end - i);
    std::string value = line.substr(name_end);
    const Directive* directive = nullptr;
    for (const auto& [directive_name, apply] : directives_) {
      if (EqualsIgnoreCase(directive_name, name)) directive = &apply;
    }
    if (directive != nullptr) {
      std::vector<std::string> args;
      Status s = SplitArgs(value, &args) ? (*directive)(args)
                                         : Status::InvalidArgument("unbalanced quotes");
      if (!s.ok()) {
        return Status::InvalidArgument(path + ":" + std::to_string(lineno) + ": " + s.message());
      }
      continue;
    }
    const size_t first = value.find_first_not_of(" \t\r");
    const size_t last = value.find_last_not_of(" \t\r");
    value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    Status s = Set({{name, value}});
    if (!s.ok()) {
      return Status::InvalidArgument(path + ":" + std::to_string(lineno) + ": " + s.message());
    }
  }
  return Status::OK();
}

std::function<Status(std::string_view)> BoolValidator() {
  return [](std::string_view v) {
    return v == "true" || v == "false" || v == "yes" || v == "no"
               ? Status::OK()
               : Status::InvalidArgument("argument must be 'yes', 'no', 'true' or 'false'");
  };
}

std::function<Status(std::string_view)> IntegerValidator(int64_t min, int64_t max) {
  return [min, max](std::string_view text) {
    int64_t v = 0;
    if (!ParseInt64(text, &v)) {
      return Status::InvalidArgument("argument couldn't be parsed into an integer");
    }
    if (v < min || v > max) {
      return Status::InvalidArgument("argument must be between " + std::to_string(min) + " and " +
                                     std::to_string(max) + " inclusive");
    }
    return Status::OK();
  };
}

std::function<Status(std::string_view)> MemoryValidator(uint64_t min, uint64_t max) {
  return [min, max](std::string_view text) {
    uint64_t v = 0;
    if (!ParseMemoryValue(text, &v))
      return Status::InvalidArgument("argument must be a memory value");
    if (v < min || v > max) {
      return Status::InvalidArgument("argument must be between " + std::to_string(min) + " and " +
                                     std::to_string(max) + " inclusive");
    }
    return Status::OK();
  };
}

}  // namespace kvlab::engine
