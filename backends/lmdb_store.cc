// The LMDB backend: how the KvStore contract maps onto LMDB (liblmdb 0.9.x).
//
// Environment. One LMDB environment per store, in options.dir (data.mdb and lock.mdb next to
// the registry's KVLAB_STORE marker), holding the unnamed main database. LMDB's default key
// comparison (memcmp over the common length, then the shorter key first) is exactly kvlab's
// order, so no custom comparator is installed.
//
// Key spaces (StoreOptions::key_spaces). With them, every space is a named database of the
// environment (KeySpaceMap::Name: "kv_m-23" for "m#", "default" for the rest): the unnamed main
// database then holds only the databases' names, as LMDB requires. One write transaction spans
// them all, so a batch stays atomic; an iterator over several spaces merges one cursor per
// database (key_spaces.h), and an encoding's scan of one record kind uses its database alone.
// Each database is its own B-tree: a lookup of one record kind descends a shallower tree, and
// pages hold one kind only.
//
// Transactions. Every write (Put, Delete, DeleteRange, Write) is one LMDB write transaction,
// so each is atomic and, after a crash of the process, either wholly visible or not at all
// (LMDB commits by writing the meta page after the data pages, copy-on-write). LMDB allows one
// writer at a time; its own writer mutex serializes them, so this file adds no write lock.
// Readers never block writers nor each other.
//
// Durability. sync_writes=false opens the environment with MDB_NOSYNC: a commit writes its
// pages into the OS page cache and returns without fsync. The data then survives a SIGKILL of
// the process (the kernel still holds the pages) but not a machine crash; Flush() forces the
// fsync, and so does closing the store. sync_writes=true leaves LMDB's full sync on every
// commit. The map is writable (MDB_WRITEMAP, see Open). StoreOptions::cache_bytes is ignored:
// LMDB reads through a memory map, and the OS page cache is its only cache.
//
// Read transactions. The environment uses MDB_NOTLS, so a read transaction is not bound to the
// thread that began it: a thread may hold iterators (each owning a read transaction) while it
// writes, and an iterator may move between threads. Beginning a read transaction takes LMDB's
// process-shared reader-table mutex and allocates, which is a large part of a point lookup;
// Get, MultiGet, iterators and the counters therefore borrow an idle read transaction from a
// small pool and renew it (mdb_txn_renew), then reset it (mdb_txn_reset) and give it back. The
// pool is a few cache-line-sized atomic slots, each thread probing from its own starting slot,
// so concurrent readers rarely share a cache line. Measured side by side on 100k keys (medians
// of repeated runs), this cut the cost of a Get by about 8% on one thread and about 30% on two
// threads against begin/abort per Get; a mutex-protected free list gained nothing on two
// threads. A reset transaction pins no snapshot but keeps its reader slot.
// MultiGet reads all its keys in one transaction, i.e. from one snapshot.
//
// Iterators. An iterator owns a read transaction (borrowed from the same pool) and a cursor for
// its whole life, so it sees the snapshot of the moment it was created and never a later
// write. key() and value() point into the memory map and stay valid for as long as the
// iterator lives. The half-open bounds are applied by the iterator: seeks clamp the target to
// the bounds and every landing position is checked against them. Holding an iterator pins its
// snapshot, so pages freed by later writes cannot be reused until it is destroyed; long-lived
// iterators over a busy store make the file grow.
//
// Keys. LMDB's key limit is a compile-time constant, 511 bytes in Debian's build; it is read
// from mdb_env_get_maxkeysize(). OpenLmdbStore wraps the store in a LongKeyStore
// (long_key_store.h), which keeps keys over 510 bytes in order-preserving buckets of 511-byte
// base keys, so that the store as kvlab sees it takes keys of any length. Below it, writes validate
// keys with ValidateKey/ValidateBatch (an invalid batch applies nothing); Get and MultiGet of
// an empty or oversized key report NotFound without asking LMDB, since no such key can exist.
// Seek targets, bounds and DeleteRange ends may be any length: LMDB's cursor search compares
// them without a size check (only an empty target is refused, and stands for the first key).
//
// DeleteRange. LMDB has no range delete: it walks a cursor from begin and deletes up to end
// inside one write transaction (atomic; Capabilities::native_delete_range is false).
//
// Map size. LMDB maps the whole database file at a fixed size chosen at open, and a write that
// needs a page beyond it fails with MDB_MAP_FULL. kvlab maps 64 GiB: on Linux that reserves
// address space only (the file is not extended; data.mdb grows with the data, so the disk holds
// only what is written), and 64 GiB is far beyond any workload kvlab runs. (On reopen LMDB
// never maps less than the committed data, whatever size is asked.) The map is not grown at
// runtime: mdb_env_set_mapsize requires that no transaction be active in the process, and
// iterators may hold read transactions for as long as they like, so there is no safe moment.
// A full map is reported as an IOError that names the map size.
//
// A full disk. With MDB_WRITEMAP, a page written beyond the blocks data.mdb owns gets them in the
// page fault, and SIGBUS when the filesystem has none: every write transaction first backs the
// pages it can touch with fallocate(2) and is refused as "disk full" when it cannot
// (lmdb_page_budget.h says how the pages are bounded).
//
// Counters. ReadPhysicalCounters reports gauges of the main database (mdb_stat in a pooled
// read transaction: tree depth, branch, leaf and overflow pages, entries, page size) and of the
// environment (mdb_env_info: map size, last used page number).
//
// Errors. LMDB return codes become kvlab Status codes (see FromMdb); every message starts with
// "lmdb: " and carries mdb_strerror's text.
#include "backends/lmdb_store.h"

