#include "backends/lmdb_page_budget.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kvlab::backends {

uint64_t LmdbBoundNewPages(MDB_txn* txn, const std::vector<MDB_dbi>& dbis, uint64_t records,
                           uint64_t bytes, bool range) {
  uint64_t depth = 0, tree_pages = 0, page = 4096;
  for (MDB_dbi dbi : dbis) {
    MDB_stat st{};
    if (mdb_stat(txn, dbi, &st) != MDB_SUCCESS) continue;
    depth = std::max<uint64_t>(depth, st.ms_depth);
    tree_pages += st.ms_branch_pages + st.ms_leaf_pages;
    page = st.ms_psize;
  }
  // Copy-on-write: a record copies the pages on its path from the root, each page at most once
  // per transaction, and a range delete at most every page of the trees.
  const uint64_t copied = range ? tree_pages + 1 : std::min(records * (depth + 1), tree_pages + 1);
  // Splits: an insert splits at most one leaf, and a branch splits only after about half a page
  // of children were added below it, so at most two new pages per record plus a new root level.
  const uint64_t split = 2 * records + depth + 1;
  // Values too large for a leaf go to overflow pages of their own, rounded up per record.
  const uint64_t overflow = bytes / page + records;
  const uint64_t pages = copied + split + overflow;
  // The commit saves the list of freed pages in the free database: 8 bytes per page, on pages
  // copied on write themselves; and LMDB's own bookkeeping (the main database's records of the
  // named databases).
  return pages + 2 * (pages * 8 / page + 1) + 2 * (depth + 1) + 16;
}

Status LmdbPageBudget::Back(MDB_env* env, uint64_t new_pages, std::string_view what) {
  if (fallocate_unsupported_) return Status::OK();
  MDB_envinfo info{};
  MDB_stat st{};
  if (mdb_env_info(env, &info) != MDB_SUCCESS || mdb_env_stat(env, &st) != MDB_SUCCESS) {
    return Status::IOError("lmdb: " + dir_ + ": " + std::string(what) +
                           ": cannot read the environment's size");
  }
  const uint64_t need = (static_cast<uint64_t>(info.me_last_pgno) + 1 + new_pages) * st.ms_psize;
  if (need <= backed_bytes_) return Status::OK();
  const uint64_t target = std::min<uint64_t>(need + kBackAhead, info.me_mapsize);
  int fd = -1;
  if (mdb_env_get_fd(env, &fd) != MDB_SUCCESS || fd < 0) {
    return Status::IOError("lmdb: " + dir_ + ": " + std::string(what) + ": no data file");
  }
  if (need > info.me_mapsize) return Status::OK();  // the write will fail with MDB_MAP_FULL
  int rc;
  do {
    rc = ::fallocate(fd, 0, static_cast<off_t>(backed_bytes_),
                     static_cast<off_t>(target - backed_bytes_));
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) {
    backed_bytes_ = target;
    return Status::OK();
  }
  const int err = errno;
  if (err == EOPNOTSUPP) {
    fallocate_unsupported_ = true;
    return Status::OK();
  }
  if (err == ENOSPC || err == EDQUOT) {
    return Status::NoSpace("disk full: lmdb: " + dir_ + ": " + std::string(what) +
                           ": no space for the " + std::to_string(need - backed_bytes_) +
                           " bytes of pages the write may need (" + std::strerror(err) +
                           "); nothing was written: writes are refused until space returns, "
                           "reads still work");
  }
  return Status::IOError("lmdb: " + dir_ + ": " + std::string(what) +
                         ": fallocate: " + std::strerror(err));
}

}  // namespace kvlab::backends
