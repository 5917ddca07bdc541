// The RocksDB backend: how the KvStore contract maps onto RocksDB (Debian librocksdb 7.8).
//
// - One DB with RocksDB's default BytewiseComparator, which is exactly kvlab's key order
//   (unsigned memcmp, shorter prefix first). Without StoreOptions::key_spaces every record is in
//   the default column family; with them, each key space is a column family of its own
//   (KeySpaceMap::Name: "kv_m-23" for "m#"), and the rest stays in the default one. Every column
//   family has the same options (the block cache and its budget are shared). A Write is one
//   rocksdb::WriteBatch across the column families, so it stays one atomic WAL record; an
//   iterator over several spaces merges one RocksDB iterator per column family (key_spaces.h),
//   and an encoding's scan of one record kind uses its column family's alone. Opening a store
//   whose column families are not the requested ones fails, naming both sets.
// - Get is DB::Get; MultiGet is the batched DB::MultiGet (one call for all keys, sorted and
//   de-duplicated inside RocksDB, one consistent view). Per-key NotFound becomes an empty
//   optional; any other per-key error fails the whole call.
// - Put, Delete and Write(batch) go through rocksdb::WriteBatch / DB::Write, which RocksDB
//   applies atomically (one WAL record), in insertion order. A batch's SingleDelete is RocksDB's
//   SingleDelete (its tombstone and the one Put it deletes vanish together when a flush or
//   compaction lines them up), unless StoreOptions::rocksdb_single_delete is off or a compaction
//   filter is installed (below): then it is a Delete.
// - Deletion-triggered compaction (StoreOptions::rocksdb_compact_on_deletion, off by default):
//   RocksDB's CompactOnDeletionCollector marks SST files dense in tombstones for compaction, so
//   that scans over churned ranges stop stepping over them (MakeOptions). Keys are validated with
//   ValidateKey/ValidateBatch before anything is written, so an invalid batch applies nothing.
// - Scan-triggered flush (StoreOptions::rocksdb_scan_flush_trigger): an iterator that stepped
//   over that many deleted records (PerfContext::internal_delete_skipped_count, counted from its
//   creation to its destruction on its thread), at least as many of them in the memtable (its
//   memtable steps, PerfContext::next_on_memtable_count and prev_on_memtable_count, beyond the
//   steps it was asked for), asks the store to flush its column family's active memtable: its
//   tombstones are what the scans step over, and a flush drops each SingleDelete with its Put.
//   (The memtable's own count of deletes, rocksdb.num-deletes-active-mem-table, leaves out
//   SingleDeletes.) Flushes in the background (FlushOptions::wait false), one at a time and
//   none while a flushed memtable is still pending; RocksDB 9's memtable_op_scan_flush_trigger,
//   which RocksDB 7.8 lacks.
// - DeleteRange is DB::DeleteRange: one range tombstone, the keys in the range are not visited
//   (Capabilities::native_delete_range). The range is half-open [begin, end), as in RocksDB. An
//   empty or inverted range is a no-op, as in the reference backend.
// - Durability: every write goes to the WAL before it returns, so it survives a SIGKILL
//   (crash_safe). With StoreOptions::sync_writes the WAL is fsynced as well (WriteOptions::sync),
//   which also covers a machine crash. Recovery uses kPointInTimeRecovery: a torn WAL tail is
//   dropped, so the batches that survive are a prefix of those written. Flush() is DB::Flush
//   (wait) followed by DB::SyncWAL.
// - Iterators are RocksDB iterators over an implicit snapshot taken at creation, so they see a
//   consistent view. Half-open bounds map to ReadOptions::iterate_lower_bound (inclusive) and
//   iterate_upper_bound (exclusive); RocksDB clamps Seek/SeekForPrev/SeekToFirst/SeekToLast to
//   them. The iterator object owns the bound strings and the Slices that point at them, because
//   RocksDB keeps only pointers. An iterator must be destroyed before its store.
// - Physical counters come from the calling thread's rocksdb::PerfContext, which is thread-local
//   and cumulative. Counting needs PerfLevel >= kEnableCount on the thread doing the work; the
//   perf level is also thread-local, so every public operation (and every iterator step) makes
//   sure it is on for the current thread. The context is never reset, so the difference of two
//   readings on one thread is exact for the work in between.
// - Block cache (MakeOptions, MakeCache): StoreOptions::cache_bytes (--cache-mb) of LRU cache
//   shared by every column family, in shards of at least 8 MiB, holding data, index and filter
//   blocks alike. Index and filter blocks are partitioned (two-level index, partitioned filters,
//   4 KiB partitions) and cached with high priority; the top-level indexes of every file and the
//   whole index and filter of L0 files are pinned. So no index or filter block outgrows a shard,
//   whatever the file size, and point reads do not fall off a cliff when the first compaction
//   writes a large file (issue 40; docs/studies/read-cliff).
// - Errors: rocksdb::Status codes map onto kvlab's (see ToKvlab below); every message starts with
//   "rocksdb: ", names the operation, and for Open the directory.
// - The destructor cancels background work (waiting for running jobs) and closes the DB.
// - Compaction filter: with a CompactionFilterPolicy (compaction_filter.h), every column family
//   gets a CompactionFilterFactory that hands each compaction its own RecordDropper; a dropped
//   record is Decision::kRemove, which RocksDB turns into a tombstone in the compaction's output
//   (so an older version of the key below cannot resurface). Merge operands and blob references
//   are never offered (kvlab writes neither). RocksDB calls filters regardless of snapshots, so
//   the policy must only drop what no reader can still need (the engine's grace period).
// - No RocksDB type leaves this file; rocksdb_store.h declares only OpenRocksDbStore.
#include "backends/rocksdb_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/compaction_filter.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/table_properties_collectors.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "backends/key_spaces.h"
#include "backends/rocksdb_range_compactor.h"
#include "backends/store_files.h"