#include <fcntl.h>
#include <lmdb.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "backends/key_spaces.h"
#include "backends/lmdb_page_budget.h"
#include "backends/long_key_store.h"
#include "backends/store_files.h"

namespace kvlab::backends {
namespace {

// The map size of a new store; see "Map size" above.
constexpr size_t kMapSize = size_t{64} << 30;
// Reader-table slots (lock.mdb holds 64 bytes per slot). Each live iterator and each pooled
// read transaction owns one.
constexpr unsigned kMaxReaders = 1024;
// Idle read transactions kept for reuse; more are aborted on release.
constexpr size_t kReadTxnPoolSlots = 16;

MDB_val ToVal(std::string_view s) {
  static constexpr char kEmpty[1] = {0};
  return MDB_val{s.size(), const_cast<char*>(s.empty() ? kEmpty : s.data())};
}

std::string_view ToView(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

// Maps an LMDB return code (an MDB_* code or an errno value) to a Status.
Status FromMdb(int rc, const std::string& what) {
  std::string msg = "lmdb: " + what + ": " + mdb_strerror(rc);
  switch (rc) {
    case MDB_SUCCESS:
      return Status::OK();
    case MDB_NOTFOUND:
      return Status::NotFound(std::move(msg));
    case MDB_BAD_VALSIZE:
    case MDB_BAD_DBI:
    case MDB_INCOMPATIBLE:
    case EINVAL:
      return Status::InvalidArgument(std::move(msg));
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
      return Status::Corruption(std::move(msg));
    case EAGAIN:
    case EBUSY:
      return Status::Busy(std::move(msg));
    default:
      return Status::IOError(std::move(msg));
  }
}

class LmdbIterator;

class LmdbStore final : public KvStore {
 public:
  // `read_only`: MDB_RDONLY (OpenLmdbStoreWith).
  static Status Open(const StoreOptions& options, bool read_only, std::unique_ptr<KvStore>* store);
  ~LmdbStore() override;

  std::string name() const override { return "lmdb"; }
  Capabilities capabilities() const override;
  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const WriteBatch& batch) override;
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override;
  Status Flush() override;
  PhysicalCounters ReadPhysicalCounters() override;

 private:
  friend class LmdbIterator;

  // dbis: one per space of `spaces`, in space order.
  LmdbStore(MDB_env* env, KeySpaceMap spaces, std::vector<MDB_dbi> dbis, std::string dir, bool sync,
            bool read_only)
      : env_(env),
        spaces_(std::move(spaces)),
        dbis_(std::move(dbis)),
        dir_(std::move(dir)),
        sync_(sync),
        read_only_(read_only),
        budget_(dir_),
        max_key_(static_cast<size_t>(mdb_env_get_maxkeysize(env))) {}

  bool PossibleKey(std::string_view key) const { return !key.empty() && key.size() <= max_key_; }
  MDB_dbi Dbi(std::string_view key) const { return dbis_[spaces_.SpaceOf(key)]; }
  // Deletes [begin, end) of every space inside txn.
  int DeleteRangeInSpaces(MDB_txn* txn, std::string_view begin, std::string_view end) const;
  // A Status for rc, naming the directory; a full map also names the map size.
  Status Error(int rc, std::string_view what) const;
  // A renewed read transaction, from the pool when one is idle. Give it back with ReleaseRead.
  Status AcquireRead(MDB_txn** txn);
  void ReleaseRead(MDB_txn* txn);
  // The pool slot where the calling thread starts looking.
  static size_t PoolStart();
  // Runs body(txn) in one write transaction and commits it; body returns an LMDB code. Before
  // body runs, the pages of `records` records of `bytes` bytes (`range`: and of a range delete)
  // are backed (LmdbPageBudget::Back).
  template <typename Body>
  Status Update(std::string_view what, uint64_t records, uint64_t bytes, bool range, Body&& body);

  MDB_env* const env_;
  const KeySpaceMap spaces_;
  const std::vector<MDB_dbi> dbis_;
  const std::string dir_;
  const bool sync_;
  const bool read_only_;  // MDB_RDONLY
  // The blocks data.mdb owns; used inside write transactions only (LMDB's writer lock).
  LmdbPageBudget budget_;
  const size_t max_key_;

  // Idle (reset) read transactions. A thread starts probing at a slot picked by its id, so
  // threads rarely touch the same cache line; a slot holds nullptr when empty.
  struct alignas(64) PoolSlot {
    std::atomic<MDB_txn*> txn{nullptr};
  };
  PoolSlot pool_[kReadTxnPoolSlots];
  std::atomic<int> live_iterators_{0};
};

// Positions a cursor by the bound-aware rules of the Iterator interface. Every positioning
// call returns an LMDB code: MDB_SUCCESS (on an entry, held in key_/value_), MDB_NOTFOUND (no
// such entry) or an error.
class LmdbIterator final : public Iterator {
 public:
  // `txn`: the read transaction, shared by the iterators of one merged iteration over several
  // databases (one snapshot); released when the last of them is destroyed.
  LmdbIterator(LmdbStore* store, MDB_dbi dbi, std::shared_ptr<MDB_txn> txn, Status txn_status,
               IteratorOptions options)
      : store_(store), options_(std::move(options)), txn_(std::move(txn)) {
    store_->live_iterators_.fetch_add(1, std::memory_order_relaxed);
    status_ = std::move(txn_status);
    if (!status_.ok()) return;
    int rc = mdb_cursor_open(txn_.get(), dbi, &cursor_);
    if (rc != MDB_SUCCESS) status_ = store_->Error(rc, "open cursor");
  }
  ~LmdbIterator() override {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    store_->live_iterators_.fetch_sub(1, std::memory_order_relaxed);
  }

