// Collector: the scanning garbage collector. It reclaims what lazy deletion leaves behind.
//
// DEL, an overwrite and an expiry cost O(1): they delete or replace a key's meta, and the old
// incarnation's sub-keys become unreachable through their key-version (key_codec.h). Nothing
// reads them again, but they stay in the store. A pass of the collector walks, for every
// database:
//   1. the key-metas ("m#"): each expired meta is deleted (reaped) through Engine::ReapExpired,
//      which checks it again under the key's exclusive lock, so that a key re-created or
//      extended since the scan read it is kept, and which runs the type's OnDelete hook (zset
//      v3's store zset in the Redis tier goes with its meta);
//   2. the sub-keys of every tag the registry's versions write (s#, k#, i#, ...): a sub-key
//      whose key has no meta, or a meta of another key-version, is deleted. This needs no lock:
//      key-versions are unique and never reused, and a command writes its meta and sub-keys in
//      one atomic batch, so once a sub-key's key-version is not its key's current one, no
//      command can make it current again. A sub-key of an expired meta that step 1 has not
//      reaped yet (it expired during the pass) is kept, for the next pass.
//   3. Ardb's records (a#, registry rows with eager_delete): they carry no key-version and are
//      deleted with their key, so only a blind overwrite (SET over an Ardb hash) leaves them
//      behind; a record whose key has no Ardb meta is deleted, under the key's exclusive lock
//      (Engine::ReclaimArdbOrphans), since a command could re-create the very same record.
//   4. zset v3's store zsets in the store Redis: one whose key has no meta of its key-version
//      (a blind SET over the key replaced it) is UNLINKed, under the key's exclusive lock
//      (Engine::ReclaimStoreOrphans), since a command creating a key writes its store zset
//      before its KV batch. Counted in reclaimed_tier.
// So a key expired before a pass starts loses its meta in step 1 and its sub-keys in step 2 of
// that same pass. Undecodable records are counted and never deleted.
//
// Work is done in bounded batches (`batch_records` records read, then their deletes written as
// one batch) with no iterator open across a write, at most `max_records_per_second`, so that
// the foreground keeps its latency. Thread-safe against any number of concurrent commands. Two
// passes at once are safe too (deletes are idempotent), only wasteful.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backends/counting_store.h"
#include "base/status.h"
#include "encodings/key_meta.h"

namespace kvlab::engine {

class Engine;

// What a dry run finds alive for one key type: the keys (their metas) and every record the key
// owns now (its meta, the sub-keys of its current key-version, its Ardb records), keys and
// values counted in bytes. Records no live key owns are garbage, not counted here.
struct LiveRecords {
  uint64_t keys = 0;
  uint64_t records = 0;
  uint64_t bytes = 0;
  LiveRecords& operator+=(const LiveRecords& o);
};

struct GcStats {
  uint64_t scanned = 0;             // records read (metas and sub-keys)
  uint64_t reclaimed_sub_keys = 0;  // orphaned sub-keys deleted
  uint64_t reclaimed_metas = 0;     // expired key-metas deleted
  uint64_t reclaimed_tier = 0;      // Redis-tier data deleted with them (zset v3 store zsets)
  uint64_t undecodable = 0;         // records that are not kvlab's: counted, never deleted
  // Bytes (key + value) of the records counted in reclaimed_sub_keys and reclaimed_metas.
  // Counted by a dry run only (GcOptions::dry_run): a pass reads sub-keys without their values.
  uint64_t garbage_bytes = 0;
  // A dry run's census of what stays, per key type (strings included): the space each type's
  // data takes in the store, without its garbage. Empty after a pass that is not a dry run.
  // Records of no type (the TTL index, the store's format record) are not in it.
  std::map<encodings::KeyType, LiveRecords> live;
  // The TTL index mechanism's (active_expiry.h): index entries read, and those deleted as
  // stale (their key since deleted, persisted or given another expiry). Both within scanned
  // and not in reclaimed(): an entry is bookkeeping, not a key's data.
  uint64_t index_entries = 0;
  uint64_t stale_index_entries = 0;
  backends::OpCounts kv;  // the collector's own KV operations
  double seconds = 0;

