// A full disk under LMDB: the blocks data.mdb must own before a write transaction touches a page
// (lmdb_store.cc, "A full disk").
//
// kvlab opens LMDB with MDB_WRITEMAP, so a write transaction writes its pages straight into the
// map, and data.mdb is a sparse file of the map size (LMDB ftruncates it so at open): a page
// beyond the blocks the file owns is given blocks by the page fault that first writes it, and
// when the filesystem has none the kernel sends SIGBUS, which kills the process in the middle of
// a transaction (measured: 2 of 2 runs on a 20 MB tmpfs). No LMDB return code can report it. So
// every write transaction, once it holds LMDB's writer lock, first makes sure that the file owns
// blocks for every page the transaction can touch (fallocate(2), LmdbPageBudget::Back): the pages
// up to the last one in use are already backed, and the new pages a transaction allocates come
// after it, at most BoundNewPages of them. When fallocate fails for lack of space, the
// transaction is aborted before it touched a page and the write is refused with a "disk full"
// NoSpace; nothing is applied, and the next write tries again. The file is backed kBackAhead
// beyond what a transaction needs, so fallocate runs about once per kBackAhead written, and the
// space the store takes (DirectorySize) is at most that much above its pages. On a filesystem
// without fallocate (EOPNOTSUPP) nothing is preallocated, and only the disk-space guard of the
// registry (disk_guard_store.h) stands between LMDB and SIGBUS.
#pragma once

#include <lmdb.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kvlab::backends {

// The most pages a write transaction of `records` records holding `bytes` key and value bytes
// can allocate beyond the last page in use, inside txn, over the databases `dbis`; `range`: it
// deletes a range too (then every page of the trees may be copied).
uint64_t LmdbBoundNewPages(MDB_txn* txn, const std::vector<MDB_dbi>& dbis, uint64_t records,
                           uint64_t bytes, bool range);

// What of data.mdb is known to own blocks. One per environment; used only inside write
// transactions, whose writer lock (LMDB's) serializes every call.
class LmdbPageBudget {
 public:
  // How far beyond a transaction's needs data.mdb is backed by blocks.
  static constexpr uint64_t kBackAhead = uint64_t{256} << 10;

  explicit LmdbPageBudget(std::string dir) : dir_(std::move(dir)) {}

  // Gives data.mdb blocks for new_pages pages after the last page in use, plus kBackAhead. A
  // NoSpace "disk full: ..." naming `what` when the filesystem has no room (nothing was
  // written); OK without doing anything on a filesystem without fallocate, or when the pages
  // would pass the map size (the write then fails with MDB_MAP_FULL).
  // REQUIRES: inside a write transaction of env.
  Status Back(MDB_env* env, uint64_t new_pages, std::string_view what);

 private:
  const std::string dir_;
  // Bytes of data.mdb, from its start, known to own blocks.
  uint64_t backed_bytes_ = 0;
  // The filesystem refused fallocate as unsupported.
  bool fallocate_unsupported_ = false;
};

}  // namespace kvlab::backends