  bool Valid() const override { return valid_; }
  void Seek(std::string_view target) override {
    if (!Usable()) return;
    if (options_.lower_bound && target < *options_.lower_bound) target = *options_.lower_bound;
    Land(PositionAtOrAfter(target));
  }
  void SeekForPrev(std::string_view target) override {
    if (!Usable()) return;
    if (options_.upper_bound && target >= *options_.upper_bound) {
      Land(PositionBefore(*options_.upper_bound));
    } else {
      Land(PositionAtOrBefore(target));
    }
  }
  void SeekToFirst() override {
    if (!Usable()) return;
    Land(options_.lower_bound ? PositionAtOrAfter(*options_.lower_bound) : Move(MDB_FIRST));
  }
  void SeekToLast() override {
    if (!Usable()) return;
    Land(options_.upper_bound ? PositionBefore(*options_.upper_bound) : Move(MDB_LAST));
  }
  void Next() override { Step(MDB_NEXT, "Next"); }
  void Prev() override { Step(MDB_PREV, "Prev"); }
  std::string_view key() const override { return ToView(key_); }
  std::string_view value() const override { return ToView(value_); }
  Status status() const override { return status_; }

 private:
  // False, and the iterator invalid, once an error has ended the iteration.
  bool Usable() {
    if (status_.ok()) return true;
    valid_ = false;
    return false;
  }
  void Step(MDB_cursor_op op, const char* what) {
    if (!Usable()) return;
    if (!valid_) {
      status_ = Status::InvalidArgument(std::string("lmdb: ") + what +
                                        "() on an iterator that is not positioned on an entry");
      return;
    }
    Land(Move(op));
  }
  int Move(MDB_cursor_op op) { return mdb_cursor_get(cursor_, &key_, &value_, op); }

