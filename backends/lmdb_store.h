// The LMDB backend. See lmdb_store.cc for how the KvStore contract maps onto LMDB.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/checksum_store.h"
#include "backends/kv_store.h"

namespace kvlab::backends {

// Opens or creates a LMDB store in options.dir. Keys of any length are accepted: those over
// LMDB's 511-byte limit are kept by a LongKeyStore layer (long_key_store.h).
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
// Values are stored as they are (no checksums): raw tools and tests.
Status OpenLmdbStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);
// The same with `checksums`: a ChecksumStore (checksum_store.h) between LMDB and the long-key
// layer, so that every base record, long-key buckets included, carries its checksum; then
// *checksum_layer points at it (else nullptr). OpenStore uses this one. `read_only`: the existing
// store is opened with MDB_RDONLY and without MDB_WRITEMAP (no write transaction, data.mdb not
// resized to the map); writes fail (registry.h, StoreSpec::read_only).
Status OpenLmdbStoreWith(const StoreOptions& options, bool checksums, bool read_only,
                         std::unique_ptr<KvStore>* store, ChecksumStore** checksum_layer);

// The files of `dir` that only a LMDB store writes, by name (empty: none): data.mdb whose first
// page is a LMDB meta page (its magic and data version), and lock.mdb beside it. The registry
// refuses a store whose KVLAB_STORE marker names another backend while they are there
// (registry.h).
std::vector<std::string> LmdbFilesIn(const std::string& dir);

}  // namespace kvlab::backends
