// EngineConfig: the parameters CONFIG GET and CONFIG SET see, under their names and aliases.
//
// Each parameter has a getter and, when mutable, a setter that validates its value. The error
// texts are Redis 7.0's, so that CONFIG SET fails as Redis does. The command-line flags and the
// config file of `kvlab serve` go through the same table.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kvlab::engine {

class EngineConfig {
 public:
  struct Param {
    std::string name;
    std::vector<std::string> aliases;
    std::function<std::string()> get;
    // Both empty for an immutable parameter. validate returns InvalidArgument with Redis's
    // reason text (e.g. "argument must be between 0 and 3 inclusive") when the value is
    // refused; apply is only called with a value validate accepted.
    std::function<Status(std::string_view)> validate;
    std::function<void(std::string_view)> apply;
  };

  void Add(Param param) { params_.push_back(std::move(param)); }
  // A directive of config files only, not a CONFIG parameter (rename-command): its arguments
  // are the rest of the line, split as redis.conf splits them.
  using Directive = std::function<Status(const std::vector<std::string>& args)>;
  void AddDirective(std::string name, Directive apply) {
    directives_.emplace_back(std::move(name), std::move(apply));
  }

  // (name, value) of every parameter whose name or alias matches the glob, in table order; an
  // alias that matches is reported under that alias, as Redis does.
  std::vector<std::pair<std::string, std::string>> Get(std::string_view pattern) const;

  // Sets several parameters at once: all are validated before any is applied.
  // Fails with the full Redis error text (without "ERR ") on an unknown or immutable parameter
  // or a bad value.
  Status Set(const std::vector<std::pair<std::string, std::string>>& pairs);

  // Reads "name value" lines (redis.conf style: '#' comments, blank lines, quoted values).
  Status LoadFile(const std::string& path);

  const std::vector<Param>& params() const { return params_; }

 private:
  const Param* Find(std::string_view name) const;

  std::vector<Param> params_;
  std::vector<std::pair<std::string, Directive>> directives_;
};

// The validator of an integer parameter in [min, max], with Redis's messages.
std::function<Status(std::string_view)> IntegerValidator(int64_t min, int64_t max);
// The validator of a kvlab boolean parameter: "yes", "no", "true" or "false"; BoolValue reads
// one it accepted.
std::function<Status(std::string_view)> BoolValidator();
inline bool BoolValue(std::string_view v) { return v == "true" || v == "yes"; }
// The validator of a memory parameter in [min, max] bytes, with Redis's messages.
std::function<Status(std::string_view)> MemoryValidator(uint64_t min, uint64_t max);
// Case-insensitive ASCII equality (command and parameter names).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

}  // namespace kvlab::engine