  // The first entry with key >= target.
  int PositionAtOrAfter(std::string_view target) {
    if (target.empty()) return Move(MDB_FIRST);  // LMDB rejects empty keys; all keys are >= ""
    key_ = ToVal(target);
    return Move(MDB_SET_RANGE);
  }
  // The last entry with key < target.
  int PositionBefore(std::string_view target) {
    int rc = PositionAtOrAfter(target);
    if (rc == MDB_SUCCESS) return Move(MDB_PREV);
    return rc == MDB_NOTFOUND ? Move(MDB_LAST) : rc;
  }
  // The last entry with key <= target.
  int PositionAtOrBefore(std::string_view target) {
    int rc = PositionAtOrAfter(target);
    if (rc == MDB_SUCCESS) return ToView(key_) == target ? rc : Move(MDB_PREV);
    return rc == MDB_NOTFOUND ? Move(MDB_LAST) : rc;
  }

  // Becomes valid when rc landed on an entry within the bounds.
  void Land(int rc) {
    valid_ = false;
    if (rc == MDB_NOTFOUND) return;
    if (rc != MDB_SUCCESS) {
      status_ = store_->Error(rc, "iterator");
      return;
    }
    const std::string_view k = ToView(key_);
    valid_ = (!options_.lower_bound || k >= *options_.lower_bound) &&
             (!options_.upper_bound || k < *options_.upper_bound);
  }

  LmdbStore* const store_;
  const IteratorOptions options_;
  const std::shared_ptr<MDB_txn> txn_;
  MDB_cursor* cursor_ = nullptr;
  MDB_val key_{0, nullptr};
  MDB_val value_{0, nullptr};
  bool valid_ = false;
  Status status_;
};

Status LmdbStore::Open(const StoreOptions& options, bool read_only,
                       std::unique_ptr<KvStore>* store) {
  const std::string& dir = options.dir;
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != MDB_SUCCESS) return FromMdb(rc, dir + ": cannot create the environment");
  auto fail = [&](int code, const std::string& what) {
    mdb_env_close(env);
    return FromMdb(code, dir + ": " + what);
  };
  if ((rc = mdb_env_set_mapsize(env, kMapSize)) != MDB_SUCCESS) return fail(rc, "set map size");
  if ((rc = mdb_env_set_maxreaders(env, kMaxReaders)) != MDB_SUCCESS) {
    return fail(rc, "set max readers");
  }
  KeySpaceMap spaces;
  KVLAB_RETURN_IF_ERROR(KeySpaceMap::Make(options.key_spaces, &spaces));
  if (spaces.partitioned() &&
      (rc = mdb_env_set_maxdbs(env, static_cast<MDB_dbi>(spaces.size()))) != MDB_SUCCESS) {
    return fail(rc, "set max databases");
  }
  // MDB_WRITEMAP: commits write into the shared memory map instead of through write(2) per dirty
  // page. Measured with redis-benchmark -P 16 through kvlab serve, it doubles LMDB's write
  // throughput. The data file becomes a sparse file of the map size (its allocated size is what
  // DirectorySize reports); durability is unchanged (the kernel holds the dirty pages).
  // Read-only (kvlab verify): MDB_RDONLY, no write transaction, and no MDB_WRITEMAP (which
  // would resize data.mdb to the map size).
  const unsigned flags =
      read_only ? MDB_NOTLS | MDB_RDONLY
                : MDB_NOTLS | MDB_WRITEMAP | (options.sync_writes ? 0u : unsigned{MDB_NOSYNC});
  if ((rc = mdb_env_open(env, dir.c_str(), flags, 0644)) != MDB_SUCCESS) {
    return fail(rc, "cannot open");
  }
  // Free reader slots left by processes that died holding them (the first opener of the lock
  // file also resets the table; this covers the rest).
  int dead = 0;
  if ((rc = mdb_reader_check(env, &dead)) != MDB_SUCCESS) return fail(rc, "reader check");