  uint64_t reclaimed() const { return reclaimed_sub_keys + reclaimed_metas + reclaimed_tier; }
  // "gc: scanned S records, reclaimed R (sub-keys X, metas Y, tier Z) in T s", followed by
  // "; ttl index: E entries read, D stale deleted" when index entries were read.
  std::string Line() const;
  // A dry run's: "gc dry run: scanned S records, garbage R (sub-keys X, metas Y, tier Z; B bytes)
  // in T s"
  std::string DryRunLine() const;
  GcStats& operator+=(const GcStats& o);
};

struct GcProgress {
  int db = 0;
  std::string phase;  // "metas", or the sub-key tag being walked ("s#")
  GcStats so_far;
};

struct GcOptions {
  // Records read per batch; their deletes are written as one batch.
  size_t batch_records = 1000;
  // 0: as fast as the store goes.
  uint64_t max_records_per_second = 0;
  // Called after each batch (from the collecting thread).
  std::function<void(const GcProgress&)> progress;
  // When set and true, the pass stops after the current batch (RunPass returns Aborted).
  const std::atomic<bool>* stop = nullptr;
  // A census: nothing is written and no lock is taken. The reclaimed_* counters and
  // garbage_bytes say what a pass started now would reclaim: expired metas, the sub-keys and
  // Ardb records of keys with no meta, another key-version or an expired meta (a pass reaps the
  // meta in step 1 and its sub-keys in step 2), and reclaimed_tier the zset v3 store zsets of
  // the expired metas. Exact when no command runs concurrently (`kvlab bench` at the end of a
  // cell); otherwise a snapshot that may be stale by the time it returns.
  bool dry_run = false;
};

class Collector {
 public:
  // REQUIRES: engine outlives the collector.
  explicit Collector(Engine* engine) : engine_(engine) {}

  // One pass over every database. Adds what it did to *stats, also when it fails midway (a
  // store error, or Aborted when options.stop was set).
  Status RunPass(const GcOptions& options, GcStats* stats);

 private:
  Status CollectMetas(int db, const GcOptions& options, GcStats* stats);
  Status CollectSubKeys(int db, char tag, const GcOptions& options, GcStats* stats);
  // Ardb's a# records (no key-version): those whose key has no Ardb meta, deleted under the
  // key's lock (Engine::ReclaimArdbOrphans).
  Status CollectArdbRecords(int db, const GcOptions& options, GcStats* stats);
  // zset v3's store zsets (the store Redis's keys of the database) whose key has no meta of
  // their key-version, UNLINKed under the key's lock (Engine::ReclaimStoreOrphans).
  Status CollectStoreZsets(int db, const GcOptions& options, GcStats* stats);
  // Sleeps as long as max_records_per_second asks; false when asked to stop.
  bool Pace(const GcOptions& options, const GcStats& stats);

  Engine* engine_;
  std::chrono::steady_clock::time_point start_;
};

// Reads up to `limit` records of [begin, end) from `from` on (inclusive), keys only or with
// values. No iterator stays open after it returns, so the caller may write.
Status ReadRecordBatch(backends::KvStore* store, const std::string& from, const std::string& end,
                       size_t limit, bool with_values,
                       std::vector<std::pair<std::string, std::string>>* out);

// Runs a pass every `interval` on its own thread until destroyed: `kvlab serve`'s scheduled GC,
// and its active expiry cycle (active_expiry.h). Passes do not overlap; the destructor stops a
// running pass after its current batch.
class BackgroundCollector {
 public:
  // One pass: adds what it did to *stats; stops after its current batch once `stop` is true
  // (returning Aborted).
  using Pass = std::function<Status(const std::atomic<bool>* stop, GcStats* stats)>;

  // The scanning collector's passes. REQUIRES: engine outlives this object; interval > 0.
  // `log` gets the Line() of each pass that reclaimed something or failed (an idle server logs
  // nothing).
  BackgroundCollector(Engine* engine, std::chrono::milliseconds interval, GcOptions options,
                      std::function<void(const std::string&)> log);
  // Any pass. REQUIRES: whatever `pass` uses outlives this object; interval > 0. `log` as
  // above (null: nothing is logged).
  BackgroundCollector(std::chrono::milliseconds interval, Pass pass,
                      std::function<void(const std::string&)> log);
  ~BackgroundCollector();
  BackgroundCollector(const BackgroundCollector&) = delete;
  BackgroundCollector& operator=(const BackgroundCollector&) = delete;

  // Totals over every pass so far (INFO).
  GcStats totals() const;
  uint64_t passes() const;

 private:
  const std::chrono::milliseconds interval_;
  Pass pass_;
  std::function<void(const std::string&)> log_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  GcStats totals_;
  uint64_t passes_ = 0;
  std::thread thread_;
};

}  // namespace kvlab::engine
