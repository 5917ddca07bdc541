// The WiredTiger backend. See wiredtiger_store.cc for how the KvStore contract maps onto
// WiredTiger.
#pragma once

#include <memory>

#include "backends/kv_store.h"

namespace kvlab::backends {

// Opens or creates a WiredTiger store in options.dir.
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
Status OpenWiredTigerStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);

}  // namespace kvlab::backends
