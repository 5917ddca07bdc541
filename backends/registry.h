// Opening a backend by name, with its directory checks, lock and decorators.
//
// OpenStore is the one way the rest of kvlab gets a KvStore. It:
// - creates a fresh temporary directory when spec.options.dir is empty (removed on close);
// - refuses a directory that is not a kvlab store of the requested backend, without changing a
//   file in it: a kvlab store holds a marker file, KVLAB_STORE, that names its backend;
// - refuses a store whose marker names a backend other than the one whose files it holds (each
//   backend recognises its own: RocksDbFilesIn, LmdbFilesIn, WiredTigerFilesIn,
//   MemoryStore::FilesIn, EtcdFilesIn), naming what it found, so that an edited or copied marker
//   never has one engine open over another's files, serve an empty store and write beside them;
// - keeps the store's format record in that file: the layout and options of what is written in
//   it (for the engine: the key layout version, the namespace prefix, the md5 prefix), given by
//   the opener as opaque name/value pairs. Opening with another record is refused with an error
//   that names both, since the store would show an empty keyspace and then mix two layouts. A
//   store from before the record existed (marker version 1) takes the record of its first
//   opener, and OpenedStore::format_adopted() says so;
// - adds StoreOptions::key_spaces to that record ("key_spaces m#,s#"), for every opener: a
//   store opened with other key spaces than it was written with is refused, since part of its
//   records would be out of view;
// - takes an exclusive lock (flock on the marker) so that a second process cannot open the same
//   store; LMDB alone would allow it, and RocksDB and WiredTiger would each word it differently;
// - puts a ChecksumStore under a new LMDB store's long-key layer (checksum_store.h), and keeps
//   "checksums crc32" in its format record, so that an LMDB store from before checksums opens
//   as it was written (StoreSpec::checksums);
// - scrubs an existing LMDB store's data.mdb before LMDB maps it, and refuses a damaged one
//   (StoreSpec::scrub_on_open, lmdb_scrub.h);
// - with StoreOptions::read_only (kvlab verify), changes nothing: it refuses a directory without
//   a store, writes no marker or format record, puts no disk guard, opens the backend read-only
//   and puts a layer on top that refuses every write (NotSupported, naming the read-only open);
// - stacks the decorators the spec asks for: DiskGuard (on a persistent embedded backend, when
//   the spec has a reserve), NoReverseScan, then RemoteLatency.
//
// Marker file layout (text): "kvlab-store 2\nbackend <name>\n" then one "format <name> <value>\n"
// line per record entry (values are hex when they hold bytes outside printable ASCII). Version 1
// ("kvlab-store 1\nbackend <name>\n", no record) is still read.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/checksum_store.h"
#include "backends/compaction_filter.h"
#include "backends/disk_guard_store.h"
#include "backends/etcd_store.h"
#include "backends/kv_store.h"
#include "backends/lmdb_scrub.h"
#include "backends/remote_store.h"

