// RedisTier: the real redis-servers that hash v2/v3 and zset v1-v3 put beside the KV store.
//
// Two roles:
// - the cache (hash v2/v3 field and whole-hash caches, zset v1/v2 caches, the optional key-meta
//   cache): losing it costs only time. Commands keep answering from KV while it is down
//   ("degraded", counted), and no stale entry is ever served (see the dirty set below);
// - the store (zset v3's zsets of refs): data, never evicted. While it is down, v3 commands fail
//   with a clear error.
// Each role is an existing server (--cache-redis, --store-redis) or a private redis-server that
// kvlab starts on first use (the cache without persistence, the store with AOF everysec in the
// KV store's directory, so that a restart finds its data) and stops on exit. A private server
// listens only on a unix socket in a directory only this user can enter, requires a generated
// password, and is supervised: restarted with backoff if it dies, with each event logged
// (redis/server_process.h).
//
// Calls are pipelines: one round trip each, counted per command in TierCounts. A role that
// fails is not retried for `retry_interval`, so a dead server costs one timeout, not one per
// command.
//
// The dirty set: a cache write that fails (the server is down, or the reply was lost) leaves the
// entries it meant to update possibly stale. The tier remembers those cache keys, bypasses the
// cache for their Redis key, and deletes them before that key uses the cache again. When more
// than max_dirty_keys accumulate, the whole cache namespace is purged (SCAN + UNLINK) before the
// cache is used again. An external cache is purged at start, since a previous process may have
// died between a KV commit and its cache update.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "redis/client.h"
#include "redis/server_process.h"
#include "redis/tier_counts.h"
#include "resp/reply.h"

namespace kvlab::redis {

enum class TierRole { kCache, kStore };

struct RedisTierOptions {
  std::string cache_url;  // empty: a private redis-server, started on first use
  std::string store_url;  // empty: a private redis-server with AOF, started on first use
  // Where a private store server keeps its AOF (the KV store's directory + "/redis-store").
  // Empty: a temporary directory (the store's data then lives as long as the process).
  std::string private_store_dir;
  std::chrono::milliseconds timeout{500};
  std::chrono::milliseconds retry_interval{250};
  size_t max_dirty_keys = 100000;
  // Camellia's TTLs (ms): kv.cache.hget.cache.millis and friends, 5 minutes each.
  int64_t hget_ttl_ms = 300000;
  int64_t hgetall_ttl_ms = 300000;
  int64_t zset_member_ttl_ms = 300000;
  int64_t zset_range_ttl_ms = 300000;
  int64_t smembers_ttl_ms = 300000;  // kv.cache.smembers.cache.millis (set v2/v3)
  // How long a v3 store zset outlives its key's expiry, so that the key-meta always expires
  // first and the data is reaped after.
  int64_t store_ttl_margin_ms = 60000;
  bool meta_cache = false;  // kv.key.meta.cache.enable
  int64_t meta_cache_ttl_ms = 600000;
  // Where the tier reports what happens to its private servers (exits, restarts), one line
  // each. Default: stderr, prefixed "kvlab: ".
  std::function<void(const std::string&)> log;
};

class RedisTier {
 public:
  explicit RedisTier(RedisTierOptions options);
  ~RedisTier();
  RedisTier(const RedisTier&) = delete;
  RedisTier& operator=(const RedisTier&) = delete;

  // Sends the commands to the role's server in one pipeline. Fails with Unavailable when the
  // server cannot be reached (or was unreachable less than retry_interval ago).
  Status Pipeline(TierRole role, const std::vector<std::vector<std::string>>& commands,
                  std::vector<resp::Reply>* replies, TierCounts* counts);
  // Pipeline for writes: on failure, *maybe_applied says whether the commands may have reached
  // the server (sent, with no reply), so that they may still run when it answers again.
  Status PipelineWrite(TierRole role, const std::vector<std::vector<std::string>>& commands,
                       std::vector<resp::Reply>* replies, TierCounts* counts, bool* maybe_applied);

