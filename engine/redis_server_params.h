// The Redis 7.0 server parameters that Redis's own test units set, and what each means for a
// server whose data lives in an ordered KV store (docs/server.md, "Server parameters").
//
// maxmemory is the one with an effect. Redis bounds the memory of its dataset; kvlab's dataset is
// in the KV store, so kvlab bounds what it can: the process's resident memory (the backend's
// caches and memtables included, as Kvrocks counts its RocksDB's). While it is over the limit,
// the commands Redis refuses with OOM (its "denyoom" flag, and any command queued inside MULTI)
// get Redis's OOM error. kvlab evicts nothing: the data is in the store, not in memory, so every
// maxmemory-policy acts as noeviction (the policy is kept and reported; docs/deviations.json).
//
// The others are accepted with Redis's validation and kept, with no effect, because kvlab has
// no such mechanism: busy-reply-threshold (alias lua-time-limit: kvlab runs no scripts),
// list-compress-depth (kvlab's lists are KV records, not quicklists), aof-use-rdb-preamble and
// rdb-key-save-delay (kvlab writes no AOF or RDB files).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/config.h"

namespace kvlab::engine {

class MemoryLimit {
 public:
  // 0: no limit (Redis's default).
  uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }
  void set_limit(uint64_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }
  // Whether the process's resident memory is above the limit; false without a limit (then
  // without reading anything). One read of /proc/self/statm when there is a limit.
  bool Exceeded() const;

 private:
  std::atomic<uint64_t> limit_{0};
};

// The process's resident set size in bytes (Linux /proc/self/statm); 0 when it cannot be read.
uint64_t ResidentBytes();

// Adds maxmemory (applied to *limit), maxmemory-policy and the kept parameters above.
// REQUIRES: limit outlives config.
void AddRedisServerParams(EngineConfig* config, MemoryLimit* limit);

}  // namespace kvlab::engine