namespace kvlab::backends {
namespace {

constexpr const char* kBackend = "rocksdb";
// The deletion-triggered compaction of MakeOptions: a window of entries, the tombstones in it
// that mark the file, and the file-wide tombstone ratio that does.
constexpr size_t kDeletionWindow = 128;
constexpr size_t kDeletionTrigger = 64;
constexpr double kDeletionRatio = 0.5;

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }

// Maps a non-OK rocksdb::Status to kvlab's codes. `what` names the operation.
Status ToKvlab(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::OK();
  std::string msg = std::string(kBackend) + ": " + std::string(what) + ": " + s.ToString();
  switch (s.code()) {
    case rocksdb::Status::kNotFound:
      return Status::NotFound(std::move(msg));
    case rocksdb::Status::kCorruption:
      return Status::Corruption(std::move(msg));
    case rocksdb::Status::kNotSupported:
      return Status::NotSupported(std::move(msg));
    case rocksdb::Status::kInvalidArgument:
      return Status::InvalidArgument(std::move(msg));
    case rocksdb::Status::kBusy:
    case rocksdb::Status::kTimedOut:
    case rocksdb::Status::kTryAgain:
      // Lock and write-stall conflicts: the resource is held, retrying may succeed.
      return Status::Busy(std::move(msg));
    case rocksdb::Status::kIOError:
      // ENOSPC (a write or flush without the disk guard, or with something else filling the
      // disk): the disk-full error the guard gives, with RocksDB's text.
      if (s.IsNoSpace()) return Status::NoSpace("disk full: " + msg);
      return Status::IOError(std::move(msg));
    default:
      // kIOError, and the states that mean the engine could not do the work (shutdown in
      // progress, aborted, incomplete, space limits): all are failures of the storage engine.
      return Status::IOError(std::move(msg));
  }
}

// The size of an index or filter partition (BlockBasedTableOptions::metadata_block_size):
// RocksDB's default and the Partitioned Index Filters guide's choice, the size of a data block.
constexpr uint64_t kMetadataBlockBytes = 4096;
// The block cache's shards. Each shard is an LRU list under its own mutex, with capacity
// cache_bytes / shards; an entry larger than its shard cannot stay in it. Shards of at least
// 8 MiB hold any metadata block with room to spare: partitions are ~4 KiB, and a whole-file
// filter of a file written before partitioning (up to ~3 MB for a 64 MiB file of 30-byte
// records, 10 bits per key) still fits the shard's high-priority half. Up to 64 shards (RocksDB's
// own cap) once the cache is 512 MiB; below 16 MiB, one shard. Fewer shards mean more contention
// on a shard's mutex, which matters little next to kvlab's few worker threads.
constexpr uint64_t kMinCacheShardBytes = 8ull << 20;
constexpr int kMaxCacheShardBits = 6;
// The share of each shard reserved for index and filter blocks (high priority): data blocks
// evict them only beyond it. RocksDB's default ratio, set here because the layout depends on it.
constexpr double kHighPriorityRatio = 0.5;

// The block cache: `cache_bytes` (--cache-mb) in shards of at least kMinCacheShardBytes.
// RocksDB's default sharding (NewLRUCache without a shard count) cuts it into shards of 512 KiB
// and more, 64 of them from 32 MiB up: 1 MiB shards for the default 64 MiB cache.
std::shared_ptr<rocksdb::Cache> MakeCache(uint64_t cache_bytes) {
  int bits = 0;
  while (bits < kMaxCacheShardBits && (cache_bytes >> (bits + 1)) >= kMinCacheShardBytes) ++bits;
  rocksdb::LRUCacheOptions c;
  c.capacity = static_cast<size_t>(cache_bytes);
  c.num_shard_bits = bits;
  c.high_pri_pool_ratio = kHighPriorityRatio;
  return rocksdb::NewLRUCache(c);
}

// Turns on PerfContext counting for the calling thread. The perf level is thread-local, so this
// runs at the start of every public operation; it is a thread-local read when already on. A
// higher level (timing) that someone else set is left alone.
void EnsurePerfCounting() {
  if (rocksdb::GetPerfLevel() < rocksdb::kEnableCount) rocksdb::SetPerfLevel(rocksdb::kEnableCount);
}

rocksdb::Options MakeOptions(const StoreOptions& options) {
  rocksdb::Options o;
  o.create_if_missing = true;
  // A SIGKILL may tear the last WAL record: recovery drops an incomplete record at a log's tail
  // and keeps every complete one before it, so the surviving writes are a prefix of the
  // acknowledged ones. A corrupt record anywhere else refuses the open (Corruption, naming the
  // log) instead of what kPointInTimeRecovery did: stop replaying there and open without
  // complaint, silently dropping every acknowledged write after it (a flipped bit in the WAL
  // served 89% wrong replies, docs/engine.md "Checksums and kvlab verify").
  o.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // Sizes levels from the bottom up, which keeps space amplification near 1.1 as data grows;
  // RocksDB's recommended setting for level compaction.
  o.level_compaction_dynamic_level_bytes = true;
  // kvlab opens and closes stores often (tests, workload runs); keep the info LOG files few.
  o.keep_log_file_num = 4;

  rocksdb::BlockBasedTableOptions t;
  // The read cache the caller sized. Index and filter blocks live in it too (as in Kvrocks), so
  // cache_bytes bounds the read memory, and the block counters include index and filter block
  // accesses: the real per-lookup cost. How they stay in it at any dataset size: MakeCache and
  // below.
  t.block_cache = MakeCache(options.cache_bytes);
  t.cache_index_and_filter_blocks = true;
  // Partitioned index and filters (RocksDB's "Partitioned Index Filters"). With one index and
  // one filter block per SST file, those blocks grow with the file: a compacted 64 MiB file of
  // small records has a filter of 1-2 MB, larger than a shard of the cache (1 MiB with the
  // default 64 shards of a 64 MiB cache), and an entry larger than its shard is dropped as soon
  // as the read that loaded it releases it. Every Get then re-read and re-checksummed the whole
  // filter (issue 40: reads at 0.02-0.12x redis-server after the first compaction). Partitioned,
  // a file's index and filter are cut into blocks of about metadata_block_size, each a cache
  // entry of its own, with a small top-level index over them; a Get loads only the partitions
  // of its key.
  t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  t.partition_filters = true;
  t.metadata_block_size = kMetadataBlockBytes;
  // Index and filter partitions enter the cache's high-priority pool, so data blocks streaming
  // through the cache evict them last.
  t.cache_index_and_filter_blocks_with_high_priority = true;
  // Pinned (held by the file's table reader for its lifetime, still charged to the cache):
  // - the top-level indexes of every file, 0.1-1% of its index and filter, consulted by every
  //   lookup that reaches the file;
  // - every metadata block of the L0 files (flushed memtables), since every lookup consults
  //   every L0 file. Files written before partitioning (unpartitioned blocks) are pinned only
  //   in L0; elsewhere they are cached like partitions until a compaction rewrites them.
  t.metadata_cache_options.top_level_index_pinning = rocksdb::PinningTier::kAll;
  t.metadata_cache_options.partition_pinning = rocksdb::PinningTier::kFlushedAndSimilar;
  t.metadata_cache_options.unpartitioned_pinning = rocksdb::PinningTier::kFlushedAndSimilar;
  // The engine does many point lookups (key-meta records, hash fields, zset members), often of
  // absent keys; a 10 bits/key Bloom filter (~1% false positives) lets a Get skip an SST file
  // without reading its data blocks. Whole-key filtering (the default) fits exact-key Gets, and
  // the batched MultiGet uses the same filters.
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  if (options.rocksdb_compact_on_deletion) {
    // Churned records (a zset's score index: every score update deletes one record and writes
    // another) leave runs of tombstones that every scan of the range steps over until a
    // compaction drops them, and level compaction alone drops a Delete only at the last level.
    // This collector marks an SST file for compaction when any 128 consecutive entries hold 64
    // tombstones, or half of the file is tombstones (RocksDB's CompactOnDeletionCollector, as
    // Kvrocks uses it).
    o.table_properties_collector_factories.push_back(rocksdb::NewCompactOnDeletionCollectorFactory(
        kDeletionWindow, kDeletionTrigger, kDeletionRatio));
  }
  return o;
}

// A RecordDropper as RocksDB's compaction filter: one per compaction (the factory below).
class DropperFilter final : public rocksdb::CompactionFilter {
 public:
  explicit DropperFilter(std::unique_ptr<RecordDropper> dropper) : dropper_(std::move(dropper)) {}
  Decision FilterV2(int /*level*/, const rocksdb::Slice& key, ValueType type,
                    const rocksdb::Slice& value, std::string* /*new_value*/,
                    std::string* /*skip_until*/) const override {
    if (type != ValueType::kValue) return Decision::kKeep;
    return dropper_->Drop({key.data(), key.size()}, {value.data(), value.size()})
               ? Decision::kRemove
               : Decision::kKeep;
  }
  const char* Name() const override { return "kvlab.DropperFilter"; }

