#include "backends/disk_guard_store.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <string>

#include "base/memory_value.h"

namespace kvlab::backends {
namespace {

// "12.3 MiB", for messages.
std::string Mib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// What a record costs on disk beyond its key and value, counted so that a stream of small
// records is not taken for almost nothing between two statvfs calls: RocksDB's WAL record and
// batch headers, WiredTiger's log record, LMDB's node header. A round over-estimate.
constexpr uint64_t kRecordOverhead = 64;

}  // namespace

uint64_t DiskReserve::BytesOn(uint64_t filesystem_bytes) const {
  if (percent > 0)
    return static_cast<uint64_t>(static_cast<double>(filesystem_bytes) * percent / 100);
  return bytes;
}

std::string DiskReserve::Describe() const {
  if (percent > 0) {
    char text[64];
    std::snprintf(text, sizeof text, "%g%% of the filesystem", percent);
    return text;
  }
  return Mib(bytes);
}

Status ParseDiskReserve(std::string_view text, DiskReserve* out) {
  auto bad = [&](std::string why) {
    return Status::InvalidArgument("bad disk reserve '" + std::string(text) + "': " + why +
                                   " (expected 0 for none, a size such as 256mb or 1gb, or a "
                                   "percentage of the filesystem below 100 such as 5%)");
  };
  DiskReserve reserve;
  if (text.ends_with('%')) {
    const std::string_view number = text.substr(0, text.size() - 1);
    double percent = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), percent,
                                           std::chars_format::fixed);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
      return bad("not a number before the %");
    }
    if (!(percent >= 0 && percent < 100))
      return bad("a percentage must be at least 0 and below 100");
    reserve.percent = percent;
  } else if (!ParseMemoryValue(text, &reserve.bytes)) {
    return bad("not a size");
  }
  *out = reserve;
  return Status::OK();
}

Status CheckDiskReserve(const std::string& backend, const std::string& dir,
                        const DiskReserve& reserve, const DiskNeeds& needs) {
  if (needs.min_reserve == 0) return Status::OK();
  uint64_t filesystem_bytes = 0;
  if (reserve.percent > 0) {
    // The directory may not exist yet (a new store): its nearest existing parent is on the same
    // filesystem unless a mount point is created in between, which a store's opener does not do.
    std::filesystem::path at = std::filesystem::absolute(dir);
    std::error_code ec;
    while (!std::filesystem::exists(at, ec) && at.has_parent_path() && at != at.parent_path()) {
      at = at.parent_path();
    }
    struct statvfs vfs;
    if (::statvfs(at.c_str(), &vfs) != 0) {
      return Status::IOError(backend + ": cannot read the size of the filesystem of " + dir +
                             " for --disk-reserve " + reserve.Describe() + ": " +
                             std::strerror(errno));
    }
    filesystem_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  }
  const uint64_t bytes = reserve.BytesOn(filesystem_bytes);
  if (bytes >= needs.min_reserve) return Status::OK();
  const uint64_t min_mb = (needs.min_reserve + (1 << 20) - 1) >> 20;
  std::string given = reserve.Describe();
  if (reserve.percent > 0) given += " (" + Mib(bytes) + ")";
  return Status::InvalidArgument(
      backend + ": a disk reserve of " + given + " (--disk-reserve) is below the " +
      Mib(needs.min_reserve) + " the store may still write while writes are refused (" + needs.why +
      "), and " + backend + " does not survive running out of space; use " + "--disk-reserve " +
      std::to_string(min_mb) + "mb or more, or 0 for no guard");
}

DiskGuardStore::DiskGuardStore(std::unique_ptr<KvStore> target, std::string dir,
                               DiskReserve reserve, DiskNeeds needs)
    : KvStoreWrapper(std::move(target)),
      dir_(std::move(dir)),
      reserve_(reserve),
      copies_(std::max<uint64_t>(needs.copies, 1)) {}

uint64_t DiskGuardStore::refused() const {
  std::lock_guard lock(mu_);
  return refused_;
}

Status DiskGuardStore::Admit(uint64_t bytes) {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (!checked_ || now - checked_at_ >= kRecheckInterval || written_since_ >= kRecheckBytes) {
    struct statvfs vfs;
    if (::statvfs(dir_.c_str(), &vfs) == 0) {
      free_bytes_ = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
      reserve_bytes_ = reserve_.BytesOn(static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize);
      statvfs_error_.clear();
    } else {
      // The directory vanished or cannot be read: say so, rather than guess at the space.
      statvfs_error_ = std::strerror(errno);
    }
    checked_ = true;
    checked_at_ = now;
    written_since_ = 0;
  }
  if (!statvfs_error_.empty()) {
    ++refused_;
    return Status::IOError(target()->name() + ": cannot read the free space of " + dir_ + ": " +
                           statvfs_error_ + "; writes are refused");
  }
  const uint64_t used = written_since_ + bytes * copies_;
  if (free_bytes_ < reserve_bytes_ || free_bytes_ - reserve_bytes_ < used) {
    ++refused_;
    return Status::NoSpace("disk full: " + target()->name() + ": " + dir_ + " has " +
                           Mib(free_bytes_ > written_since_ ? free_bytes_ - written_since_ : 0) +
                           " free, and the store keeps a reserve of " + reserve_.Describe() + " (" +
                           Mib(reserve_bytes_) +
                           ", --disk-reserve): writes are refused until space returns; reads "
                           "still work");
  }
  written_since_ = used;
  return Status::OK();
}

Status DiskGuardStore::Put(std::string_view key, std::string_view value) {
  KVLAB_RETURN_IF_ERROR(Admit(kRecordOverhead + key.size() + value.size()));
  return target()->Put(key, value);
}

Status DiskGuardStore::Delete(std::string_view key) {
  KVLAB_RETURN_IF_ERROR(Admit(kRecordOverhead + key.size()));
  return target()->Delete(key);
}

Status DiskGuardStore::DeleteRange(std::string_view begin, std::string_view end) {
  KVLAB_RETURN_IF_ERROR(Admit(kRecordOverhead + begin.size() + end.size()));
  return target()->DeleteRange(begin, end);
}

Status DiskGuardStore::Write(const WriteBatch& batch) {
  KVLAB_RETURN_IF_ERROR(Admit(kRecordOverhead * (batch.size() + 1) + batch.bytes()));
  return target()->Write(batch);
}

}  // namespace kvlab::backends
