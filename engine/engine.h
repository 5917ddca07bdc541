// Engine: runs Redis commands over an ordered KV store.
//
// Execute(session, argv) takes one command as Redis receives it (an argument vector, no RESP)
// and returns its Reply. The engine:
// - looks the command up in the one command table (command_table.cc) and checks its arity;
// - serializes it against other commands on the same keys (per-key lock striping; see
//   docs/engine.md for why striping rather than Camellia's same-key-same-worker);
// - runs it through a KvTxn whose reads are counted and whose writes form one atomic batch;
// - commits the batch, unless the command replied with an error (an error writes nothing);
// - accounts the command's KV operations, exactly, to the caller (CommandCost) and to its
//   per-command statistics.
//
// Thread-safe: any number of threads may call Execute at once, each with its own Session.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "backends/counting_store.h"
#include "backends/pending_write_store.h"
#include "encodings/clock.h"
#include "encodings/hash_encoding.h"
#include "encodings/key_codec.h"
#include "encodings/key_version.h"
#include "encodings/meta_cache.h"
#include "encodings/registry.h"
#include "encodings/set_encoding.h"
#include "encodings/type_encoding.h"
#include "encodings/zset_encoding.h"
#include "engine/config.h"
#include "engine/key_locks.h"
#include "engine/key_scan.h"
#include "engine/redis_server_params.h"
#include "engine/watched_keys.h"
#include "redis/tier.h"
#include "resp/reply.h"

namespace kvlab::engine {

class CommandContext;
class CommandTable;
struct CommandSpec;
class SessionHost;

struct EngineOptions {
  encodings::KeyCodecOptions keys;
  // The types and encode-versions the engine runs. Defaults to kvlab's (Builtin()).
  // REQUIRES: outlives the engine.
  const encodings::EncodingRegistry* registry = nullptr;
  // The encode-version (registry row id) new keys of a type get; a type not listed gets its
  // registry default (v0). Changeable at runtime (CONFIG SET kv.<type>.key.meta.version).
  // REQUIRES: each (type, id) is a row of the registry.
  std::map<encodings::KeyType, uint8_t> versions;
  // SELECTable databases, 0 .. databases-1.
  int databases = 16;
  // Redis's proto-max-bulk-len: the longest string a command may build (SETRANGE, APPEND,
  // SETBIT, BITFIELD), the farthest bit offset, the largest LCS table, and the RESP server's
  // longest bulk argument. CONFIG SET proto-max-bulk-len changes it at runtime.
  uint64_t proto_max_bulk_len = 512ull << 20;
  // Defaults to the system clock. REQUIRES: outlives the engine.
  const encodings::Clock* clock = nullptr;
  size_t lock_stripes = 4096;
  // A command over more keys than this registers its keys instead of locking their stripes, so
  // that it does not stall unrelated keys that share them (engine/key_locks.h).
  size_t large_command_keys = 1000;
  // Bounds of the SCAN-family cursor table (engine/cursor_table.h).
  CursorLimits cursor_limits;
  // The Redis tier of hash v2/v3 and zset v1-v3. When null, the engine makes its own from
  // tier_options (private redis-servers, started only if a tier version is used).
  // REQUIRES: outlives the engine.
  redis::RedisTier* tier = nullptr;
  redis::RedisTierOptions tier_options;
  // When set, wraps the encoding of every hash version (a decorator on the decorator chain,
  // e.g. the test-only NewExtraReadHashEncoding of test_support/hash_extra_read.h).
  std::function<std::unique_ptr<encodings::HashEncoding>(std::unique_ptr<encodings::HashEncoding>)>
      hash_decorator;
  // CONFIG SET of an encode-version that keeps state in the Redis tier probes the tier, and
  // refuses the version when the tier cannot be reached (its commands would run degraded,
  // without their cache, and their numbers would not be the version's). True lets the version
  // be set anyway: it then runs degraded (counted per command as cache_degraded).
  bool allow_degraded_tier = false;
  // NeoKV's migration (docs/engine.md "Migrating keys on write"): a write command rewrites a
  // collection key whose encode-version is not its type's configured one into that version
  // before it writes. Off: every key keeps its version for life. Changeable at runtime (CONFIG
  // SET kv.encoding.migrate.on.write).
  bool migrate_on_write = false;
};

// One client's state across commands (a connection, a workload thread).
// Keys a command made ready for blocked clients (CommandContext::KeyReady), with their database.
using ReadyKeys = std::vector<std::pair<uint8_t, std::string>>;

struct Session {
  uint8_t db = 0;
  std::string name;  // CLIENT SETNAME
  uint64_t id = 0;   // CLIENT ID; the server numbers its connections from 1
  // The RESP version the client chose with HELLO (2 or 3). Commands whose RESP3 reply has
  // another shape (ZRANGE WITHSCORES) build it from this, as Redis does.
  int resp = 2;
  // The server carrying this session (engine/session_host.h), or nullptr in-process.
  SessionHost* host = nullptr;
  // Whether the client may run commands other than AUTH, HELLO and QUIT. In-process sessions
  // are trusted; a server connection starts authenticated only when no password is required
  // (Engine::AuthRequired at connect time, as Redis decides when a client connects).
  bool authenticated = true;
  // True while the session's host runs a blocked command again because one of its keys became
  // ready (SessionHost::Block): a key of another type then counts as absent (LoadWaitedKey,
  // engine/blocking.h).
  bool retrying_block = false;
  // SRANDMEMBER's, SPOP's, ZRANDMEMBER's and HRANDFIELD's choices: per session, so that no two
  // connections share state.
  std::mt19937_64 random{std::random_device{}()};