  // zset v3's store writes are fenced. kFenceKey holds a value every v3 write script checks
  // against the one it carries; a write whose reply never came (a paused or partitioned store)
  // may still run later, so before kvlab acts again on a key whose write had an unknown outcome
  // it sets a new fence value: the late write, carrying the old one, is refused if it has not
  // run by then, and what the store holds afterwards is final. StoreFence returns the value to
  // send, setting a new one first (acknowledged) when this process has none yet, after an
  // unknown outcome, or after InvalidateStoreFence (the store did not know ours: it lost it).
  static constexpr const char* kFenceKey = "kvlab#fence";
  Status StoreFence(TierCounts* counts, std::string* fence);
  void InvalidateStoreFence();

  // The zset v3 keys whose last store write had an unknown outcome, by store key: kvlab makes
  // KV agree with the store (reconciles) before using them again.
  struct UncertainKey {
    uint8_t db = 0;
    std::string key;
    uint64_t key_version = 0;
  };
  void MarkUncertain(const std::string& store_key, UncertainKey key);
  // One atomic load when no key is uncertain.
  bool IsUncertain(const std::string& store_key) const;
  void ClearUncertain(const std::string& store_key);
  bool has_uncertain() const { return uncertain_count_.load(std::memory_order_acquire) > 0; }
  std::vector<std::pair<std::string, UncertainKey>> Uncertain() const;
  // Keys reconciled so far, for INFO.
  uint64_t reconciled() const { return reconciled_.load(); }
  void CountReconciled() { reconciled_.fetch_add(1); }

  // Whether the role's server can be reached now: connects (starting the private server on
  // first use) and sends PING. The error names the server (Describe) and the reason. Does not
  // wait out retry_interval: a role that failed recently fails again at once.
  Status Probe(TierRole role);

  // The cache may be read for keys under `prefix` (the cache-key prefix of one incarnation of
  // a Redis key): the cache is reachable and holds no possibly-stale entry for it. Cleans the
  // prefix's dirty entries first when needed. False means: answer from KV (degraded).
  bool CacheUsable(const std::string& prefix, TierCounts* counts);
  // Records that a cache write for `prefix` failed: `keys` may now be stale.
  void MarkDirty(const std::string& prefix, const std::vector<std::string>& keys);

  // Deletes every entry kvlab keeps in the cache (the keys "c#*"; never the store's): the cache
  // is then cold, as after an eviction of everything. For measurements of the cold state (the
  // size sweep) and tests.
  Status FlushCache(TierCounts* counts);

  // Deletes every cache and store key of a namespace (FLUSHDB/FLUSHALL), best effort on the
  // cache (a failure marks the whole cache for purging), required on the store.
  // *store_touched says whether the store may have deleted keys before a failure.
  Status DropNamespace(const std::string& cache_key_namespace_prefix, TierCounts* counts,
                       bool* store_touched = nullptr);

  // One page of a SCAN of the store's keys under `prefix` (a namespace's, "c#" ns: zset v3's
  // store zsets), at most about `count` keys. *cursor: "0" to start, "0" again after the last
  // page. A private store server is started for it only when it may hold data (it ran before,
  // or its AOF directory holds something): otherwise *keys is empty and *cursor "0".
  Status ScanStore(const std::string& prefix, size_t count, std::string* cursor,
                   std::vector<std::string>* keys, TierCounts* counts);

  // Runtime-settable options (CONFIG SET).
  std::atomic<int64_t> hget_ttl_ms, hgetall_ttl_ms, zset_member_ttl_ms, zset_range_ttl_ms;
  std::atomic<int64_t> meta_cache_ttl_ms;
  std::atomic<int64_t> smembers_ttl_ms;
  // The key-meta cache (kv.key.meta.cache.enable). While it is off, writes do not reach its
  // entries, so turning it on starts a new generation: the entries of earlier generations are
  // never read again (they expire by their TTL). A new process starts a new generation too.
  void SetMetaCache(bool on);
  bool meta_cache() const { return meta_cache_.load(std::memory_order_acquire); }
  // REQUIRES: meta_cache(). The generation is part of every entry's name.
  uint64_t meta_cache_generation() const {
    return meta_cache_generation_.load(std::memory_order_acquire);
  }