namespace kvlab::backends {

struct StoreSpec {
  std::string backend = "memory";  // one of BackendNames()
  StoreOptions options;            // options.dir empty: a fresh temporary directory
  bool no_reverse_scan = false;
  bool remote_latency = false;  // add a RemoteLatencyStore with `remote`
  RemoteLatencyOptions remote;
  // The format record of what the opener writes (name -> value, in order), checked against the
  // store's. Empty: the opener does not care (raw KV tools), and nothing is checked or written.
  std::vector<std::pair<std::string, std::string>> format;
  // What the backend's own compactions may drop (compaction_filter.h). Only RocksDB compacts;
  // OpenStore refuses a policy for another backend, naming the collector instead.
  std::shared_ptr<const CompactionFilterPolicy> compaction_filter;
  // The etcd backend's cluster and limits (etcd_store.h); ignored by the others.
  EtcdOptions etcd;
  // The free space writes leave on the store's filesystem (disk_guard_store.h): writes are
  // refused below it. Applies to the persistent embedded backends (rocksdb, lmdb, wiredtiger);
  // the memory backend writes no files and etcd's members keep their own quota. Off by default
  // here; kvlab's subcommands default to 256 MiB (--disk-reserve, flags/common_flags.h).
  DiskReserve disk_reserve;
  // A new LMDB store's values carry checksums (checksum_store.h), written in its format record
  // as "checksums crc32". An existing store keeps what its record says, whatever this is: a
  // store written before checksums existed has none and opens without them. The other backends
  // ignore it (RocksDB and WiredTiger checksum their own blocks; the memory backend persists
  // nothing). False only to measure what checksums cost (kv_bench).
  bool checksums = true;
  // LMDB keeps no checksums of its own pages: an existing LMDB store's data.mdb is scrubbed
  // before LMDB maps it (lmdb_scrub.h: every page LMDB reads, every record's checksum), and a
  // damaged store is refused with a Corruption naming what is damaged, rather than served wrong
  // or crashed on. Off: the store opens as it is (to read what is left of a damaged store, or to
  // skip the cost on a huge one: docs/engine.md gives it). The other backends ignore it.
  bool scrub_on_open = true;
  // Where the scrub's report goes (kvlab verify prints it), or nullptr. When set, only damage in
  // LMDB's own structures refuses the open: records whose checksum differs are then the caller's
  // to report, and the checksum layer answers them as errors.
  LmdbScrubReport* scrub_report = nullptr;
  // Open an existing store without changing a byte of it (kvlab verify): RocksDB through
  // DB::OpenForReadOnly (the WAL replayed into memory, no new MANIFEST, LOG or flush), LMDB with
  // MDB_RDONLY (no write transaction, no resize of data.mdb; its lock file keeps the readers),
  // WiredTiger with readonly=true (it refuses a store that needs recovery rather than run it),
  // the memory backend without saving its snapshot on close; each backend's *ReadOnly open.
  // Writes fail, NotSupported, from a layer the registry puts on top. REQUIRES: the store exists.
  bool read_only = false;
};

// The names OpenStore accepts, in a fixed order.
const std::vector<std::string>& BackendNames();
// The backends that keep their data inside kvlab's process, in a directory alone: BackendNames()
// without etcd, which is a cluster of servers. The default matrix of `kvlab bench` and of the
// shared backend tests (etcd has test binaries of its own, etcd_*_test).
const std::vector<std::string>& EmbeddedBackendNames();
// The embedded backends a user deploys: EmbeddedBackendNames() without the in-memory map, which
// is a test backend (nothing persists). `kvlab study`'s default stores.
const std::vector<std::string>& PersistentEmbeddedBackendNames();

// A backend column of a matrix (bench, study, conform --backends): "NAME", then any of the
// modifiers ":noreverse" (no reverse scan: NoReverseScanStore) and ":cf" (record kinds in key
// spaces of their own: column families, named databases or tables), e.g. "rocksdb:cf", and for
// rocksdb ":plaindelete" (StoreOptions::rocksdb_single_delete off), ":dtc"
// (rocksdb_compact_on_deletion on), ":scanflush=N" (rocksdb_scan_flush_trigger N) and
// ":scancompact=N" (rocksdb_scan_compact_trigger N), and for any
// backend ":rtt=US" with an optional ":page=N" (the remote-store emulation of this column alone:
// out->remote_latency, out->remote, replacing what --rtt-us and --scan-page set; the page is 100
// rows unless given), so that one matrix can hold a real remote store and its emulation side by
// side ("etcd,lmdb:rtt=2000"). Sets out->backend, and out->no_reverse_scan,
// out->options.key_spaces (to `record_kinds`, the engine's record-kind prefixes), the RocksDB
// options and the emulation when their modifier is there; leaves the rest of *out alone. Fails
// naming the bad part: an unknown backend, an unknown or repeated modifier, a bad number.
Status ParseBackendColumn(std::string_view column, const std::vector<std::string>& record_kinds,
                          StoreSpec* out);
// The backend name of a column: "rocksdb" for "rocksdb:cf".
std::string BackendOfColumn(std::string_view column);

// An open store with everything it holds: the decorator chain, the directory lock, and the
// temporary directory if one was made.
class OpenedStore {
 public:
  ~OpenedStore();
  OpenedStore(const OpenedStore&) = delete;
  OpenedStore& operator=(const OpenedStore&) = delete;

