// How kvlab opens a WiredTiger store (wiredtiger_store.cc): the connection's configuration,
// read-write or read-only, its cache and log-file sizes, and what a read-only open that meets a
// store needing recovery says. Kept apart from the store's KvStore contract, whose open uses it.
// Internal to backends/ (wiredtiger_store.h is the backend's interface).
#pragma once

#include <cstdint>
#include <string>

#include "backends/kv_store.h"

namespace kvlab::backends {

// The cache WiredTiger is opened with: StoreOptions::cache_bytes, at least WiredTiger's minimum.
uint64_t WtCacheBytes(const StoreOptions& options);

// The size of a log file (log=(file_max)): a quarter of the cache, between 1 MiB and 64 MiB.
// WiredTiger gives each new log file its full size with fallocate when it creates it (and with
// prealloc=false only then, at the switch from the full one), so a log file is the unit of
// space the log takes (see WiredTigerDiskNeeds). Tying it to the cache keeps the reserve a
// store needs proportional to what it writes on its own; 16 MiB at the default 64 MiB cache is
// one switch per 16 MiB of log.
uint64_t WtLogFileBytes(uint64_t cache_bytes);

// wiredtiger_open's configuration string. Read-write: created if missing, logging with
// archived log files of WtLogFileBytes and no preallocation, a checkpoint every minute, commits
// written to the OS (fsync with sync_writes). Read-only (OpenWiredTigerStoreReadOnly):
// readonly=true, so no log archive, checkpoint or table created.
std::string WtOpenConfig(const StoreOptions& options, bool read_only);

// The error of a read-only open that failed because the store needs recovery (its process was
// killed: WiredTiger's last error names WT_RUN_RECOVERY), which writes; OK for any other
// failure, which the caller reports itself.
Status WtReadOnlyRecoveryError(const std::string& dir, const std::string& last_error);

}  // namespace kvlab::backends
