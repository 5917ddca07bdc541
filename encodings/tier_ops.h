// Building blocks the Redis-tier encodings share: a command's session with the tier,
// conditional commands and cached-read bookkeeping, so that every version talks to Redis the
// same way and pays the same round trips. Only the encodings whose registry row uses the tier
// (TierUse::kCache, kStore) and the key-meta cache include this; they live in the
// kvlab_encodings library, which links the tier (encodings/CMakeLists.txt).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "redis/tier.h"

namespace kvlab::encodings {

// One command's access to the Redis tier: the tier an encoding was built with (EncodingDeps)
// and the command's KvTxn, where the calls are counted (tier_counts()) and post-commit steps
// queued. A cheap value: open one per call.
class TierSession {
 public:
  // REQUIRES: tier and txn outlive the session and every step it queues in txn.
  TierSession(redis::RedisTier* tier, KvTxn* txn) : tier_(tier), txn_(txn) {}

  redis::RedisTier& tier() const { return *tier_; }
  KvTxn& txn() const { return *txn_; }
  redis::TierCounts* counts() const { return &txn_->tier_counts(); }
  // The Redis-tier key prefix of the key's current incarnation: "c#" ns "{" key "}" version.
  std::string Prefix(const KeyHandle& h) const {
    return redis::TierKeyPrefix(txn_->codec().Namespace(txn_->db()), h.key, h.meta.key_version);
  }

 private:
  redis::RedisTier* tier_;
  KvTxn* txn_;
};

// Redis's Lua stack allows ~8000 unpacked arguments; chunk larger argument lists below this.
inline constexpr size_t kMaxLuaArgs = 4000;

// A command that runs `command key args...` only when `key` exists, atomically (one EVAL).
// Replies nil when the key does not exist, otherwise an array holding the command's reply
// (empty when that reply was nil). Used for "update only the entries that already exist" and
// for "read the cached collection if it is there".
std::vector<std::string> IfExists(std::string_view command, const std::string& key,
                                  const std::vector<std::string>& args);

// Runs the commands on the cache and returns true with their replies, or false after counting
// a degraded operation (the cache is unusable for `prefix`, or failed). A failure to read never
// makes the cache dirty.
bool CacheRead(const TierSession& t, const std::string& prefix,
               const std::vector<std::vector<std::string>>& commands,
               std::vector<resp::Reply>* replies);

// Sends cache writes for `prefix` after the command commits. When the cache is unusable or the
// write fails, the keys it meant to update become dirty (see RedisTier). Never fails the command.
void CacheWriteAfterCommit(const TierSession& t, const std::string& prefix,
                           std::vector<std::vector<std::string>> commands,
                           std::vector<std::string> touched_keys);

// Same, sent now (a refill on the read path, under the key's lock).
void CacheWriteNow(const TierSession& t, const std::string& prefix,
                   const std::vector<std::vector<std::string>>& commands,
                   const std::vector<std::string>& touched_keys);

// Adds to *bytes what the role's Redis says its entries `keys` occupy (MEMORY USAGE ... SAMPLES
// 0, exact for nested values; an absent entry adds 0), in pipelines of at most kMaxLuaArgs
// commands. A key's footprint (TypeEncoding::Footprint) for the versions with tier entries.
// Fails with Unavailable when the server does not answer: a footprint is never silently short.
Status TierFootprint(const TierSession& t, redis::TierRole role,
                     const std::vector<std::string>& keys, uint64_t* bytes);

}  // namespace kvlab::encodings
