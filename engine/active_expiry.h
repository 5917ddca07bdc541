// ActiveExpiry: Redis's active expire cycle, over the TTL index (Ardb's KEY_TTL_SORT, 002_*).
//
// With KeyCodecOptions::ttl_index on, every key-meta with an expiry has an index entry
// "t#" | namespace | expire-time | key (key_codec.h), written in the same batch as the meta
// (KvTxn::PutMeta): one more record per EXPIRE. The entries of each database sort by expiry, so
// the keys expired at time `now` are the entries before TtlIndexKey(db, now, ""): a cycle finds
// them with one seek and reads nothing else, where the scanning collector (collector.h) reads
// every key-meta. For each batch of entries due, Engine::ReapIndexed, under the keys' exclusive
// locks, checks each entry against its meta (an entry may be stale: a blind SET over a key with
// an expiry cannot delete the old entry) and reaps the expired keys: OnDelete (zset v3's store
// zset), their metas and entries, one atomic batch. Then the cycle deletes the reaped keys'
// sub-keys (every lazily deleting tag of the registry, under the dead key-version's prefix),
// which needs no lock: the version is dead, and nothing can make it current again. An Ardb
// layout key's records go with its meta, in the reap (OnDelete).
//
// Like Redis's cycle, a cycle is bounded in time (`budget`, Redis's 25% of each 100 ms tick) and
// remembers where it stopped: the sub-key purges not finished yet, and the database to start
// with next. What a cycle leaves stays due and is taken by the next one. Across a restart the
// purges not finished are forgotten: their sub-keys are left to the scanning collector or the
// compaction filter, as a DEL's are.
//
// What it does not reclaim: the sub-keys of a key deleted or overwritten before it expired
// (DEL's garbage: the collector's or the compaction filter's), and those of an expired key that
// a write re-created before a cycle reached it (the write replaced the meta and its entry).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "engine/collector.h"

namespace kvlab::engine {

class Engine;

struct ActiveExpiryOptions {
  // Index entries read, checked and reaped per batch (one ReapIndexed, one atomic write).
  size_t batch_entries = 100;
  // Sub-keys of reaped keys deleted per batch.
  size_t purge_records = 1000;
  // The cycle's time limit, checked between batches; zero: until nothing is due.
  std::chrono::microseconds budget{25'000};
  // When set and true, the cycle stops after the current batch (RunCycle returns Aborted).
  const std::atomic<bool>* stop = nullptr;
};

class ActiveExpiry {
 public:
  // REQUIRES: engine outlives this object, and its store keeps the TTL index
  // (engine->codec().options().ttl_index).
  explicit ActiveExpiry(Engine* engine) : engine_(engine) {}

  // One cycle: the unfinished sub-key purges first, then the due entries of each database, in
  // batches, until nothing is due or the budget is spent. Adds what it did to *stats
  // (index_entries, stale_index_entries, reclaimed_*, scanned = entries + sub-keys read), also
  // when it fails midway. *idle (when given) is set to whether nothing was left due: no purge
  // pending, and every database found with nothing to do since the last one that had some (an
  // entry the reap keeps, such as a zset v3 key's while its tier is down, stays due: the next
  // cycles try it again, and RunUntilIdle returns with it left).
  Status RunCycle(const ActiveExpiryOptions& options, GcStats* stats, bool* idle = nullptr);

  // Cycles until nothing is due (`kvlab gc --mechanism ttl-index`), `progress` called after
  // each.
  Status RunUntilIdle(const ActiveExpiryOptions& options, GcStats* stats,
                      const std::function<void(const GcStats&)>& progress = nullptr);

 private:
  // Deletes sub-keys of the pending purges until the deadline. False when some remain.
  Status Purge(const ActiveExpiryOptions& options, std::chrono::steady_clock::time_point deadline,
               GcStats* stats, bool* done);
  // Reaps the due entries of database db until the deadline. *done: none remain due.
  Status ExpireDb(int db, const ActiveExpiryOptions& options,
                  std::chrono::steady_clock::time_point deadline, GcStats* stats, bool* done);

  Engine* const engine_;
  // Sub-key prefixes of reaped keys whose records are not all deleted yet.
  std::deque<std::string> purges_;
  int next_db_ = 0;  // where the next cycle starts, as Redis's cycle resumes its databases
  // Databases found with nothing due, one after the other: all of them means idle.
  int quiet_databases_ = 0;
};

// The active expiry cycle of `kvlab serve`: one cycle every `interval` (Redis's hz 10: 100 ms),
// on its own thread, until destroyed.
// REQUIRES: as ActiveExpiry; interval > 0.
std::unique_ptr<BackgroundCollector> StartActiveExpiry(Engine* engine,
                                                       std::chrono::milliseconds interval,
                                                       ActiveExpiryOptions options);

}  // namespace kvlab::engine
