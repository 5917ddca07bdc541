// The factories of the encode-versions that keep state in the Redis tier (their registry rows'
// `tier` is not TierUse::kNone). They are built in the kvlab_encodings library, which links the
// tier; the KV-only versions (hash_encoding.h, zset_encoding.h, set_encoding.h) are in
// kvlab_encodings_kv, which does not (encodings/CMakeLists.txt).
//
// Common REQUIRES: `tier` is not null and outlives the encoding.
#pragma once

#include <cstdint>
#include <memory>

#include "encodings/hash_encoding.h"
#include "encodings/set_encoding.h"
#include "encodings/zset_encoding.h"
#include "redis/tier.h"

namespace kvlab::encodings {

// Hash v2 and v3: `inner` (counted or blind) plus the hget and hgetall caches. v3's HLEN asks
// the whole-hash cache first (length_from_cache).
std::unique_ptr<HashEncoding> NewCachedHashEncoding(std::unique_ptr<HashEncoding> inner,
                                                    uint8_t version, bool length_from_cache,
                                                    redis::RedisTier* tier);

// Zset v1 and v2 (zset_cached.cc): the s# member records in KV, as v0 keeps them, plus the whole
// zset cached in Redis: of members (v1), or of refs with i# for long members (v2: `refs`).
std::unique_ptr<ZsetEncoding> NewCachedZsetEncoding(uint8_t version, bool refs,
                                                    redis::RedisTier* tier);
// Zset v3 (zset_stored.cc): the zset of refs stored in the store Redis, i# in KV, the count in
// the key-meta.
std::unique_ptr<ZsetEncoding> NewStoredZsetEncoding(uint8_t version, redis::RedisTier* tier);

// Set v2 and v3: `inner` (counted or blind) plus the whole-set cache (c# ns {key} key-version ->
// Redis set, kv.cache.smembers.cache.millis). v3's SCARD asks the cache first
// (size_from_cache).
std::unique_ptr<SetEncoding> NewCachedSetEncoding(std::unique_ptr<SetEncoding> inner,
                                                  uint8_t version, bool size_from_cache,
                                                  redis::RedisTier* tier);

}  // namespace kvlab::encodings