  // The top of the decorator chain.
  KvStore* store() const { return store_.get(); }
  // The backend's own store, below every decorator: what a compaction filter reads through,
  // so that its reads are neither delayed nor counted as the workload's round trips.
  KvStore* base() const { return base_; }
  // The DiskGuardStore of the chain, or nullptr.
  DiskGuardStore* disk_guard() const { return disk_guard_; }
  // The RemoteLatencyStore of the chain, or nullptr.
  RemoteLatencyStore* remote() const { return remote_; }
  // The ChecksumStore of the chain (an LMDB store with checksums), or nullptr: `kvlab verify`
  // scrubs through it.
  ChecksumStore* checksums() const { return checksums_; }
  const std::string& dir() const { return dir_; }
  bool temporary() const { return temporary_; }
  const std::string& backend() const { return backend_; }
  // True when the store was scrubbed on open (StoreSpec::scrub_on_open); what it read, and how
  // long it took.
  bool scrubbed() const { return scrubbed_; }
  const LmdbScrubReport& scrub() const { return scrub_; }
  double scrub_seconds() const { return scrub_seconds_; }
  // True when an existing store without a format record (written before records existed) took
  // the opener's: the caller may tell the user that nothing could be checked.
  bool format_adopted() const { return format_adopted_; }

  // Flushes and compacts the whole store, so that the compaction filter sees every record
  // (RocksDB). NotSupported on the backends that do not compact.
  Status CompactAll();

  // Closes the store, releases the lock and removes a temporary directory. Idempotent.
  void Close();

 private:
  friend Status OpenStore(const StoreSpec& spec, std::unique_ptr<OpenedStore>* out);
  OpenedStore() = default;

  std::unique_ptr<KvStore> store_;
  std::function<Status()> compact_all_;  // set by a backend that compacts
  KvStore* base_ = nullptr;
  RemoteLatencyStore* remote_ = nullptr;
  DiskGuardStore* disk_guard_ = nullptr;
  ChecksumStore* checksums_ = nullptr;
  std::string dir_;
  std::string backend_;
  bool temporary_ = false;
  bool format_adopted_ = false;
  bool scrubbed_ = false;
  LmdbScrubReport scrub_;
  double scrub_seconds_ = 0;
  int lock_fd_ = -1;
};

Status OpenStore(const StoreSpec& spec, std::unique_ptr<OpenedStore>* out);

// Bytes of disk allocated to the files under dir (0 when it does not exist).
uint64_t DirectorySize(const std::string& dir);

// The space a store's files take, split by what they hold. Measured after Flush(), data_bytes
// is the store's live data as its files hold it (tables, pages, snapshots, and their metadata);
// log_bytes is its write-ahead log or journal, whose size follows the backend's log settings
// rather than the data: WiredTiger fallocates each log file whole (a quarter of its cache, 1-64
// MiB; older stores' spare WiredTigerPreplog.* files were 100 MB each), RocksDB keeps its WAL and
// its info LOG. Bytes are allocated blocks, as DirectorySize.
struct DiskUsage {
  uint64_t data_bytes = 0;
  uint64_t log_bytes = 0;
};
DiskUsage MeasureDiskUsage(const std::string& backend, const std::string& dir);

// Whether a file of a `backend` store is a log or journal file (counted in log_bytes):
// RocksDB's WAL (*.log) and info logs (LOG, LOG.old.*); WiredTiger's WiredTigerLog.* and
// WiredTigerPreplog.*. LMDB and the memory backend keep none.
bool IsStoreLogFile(const std::string& backend, std::string_view file_name);

}  // namespace kvlab::backends
