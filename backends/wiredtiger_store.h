// The WiredTiger backend. See wiredtiger_store.cc for how the KvStore contract maps onto
// WiredTiger.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/kv_store.h"

namespace kvlab::backends {

// Opens or creates a WiredTiger store in options.dir.
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
Status OpenWiredTigerStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);

// The files of `dir` that only a WiredTiger store writes, by name (empty: none): the WiredTiger
// file ("WiredTiger" and the version, a database home's mark) and the turtle file,
// WiredTiger.turtle (the metadata's own metadata). The registry refuses a store whose
// KVLAB_STORE marker names another backend while they are there (registry.h).
std::vector<std::string> WiredTigerFilesIn(const std::string& dir);

}  // namespace kvlab::backends