 private:
  // FilterV2 is const; the dropper's state (its last key-meta) is the compaction's own.
  const std::unique_ptr<RecordDropper> dropper_;
};

class DropperFilterFactory final : public rocksdb::CompactionFilterFactory {
 public:
  explicit DropperFilterFactory(std::shared_ptr<const CompactionFilterPolicy> policy)
      : policy_(std::move(policy)) {}
  std::unique_ptr<rocksdb::CompactionFilter> CreateCompactionFilter(
      const rocksdb::CompactionFilter::Context& /*context*/) override {
    return std::make_unique<DropperFilter>(policy_->NewDropper());
  }
  const char* Name() const override { return "kvlab.DropperFilterFactory"; }

 private:
  const std::shared_ptr<const CompactionFilterPolicy> policy_;
};

// The key range a scan walked: from where it was positioned to where it stood at its end, in
// key order (an absent bound: that end of the key space). `end` is inclusive.
struct WalkedRange {
  std::optional<std::string_view> begin;
  std::optional<std::string_view> end;
};

// Told by iterators how many deleted records they stepped over (the scan-triggered flush and
// range compaction).
class ScanObserver {
 public:
  virtual ~ScanObserver() = default;
  // `deletes`: deleted records the scan stepped over; `memtable_skips`: entries of the memtables
  // it stepped over (deleted or shadowed) beyond the steps it was asked for; `walked`: the range
  // it walked, valid during the call only.
  virtual void ScanSkipped(rocksdb::ColumnFamilyHandle* cf, uint64_t deletes,
                           uint64_t memtable_skips, const WalkedRange& walked) = 0;
};

class RocksDbIterator final : public Iterator {
 public:
  // Copies the bounds and keeps them: the ReadOptions handed to RocksDB point into
  // lower_/upper_ and their Slices, which are declared before it_ and so outlive it.
  // `snapshot`: the view shared by the iterators of one merged iteration over several column
  // families (null: the implicit snapshot RocksDB takes at creation).
  // `observer` (may be null) hears of the deletes skipped when the iterator is destroyed.
  RocksDbIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const IteratorOptions& options,
                  std::shared_ptr<const rocksdb::Snapshot> snapshot, ScanObserver* observer)
      : observer_(observer),
        cf_(cf),
        lower_bound_(options.lower_bound.has_value()),
        upper_bound_(options.upper_bound.has_value()),
        snapshot_(std::move(snapshot)),
        lower_(options.lower_bound.value_or("")),
        upper_(options.upper_bound.value_or("")),
        lower_slice_(lower_),
        upper_slice_(upper_) {
    EnsurePerfCounting();
    rocksdb::ReadOptions ro;
    if (options.lower_bound) ro.iterate_lower_bound = &lower_slice_;
    if (options.upper_bound) ro.iterate_upper_bound = &upper_slice_;
    ro.snapshot = snapshot_.get();
    it_.reset(db->NewIterator(ro, cf));
    const rocksdb::PerfContext* pc = rocksdb::get_perf_context();
    deletes_at_start_ = pc->internal_delete_skipped_count;
    memtable_steps_at_start_ = pc->next_on_memtable_count + pc->prev_on_memtable_count;
  }
  ~RocksDbIterator() override {
    if (observer_ == nullptr || !positioned_) return;
    // The perf context is the thread's: an iterator destroyed on another thread reports nothing
    // sensible, and a smaller count than at creation says so.
    const rocksdb::PerfContext* pc = rocksdb::get_perf_context();
    const uint64_t deletes = pc->internal_delete_skipped_count;
    const uint64_t memtable_steps = pc->next_on_memtable_count + pc->prev_on_memtable_count;
    if (deletes <= deletes_at_start_) return;
    const uint64_t asked = steps_;
    const uint64_t memtable =
        memtable_steps > memtable_steps_at_start_ ? memtable_steps - memtable_steps_at_start_ : 0;
    // From where it was positioned to where it stands (or the bound it ran off to).
    WalkedRange walked;
    std::optional<std::string_view> here;
    if (it_->Valid()) {
      here = std::string_view(it_->key().data(), it_->key().size());
    } else if (forward_ ? upper_bound_ : lower_bound_) {
      here = forward_ ? std::string_view(upper_) : std::string_view(lower_);
    }
    std::optional<std::string_view> from;
    if (from_) from = std::string_view(*from_);
    walked.begin = forward_ ? from : here;
    walked.end = forward_ ? here : from;
    observer_->ScanSkipped(cf_, deletes - deletes_at_start_,
                           memtable > asked ? memtable - asked : 0, walked);
  }