  // Refuses a configuration kvlab cannot run safely: the cache and the store on one server
  // (the cache's purges would delete the store's zsets). Connects to both external servers to
  // compare their identities (run ids); unreachable ones are checked again on first use.
  Status Validate();
  int64_t store_ttl_margin_ms() const { return options_.store_ttl_margin_ms; }

  // Where each role is served, for INFO and error messages: the address of an external server
  // (never its password), or "private redis-server" (a private one's socket is not published).
  std::string Describe(TierRole role) const;
  // A private server's state ("not_started", "running", "restarting", "stopped"; "external"
  // for a server kvlab does not run), and how often it was restarted after dying.
  std::string ServerState(TierRole role) const;
  uint64_t ServerRestarts(TierRole role) const;
  // The private server of a role once started, else nullptr (tests crash and inspect it).
  RedisServerProcess* PrivateServer(TierRole role);
  // Times a server was found not to be the one kvlab wrote to (a new run id: it restarted,
  // perhaps from an older snapshot, or another server took its address). A cache is then
  // purged before it is used again.
  uint64_t IdentityChanges(TierRole role) const;
  // Whole-cache purges since start, for INFO.
  uint64_t cache_purges() const { return cache_purges_.load(); }
  // Cache entries that may be stale and are bypassed until deleted, for INFO. (Degraded
  // operations are counted per command, in TierCounts: INFO sums those.)
  uint64_t dirty_keys() const;
  // Whether the role's server has been resolved (a private one started) by a first use. Lets a
  // caller read the role's state (e.g. INFO memory) without starting a server for nothing.
  bool RoleInUse(TierRole role) const;

 private:
  struct Role;
  Role& role(TierRole r) { return r == TierRole::kCache ? *cache_ : *store_; }
  Status Connect(Role& r, std::unique_ptr<RedisClient>* client, bool* fresh);
  // Checks a new connection's server against the identity (run id) the role last saw, and
  // against the other role's. A cache that changed is purged before its next use; this call
  // then fails (it may have been a read). REQUIRES: no role's mu is held.
  Status Identify(Role& r, std::unique_ptr<RedisClient>* client);
  void Log(const std::string& line) const;
  Status PurgeCache(TierCounts* counts);
  void SweepDirty(TierCounts* counts);

  const RedisTierOptions options_;
  std::unique_ptr<Role> cache_, store_;
  mutable std::mutex dirty_mu_;
  std::unordered_map<std::string, std::set<std::string>> dirty_;
  size_t dirty_entries_ = 0;
  bool purge_needed_ = false;
  std::atomic<uint64_t> cache_purges_{0};
  std::atomic<bool> meta_cache_;
  std::atomic<uint64_t> meta_cache_generation_;
  std::mutex fence_mu_;
  std::string fence_;  // "" until set in this process
  std::atomic<bool> fence_stale_{true};
  mutable std::mutex uncertain_mu_;
  std::unordered_map<std::string, UncertainKey> uncertain_;
  std::atomic<size_t> uncertain_count_{0};
  std::atomic<uint64_t> reconciled_{0};
  // Set when the cache and the store turned out to be one server: every call fails with it.
  std::mutex config_mu_;
  std::string misconfigured_;
};

// The cache-key prefix of one incarnation of a key: "c#" namespace "{" key "}" key-version
// (8 bytes). The braces are a Redis Cluster hash tag: all of a key's entries share a slot.
std::string TierKeyPrefix(std::string_view ns, std::string_view key, uint64_t key_version);

}  // namespace kvlab::redis