  MDB_txn* txn = nullptr;
  std::vector<MDB_dbi> dbis;
  // Named databases are created on first open, which needs a write transaction.
  if ((rc = mdb_txn_begin(env, nullptr, spaces.partitioned() && !read_only ? 0 : MDB_RDONLY,
                          &txn)) != MDB_SUCCESS) {
    return fail(rc, "begin transaction");
  }
  MDB_dbi main_dbi = 0;
  if ((rc = mdb_dbi_open(txn, nullptr, 0, &main_dbi)) != MDB_SUCCESS) {
    mdb_txn_abort(txn);
    return fail(rc, "open the main database");
  }
  if (!spaces.partitioned()) {
    dbis.push_back(main_dbi);
  } else {
    // The main database of a store with key spaces holds the spaces' names and nothing else;
    // any other record means the store was written without them, and its records would vanish
    // from view.
    std::vector<std::string> names;
    for (size_t space = 0; space < spaces.size(); ++space) names.push_back(spaces.Name(space));
    MDB_cursor* cursor = nullptr;
    if ((rc = mdb_cursor_open(txn, main_dbi, &cursor)) != MDB_SUCCESS) {
      mdb_txn_abort(txn);
      return fail(rc, "open a cursor");
    }
    MDB_val k{0, nullptr}, v{0, nullptr};
    std::string stranger;
    for (rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == MDB_SUCCESS && stranger.empty();
         rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
      if (std::find(names.begin(), names.end(), ToView(k)) == names.end()) stranger = ToView(k);
    }
    mdb_cursor_close(cursor);
    if (!stranger.empty()) {
      mdb_txn_abort(txn);
      mdb_env_close(env);
      return Status::InvalidArgument("lmdb: " + dir +
                                     " was written without key spaces (its main database holds "
                                     "records); it cannot be opened with them");
    }
    for (const std::string& name : names) {
      MDB_dbi dbi = 0;
      if ((rc = mdb_dbi_open(txn, name.c_str(), read_only ? 0 : MDB_CREATE, &dbi)) != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return fail(rc, "open the named database " + name);
      }
      dbis.push_back(dbi);
    }
  }
  if ((rc = mdb_txn_commit(txn)) != MDB_SUCCESS) return fail(rc, "commit");
  store->reset(
      new LmdbStore(env, std::move(spaces), std::move(dbis), dir, options.sync_writes, read_only));
  return Status::OK();
}

LmdbStore::~LmdbStore() {
  if (int n = live_iterators_.load(); n != 0) {
    std::fprintf(stderr, "kvlab: lmdb: %s: closed with %d live iterators\n", dir_.c_str(), n);
  }
  for (PoolSlot& slot : pool_) {
    if (MDB_txn* txn = slot.txn.exchange(nullptr)) mdb_txn_abort(txn);
  }
  // With MDB_NOSYNC the last commits may still be only in the page cache; a clean close makes
  // them durable, as Flush() would.
  if (!sync_ && !read_only_) {
    Status s = Flush();
    if (!s.ok()) std::fprintf(stderr, "kvlab: %s\n", s.ToString().c_str());
  }
  mdb_env_close(env_);
}

Capabilities LmdbStore::capabilities() const {
  Capabilities c;
  c.reverse_scan = true;
  c.native_delete_range = false;
  c.persistent = true;
  c.crash_safe = true;
  c.max_key_bytes = max_key_;
  if (spaces_.partitioned()) c.key_space_kind = KeySpaceKind::kNamedDatabases;
  c.key_space_count = spaces_.size();
  return c;
}

Status LmdbStore::Error(int rc, std::string_view what) const {
  std::string where = dir_ + ": " + std::string(what);
  if (rc == MDB_MAP_FULL) {
    MDB_envinfo info{};
    mdb_env_info(env_, &info);
    where += " (the store has reached its map size of " + std::to_string(info.me_mapsize) +
             " bytes; LMDB cannot store more in it)";
  } else if (rc == MDB_READERS_FULL) {
    where += " (all " + std::to_string(kMaxReaders) +
             " reader slots are in use; each live iterator holds one)";
  }
  return FromMdb(rc, where);
}

size_t LmdbStore::PoolStart() {
  return std::hash<std::thread::id>()(std::this_thread::get_id()) % kReadTxnPoolSlots;
}

Status LmdbStore::AcquireRead(MDB_txn** txn) {
  *txn = nullptr;
  const size_t start = PoolStart();
  for (size_t i = 0; i < kReadTxnPoolSlots && *txn == nullptr; ++i) {
    PoolSlot& slot = pool_[(start + i) % kReadTxnPoolSlots];
    if (slot.txn.load(std::memory_order_relaxed) != nullptr) {
      *txn = slot.txn.exchange(nullptr, std::memory_order_acquire);
    }
  }
  if (*txn != nullptr) {
    int rc = mdb_txn_renew(*txn);
    if (rc == MDB_SUCCESS) return Status::OK();
    mdb_txn_abort(*txn);
    *txn = nullptr;
    return Error(rc, "renew read transaction");
  }
  int rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, txn);
  if (rc != MDB_SUCCESS) {
    *txn = nullptr;
    return Error(rc, "begin read transaction");
  }
  return Status::OK();
}