  bool Valid() const override { return it_->Valid(); }
  void Seek(std::string_view target) override {
    Start(true, target);
    it_->Seek(ToSlice(target));
  }
  void SeekForPrev(std::string_view target) override {
    Start(false, target);
    it_->SeekForPrev(ToSlice(target));
  }
  void SeekToFirst() override {
    Start(true, std::nullopt);
    it_->SeekToFirst();
  }
  void SeekToLast() override {
    Start(false, std::nullopt);
    it_->SeekToLast();
  }
  void Next() override {
    if (!Step("Next")) return;
    ++steps_;
    forward_ = true;
    it_->Next();
  }
  void Prev() override {
    if (!Step("Prev")) return;
    ++steps_;
    forward_ = false;
    it_->Prev();
  }
  std::string_view key() const override {
    if (!it_->Valid()) return {};
    rocksdb::Slice k = it_->key();
    return {k.data(), k.size()};
  }
  std::string_view value() const override {
    if (!it_->Valid()) return {};
    rocksdb::Slice v = it_->value();
    return {v.data(), v.size()};
  }
  Status status() const override {
    if (!misuse_.ok()) return misuse_;
    return ToKvlab(it_->status(), "iterator");
  }

 private:
  // Every positioning starts afresh: a misuse error from an earlier step is cleared. For the
  // observer, the walk starts at `target` (none: at the bound in that direction, or the end of
  // the key space). A later positioning restarts the walk: the range reported is the last one's
  // (an encoding's scans position once).
  void Start(bool forward, std::optional<std::string_view> target) {
    EnsurePerfCounting();
    misuse_ = Status::OK();
    if (observer_ == nullptr) return;
    positioned_ = true;
    forward_ = forward;
    if (target) {
      from_.emplace(*target);
    } else if (forward ? lower_bound_ : upper_bound_) {
      from_.emplace(forward ? lower_ : upper_);
    } else {
      from_.reset();
    }
  }
  // Next and Prev require a valid position; RocksDB would assert, kvlab reports it instead.
  bool Step(const char* op) {
    EnsurePerfCounting();
    if (it_->Valid()) return true;
    misuse_ = Status::InvalidArgument(std::string(kBackend) + ": iterator " + op +
                                      " called while not positioned on an entry");
    return false;
  }

