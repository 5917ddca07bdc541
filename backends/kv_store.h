// KvStore: the ordered key-value interface every kvlab backend implements.
//
// Keys and values are arbitrary byte strings. Keys are ordered by unsigned bytewise comparison
// (memcmp order, shorter prefix first), on every backend. Everything above this layer (the
// encodings and the engine) sees only this header, its capability flags and its counters: no
// backend type appears here.
//
// Contract shared by all backends:
// - Keys are non-empty and at most Capabilities::max_key_bytes long. Values may be empty.
// - Write(batch) is atomic: after a crash, either every record of the batch is visible or none.
// - A KvStore is safe to use from many threads at once. An Iterator is used by one thread.
// - An Iterator sees a consistent view of the store; whether it observes writes made after it
//   was created is unspecified. kvlab's engine serializes writers per Redis key, so encodings
//   never depend on it.
// - Bounds are half-open: an Iterator yields keys k with lower_bound <= k < upper_bound.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace kvlab::backends {

// Where a store keeps the records of its StoreOptions::key_spaces (see there).
enum class KeySpaceKind : uint8_t {
  kPrefix,          // one keyspace: the key prefix alone separates the kinds (memory backend)
  kColumnFamilies,  // one RocksDB column family per space
  kNamedDatabases,  // one LMDB named database per space, in one environment
  kTables,          // one WiredTiger table per space
};
// "prefix", "column families", "named databases", "tables".
const char* KeySpaceKindName(KeySpaceKind kind);

// What a backend can do. Encodings consult these flags to choose a plan; the choice shows up in
// the operation counters, never in replies.
struct Capabilities {
  // Iterator::Prev, SeekForPrev and SeekToLast work. TiKV and OBKV, as Camellia uses them, lack
  // this; the NoReverseScan decorator emulates that.
  bool reverse_scan = true;
  // DeleteRange is one backend call that does not visit the keys in the range (RocksDB's range
  // tombstone, WiredTiger's truncate). When false, DeleteRange is emulated by iterate-and-delete
  // inside one atomic batch.
  bool native_delete_range = false;
  // Data survives Close() and a reopen of the same directory.
  bool persistent = true;
  // Data survives a SIGKILL of the process, up to the last completed Write() (with sync_writes,
  // also a machine crash).
  bool crash_safe = true;
  // The longest key the backend accepts. (LMDB's own limit is 511 bytes; its backend lifts it
  // with a LongKeyStore, long_key_store.h.)
  size_t max_key_bytes = 64 * 1024 * 1024;
  // How the store keeps StoreOptions::key_spaces apart, and how many spaces it has (the key
  // spaces plus the default one; 1 without key spaces, whatever the kind).
  KeySpaceKind key_space_kind = KeySpaceKind::kPrefix;
  size_t key_space_count = 1;
};

struct StoreOptions {
  // The directory that holds the store. Created when missing.
  std::string dir;
  // fsync (or the engine's equivalent) before a write returns.
  bool sync_writes = false;
  // Size of the backend's own read cache (block cache, WiredTiger cache). LMDB relies on the
  // operating system's page cache and ignores it.
  uint64_t cache_bytes = 64ull << 20;
  // Key prefixes whose records the backend keeps apart: each prefix's records in their own
  // column family (RocksDB), named database (LMDB) or table (WiredTiger), the rest in a default
  // one (key_spaces.h). Kvrocks keeps each record kind in its own column family (004_*); the
  // engine passes its record kinds' prefixes ("m#", "s#", ...) when asked to (--column-families).
  // The store still behaves as one ordered keyspace: a key's records, order, bounds, atomic
  // batches and iterators are the same; only where records physically live changes, and with
  // it what a lookup, a scan or a compaction touches. The memory backend keeps one keyspace.
  // REQUIRES: every prefix non-empty, none a prefix of another. A persistent store is opened
  // with the key spaces it was created with (the registry records them, registry.h).
  std::vector<std::string> key_spaces;
  // RocksDB only (the other backends have no tombstones that outlive a write): apply
  // WriteBatch::SingleDelete as RocksDB's SingleDelete (else as a plain Delete), and let a
  // table-properties collector mark SST files dense in tombstones for compaction
  // (rocksdb_store.cc). SingleDelete is on by default and the backend column modifier
  // ":plaindelete" turns it off; the compaction is off by default (it bought nothing measurable
  // in docs/studies/zset-churn) and ":dtc" turns it on (registry.h), so a study can measure
  // what each is worth.
  bool rocksdb_single_delete = true;
  bool rocksdb_compact_on_deletion = false;
  // RocksDB only: a scan that steps over at least this many deleted records, while the active
  // memtable holds at least as many deletes, flushes that memtable (in the background), so that
  // the scans after it stop stepping over its tombstones (a SingleDelete and its Put vanish
  // together in the flush). RocksDB 9 has this as memtable_op_scan_flush_trigger; kvlab's
  // RocksDB 7.8 does not. 0: never. The backend column modifier ":scanflush=N" sets N.
  uint64_t rocksdb_scan_flush_trigger = 0;
  // RocksDB only: a scan that steps over at least this many deleted records (in the memtable or
  // in SST files) has the key range it walked compacted in the background (DB::CompactRange:
  // the overlapping memtable flushed, the overlapping files compacted to the last level, where
  // the tombstones go), so that the scans after it step over none (rocksdb_range_compactor.h,
  // docs/studies/zset-churn). 0: never. The backend column modifier ":scancompact=N" sets N.
  uint64_t rocksdb_scan_compact_trigger = 0;
};