void LmdbStore::ReleaseRead(MDB_txn* txn) {
  mdb_txn_reset(txn);
  const size_t start = PoolStart();
  for (size_t i = 0; i < kReadTxnPoolSlots; ++i) {
    PoolSlot& slot = pool_[(start + i) % kReadTxnPoolSlots];
    MDB_txn* expected = nullptr;
    if (slot.txn.load(std::memory_order_relaxed) == nullptr &&
        slot.txn.compare_exchange_strong(expected, txn, std::memory_order_release,
                                         std::memory_order_relaxed)) {
      return;
    }
  }
  mdb_txn_abort(txn);
}

template <typename Body>
Status LmdbStore::Update(std::string_view what, uint64_t records, uint64_t bytes, bool range,
                         Body&& body) {
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(env_, nullptr, 0, &txn);
  if (rc != MDB_SUCCESS) return Error(rc, std::string(what) + ": begin write transaction");
  if (Status backed =
          budget_.Back(env_, LmdbBoundNewPages(txn, dbis_, records, bytes, range), what);
      !backed.ok()) {
    mdb_txn_abort(txn);
    return backed;
  }
  rc = body(txn);
  if (rc != MDB_SUCCESS) {
    mdb_txn_abort(txn);
    return Error(rc, what);
  }
  rc = mdb_txn_commit(txn);  // frees txn, also on failure
  if (rc != MDB_SUCCESS) return Error(rc, std::string(what) + ": commit");
  return Status::OK();
}

Status LmdbStore::Get(std::string_view key, std::string* value) {
  if (!PossibleKey(key)) return Status::NotFound();
  MDB_txn* txn = nullptr;
  KVLAB_RETURN_IF_ERROR(AcquireRead(&txn));
  MDB_val k = ToVal(key), v{0, nullptr};
  const int rc = mdb_get(txn, Dbi(key), &k, &v);
  if (rc == MDB_SUCCESS) value->assign(ToView(v));
  ReleaseRead(txn);
  if (rc == MDB_NOTFOUND) return Status::NotFound();
  return rc == MDB_SUCCESS ? Status::OK() : Error(rc, "get");
}

Status LmdbStore::MultiGet(const std::vector<std::string_view>& keys,
                           std::vector<std::optional<std::string>>* values) {
  values->assign(keys.size(), std::nullopt);
  MDB_txn* txn = nullptr;
  KVLAB_RETURN_IF_ERROR(AcquireRead(&txn));
  int rc = MDB_SUCCESS;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!PossibleKey(keys[i])) continue;
    MDB_val k = ToVal(keys[i]), v{0, nullptr};
    rc = mdb_get(txn, Dbi(keys[i]), &k, &v);
    if (rc == MDB_SUCCESS) {
      (*values)[i].emplace(ToView(v));
    } else if (rc != MDB_NOTFOUND) {
      break;
    }
  }
  ReleaseRead(txn);
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
    values->assign(keys.size(), std::nullopt);
    return Error(rc, "multiget");
  }
  return Status::OK();
}

Status LmdbStore::Put(std::string_view key, std::string_view value) {
  KVLAB_RETURN_IF_ERROR(ValidateKey("lmdb", key, max_key_));
  return Update("put", 1, key.size() + value.size(), false, [&](MDB_txn* txn) {
    MDB_val k = ToVal(key), v = ToVal(value);
    return mdb_put(txn, Dbi(key), &k, &v, 0);
  });
}