  ScanObserver* const observer_;
  rocksdb::ColumnFamilyHandle* const cf_;
  const bool lower_bound_;
  const bool upper_bound_;
  // The walk, kept for the observer only: positioned at all, its direction, where it started.
  bool positioned_ = false;
  bool forward_ = true;
  std::optional<std::string> from_;
  uint64_t deletes_at_start_ = 0;
  uint64_t memtable_steps_at_start_ = 0;
  uint64_t steps_ = 0;  // Next and Prev calls
  const std::shared_ptr<const rocksdb::Snapshot> snapshot_;
  const std::string lower_;
  const std::string upper_;
  const rocksdb::Slice lower_slice_;
  const rocksdb::Slice upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
  Status misuse_;
};

class RocksDbStore final : public KvStore, private ScanObserver {
 public:
  // handles: one per space of `spaces`, in space order (handles[0] is the default column
  // family); the store destroys them. scan_flush_trigger, scan_compact_trigger: StoreOptions'
  // rocksdb_scan_flush_trigger and rocksdb_scan_compact_trigger.
  RocksDbStore(rocksdb::DB* db, KeySpaceMap spaces,
               std::vector<rocksdb::ColumnFamilyHandle*> handles, bool sync_writes,
               bool single_delete, uint64_t scan_flush_trigger, uint64_t scan_compact_trigger)
      : db_(db),
        spaces_(std::move(spaces)),
        handles_(std::move(handles)),
        single_delete_(single_delete),
        scan_flush_trigger_(scan_flush_trigger),
        scan_compact_trigger_(scan_compact_trigger) {
    write_options_.sync = sync_writes;
    if (scan_compact_trigger != 0) compactor_ = std::make_unique<RocksDbRangeCompactor>(db_);
  }

  ~RocksDbStore() override {
    // Its thread calls into the DB and uses the column family handles.
    compactor_.reset();
    // Stop compactions and flushes, waiting for running ones, so Close() does not race them.
    rocksdb::CancelAllBackgroundWork(db_, /*wait=*/true);
    for (rocksdb::ColumnFamilyHandle* h : handles_) {
      rocksdb::Status s = db_->DestroyColumnFamilyHandle(h);
      if (!s.ok()) std::fprintf(stderr, "kvlab: rocksdb: close: %s\n", s.ToString().c_str());
    }
    rocksdb::Status s = db_->Close();
    if (!s.ok()) std::fprintf(stderr, "kvlab: rocksdb: close: %s\n", s.ToString().c_str());
    delete db_;
  }

