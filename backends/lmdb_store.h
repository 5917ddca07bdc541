// The LMDB backend. See lmdb_store.cc for how the KvStore contract maps onto LMDB.
#pragma once

#include <memory>

#include "backends/kv_store.h"

namespace kvlab::backends {

// Opens or creates a LMDB store in options.dir. Keys of any length are accepted: those over
// LMDB's 511-byte limit are kept by a LongKeyStore layer (long_key_store.h).
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
Status OpenLmdbStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);

}  // namespace kvlab::backends