Status LmdbStore::Delete(std::string_view key) {
  KVLAB_RETURN_IF_ERROR(ValidateKey("lmdb", key, max_key_));
  return Update("delete", 1, key.size(), false, [&](MDB_txn* txn) {
    MDB_val k = ToVal(key);
    const int rc = mdb_del(txn, Dbi(key), &k, nullptr);
    return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
  });
}

namespace {

// Deletes [begin, end) inside txn: LMDB has no range delete, so a cursor walks the range.
int DeleteRangeIn(MDB_txn* txn, MDB_dbi dbi, std::string_view begin, std::string_view end) {
  if (!(begin < end)) return MDB_SUCCESS;
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn, dbi, &cursor);
  if (rc != MDB_SUCCESS) return rc;
  MDB_val k{0, nullptr}, v{0, nullptr};
  // Position on the first key >= begin; an empty begin (which LMDB rejects) is the start.
  if (begin.empty()) {
    rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST);
  } else {
    k = ToVal(begin);
    rc = mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE);
  }
  // After mdb_cursor_del the cursor rests on the entry that followed the deleted one, and
  // the next MDB_NEXT returns that entry rather than skipping it.
  while (rc == MDB_SUCCESS && ToView(k) < end) {
    rc = mdb_cursor_del(cursor, 0);
    if (rc == MDB_SUCCESS) rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

}  // namespace

int LmdbStore::DeleteRangeInSpaces(MDB_txn* txn, std::string_view begin,
                                   std::string_view end) const {
  for (size_t space = 0; space < spaces_.size(); ++space) {
    std::optional<std::string> b, e;
    if (!spaces_.Clip(space, begin, end, &b, &e)) continue;
    if (int rc = DeleteRangeIn(txn, dbis_[space], *b, *e); rc != MDB_SUCCESS) return rc;
  }
  return MDB_SUCCESS;
}

Status LmdbStore::DeleteRange(std::string_view begin, std::string_view end) {
  if (!(begin < end)) return Status::OK();
  return Update("delete range", 0, 0, true,
                [&](MDB_txn* txn) { return DeleteRangeInSpaces(txn, begin, end); });
}

Status LmdbStore::Write(const WriteBatch& batch) {
  KVLAB_RETURN_IF_ERROR(ValidateBatch("lmdb", batch, max_key_));
  if (batch.empty()) return Status::OK();
  const bool range = std::any_of(batch.records().begin(), batch.records().end(), [](const auto& r) {
    return r.op == WriteBatch::Op::kDeleteRange;
  });
  return Update("write batch", batch.size(), batch.bytes(), range, [&](MDB_txn* txn) {
    for (const WriteBatch::Record& r : batch.records()) {
      MDB_val k = ToVal(r.key);
      int rc;
      if (r.op == WriteBatch::Op::kPut) {
        MDB_val v = ToVal(r.value);
        rc = mdb_put(txn, Dbi(r.key), &k, &v, 0);
      } else if (r.op == WriteBatch::Op::kDeleteRange) {
        rc = r.key < r.value ? DeleteRangeInSpaces(txn, r.key, r.value) : MDB_SUCCESS;
      } else {
        rc = mdb_del(txn, Dbi(r.key), &k, nullptr);
        if (rc == MDB_NOTFOUND) rc = MDB_SUCCESS;
      }
      if (rc != MDB_SUCCESS) return rc;
    }
    return MDB_SUCCESS;
  });
}

std::unique_ptr<Iterator> LmdbStore::NewIterator(const IteratorOptions& options) {
  MDB_txn* raw = nullptr;
  Status acquired = AcquireRead(&raw);
  std::shared_ptr<MDB_txn> txn(raw, [this](MDB_txn* t) {
    if (t != nullptr) ReleaseRead(t);
  });
  return NewSpacedIterator(spaces_, options, [&](size_t space, const IteratorOptions& o) {
    return std::make_unique<LmdbIterator>(this, dbis_[space], txn, acquired, o);
  });
}

Status LmdbStore::Flush() {
  if (read_only_) return Status::OK();  // nothing written, and LMDB refuses to sync (EACCES)
  const int rc = mdb_env_sync(env_, 1);
  return rc == MDB_SUCCESS ? Status::OK() : Error(rc, "sync");
}