  std::string name() const override { return kBackend; }

  Capabilities capabilities() const override {
    Capabilities c;
    c.reverse_scan = true;
    c.native_delete_range = true;
    c.persistent = true;
    c.crash_safe = true;
    if (spaces_.partitioned()) c.key_space_kind = KeySpaceKind::kColumnFamilies;
    c.key_space_count = spaces_.size();
    return c;
  }

  Status Get(std::string_view key, std::string* value) override {
    EnsurePerfCounting();
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), Cf(key), ToSlice(key), value);
    if (s.IsNotFound()) return Status::NotFound();
    return ToKvlab(s, "get");
  }

  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override {
    EnsurePerfCounting();
    values->assign(keys.size(), std::nullopt);
    if (keys.empty()) return Status::OK();
    std::vector<rocksdb::Slice> slices;
    std::vector<rocksdb::ColumnFamilyHandle*> cfs;
    slices.reserve(keys.size());
    cfs.reserve(keys.size());
    for (std::string_view k : keys) {
      slices.push_back(ToSlice(k));
      cfs.push_back(Cf(k));
    }
    std::vector<rocksdb::PinnableSlice> found(keys.size());
    std::vector<rocksdb::Status> statuses(keys.size());
    db_->MultiGet(rocksdb::ReadOptions(), keys.size(), cfs.data(), slices.data(), found.data(),
                  statuses.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i].IsNotFound()) continue;
      KVLAB_RETURN_IF_ERROR(ToKvlab(statuses[i], "multiget"));
      (*values)[i].emplace(found[i].data(), found[i].size());
    }
    return Status::OK();
  }

  Status Put(std::string_view key, std::string_view value) override {
    EnsurePerfCounting();
    KVLAB_RETURN_IF_ERROR(ValidateKey(kBackend, key, capabilities().max_key_bytes));
    return ToKvlab(db_->Put(write_options_, Cf(key), ToSlice(key), ToSlice(value)), "put");
  }

  Status Delete(std::string_view key) override {
    EnsurePerfCounting();
    KVLAB_RETURN_IF_ERROR(ValidateKey(kBackend, key, capabilities().max_key_bytes));
    return ToKvlab(db_->Delete(write_options_, Cf(key), ToSlice(key)), "delete");
  }

  Status DeleteRange(std::string_view begin, std::string_view end) override {
    EnsurePerfCounting();
    if (!(begin < end)) return Status::OK();  // empty range; RocksDB rejects begin > end
    if (!spaces_.partitioned()) {
      return ToKvlab(db_->DeleteRange(write_options_, handles_[0], ToSlice(begin), ToSlice(end)),
                     "delete range");
    }
    rocksdb::WriteBatch wb;
    KVLAB_RETURN_IF_ERROR(AddDeleteRange(&wb, begin, end));
    return ToKvlab(db_->Write(write_options_, &wb), "delete range");
  }

  Status Write(const WriteBatch& batch) override {
    EnsurePerfCounting();
    KVLAB_RETURN_IF_ERROR(ValidateBatch(kBackend, batch, capabilities().max_key_bytes));
    if (batch.empty()) return Status::OK();
    // Reserve the encoded size up front: each record is a tag byte and one or two
    // varint-prefixed strings (at most 5 bytes of prefix each) after the 12-byte header.
    rocksdb::WriteBatch wb(12 + batch.bytes() + 11 * batch.size());
    for (const auto& r : batch.records()) {
      rocksdb::Status s;
      if (r.op == WriteBatch::Op::kPut) {
        s = wb.Put(Cf(r.key), r.key, r.value);
      } else if (r.op == WriteBatch::Op::kDeleteRange) {
        // A range tombstone; RocksDB rejects an inverted range, which deletes nothing here.
        if (!(r.key < r.value)) continue;
        KVLAB_RETURN_IF_ERROR(AddDeleteRange(&wb, r.key, r.value));
        continue;
      } else if (r.op == WriteBatch::Op::kSingleDelete && single_delete_) {
        s = wb.SingleDelete(Cf(r.key), r.key);
      } else {
        s = wb.Delete(Cf(r.key), r.key);
      }
      KVLAB_RETURN_IF_ERROR(ToKvlab(s, "write batch"));
    }
    return ToKvlab(db_->Write(write_options_, &wb), "write batch");
  }

  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override {
    // Iterators over several column families share one explicit snapshot, so that together
    // they see one consistent view; a scan of one column family keeps the implicit one.
    std::shared_ptr<const rocksdb::Snapshot> snapshot;
    if (!spaces_.SoleSpace(options.lower_bound, options.upper_bound)) {
      rocksdb::DB* db = db_;
      snapshot.reset(db_->GetSnapshot(),
                     [db](const rocksdb::Snapshot* s) { db->ReleaseSnapshot(s); });
    }
    return NewSpacedIterator(spaces_, options, [&](size_t space, const IteratorOptions& o) {
      ScanObserver* observer = scan_flush_trigger_ != 0 || compactor_ != nullptr
                                   ? static_cast<ScanObserver*>(this)
                                   : nullptr;
      return std::make_unique<RocksDbIterator>(db_, handles_[space], o, snapshot, observer);
    });
  }

  Status Flush() override {
    EnsurePerfCounting();
    rocksdb::FlushOptions fo;
    fo.wait = true;
    // Every column family: DB::Flush(options) alone flushes only the default one.
    KVLAB_RETURN_IF_ERROR(ToKvlab(db_->Flush(fo, handles_), "flush"));
    // Writes that raced the flush are in the new WAL; make them durable too.
    return ToKvlab(db_->SyncWAL(), "sync wal");
  }

  PhysicalCounters ReadPhysicalCounters() override {
    EnsurePerfCounting();
    const rocksdb::PerfContext* pc = rocksdb::get_perf_context();
    return {
        {"rocksdb.block_read_count", pc->block_read_count},
        {"rocksdb.block_cache_hit_count", pc->block_cache_hit_count},
        {"rocksdb.get_from_memtable_count", pc->get_from_memtable_count},
        // Internal entries iterators stepped over (older versions, deleted keys), and the point
        // tombstones among them: the cost of scanning across deletions.
        {"rocksdb.internal_key_skipped_count", pc->internal_key_skipped_count},
        {"rocksdb.internal_delete_skipped_count", pc->internal_delete_skipped_count},
        // Store-wide: memtable flushes the scans asked for (the scan-triggered flush).
        {"kvlab.rocksdb_scan_flushes", scan_flushes_.load(std::memory_order_relaxed)},
        // Store-wide: range compactions the scans asked for, and those that completed.
        {"kvlab.rocksdb_scan_compactions_requested",
         compactor_ != nullptr ? compactor_->requested() : 0},
        {"kvlab.rocksdb_scan_compactions", compactor_ != nullptr ? compactor_->completed() : 0},
    };
  }

 private:
  void ScanSkipped(rocksdb::ColumnFamilyHandle* cf, uint64_t deletes, uint64_t memtable_skips,
                   const WalkedRange& walked) override {
    if (compactor_ != nullptr && deletes >= scan_compact_trigger_) {
      // The compaction flushes an overlapping memtable itself: no separate flush.
      auto copy = [](std::optional<std::string_view> v) {
        return v ? std::optional<std::string>(*v) : std::nullopt;
      };
      compactor_->Request(cf, copy(walked.begin), copy(walked.end));
      return;
    }
    if (scan_flush_trigger_ == 0) return;
    // Deletes in SST files are not the memtable's: a flush would not drop them.
    if (deletes < scan_flush_trigger_ || memtable_skips < scan_flush_trigger_) return;
    if (flush_requested_.exchange(true, std::memory_order_acquire)) return;  // one at a time
    uint64_t immutable = 0;
    if (!db_->GetIntProperty(cf, "rocksdb.num-immutable-mem-table", &immutable) || immutable > 0) {
      // A memtable flushed before is still being written out: its flush is on its way.
      flush_requested_.store(false, std::memory_order_release);
      return;
    }
    rocksdb::FlushOptions fo;
    fo.wait = false;              // the scan's command does not wait for the flush
    fo.allow_write_stall = true;  // nor for a stall to clear before it is scheduled
    // Best effort: a flush that cannot be scheduled now leaves the memtable to its usual flush.
    if (db_->Flush(fo, cf).ok()) scan_flushes_.fetch_add(1, std::memory_order_relaxed);
    flush_requested_.store(false, std::memory_order_release);
  }

  rocksdb::ColumnFamilyHandle* Cf(std::string_view key) const {
    return handles_[spaces_.SpaceOf(key)];
  }
  // One range tombstone per column family the range reaches. REQUIRES: begin < end.
  Status AddDeleteRange(rocksdb::WriteBatch* wb, std::string_view begin, std::string_view end) {
    for (size_t space = 0; space < spaces_.size(); ++space) {
      std::optional<std::string> b, e;
      if (!spaces_.Clip(space, begin, end, &b, &e)) continue;
      KVLAB_RETURN_IF_ERROR(ToKvlab(wb->DeleteRange(handles_[space], *b, *e), "write batch"));
    }
    return Status::OK();
  }

  rocksdb::DB* const db_;
  const KeySpaceMap spaces_;
  const std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::WriteOptions write_options_;
  // WriteBatch::SingleDelete becomes RocksDB's SingleDelete (else a Delete).
  const bool single_delete_;
  const uint64_t scan_flush_trigger_;  // 0: off
  const uint64_t scan_compact_trigger_;
  // The scan-triggered range compaction (null: off); the destructor stops it first.
  std::unique_ptr<RocksDbRangeCompactor> compactor_;
  std::atomic<bool> flush_requested_{false};
  std::atomic<uint64_t> scan_flushes_{0};
};

}  // namespace

