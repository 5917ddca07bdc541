#include "engine/redis_server_params.h"

#include <strings.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <memory>
#include <mutex>

#include "base/memory_value.h"

namespace kvlab::engine {

namespace {

// Redis 7.0's maxmemory_policy_enum, in its order (the order of its error text).
constexpr const char* kPolicies[] = {"volatile-lru",   "volatile-lfu", "volatile-random",
                                     "volatile-ttl",   "allkeys-lru",  "allkeys-lfu",
                                     "allkeys-random", "noeviction"};

// A parameter whose value is kept and reported but changes nothing, with Redis's validator.
void AddKept(EngineConfig* config, const char* name, const char* alias, std::string initial,
             std::function<Status(std::string_view)> validate,
             std::function<std::string(std::string_view)> canonical) {
  struct Value {
    std::mutex mu;
    std::string text;
  };
  auto value = std::make_shared<Value>();
  value->text = std::move(initial);
  EngineConfig::Param p;
  p.name = name;
  if (alias != nullptr) p.aliases = {alias};
  p.get = [value] {
    std::lock_guard lock(value->mu);
    return value->text;
  };
  p.validate = std::move(validate);
  p.apply = [value, canonical = std::move(canonical)](std::string_view v) {
    std::lock_guard lock(value->mu);
    value->text = canonical(v);
  };
  config->Add(std::move(p));
}

std::string IntegerText(std::string_view v) { return std::to_string(std::stoll(std::string(v))); }

// Redis's boolean parameters: yes or no, in any case (yesnotoi).
std::function<Status(std::string_view)> YesNoValidator() {
  return [](std::string_view v) {
    const std::string s(v);
    return !strcasecmp(s.c_str(), "yes") || !strcasecmp(s.c_str(), "no")
               ? Status::OK()
               : Status::InvalidArgument("argument must be 'yes' or 'no'");
  };
}

std::string YesNoText(std::string_view v) {
  return !strcasecmp(std::string(v).c_str(), "yes") ? "yes" : "no";
}

}  // namespace

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

bool MemoryLimit::Exceeded() const {
  const uint64_t bytes = limit();
  return bytes != 0 && ResidentBytes() > bytes;
}

void AddRedisServerParams(EngineConfig* config, MemoryLimit* limit) {
  {
    // Redis 7.0.15: createULongLongConfig("maxmemory", ..., 0, ULLONG_MAX, 0, MEMORY_CONFIG).
    EngineConfig::Param p;
    p.name = "maxmemory";
    p.get = [limit] { return std::to_string(limit->limit()); };
    p.validate = MemoryValidator(0, UINT64_MAX);
    p.apply = [limit](std::string_view v) {
      uint64_t bytes = 0;
      ParseMemoryValue(v, &bytes);
      limit->set_limit(bytes);
    };
    config->Add(std::move(p));
  }
  AddKept(
      config, "maxmemory-policy", nullptr, "noeviction",
      [](std::string_view v) {
        for (const char* policy : kPolicies) {
          if (!strcasecmp(std::string(v).c_str(), policy)) return Status::OK();
        }
        std::string text = "argument(s) must be one of the following: ";
        for (const char* policy : kPolicies) {
          if (policy != kPolicies[0]) text += ", ";
          text += policy;
        }
        return Status::InvalidArgument(text);
      },
      [](std::string_view v) {
        for (const char* policy : kPolicies) {
          if (!strcasecmp(std::string(v).c_str(), policy)) return std::string(policy);
        }
        return std::string(v);
      });
  AddKept(config, "busy-reply-threshold", "lua-time-limit", "5000", IntegerValidator(0, LONG_MAX),
          IntegerText);
  AddKept(config, "list-compress-depth", nullptr, "0", IntegerValidator(0, INT_MAX), IntegerText);
  AddKept(config, "aof-use-rdb-preamble", nullptr, "yes", YesNoValidator(), YesNoText);
  AddKept(config, "rdb-key-save-delay", nullptr, "0", IntegerValidator(INT_MIN, INT_MAX),
          IntegerText);
}

}  // namespace kvlab::engine
