// The LMDB backend. See lmdb_store.cc for how the KvStore contract maps onto LMDB.
#pragma once

#include <memory>

#include "backends/kv_store.h"

namespace kvlab {

// Opens or creates a LMDB store in options.dir.
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
Status OpenLmdbStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);

}  // namespace kvlab