std::vector<std::string> RocksDbFilesIn(const std::string& dir) {
  // RocksDB writes both when it creates a DB: CURRENT holds the name of the live MANIFEST
  // ("MANIFEST-000005\n"), IDENTITY the DB's unique id.
  const std::filesystem::path d(dir);
  std::vector<std::string> found;
  if (FileHasBytesAt(d / "CURRENT", 0, "MANIFEST-")) found.push_back("CURRENT");
  if (IsRegularFile(d / "IDENTITY")) found.push_back("IDENTITY");
  return found;
}

Status OpenRocksDbStore(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  return OpenRocksDbStore(options, nullptr, store, nullptr);
}

namespace {

// The opens of rocksdb_store.h; `read_only`: OpenRocksDbStoreReadOnly.
Status OpenRocksDb(const StoreOptions& options,
                   std::shared_ptr<const CompactionFilterPolicy> filter, bool read_only,
                   std::unique_ptr<KvStore>* store, std::function<Status()>* compact_all) {
  EnsurePerfCounting();
  if (options.dir.empty()) return Status::InvalidArgument("rocksdb: no directory given");
  KeySpaceMap spaces;
  KVLAB_RETURN_IF_ERROR(KeySpaceMap::Make(options.key_spaces, &spaces));
  rocksdb::Options db_options = MakeOptions(options);
  if (filter != nullptr) {
    db_options.compaction_filter_factory = std::make_shared<DropperFilterFactory>(filter);
  }
  std::vector<rocksdb::ColumnFamilyDescriptor> wanted;
  for (size_t space = 0; space < spaces.size(); ++space) {
    wanted.emplace_back(space == 0 ? rocksdb::kDefaultColumnFamilyName : spaces.Name(space),
                        rocksdb::ColumnFamilyOptions(db_options));
  }
  // An existing store must have exactly these column families: opening one without its key
  // spaces would show part of its records, and adding column families to it would split
  // records of one kind across two.
  std::vector<std::string> existing;
  if (rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(db_options), options.dir, &existing)
          .ok()) {
    std::vector<std::string> names;
    for (const auto& d : wanted) names.push_back(d.name);
    std::sort(existing.begin(), existing.end());
    std::sort(names.begin(), names.end());
    if (existing != names) {
      return Status::InvalidArgument("rocksdb: " + options.dir + " has the column families " +
                                     JoinNames(existing) + ", not the requested " +
                                     JoinNames(names));
    }
  }
  rocksdb::DBOptions open_options(db_options);
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s;
  if (read_only) {
    // No MANIFEST, info LOG or SST is written: the WAL is replayed into memory only.
    open_options.create_if_missing = false;
    s = rocksdb::DB::OpenForReadOnly(open_options, options.dir, wanted, &handles, &db);
  } else {
    open_options.create_missing_column_families = true;
    s = rocksdb::DB::Open(open_options, options.dir, wanted, &handles, &db);
  }
  if (!s.ok()) return ToKvlab(s, "cannot open " + options.dir);
  if (compact_all != nullptr) {
    *compact_all = [db, handles]() {
      EnsurePerfCounting();
      rocksdb::FlushOptions fo;
      fo.wait = true;
      KVLAB_RETURN_IF_ERROR(ToKvlab(db->Flush(fo, handles), "flush"));
      rocksdb::CompactRangeOptions co;
      co.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
      for (rocksdb::ColumnFamilyHandle* h : handles) {
        KVLAB_RETURN_IF_ERROR(ToKvlab(db->CompactRange(co, h, nullptr, nullptr), "compact"));
      }
      return Status::OK();
    };
  }
  // A compaction filter turns the Puts it drops into Deletes; a SingleDelete above one would
  // then meet a Delete, which RocksDB treats as a broken contract and fails the compaction. With
  // a filter, SingleDelete is a plain Delete.
  const bool single_delete = options.rocksdb_single_delete && filter == nullptr;
  *store = std::make_unique<RocksDbStore>(
      db, std::move(spaces), std::move(handles), options.sync_writes, single_delete,
      options.rocksdb_scan_flush_trigger, read_only ? 0 : options.rocksdb_scan_compact_trigger);
  return Status::OK();
}

}  // namespace

Status OpenRocksDbStore(const StoreOptions& options,
                        std::shared_ptr<const CompactionFilterPolicy> filter,
                        std::unique_ptr<KvStore>* store, std::function<Status()>* compact_all) {
  return OpenRocksDb(options, std::move(filter), /*read_only=*/false, store, compact_all);
}

Status OpenRocksDbStoreReadOnly(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  return OpenRocksDb(options, nullptr, /*read_only=*/true, store, nullptr);
}

}  // namespace kvlab::backends