// One atomic group of puts, deletes and range deletes. Records apply in insertion order, so a
// later Put of the same key wins over an earlier Delete or DeleteRange, and vice versa.
class WriteBatch {
 public:
  enum class Op : unsigned char { kPut, kDelete, kDeleteRange, kSingleDelete };
  struct Record {
    Op op;
    std::string key;    // kDeleteRange: the range's begin
    std::string value;  // kPut: the value; kDeleteRange: the range's end; kDelete: empty
  };

  void Put(std::string_view key, std::string_view value) {
    bytes_ += key.size() + value.size();
    records_.push_back({Op::kPut, std::string(key), std::string(value)});
  }
  void Delete(std::string_view key) {
    bytes_ += key.size();
    records_.push_back({Op::kDelete, std::string(key), std::string()});
  }
  // Deletes a key that was written once: to a reader exactly a Delete. RocksDB applies it as
  // SingleDelete, whose tombstone vanishes together with the Put it meets in a compaction
  // instead of sinking to the last level, so scans over churned records (a zset's score index)
  // do not step over piles of tombstones; the other backends apply a plain Delete. Counted as a
  // delete everywhere (counting_store.h).
  // REQUIRES: the key exists, and was Put exactly once since it was last deleted (or ever):
  // RocksDB leaves an earlier Put of an overwritten key visible again once its SingleDelete
  // meets the later Put in a compaction, and fails the compaction when a SingleDelete meets a
  // Delete.
  void SingleDelete(std::string_view key) {
    bytes_ += key.size();
    records_.push_back({Op::kSingleDelete, std::string(key), std::string()});
  }
  // Deletes every key k with begin <= k < end, as KvStore::DeleteRange does, inside the batch:
  // natively where the backend has a range delete, else by visiting the keys in the same atomic
  // write. An empty or inverted range deletes nothing.
  void DeleteRange(std::string_view begin, std::string_view end) {
    bytes_ += begin.size() + end.size();
    records_.push_back({Op::kDeleteRange, std::string(begin), std::string(end)});
  }
  // Appends other's records, in order.
  void Append(const WriteBatch& other) {
    records_.insert(records_.end(), other.records_.begin(), other.records_.end());
    bytes_ += other.bytes_;
  }
  void Clear() {
    records_.clear();
    bytes_ = 0;
  }
  bool empty() const { return records_.empty(); }
  size_t size() const { return records_.size(); }
  // Sum of key and value bytes of all records.
  uint64_t bytes() const { return bytes_; }
  const std::vector<Record>& records() const { return records_; }

 private:
  std::vector<Record> records_;
  uint64_t bytes_ = 0;
};

struct IteratorOptions {
  std::optional<std::string> lower_bound;  // inclusive
  std::optional<std::string> upper_bound;  // exclusive
};

// A cursor over the store in key order.
class Iterator {
 public:
  virtual ~Iterator() = default;

