// WatchedKeys: WATCH's modification tracking (Redis's watched_keys and touchWatchedKey).
//
// A session that WATCHes keys gets a Watcher. Every command that changes a key reports it after
// its commit, while it still holds the key's lock (Touch); every Watcher of that key is then
// marked modified, and its EXEC replies a null array. Modifications are tracked here, per
// database and key, and never inferred from the key-meta: a blind write (hash v1's HSET writes
// only a sub-key) leaves the meta as it was.
//
// What reports a key (Engine::Run, engine/transaction.cc): every record of a write command's
// committed batch names its Redis key (a key-meta or a sub-key, decoded by the KeyCodec), so a
// command that changed nothing (DEL of a missing key, an error) touches nothing, as in Redis;
// FLUSHDB and FLUSHALL touch the watched keys that were live before them; a write command that
// talked to the Redis tier (zset v3's store holds data that KV does not) touches all its keys.
// Expiry is not a write in kvlab (expired keys are absent to every command), so a Watcher
// remembers the expiry time of each key watched while live: EXEC treats a key that reached it
// since as modified, as Redis 7.0 does (isWatchedKeyExpired, and the deletion of an expired key
// touches it).
//
// When nobody watches (the common case), Touch is never called: active() is one relaxed atomic
// load. A writer reports while it holds the exclusive lock of the key and WATCH registers under
// the same stripe, so the stripe orders the two.
//
// Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kvlab::engine {

class WatchedKeys : public std::enable_shared_from_this<WatchedKeys> {
 public:
  // One session's watches. Unregisters itself when destroyed (the connection closed).
  class Watcher {
   public:
    explicit Watcher(std::shared_ptr<WatchedKeys> registry) : registry_(std::move(registry)) {}
    ~Watcher() { Clear(); }
    Watcher(const Watcher&) = delete;
    Watcher& operator=(const Watcher&) = delete;

    // WATCH key: `expire_ms` is the key's expiry time when it is live and has one, else -1.
    // Watching a key twice keeps the first.
    void Add(uint8_t db, std::string_view key, int64_t expire_ms);
    // UNWATCH (and EXEC, DISCARD): forgets every key and the modified mark.
    void Clear();
    bool empty() const { return keys_.empty(); }
    // Whether a watched key was modified, or one watched live has expired by now_ms.
    bool Modified(int64_t now_ms) const;

   private:
    friend class WatchedKeys;
    struct Key {
      std::string id;  // WatchedKeys::Id(db, key)
      int64_t expire_ms;
    };
    const std::shared_ptr<WatchedKeys> registry_;
    std::vector<Key> keys_;
    std::atomic<bool> modified_{false};
  };

  static std::shared_ptr<WatchedKeys> Make() {
    return std::shared_ptr<WatchedKeys>(new WatchedKeys);
  }
  std::unique_ptr<Watcher> NewWatcher() { return std::make_unique<Watcher>(shared_from_this()); }

  // Whether any key is watched.
  bool active() const { return watched_.load(std::memory_order_relaxed) > 0; }
  // Marks every Watcher of the key modified.
  void Touch(uint8_t db, std::string_view key);
  // The watched keys of database db (all databases when db < 0), as (db, key).
  std::vector<std::pair<uint8_t, std::string>> WatchedIn(int db) const;

 private:
  WatchedKeys() = default;
  static std::string Id(uint8_t db, std::string_view key);

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::vector<Watcher*>> watchers_;  // Id -> its watchers
  std::atomic<size_t> watched_{0};                                   // watchers_.size()
};

}  // namespace kvlab::engine
