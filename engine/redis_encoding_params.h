// Redis's own in-memory encoding parameters, accepted and reported by CONFIG. They do not touch
// kvlab's storage; DUMP reads them to write the RDB form Redis would hold a value in
// (engine/rdb_value.h).
//
// Redis chooses between a compact and a general in-memory encoding of each type by these
// thresholds (hash-max-listpack-entries, zset-max-listpack-value, list-max-listpack-size,
// set-max-intset-entries, and their pre-7.0 *-max-ziplist-* names). kvlab stores every type in
// its KV encode-versions (CONFIG SET kv.hash.key.meta.version and the like), which these
// parameters do not touch. They exist because Redis's tests, client libraries and operations
// scripts set them, and an error would stop those: CONFIG SET validates each value as Redis 7.0
// does (range, integer or memory value) and CONFIG GET reports what was set.
#pragma once

#include "engine/config.h"

namespace kvlab::engine {

// Adds the parameters, with Redis 7.0.15's defaults, to `config`.
void AddRedisEncodingParams(EngineConfig* config);

}  // namespace kvlab::engine
