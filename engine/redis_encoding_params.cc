#include "engine/redis_encoding_params.h"

#include <atomic>
#include <climits>
#include <memory>

#include "base/memory_value.h"

namespace kvlab::engine {

void AddRedisEncodingParams(EngineConfig* config) {
  enum class Kind { kInteger, kMemory };
  struct Row {
    const char* name;
    const char* alias;  // Redis's pre-7.0 name, or nullptr
    Kind kind;
    int64_t min, max, initial;
  };
  // Redis 7.0.15's defaults and ranges (config.c).
  static constexpr Row kRows[] = {
      {"hash-max-listpack-entries", "hash-max-ziplist-entries", Kind::kInteger, 0, LONG_MAX, 512},
      {"hash-max-listpack-value", "hash-max-ziplist-value", Kind::kMemory, 0, LONG_MAX, 64},
      {"zset-max-listpack-entries", "zset-max-ziplist-entries", Kind::kInteger, 0, LONG_MAX, 128},
      {"zset-max-listpack-value", "zset-max-ziplist-value", Kind::kMemory, 0, LONG_MAX, 64},
      {"list-max-listpack-size", "list-max-ziplist-size", Kind::kInteger, INT_MIN, INT_MAX, -2},
      {"set-max-intset-entries", nullptr, Kind::kInteger, 0, LONG_MAX, 512},
  };
  for (const Row& row : kRows) {
    // The value lives in the parameter's own closures: it is per engine, and nothing reads it.
    auto value = std::make_shared<std::atomic<int64_t>>(row.initial);
    EngineConfig::Param p;
    p.name = row.name;
    if (row.alias != nullptr) p.aliases = {row.alias};
    p.get = [value] { return std::to_string(value->load()); };
    if (row.kind == Kind::kInteger) {
      p.validate = IntegerValidator(row.min, row.max);
      p.apply = [value](std::string_view v) { value->store(std::stoll(std::string(v))); };
    } else {
      p.validate = MemoryValidator(static_cast<uint64_t>(row.min), static_cast<uint64_t>(row.max));
      p.apply = [value](std::string_view v) {
        uint64_t bytes = 0;
        ParseMemoryValue(v, &bytes);
        value->store(static_cast<int64_t>(bytes));
      };
    }
    config->Add(std::move(p));
  }
}

}  // namespace kvlab::engine