  // MULTI ... EXEC (engine/transaction.cc): between MULTI and EXEC or DISCARD, commands are
  // queued, not run. `aborted`: a command was rejected while queueing (unknown, wrong arity),
  // so EXEC replies EXECABORT.
  struct QueuedCommand {
    const CommandSpec* spec;
    std::vector<std::string> argv;
  };
  struct Multi {
    bool active = false;
    bool aborted = false;
    std::vector<QueuedCommand> queued;
  };
  Multi multi;
  // The keys this session WATCHes (null until its first WATCH).
  std::unique_ptr<WatchedKeys::Watcher> watch;
  // Set while EXEC runs the queued commands: a blocking command then replies as if it had timed
  // out at once (Redis's CLIENT_DENY_BLOCKING).
  bool deny_blocking = false;
};

// What one command cost.
struct CommandCost {
  backends::OpCounts kv;
  redis::TierCounts tier;  // Redis-tier round trips, commands, cache hits and misses
  // Physical counters of the backend over the command (only when want_physical is set before
  // Execute; RocksDB's are exact per command, the others store-wide).
  bool want_physical = false;
  backends::PhysicalCounters physical;
};

// Cumulative statistics of one command (INFO commandstats and the kvlab section).
struct CommandStats {
  std::atomic<uint64_t> calls{0};
  std::atomic<uint64_t> failed_calls{0};  // replied with an error
  std::atomic<uint64_t> micros{0};
  backends::OpCounters kv;
  std::atomic<uint64_t> tier_round_trips{0};
  std::atomic<uint64_t> tier_commands{0};
  std::atomic<uint64_t> cache_hits{0};
  std::atomic<uint64_t> cache_misses{0};
  std::atomic<uint64_t> cache_degraded{0};
  void AddTier(const redis::TierCounts& t);
};

class Engine {
 public:
  // REQUIRES: store outlives the engine.
  Engine(backends::KvStore* store, EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  resp::Reply Execute(Session& session, const std::vector<std::string>& argv,
                      CommandCost* cost = nullptr);

  // Group commit for pipelines (docs/server.md). Whether argv may join a group that
  // ExecuteGroup runs: a known write command with its arity, on keys, run by itself (not
  // FLUSHDB/FLUSHALL, not blocking, not kvlab's own), from a session that may run it and is not
  // in MULTI. Any other command runs alone through Execute.
  bool Groupable(const Session& session, const std::vector<std::string>& argv) const;
  // Runs consecutive commands of one client as Execute would run them one after another, and
  // returns their replies in order, but commits their KV batches as one store write (one LMDB
  // transaction, one RocksDB WAL write) instead of one each. Every key of every command is
  // locked exclusively for the whole group; each command runs with its own KvTxn, counts and
  // statistics, so its KV counts are those it has alone, and reads what the commands before it
  // wrote (the pending writes are laid over the store from the first command on a key an
  // earlier one names; before, they are only gathered). A command that replies an error writes
  // nothing and leaves the others' writes alone. The commit is the last step: a failed commit turns
  // the replies of the commands whose writes it carried into the storage error, so a caller that
  // sends the replies after this returns acknowledges only writes that are in the store. A command
  // that talks to the Redis tier commits what is pending first, as inside EXEC (its tier steps must
  // follow a durable KV write). REQUIRES: Groupable(session, c) for every command c; no command is
  // empty.
  std::vector<resp::Reply> ExecuteGroup(Session& session,
                                        std::span<const std::vector<std::string>> commands);
  // Groups run by ExecuteGroup, and the commands in them (INFO kvlab).
  uint64_t group_commits() const { return group_commits_.load(std::memory_order_relaxed); }
  uint64_t group_commit_commands() const {
    return group_commit_commands_.load(std::memory_order_relaxed);
  }

  // The types and versions this engine runs.
  const encodings::EncodingRegistry& registry() const { return registry_; }
  // The encode-version (registry row id) new keys of `type` get.
  uint8_t new_key_version(encodings::KeyType type) const {
    return types_[static_cast<uint8_t>(type)].new_key_version.load(std::memory_order_relaxed);
  }
  // Its name ("0"; registry.h).
  std::string_view new_key_version_name(encodings::KeyType type) const {
    return registry_.Find(type, new_key_version(type))->name;
  }
  // Whether write commands migrate the keys they write to the configured versions
  // (EngineOptions::migrate_on_write).
  bool migrate_on_write() const { return migrate_on_write_.load(std::memory_order_relaxed); }
  // The encoding of a version, or nullptr when this engine cannot run it (not in the registry,
  // or it uses the Redis tier and the engine has none).
  encodings::TypeEncoding* encoding(encodings::KeyType type, uint8_t version) const {
    const auto& by_id = types_[static_cast<uint8_t>(type)].by_id;
    return version < by_id.size() ? by_id[version].get() : nullptr;
  }
  // Whether encode-version `version` of `type` can run as itself: OK for a KV-only version; for
  // a Redis-tier version, probes each tier role it uses and fails with Unavailable naming the
  // version, the server and the reason ("hash encode-version 2 needs its Redis tier: the Redis
  // cache (127.0.0.1:1) cannot be reached: ..."). InvalidArgument for a version the engine
  // lacks. The second form takes the type's name ("hash").
  Status CheckTier(encodings::KeyType type, uint8_t version) const;
  Status CheckTier(std::string_view type, uint8_t version) const;

  // The garbage collector's reap (engine/collector.h): deletes the key-metas of those `keys`
  // of database db that are expired, each checked again under its exclusive key lock, so that
  // a key re-created or given a new expiry since the caller read it is kept. Runs each deleted
  // key's OnDelete hook (zset v3's store zset goes with its meta), and writes the deletes as one
  // atomic batch. Adds the metas deleted to *metas, those of versions that keep data in the
  // Redis tier to *tier, and the KV operations it did to *kv. A key whose hook fails (the tier
  // is down) is left for a later pass.
  Status ReapExpired(uint8_t db, const std::vector<std::string>& keys, uint64_t* metas,
                     uint64_t* tier, backends::OpCounts* kv);
  // A TTL index entry (key_codec.h): the key of database db it names, and its expiry.
  struct IndexedExpiry {
    std::string key;
    int64_t expire_ms = 0;
  };
  // The active expiry cycle's reap (engine/active_expiry.h), one atomic batch: each entry's
  // key is locked exclusively and its meta read again under the lock. A meta with the entry's
  // expiry, expired, is reaped as ReapExpired does (OnDelete, then the meta and the entry
  // deleted); any other entry is stale (its key deleted, persisted or given another expiry by
  // a write that did not read the old meta) and only the entry is deleted. Appends each reaped
  // key with its meta to *reaped (its sub-keys are the caller's to delete: their key-version is
  // dead, so that needs no lock), and adds the reaped metas to *metas, those with Redis-tier
  // data to *tier, the stale entries to *stale and the KV operations to *kv. A key whose
  // OnDelete hook fails (the tier is down) keeps its meta and its entry, for a later cycle.
  // REQUIRES: the store keeps the TTL index (KeyCodecOptions::ttl_index).
  Status ReapIndexed(uint8_t db, const std::vector<IndexedExpiry>& entries,
                     std::vector<std::pair<std::string, encodings::KeyMeta>>* reaped,
                     uint64_t* metas, uint64_t* tier, uint64_t* stale, backends::OpCounts* kv);
  // The garbage collector's reclaim of eagerly deleted records (Ardb's a#, which carry no
  // key-version): for each of `keys` of database db whose meta, read again under its exclusive
  // key lock, is absent or not an Ardb one, deletes every a# record of the key (left by a blind
  // overwrite such as SET), as one atomic batch. The lock is what makes it safe: without a
  // key-version, a record re-created by a command is byte for byte the old one. Adds the records
  // deleted to *sub_keys and the KV operations it did to *kv.
  Status ReclaimArdbOrphans(uint8_t db, const std::vector<std::string>& keys, uint64_t* sub_keys,
                            backends::OpCounts* kv);

  // The garbage collector's reclaim of zset v3 store zsets left behind (a blind SET over the
  // key): each of `store_keys` (the store Redis's keys of database db, TierKeyPrefix: a key
  // and a key-version) whose key, its meta read again under the key's exclusive lock, has no
  // meta, or one not of a store-tier version or of another key-version, is UNLINKed. The lock is
  // what makes it safe: a command creating the key writes its store zset before its KV batch.
  // A live key's zset, and an expired one's (the reap unlinks it), are kept. Adds the zsets
  // deleted (with dry_run: that would be deleted; nothing is locked or written) to *tier, and
  // the KV operations to *kv.
  Status ReclaimStoreOrphans(uint8_t db, const std::vector<std::string>& store_keys, bool dry_run,
                             uint64_t* tier, backends::OpCounts* kv);

  EngineConfig& config() { return config_; }

  // requirepass: the default user's password ("" for none). Thread-safe.
  bool AuthRequired() const;
  // Whether `password` is the default user's; constant time in the password's contents.
  bool CheckPassword(std::string_view password) const;

  // rename-command: the command `from` is known as `to` from now on ("" disables it). Call
  // before serving. Fails on an unknown `from` or a `to` that names another command.
  Status RenameCommand(std::string_view from, std::string_view to);
  // The command an argv[0] names, after renames; nullptr when unknown or disabled.
  const CommandSpec* FindCommand(std::string_view name) const;
  const CommandTable& commands() const;
  const CommandStats& stats(size_t command_index) const { return stats_[command_index]; }
  backends::KvStore* store() const { return store_; }
  redis::RedisTier* tier() const { return tier_; }
  const encodings::KeyCodec& codec() const { return codec_; }
  const encodings::Clock& clock() const { return *clock_; }
  int databases() const { return options_.databases; }
  uint64_t proto_max_bulk_len() const {
    return proto_max_bulk_len_.load(std::memory_order_relaxed);
  }
  void set_proto_max_bulk_len(uint64_t bytes) {
    proto_max_bulk_len_.store(bytes, std::memory_order_relaxed);
  }
  // hll-sparse-max-bytes: the largest sparse HyperLogLog before PFADD and PFMERGE make it
  // dense (CONFIG SET changes it; engine/hll_commands.h).
  uint64_t hll_sparse_max_bytes() const {
    return hll_sparse_max_bytes_.load(std::memory_order_relaxed);
  }
  const KeyLocks& key_locks() const { return key_locks_; }
  // The resume positions of SCAN-family cursors.
  CursorTable& cursors() { return cursors_; }
  // Zeroes every command's statistics (CONFIG RESETSTAT).
  void ResetStats();
  // Total KV operations of every command so far.
  backends::OpCounts TotalKvOps() const;
  // WATCH's modification tracking.
  WatchedKeys& watched_keys() { return *watched_keys_; }
  // maxmemory (engine/redis_server_params.h).
  const MemoryLimit& memory_limit() const { return memory_limit_; }
  // LASTSAVE: the unix time in seconds of the last SAVE or BGSAVE, or of the engine's start
  // (Redis's server.lastsave starts at its start time). Thread-safe.
  int64_t last_save() const { return last_save_s_.load(std::memory_order_relaxed); }
  void set_last_save(int64_t unix_seconds) {
    last_save_s_.store(unix_seconds, std::memory_order_relaxed);
  }

  // EXEC (engine/transaction.cc): runs the session's queued commands as one isolated unit, all
  // their keys locked for the whole run, and sets ctx's reply (the array of their replies, or
  // the null array when a watched key was modified). REQUIRES: ctx is EXEC's context, the
  // session is in MULTI and its transaction was not aborted.
  void ExecTransaction(CommandContext& ctx);

 private:
  friend class CommandContext;

  void RegisterConfig();
  // Reconciles the zset v3 keys whose store write had an unknown outcome (RedisTier): one pass,
  // on the reconciler thread, which WakeReconciler starts on first use.
  void ReconcileUncertain();
  // The key-meta cache a command's KvTxn consults: null while kv.key.meta.cache.enable is off.
  encodings::KeyMetaCache* MetaCacheForCommand();
  void WakeReconciler();
  // Runs the command; *ready_keys gets the keys it made ready for blocked clients (once it has
  // committed; CommandContext::KeyReady).
  resp::Reply Run(const CommandSpec& spec, Session& session, const std::vector<std::string>& argv,
                  CommandCost* cost, ReadyKeys* ready_keys);
  // Tells the session's host the keys that are ready (SessionHost::KeysReady), per database.
  // REQUIRES: the commands that made them ready have released their key locks.
  static void TellReady(Session& session, const ReadyKeys& ready);
  // EXEC's one write: its commands' batches gathered over a read-your-writes overlay of the
  // store, committed together (engine/transaction.cc). ExecuteGroup's too.
  struct ExecWrite {
    ExecWrite(backends::KvStore* store, bool read_your_writes) : pending(store, read_your_writes) {}
    backends::PendingWriteStore pending;
    // Set by RunLocked when the command committed the overlay itself (it talked to the Redis
    // tier), with the commit's outcome.
    bool committed = false;
    Status commit_status;
  };
  // A command of EXEC or of a group, with its arguments.
  struct LockedCommand {
    const CommandSpec* spec;
    const std::vector<std::string>* argv;
  };
  // ExecuteGroup's run of `locked` (command i's keys: keys[keys_end[i-1], keys_end[i])), their
  // key locks held: RunAsOneWrite with read-your-writes from the first command on a key that an
  // earlier one names. Appends the replies and the ready keys.
  void RunGroupLocked(Session& session, const std::vector<LockedCommand>& locked,
                      const std::vector<std::pair<uint8_t, std::string_view>>& keys,
                      const std::vector<size_t>& keys_end, std::vector<resp::Reply>* replies,
                      ReadyKeys* ready);
  // Runs `commands` in order through one ExecWrite and commits it, appending their replies to
  // *replies: EXEC's and ExecuteGroup's common part. The replies of commands whose writes a
  // failed commit carried become the storage error. Appends the keys made ready by the commands
  // whose writes landed to *ready, and adds the commands' KV and tier counts to *kv and *tier.
  // Commands before commands[read_your_writes_from] do not see the pending writes of those
  // before them; from it on, every command does.
  // REQUIRES: the caller holds every key lock the commands need; session.db is the database of
  // the first command (a SELECT among them moves the later ones); no command before
  // read_your_writes_from reads a key that one before it writes.
  void RunAsOneWrite(Session& session, std::span<const LockedCommand> commands,
                     size_t read_your_writes_from, std::vector<resp::Reply>* replies,
                     ReadyKeys* ready, backends::OpCounts* kv, redis::TierCounts* tier);
  // Run, with the command's key locks already held by the caller (EXEC). With exec, the
  // command's batch joins exec->pending instead of being written; a command that talked to the
  // Redis tier then commits the overlay (the earlier commands' writes and its own) before its
  // post-commit tier steps, since those must follow a durable KV write.
  resp::Reply RunLocked(const CommandSpec& spec, Session& session,
                        const std::vector<std::string>& argv, CommandCost* cost,
                        ReadyKeys* ready_keys, ExecWrite* exec = nullptr);
  // A command rejected before it runs (unknown, wrong arity, NOAUTH): inside MULTI it aborts the
  // transaction; an EXEC rejected so replies EXECABORT with the reason (Redis's rejectCommand).
  resp::Reply Reject(Session& session, const CommandSpec* spec, std::string error);
  // Reports the keys a committed write command changed to WATCH (watched_keys.h).
  // The batch's records within `skip` ([begin, end) indexes: the migrations') are not changes.
  void TouchWritten(const CommandSpec& spec, const Session& session,
                    const std::vector<std::string>& argv, encodings::KvTxn& txn,
                    const std::vector<std::pair<size_t, size_t>>& skip);
  // The watched keys of the databases a FLUSHDB/FLUSHALL empties that are live now.
  std::vector<std::pair<uint8_t, std::string>> LiveWatchedKeys(const CommandSpec& spec,
                                                               const Session& session,
                                                               backends::KvStore* store);

  backends::KvStore* const store_;
  const EngineOptions options_;
  encodings::SystemClock system_clock_;
  const encodings::Clock* clock_;
  std::unique_ptr<redis::RedisTier> own_tier_;
  redis::RedisTier* tier_;
  encodings::TierMetaCache meta_cache_;  // kv.key.meta.cache.enable
  const encodings::KeyCodec codec_;
  encodings::KeyVersionGenerator versions_;
  const CommandTable& commands_;
  const encodings::EncodingRegistry& registry_;
  // Per key-type byte: the version new keys get, and the encoding of each version id.
  struct TypeState {
    std::atomic<uint8_t> new_key_version{0};
    std::vector<std::unique_ptr<encodings::TypeEncoding>> by_id;
  };
  std::array<TypeState, 256> types_;
  std::atomic<uint64_t> proto_max_bulk_len_;
  std::atomic<uint64_t> hll_sparse_max_bytes_;
  EngineConfig config_;
  KeyLocks key_locks_;
  CursorTable cursors_;
  mutable std::mutex requirepass_mu_;
  std::string requirepass_;
  std::atomic<bool> auth_required_{false};
  std::atomic<bool> migrate_on_write_{false};
  // rename-command: lower-case name -> command (nullptr: renamed away or disabled).
  std::unordered_map<std::string, const CommandSpec*> renamed_;
  std::mutex reconcile_mu_;
  std::condition_variable reconcile_cv_;
  std::thread reconciler_;
  bool stop_reconciler_ = false;
  bool reconcile_wanted_ = false;
  std::unique_ptr<CommandStats[]> stats_;
  std::atomic<uint64_t> group_commits_{0};
  std::atomic<uint64_t> group_commit_commands_{0};
  const std::shared_ptr<WatchedKeys> watched_keys_ = WatchedKeys::Make();
  MemoryLimit memory_limit_;
  std::atomic<int64_t> last_save_s_{0};
};

}  // namespace kvlab::engine
