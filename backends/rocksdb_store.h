// The RocksDB backend. See rocksdb_store.cc for how the KvStore contract maps onto RocksDB.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/compaction_filter.h"
#include "backends/kv_store.h"

namespace kvlab::backends {

// Opens or creates a RocksDB store in options.dir.
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
Status OpenRocksDbStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);

// The same, with every column family's compactions consulting `filter` (null: none), and a
// function in *compact_all that flushes the memtables and compacts every column family down to
// the bottommost level, so that the filter sees every record (RocksDB's CompactRange with
// bottommost_level_compaction = kForce). REQUIRES: *compact_all is called only while the store
// is open.
Status OpenRocksDbStore(const StoreOptions& options,
                        std::shared_ptr<const CompactionFilterPolicy> filter,
                        std::unique_ptr<KvStore>* store, std::function<Status()>* compact_all);

// Opens the existing RocksDB store in options.dir without writing to it (DB::OpenForReadOnly:
// the WAL is replayed into memory; no MANIFEST, info LOG, flush or compaction is written).
// Writes fail. kvlab verify opens stores so (registry.h, StoreSpec::read_only).
Status OpenRocksDbStoreReadOnly(const StoreOptions& options, std::unique_ptr<KvStore>* store);

// The files of `dir` that only a RocksDB store writes, by name (empty: none): CURRENT naming a
// MANIFEST, IDENTITY. The registry refuses a store whose KVLAB_STORE marker names another
// backend while they are there (registry.h).
std::vector<std::string> RocksDbFilesIn(const std::string& dir);

}  // namespace kvlab::backends