PhysicalCounters LmdbStore::ReadPhysicalCounters() {
  PhysicalCounters out;
  MDB_txn* txn = nullptr;
  if (AcquireRead(&txn).ok()) {
    // With key spaces: the totals over every named database (depth: the deepest), then each
    // database's own depth, leaf pages and entries ("lmdb.kv_m-23.depth").
    MDB_stat total{};
    PhysicalCounters per_space;
    int rc = MDB_SUCCESS;
    for (size_t space = 0; space < dbis_.size() && rc == MDB_SUCCESS; ++space) {
      MDB_stat st{};
      if ((rc = mdb_stat(txn, dbis_[space], &st)) != MDB_SUCCESS) break;
      total.ms_depth = std::max(total.ms_depth, st.ms_depth);
      total.ms_branch_pages += st.ms_branch_pages;
      total.ms_leaf_pages += st.ms_leaf_pages;
      total.ms_overflow_pages += st.ms_overflow_pages;
      total.ms_entries += st.ms_entries;
      total.ms_psize = st.ms_psize;
      if (spaces_.partitioned()) {
        const std::string name = "lmdb." + spaces_.Name(space) + ".";
        per_space.emplace_back(name + "depth", st.ms_depth);
        per_space.emplace_back(name + "leaf_pages", st.ms_leaf_pages);
        per_space.emplace_back(name + "entries", st.ms_entries);
      }
    }
    ReleaseRead(txn);
    if (rc == MDB_SUCCESS) {
      out.emplace_back("lmdb.depth", total.ms_depth);
      out.emplace_back("lmdb.branch_pages", total.ms_branch_pages);
      out.emplace_back("lmdb.leaf_pages", total.ms_leaf_pages);
      out.emplace_back("lmdb.overflow_pages", total.ms_overflow_pages);
      out.emplace_back("lmdb.entries", total.ms_entries);
      out.emplace_back("lmdb.page_size", total.ms_psize);
      out.insert(out.end(), per_space.begin(), per_space.end());
    }
  }
  MDB_envinfo info{};
  if (mdb_env_info(env_, &info) == MDB_SUCCESS) {
    out.emplace_back("lmdb.map_size", info.me_mapsize);
    out.emplace_back("lmdb.last_pgno", info.me_last_pgno);
  }
  return out;
}

}  // namespace

std::vector<std::string> LmdbFilesIn(const std::string& dir) {
  // LMDB's data file starts with its two meta pages. A page starts with its header (the page
  // number, a pgno_t = size_t; 2 bytes of padding; 2 bytes of flags; 4 bytes of free-space
  // bounds), and a meta page's body with mm_magic (MDB_MAGIC, 0xBEEFC0DE) and mm_version
  // (MDB_DATA_VERSION, 1), in the machine's byte order (mdb.c: MDB_page, MDB_meta).
  constexpr uint64_t kMetaOffset = sizeof(size_t) + 8;
  constexpr uint32_t kMagicAndVersion[2] = {0xBEEFC0DE, 1};
  const std::filesystem::path d(dir);
  std::vector<std::string> found;
  if (FileHasBytesAt(d / "data.mdb", kMetaOffset,
                     std::string_view(reinterpret_cast<const char*>(kMagicAndVersion),
                                      sizeof(kMagicAndVersion)))) {
    found.push_back("data.mdb");
    if (IsRegularFile(d / "lock.mdb")) found.push_back("lock.mdb");
  }
  return found;
}

Status OpenLmdbStore(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  ChecksumStore* none = nullptr;
  return OpenLmdbStoreWith(options, /*checksums=*/false, /*read_only=*/false, store, &none);
}

Status OpenLmdbStoreWith(const StoreOptions& options, bool checksums, bool read_only,
                         std::unique_ptr<KvStore>* store, ChecksumStore** checksum_layer) {
  std::unique_ptr<KvStore> lmdb;
  KVLAB_RETURN_IF_ERROR(LmdbStore::Open(options, read_only, &lmdb));
  *checksum_layer = nullptr;
  if (checksums) {
    auto layer = std::make_unique<ChecksumStore>(std::move(lmdb));
    *checksum_layer = layer.get();
    lmdb = std::move(layer);
  }
  *store = std::make_unique<LongKeyStore>(std::move(lmdb));
  return Status::OK();
}

}  // namespace kvlab::backends