  // True when positioned on an entry. False at either end, or after an error (see status()).
  virtual bool Valid() const = 0;
  // Positions at the first key >= target (and within bounds).
  virtual void Seek(std::string_view target) = 0;
  // Positions at the last key <= target (and within bounds).
  // REQUIRES: Capabilities::reverse_scan, else status() becomes NotSupported.
  virtual void SeekForPrev(std::string_view target) = 0;
  virtual void SeekToFirst() = 0;
  // REQUIRES: Capabilities::reverse_scan, else status() becomes NotSupported.
  virtual void SeekToLast() = 0;
  // REQUIRES: Valid().
  virtual void Next() = 0;
  // REQUIRES: Valid() and Capabilities::reverse_scan, else status() becomes NotSupported.
  virtual void Prev() = 0;
  // REQUIRES: Valid(). The views stay valid until the iterator moves or is destroyed.
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  // OK unless a backend error or an unsupported operation ended the iteration.
  virtual Status status() const = 0;
};

// Counters the storage engine underneath keeps about its own work. Names are
// "<backend>.<counter>", e.g. "rocksdb.block_cache_hit". Gauges (LMDB tree depth) are reported
// as their current value, counters as cumulative totals.
using PhysicalCounters = std::vector<std::pair<std::string, uint64_t>>;

// A server process a store runs for itself (the etcd backend's private members), as its
// supervisor sees it: what INFO shows, in the style of the Redis tier's private servers.
struct PrivateServer {
  std::string name;       // the prefix of its INFO fields: "etcd_member0"
  std::string state;      // "not_started", "running", "restarting" or "stopped" (ChildProcess)
  uint64_t restarts = 0;  // restarts after exits nobody asked for
};

class KvStore {
 public:
  virtual ~KvStore() = default;

  // "memory", "rocksdb", "lmdb" or "wiredtiger"; decorators append their own suffix.
  virtual std::string name() const = 0;
  virtual Capabilities capabilities() const = 0;

  // Stores the value in *value and returns OK, or returns NotFound.
  virtual Status Get(std::string_view key, std::string* value) = 0;
  // One lookup of many keys. values->at(i) is empty when keys[i] is absent.
  virtual Status MultiGet(const std::vector<std::string_view>& keys,
                          std::vector<std::optional<std::string>>* values) = 0;
  virtual Status Put(std::string_view key, std::string_view value) = 0;
  // Deleting an absent key is not an error.
  virtual Status Delete(std::string_view key) = 0;
  // Deletes every key k with begin <= k < end, atomically.
  virtual Status DeleteRange(std::string_view begin, std::string_view end) = 0;
  // Applies the batch atomically.
  virtual Status Write(const WriteBatch& batch) = 0;
  virtual std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options = {}) = 0;

  // Makes everything written so far durable in the directory (memtable flush, checkpoint).
  virtual Status Flush() = 0;

  // Cumulative physical counters. For RocksDB they come from the calling thread's PerfContext,
  // so the difference of two readings on one thread is exact for the work in between; for the
  // other backends they are store-wide.
  virtual PhysicalCounters ReadPhysicalCounters() { return {}; }

  // The servers the store runs for itself, in a fixed order: none for the embedded backends
  // and for a store in a cluster kvlab does not run.
  virtual std::vector<PrivateServer> PrivateServers() const { return {}; }
};

// The key check every backend applies before writing: non-empty, at most max_key_bytes.
// Returns InvalidArgument naming the backend otherwise.
inline Status ValidateKey(std::string_view backend, std::string_view key, size_t max_key_bytes) {
  if (key.empty()) return Status::InvalidArgument(std::string(backend) + ": empty key");
  if (key.size() > max_key_bytes) {
    return Status::InvalidArgument(std::string(backend) + ": key of " + std::to_string(key.size()) +
                                   " bytes exceeds the limit of " + std::to_string(max_key_bytes));
  }
  return Status::OK();
}

// ValidateKey over every record of a batch, so that an invalid batch applies nothing. A range's
// bounds are not keys: they may be empty or of any length.
inline Status ValidateBatch(std::string_view backend, const WriteBatch& batch,
                            size_t max_key_bytes) {
  for (const auto& r : batch.records()) {
    if (r.op == WriteBatch::Op::kDeleteRange) continue;
    KVLAB_RETURN_IF_ERROR(ValidateKey(backend, r.key, max_key_bytes));
  }
  return Status::OK();
}

}  // namespace kvlab::backends
