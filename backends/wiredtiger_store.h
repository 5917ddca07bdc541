// The WiredTiger backend. See wiredtiger_store.cc for how the KvStore contract maps onto
// WiredTiger.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/disk_guard_store.h"
#include "backends/kv_store.h"

namespace kvlab::backends {

// Opens or creates a WiredTiger store in options.dir.
// REQUIRES: options.dir exists (OpenStore in registry.h creates it and checks its marker).
Status OpenWiredTigerStore(const StoreOptions& options, std::unique_ptr<KvStore>* store);
// Opens the existing store in options.dir without writing to it (readonly=true: no checkpoint,
// no log file, no table created). WiredTiger refuses a store that needs recovery (one whose
// process was killed), since recovery writes. Writes fail (registry.h, StoreSpec::read_only).
Status OpenWiredTigerStoreReadOnly(const StoreOptions& options, std::unique_ptr<KvStore>* store);

// What WiredTiger writes on its own, which a disk guard's reserve must cover (docs/engine.md,
// "A full disk"). WiredTiger does not survive ENOSPC in its own writes: an eviction or a log
// write that fails is WT_PANIC, after which every call fails until a restart. With kvlab's
// settings (log=(prealloc=false,file_max=F), F a quarter of the cache between 1 and 64 MiB) the
// space it may still take while writes are refused is bounded: the dirty pages of its cache,
// written by eviction and checkpoints (at most the cache), one new log file of F (WiredTiger
// fallocates it whole when it switches files, and log records then write into space already
// taken), one more F should a switch fall inside the guard's reading window, and its metadata.
// A write lands twice (log record, then table page), so the guard charges it twice.
DiskNeeds WiredTigerDiskNeeds(const StoreOptions& options);

// The files of `dir` that only a WiredTiger store writes, by name (empty: none): the WiredTiger
// file ("WiredTiger" and the version, a database home's mark) and the turtle file,
// WiredTiger.turtle (the metadata's own metadata). The registry refuses a store whose
// KVLAB_STORE marker names another backend while they are there (registry.h).
std::vector<std::string> WiredTigerFilesIn(const std::string& dir);

}  // namespace kvlab::backends
