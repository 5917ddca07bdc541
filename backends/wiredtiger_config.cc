#include "backends/wiredtiger_config.h"

#include <algorithm>
#include <filesystem>

#include "backends/store_files.h"
#include "backends/wiredtiger_store.h"

namespace kvlab::backends {

uint64_t WtCacheBytes(const StoreOptions& options) {
  return std::max<uint64_t>(options.cache_bytes, 1ull << 20);
}

uint64_t WtLogFileBytes(uint64_t cache_bytes) {
  return std::clamp<uint64_t>(cache_bytes / 4, 1ull << 20, 64ull << 20);
}

std::string WtOpenConfig(const StoreOptions& options, bool read_only) {
  const uint64_t cache = WtCacheBytes(options);
  if (read_only) {
    return "readonly=true,session_max=1024,statistics=(fast),log=(enabled=true),cache_size=" +
           std::to_string(cache);
  }
  return "create,session_max=1024,statistics=(fast),"
         "log=(enabled=true,archive=true,prealloc=false,file_max=" +
         std::to_string(WtLogFileBytes(cache)) +
         "),checkpoint=(wait=60),"
         "transaction_sync=(enabled=true,method=" +
         std::string(options.sync_writes ? "fsync" : "none") +
         "),cache_size=" + std::to_string(cache);
}

Status WtReadOnlyRecoveryError(const std::string& dir, const std::string& last_error) {
  if (last_error.find("WT_RUN_RECOVERY") == std::string::npos) return Status::OK();
  const std::string why =
      " read-only: it was not closed cleanly and needs recovery, which "
      "writes (open it once with kvlab serve or gc first): ";
  return Status::IOError("wiredtiger: cannot open " + dir + why + last_error);
}

DiskNeeds WiredTigerDiskNeeds(const StoreOptions& options) {
  const uint64_t cache = WtCacheBytes(options);
  const uint64_t log_file = WtLogFileBytes(cache);
  constexpr uint64_t kMetadata = 4ull << 20;
  auto mib = [](uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; };
  DiskNeeds needs;
  needs.min_reserve = cache + 2 * log_file + kMetadata;
  needs.why = "its cache of " + mib(cache) +
              " (--cache-mb), whose dirty pages eviction and checkpoints write, two log files of " +
              mib(log_file) + " each (one full, one just created), and " + mib(kMetadata) +
              " for its metadata and the checkpoints' block lists";
  needs.copies = 2;  // the log record, then the table's page
  return needs;
}

std::vector<std::string> WiredTigerFilesIn(const std::string& dir) {
  const std::filesystem::path d(dir);
  std::vector<std::string> found;
  if (FileHasBytesAt(d / "WiredTiger", 0, "WiredTiger\n")) found.push_back("WiredTiger");
  if (FileHasBytesAt(d / "WiredTiger.turtle", 0, "WiredTiger version string\n")) {
    found.push_back("WiredTiger.turtle");
  }
  return found;
}

}  // namespace kvlab::backends
