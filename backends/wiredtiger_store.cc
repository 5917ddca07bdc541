// WiredTigerStore: the KvStore contract on WiredTiger 3.2 (Debian's libwiredtiger).
//
// How the contract maps onto WiredTiger:
// - Data: one table, "table:kvlab", key_format=u,value_format=u (raw byte strings). WiredTiger's
//   default collator compares `u` keys with memcmp over the shorter length and then orders the
//   shorter key first (__wt_lex_compare), which is exactly kvlab's unsigned bytewise order.
//   Items carry an explicit size, so embedded 0x00 bytes are ordinary bytes.
// - Key spaces (StoreOptions::key_spaces): each is a table of its own, "table:kvlab_" and the
//   space's name (KeySpaceMap::Name: "table:kvlab_kv_m-23" for "m#"), and the rest stays in
//   "table:kvlab". A session keeps a cursor open on every table; a write transaction spans the
//   tables, so a batch stays atomic; an iterator over several spaces merges one cursor per table,
//   all in one session and one snapshot transaction (key_spaces.h), and an encoding's scan of one
//   record kind uses its table's cursor alone. Opening a store whose kvlab tables are not the
//   requested ones fails, naming both sets.
// - Threads: WT_SESSION and WT_CURSOR are single-threaded objects. The store keeps a
//   mutex-protected pool of idle sessions, each with its table cursor open for the session's
//   life. A call borrows a session, uses it and resets its cursors before handing it back; the
//   pool grows to the peak concurrency (session_max is raised accordingly).
// - Transactions: every write (Put, Delete, DeleteRange, Write) runs in one explicit snapshot
//   transaction, so a batch is atomic. Two transactions updating the same key concurrently get
//   WT_ROLLBACK (WiredTiger detects conflicts per key): the loser rolls back and retries with a
//   short backoff. The engine serializes writers per Redis key, so conflicts are rare and
//   short-lived; after kMaxAttempts the call fails with Busy rather than spinning forever.
//   MultiGet reads in one snapshot transaction, Get is a single auto-committed search.
// - Iterators: an Iterator borrows its own session for its lifetime and holds a snapshot
//   transaction open on it, so it sees one consistent view. A long-lived iterator pins that
//   snapshot, and WiredTiger must keep newer versions in cache (or its lookaside file) until it
//   is destroyed: keep iterators short. Iterators must be destroyed before the store.
// - Iterator memory: key() and value() point into the WT_ITEMs the cursor returned. WiredTiger
//   keeps those valid until the next operation on that cursor, and the iterator's cursor is
//   touched only when the iterator moves, which is exactly the lifetime the contract promises.
// - Bounds: WiredTiger 3.2 has no cursor bounds, so they are emulated: seeks are clamped to the
//   bounds (search_near, then one step to the correct side), and every landing checks
//   lower_bound <= key < upper_bound, leaving the iterator invalid outside them.
// - DeleteRange: WT_SESSION::truncate between two cursors, inside the write transaction. Its
//   stop cursor is inclusive, while kvlab's range is half-open, so the start cursor is placed on
//   the first key >= begin and the stop cursor on the last key < end; when there is no such pair
//   (first >= end) the range is empty and nothing is called. WiredTiger documents that a key
//   inserted concurrently into a range being truncated may survive; the engine never does that,
//   because it serializes work per Redis key.
// - Durability: logging is on (log=(enabled=true)). Every commit writes its log record to the
//   operating system before it returns (transaction_sync=(enabled=true,method=none), which
//   WiredTiger 3.2 maps to WT_LOG_FLUSH), so a completed Write() survives SIGKILL; recovery
//   replays the log on the next open. With sync_writes the method is fsync, so it also survives
//   a machine crash. Flush() is a checkpoint; a background checkpoint runs every minute so that
//   log files can be archived, and closing the connection writes a final one.
// - A full disk: WiredTiger panics on ENOSPC in its eviction or its log, so the space it takes
//   on its own must stay bounded and known (WiredTigerDiskNeeds): log files of a fixed size
//   (WtLogFileBytes), each fallocated whole when it is created, and no preallocated spares
//   (prealloc=false: their count grows each time a switch finds none ready, and each default
//   file is 100 MB). ENOSPC that still reaches a call is NoSpace.
// - Errors: WiredTiger's return codes become kvlab Status codes (NotFound, InvalidArgument,
//   Busy, Corruption, IOError) with WiredTiger's own text; every message starts with
//   "wiredtiger: ". WiredTiger's error and informational messages go to stderr.
// - Counters: store-wide cumulative connection statistics (statistics=(fast)) read from a
//   "statistics:" cursor, plus the store's own count of transactions retried after a conflict.
#include "backends/wiredtiger_store.h"

#include <wiredtiger.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "backends/key_spaces.h"
#include "backends/store_files.h"
#include "backends/wiredtiger_config.h"

namespace kvlab::backends {
namespace {

constexpr const char* kTable = "table:kvlab";
constexpr const char* kTableConfig = "key_format=u,value_format=u";
// Sessions default to snapshot isolation, so begin_transaction needs no configuration string.
constexpr const char* kSessionConfig = "isolation=snapshot";
// Attempts of one transaction before a persistent conflict is reported as Busy (about 10 s).
constexpr int kMaxAttempts = 10000;

std::string_view View(const WT_ITEM& item) {
  return {static_cast<const char*>(item.data), item.size};
}

WT_ITEM Item(std::string_view s) {
  WT_ITEM item{};
  item.data = s.data();
  item.size = s.size();
  return item;
}

// The Status for a WiredTiger return code: "wiredtiger: <what>: <WiredTiger's text>[ (<detail>)]".
// `session` may be null (then wiredtiger_strerror).
Status WtError(WT_SESSION* session, int ret, std::string_view what, std::string_view detail = {}) {
  std::string msg =
      "wiredtiger: " + std::string(what) + ": " +
      (session != nullptr ? session->strerror(session, ret) : wiredtiger_strerror(ret));
  if (!detail.empty()) msg += " (" + std::string(detail) + ")";
  switch (ret) {
    case WT_NOTFOUND:
      return Status::NotFound(std::move(msg));
    case WT_ROLLBACK:
    case WT_PREPARE_CONFLICT:
    case EBUSY:
      return Status::Busy(std::move(msg));
    case WT_DUPLICATE_KEY:
    case EINVAL:
    case ENOTSUP:
      return Status::InvalidArgument(std::move(msg));
    case WT_RUN_RECOVERY:
    case WT_TRY_SALVAGE:
      return Status::Corruption(std::move(msg));
    case ENOSPC:
    case EDQUOT:
      return Status::NoSpace("disk full: " + msg);
    default:
      return Status::IOError(std::move(msg));
  }
}

// Cursor positioning helpers. Each returns 0 when the cursor is positioned on a record, or
// WT_NOTFOUND when there is no such record (or another WiredTiger error).

// The first key >= key.
int AtOrAfter(WT_CURSOR* c, std::string_view key) {
  if (key.empty()) {  // every key is >= the empty string
    c->reset(c);
    return c->next(c);
  }
  WT_ITEM k = Item(key);
  c->set_key(c, &k);
  int exact = 0;
  int ret = c->search_near(c, &exact);
  if (ret == 0 && exact < 0) ret = c->next(c);
  return ret;
}

// The last key <= key (inclusive) or < key (exclusive).
int Before(WT_CURSOR* c, std::string_view key, bool inclusive) {
  if (key.empty()) return WT_NOTFOUND;  // no key is below the empty string
  WT_ITEM k = Item(key);
  c->set_key(c, &k);
  int exact = 0;
  int ret = c->search_near(c, &exact);
  if (ret == 0 && (exact > 0 || (exact == 0 && !inclusive))) ret = c->prev(c);
  return ret;
}

// Forwards WiredTiger's messages to stderr and remembers the last error message, which Open
// appends to its Status (wiredtiger_open's return code alone rarely says what went wrong).
struct EventSink {
  std::mutex mu;
  std::string last_error;
};

// Standard layout with the WT_EVENT_HANDLER first, so the callbacks can recover the sink.
struct EventHandler {
  WT_EVENT_HANDLER base;
  EventSink* sink;
};

int HandleError(WT_EVENT_HANDLER* handler, WT_SESSION*, int, const char* message) {
  EventSink* sink = reinterpret_cast<EventHandler*>(handler)->sink;
  std::fprintf(stderr, "wiredtiger: %s\n", message);
  std::lock_guard lock(sink->mu);
  sink->last_error = message;
  return 0;
}

int HandleMessage(WT_EVENT_HANDLER*, WT_SESSION*, const char* message) {
  std::fprintf(stderr, "wiredtiger: %s\n", message);
  return 0;
}

// Connection statistics reported by ReadPhysicalCounters, all cumulative except the gauge.
struct StatName {
  int key;
  const char* name;
};
constexpr StatName kStats[] = {
    {WT_STAT_CONN_CACHE_PAGES_REQUESTED, "wiredtiger.cache_pages_requested"},
    {WT_STAT_CONN_CACHE_READ, "wiredtiger.cache_pages_read"},
    {WT_STAT_CONN_CACHE_BYTES_READ, "wiredtiger.cache_bytes_read"},
    {WT_STAT_CONN_CACHE_WRITE, "wiredtiger.cache_pages_written"},
    {WT_STAT_CONN_CACHE_BYTES_WRITE, "wiredtiger.cache_bytes_written"},
    {WT_STAT_CONN_CACHE_BYTES_INUSE, "wiredtiger.cache_bytes_inuse"},  // gauge
    {WT_STAT_CONN_CURSOR_SEARCH, "wiredtiger.cursor_search_calls"},
    {WT_STAT_CONN_CURSOR_SEARCH_NEAR, "wiredtiger.cursor_search_near_calls"},
    {WT_STAT_CONN_CURSOR_NEXT, "wiredtiger.cursor_next_calls"},
    {WT_STAT_CONN_CURSOR_PREV, "wiredtiger.cursor_prev_calls"},
    {WT_STAT_CONN_LOG_BYTES_WRITTEN, "wiredtiger.log_bytes_written"},
    {WT_STAT_CONN_TXN_COMMIT, "wiredtiger.txn_commits"},
    {WT_STAT_CONN_TXN_ROLLBACK, "wiredtiger.txn_rollbacks"},
    {WT_STAT_CONN_TXN_UPDATE_CONFLICT, "wiredtiger.txn_update_conflicts"},
    {WT_STAT_CONN_CURSOR_TRUNCATE, "wiredtiger.cursor_truncate_calls"},
};

// A session with its cursors on the tables, one per key space. Used by one thread at a time.
struct WtSession {
  WT_SESSION* session = nullptr;
  std::vector<WT_CURSOR*> cursors;  // opened with the session
  std::vector<WT_CURSOR*> stops;    // DeleteRange's stop cursors, opened on first use

  // Releases page pins so that an idle session holds nothing.
  void Reset() {
    for (WT_CURSOR* c : cursors) c->reset(c);
    for (WT_CURSOR* c : stops) {
      if (c != nullptr) c->reset(c);
    }
  }
};

class WiredTigerStore;

// A session borrowed from the pool, handed back on destruction.
class SessionLease {
 public:
  SessionLease() = default;
  SessionLease(WiredTigerStore* store, std::unique_ptr<WtSession> s)
      : store_(store), s_(std::move(s)) {}
  SessionLease(SessionLease&& o) noexcept = default;
  SessionLease& operator=(SessionLease&& o) noexcept;
  ~SessionLease();

  WtSession* operator->() const { return s_.get(); }
  WtSession& operator*() const { return *s_; }

 private:
  WiredTigerStore* store_ = nullptr;
  std::unique_ptr<WtSession> s_;
};

class WiredTigerStore final : public KvStore {
 public:
  // `read_only`: readonly=true (OpenWiredTigerStoreReadOnly).
  static Status Open(const StoreOptions& options, bool read_only, std::unique_ptr<KvStore>* store);
  ~WiredTigerStore() override;

  std::string name() const override { return "wiredtiger"; }
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

  // Borrows an idle session, or opens a new one.
  Status Acquire(SessionLease* lease);
  void Release(std::unique_ptr<WtSession> s);

 private:
  WiredTigerStore(std::string dir, KeySpaceMap spaces)
      : dir_(std::move(dir)), spaces_(std::move(spaces)) {
    for (size_t space = 0; space < spaces_.size(); ++space) {
      uris_.push_back(space == 0 ? std::string(kTable)
                                 : std::string(kTable) + "_" + spaces_.Name(space));
    }
    handler_.base = {};
    handler_.base.handle_error = &HandleError;
    handler_.base.handle_message = &HandleMessage;
    handler_.sink = &sink_;
  }

  // Runs body(session) -> WiredTiger return code on a borrowed session, inside a snapshot
  // transaction when `txn`, retrying the whole call when WiredTiger answers WT_ROLLBACK.
  template <typename Body>
  Status Run(std::string_view what, bool txn, Body&& body);
  // Truncates [begin, end) of one space's table inside the session's transaction; a WiredTiger
  // return code.
  int DeleteRangeIn(WtSession& s, size_t space, std::string_view begin, std::string_view end);
  // The same over every space.
  int DeleteRangeInSpaces(WtSession& s, std::string_view begin, std::string_view end);
  WT_CURSOR* CursorFor(WtSession& s, std::string_view key) const {
    return s.cursors[spaces_.SpaceOf(key)];
  }
  // Fails when the connection holds kvlab tables other than uris_ (a store written with other
  // key spaces): its records would be out of view. `existing` (read-only): none fails too.
  Status CheckTables(WT_SESSION* session, bool existing) const;

  const std::string dir_;
  const KeySpaceMap spaces_;
  std::vector<std::string> uris_;  // one table per space, in space order
  EventSink sink_;
  EventHandler handler_;
  WT_CONNECTION* conn_ = nullptr;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<WtSession>> idle_;
  std::atomic<uint64_t> conflict_retries_{0};
};

SessionLease& SessionLease::operator=(SessionLease&& o) noexcept {
  if (this != &o) {
    if (s_ != nullptr) store_->Release(std::move(s_));
    store_ = o.store_;
    s_ = std::move(o.s_);
  }
  return *this;
}

SessionLease::~SessionLease() {
  if (s_ != nullptr) store_->Release(std::move(s_));
}

// A session of its own holding a snapshot transaction open: what an iteration reads. The
// iterators of one merged iteration over several tables share it.
struct WtSnapshot {
  explicit WtSnapshot(WiredTigerStore* store) {
    init = store->Acquire(&lease);
    if (!init.ok()) return;
    WT_SESSION* s = lease->session;
    int ret = s->begin_transaction(s, nullptr);
    if (ret != 0) {
      init = WtError(s, ret, "begin the iterator's transaction");
      return;
    }
    in_txn = true;
  }
  ~WtSnapshot() {
    if (in_txn) lease->session->rollback_transaction(lease->session, nullptr);
  }

  SessionLease lease;
  Status init;
  bool in_txn = false;
};

// An iterator over one table in a snapshot. See the contract at the top.
class WiredTigerIterator final : public Iterator {
 public:
  WiredTigerIterator(std::shared_ptr<WtSnapshot> snapshot, size_t space, IteratorOptions options)
      : options_(std::move(options)),
        snapshot_(std::move(snapshot)),
        space_(space),
        init_(snapshot_->init) {}

  bool Valid() const override { return valid_; }
  void Seek(std::string_view target) override {
    if (!Start()) return;
    if (options_.lower_bound && target < *options_.lower_bound) target = *options_.lower_bound;
    Land(AtOrAfter(cursor(), target), "seek");
  }
  void SeekForPrev(std::string_view target) override {
    if (!Start()) return;
    if (options_.upper_bound && target >= *options_.upper_bound) {
      Land(Before(cursor(), *options_.upper_bound, /*inclusive=*/false), "seek for prev");
    } else {
      Land(Before(cursor(), target, /*inclusive=*/true), "seek for prev");
    }
  }
  void SeekToFirst() override {
    if (!Start()) return;
    Land(AtOrAfter(cursor(), options_.lower_bound.value_or("")), "seek to first");
  }
  void SeekToLast() override {
    if (!Start()) return;
    if (options_.upper_bound) {
      Land(Before(cursor(), *options_.upper_bound, /*inclusive=*/false), "seek to last");
    } else {
      WT_CURSOR* c = cursor();
      c->reset(c);
      Land(c->prev(c), "seek to last");
    }
  }
  void Next() override {
    if (!valid_) return;
    Land(cursor()->next(cursor()), "next");
  }
  void Prev() override {
    if (!valid_) return;
    Land(cursor()->prev(cursor()), "prev");
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return init_.ok() ? status_ : init_; }

 private:
  WT_CURSOR* cursor() const { return snapshot_->lease->cursors[space_]; }

  // Prepares a new positioning; false when the iterator could not be set up.
  bool Start() {
    valid_ = false;
    status_ = Status::OK();
    return init_.ok();
  }

  // Lands on the record the cursor is positioned on (ret == 0) when it is within bounds.
  void Land(int ret, const char* what) {
    valid_ = false;
    if (ret == WT_NOTFOUND) return;
    WT_CURSOR* c = cursor();
    WT_ITEM k, v;
    if (ret == 0) ret = c->get_key(c, &k);
    if (ret == 0) ret = c->get_value(c, &v);
    if (ret != 0) {
      status_ = WtError(snapshot_->lease->session, ret, std::string("iterator ") + what);
      return;
    }
    key_ = View(k);
    value_ = View(v);
    valid_ = (!options_.lower_bound || key_ >= *options_.lower_bound) &&
             (!options_.upper_bound || key_ < *options_.upper_bound);
  }

  const IteratorOptions options_;
  const std::shared_ptr<WtSnapshot> snapshot_;
  const size_t space_;
  const Status init_;
  Status status_;
  bool valid_ = false;
  std::string_view key_;
  std::string_view value_;
};

Status WiredTigerStore::Open(const StoreOptions& options, bool read_only,
                             std::unique_ptr<KvStore>* store) {
  KeySpaceMap spaces;
  KVLAB_RETURN_IF_ERROR(KeySpaceMap::Make(options.key_spaces, &spaces));
  std::unique_ptr<WiredTigerStore> s(new WiredTigerStore(options.dir, std::move(spaces)));
  const std::string config = WtOpenConfig(options, read_only);
  int ret = wiredtiger_open(options.dir.c_str(), &s->handler_.base, config.c_str(), &s->conn_);
  if (ret != 0) {
    s->conn_ = nullptr;
    std::lock_guard lock(s->sink_.mu);
    if (read_only) KVLAB_RETURN_IF_ERROR(WtReadOnlyRecoveryError(options.dir, s->sink_.last_error));
    return WtError(nullptr, ret, "cannot open " + options.dir, s->sink_.last_error);
  }
  WT_SESSION* session = nullptr;
  ret = s->conn_->open_session(s->conn_, &s->handler_.base, nullptr, &session);
  if (ret != 0) return WtError(nullptr, ret, "open a session on " + options.dir);
  if (Status st = s->CheckTables(session, read_only); !st.ok()) {
    session->close(session, nullptr);
    return st;
  }
  for (const std::string& uri : read_only ? std::vector<std::string>() : s->uris_) {
    ret = session->create(session, uri.c_str(), kTableConfig);
    if (ret != 0) {
      Status st = WtError(session, ret, "create " + uri + " in " + options.dir);
      session->close(session, nullptr);
      return st;
    }
  }
  session->close(session, nullptr);
  *store = std::move(s);
  return Status::OK();
}

WiredTigerStore::~WiredTigerStore() {
  if (conn_ == nullptr) return;
  idle_.clear();  // closing the connection closes every session and cursor
  int ret = conn_->close(conn_, nullptr);
  if (ret != 0) {
    std::fprintf(stderr, "kvlab: wiredtiger: closing %s: %s\n", dir_.c_str(),
                 wiredtiger_strerror(ret));
  }
}

Capabilities WiredTigerStore::capabilities() const {
  Capabilities c;
  c.reverse_scan = true;
  c.native_delete_range = true;
  c.persistent = true;
  c.crash_safe = true;
  if (spaces_.partitioned()) c.key_space_kind = KeySpaceKind::kTables;
  c.key_space_count = spaces_.size();
  return c;
}

Status WiredTigerStore::CheckTables(WT_SESSION* session, bool existing) const {
  WT_CURSOR* meta = nullptr;
  int ret = session->open_cursor(session, "metadata:", nullptr, nullptr, &meta);
  if (ret != 0) return WtError(session, ret, "open the metadata of " + dir_);
  // kvlab's tables are "table:kvlab" and "table:kvlab_*": the metadata keys from kTable up to
  // the first key past that prefix.
  std::vector<std::string> found;
  // The metadata cursor's keys are strings (key_format=S), not the tables' raw items.
  meta->set_key(meta, kTable);
  int exact = 0;
  ret = meta->search_near(meta, &exact);
  if (ret == 0 && exact < 0) ret = meta->next(meta);
  while (ret == 0) {
    const char* uri = nullptr;
    if ((ret = meta->get_key(meta, &uri)) != 0) break;
    const std::string_view u(uri);
    if (u.substr(0, std::strlen(kTable)) != kTable) break;
    found.emplace_back(u);
    ret = meta->next(meta);
  }
  meta->close(meta);
  if (ret != 0 && ret != WT_NOTFOUND) return WtError(session, ret, "read the metadata of " + dir_);
  if (found.empty() && !existing) return Status::OK();  // a new store
  std::vector<std::string> wanted = uris_;
  std::sort(found.begin(), found.end());
  std::sort(wanted.begin(), wanted.end());
  if (found == wanted) return Status::OK();
  return Status::InvalidArgument("wiredtiger: " + dir_ + " has the tables " +
                                 (found.empty() ? std::string("none") : JoinNames(found)) +
                                 ", not the requested " + JoinNames(wanted));
}

Status WiredTigerStore::Acquire(SessionLease* lease) {
  {
    std::lock_guard lock(pool_mu_);
    if (!idle_.empty()) {
      *lease = SessionLease(this, std::move(idle_.back()));
      idle_.pop_back();
      return Status::OK();
    }
  }
  auto s = std::make_unique<WtSession>();
  int ret = conn_->open_session(conn_, &handler_.base, kSessionConfig, &s->session);
  if (ret != 0) return WtError(nullptr, ret, "open a session");
  for (const std::string& uri : uris_) {
    WT_CURSOR* c = nullptr;
    ret = s->session->open_cursor(s->session, uri.c_str(), nullptr, nullptr, &c);
    if (ret != 0) {
      Status st = WtError(s->session, ret, "open a cursor on " + uri);
      s->session->close(s->session, nullptr);
      return st;
    }
    s->cursors.push_back(c);
  }
  s->stops.assign(uris_.size(), nullptr);
  *lease = SessionLease(this, std::move(s));
  return Status::OK();
}

void WiredTigerStore::Release(std::unique_ptr<WtSession> s) {
  s->Reset();
  std::lock_guard lock(pool_mu_);
  idle_.push_back(std::move(s));
}

template <typename Body>
Status WiredTigerStore::Run(std::string_view what, bool txn, Body&& body) {
  SessionLease lease;
  KVLAB_RETURN_IF_ERROR(Acquire(&lease));
  WT_SESSION* s = lease->session;
  for (int attempt = 1;; ++attempt) {
    int ret = txn ? s->begin_transaction(s, nullptr) : 0;
    if (ret != 0) return WtError(s, ret, std::string(what) + ": begin transaction");
    ret = body(*lease);
    if (txn) {
      // A failed commit has already rolled the transaction back.
      if (ret == 0) {
        ret = s->commit_transaction(s, nullptr);
      } else {
        s->rollback_transaction(s, nullptr);
      }
    }
    lease->Reset();
    if (ret == 0) return Status::OK();
    if (ret != WT_ROLLBACK || attempt >= kMaxAttempts) {
      Status st = WtError(s, ret, what);
      if (ret != WT_ROLLBACK) return st;
      return Status::Busy(st.message() + " (still conflicting after " + std::to_string(attempt) +
                          " attempts)");
    }
    conflict_retries_.fetch_add(1, std::memory_order_relaxed);
    // Let the winner commit: yield at first, then sleep up to 1 ms.
    if (attempt < 8) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 10 * attempt)));
    }
  }
}

Status WiredTigerStore::Get(std::string_view key, std::string* value) {
  if (key.empty()) return Status::NotFound();
  bool found = false;
  KVLAB_RETURN_IF_ERROR(Run("get", /*txn=*/false, [&](WtSession& s) {
    WT_CURSOR* c = CursorFor(s, key);
    WT_ITEM k = Item(key), v;
    c->set_key(c, &k);
    int ret = c->search(c);
    if (ret == 0) ret = c->get_value(c, &v);
    found = ret == 0;
    if (found) value->assign(View(v));
    return ret == WT_NOTFOUND ? 0 : ret;
  }));
  return found ? Status::OK() : Status::NotFound();
}

Status WiredTigerStore::MultiGet(const std::vector<std::string_view>& keys,
                                 std::vector<std::optional<std::string>>* values) {
  return Run("multiget", /*txn=*/true, [&](WtSession& s) {
    values->assign(keys.size(), std::nullopt);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].empty()) continue;
      WT_CURSOR* c = CursorFor(s, keys[i]);
      WT_ITEM k = Item(keys[i]), v;
      c->set_key(c, &k);
      int ret = c->search(c);
      if (ret == WT_NOTFOUND) continue;
      if (ret == 0) ret = c->get_value(c, &v);
      if (ret != 0) return ret;
      (*values)[i].emplace(View(v));
    }
    return 0;
  });
}

Status WiredTigerStore::Put(std::string_view key, std::string_view value) {
  KVLAB_RETURN_IF_ERROR(ValidateKey("wiredtiger", key, capabilities().max_key_bytes));
  return Run("put", /*txn=*/true, [&](WtSession& s) {
    WT_CURSOR* c = CursorFor(s, key);
    WT_ITEM k = Item(key), v = Item(value);
    c->set_key(c, &k);
    c->set_value(c, &v);
    return c->insert(c);
  });
}

Status WiredTigerStore::Delete(std::string_view key) {
  if (key.empty()) return Status::OK();  // never stored, so already absent
  return Run("delete", /*txn=*/true, [&](WtSession& s) {
    WT_CURSOR* c = CursorFor(s, key);
    WT_ITEM k = Item(key);
    c->set_key(c, &k);
    int ret = c->remove(c);
    return ret == WT_NOTFOUND ? 0 : ret;
  });
}

int WiredTigerStore::DeleteRangeInSpaces(WtSession& s, std::string_view begin,
                                         std::string_view end) {
  for (size_t space = 0; space < spaces_.size(); ++space) {
    std::optional<std::string> b, e;
    if (!spaces_.Clip(space, begin, end, &b, &e)) continue;
    if (int ret = DeleteRangeIn(s, space, *b, *e); ret != 0) return ret;
  }
  return 0;
}

int WiredTigerStore::DeleteRangeIn(WtSession& s, size_t space, std::string_view begin,
                                   std::string_view end) {
  if (!(begin < end)) return 0;
  WT_CURSOR* start = s.cursors[space];
  int ret = AtOrAfter(start, begin);
  if (ret != 0) return ret == WT_NOTFOUND ? 0 : ret;
  WT_ITEM first;
  if ((ret = start->get_key(start, &first)) != 0) return ret;
  if (View(first) >= end) return 0;  // no key in [begin, end)
  WT_CURSOR*& stop = s.stops[space];
  if (stop == nullptr) {
    ret = s.session->open_cursor(s.session, uris_[space].c_str(), nullptr, nullptr, &stop);
    if (ret != 0) return ret;
  }
  // The last key < end exists and is >= first, since first < end.
  if ((ret = Before(stop, end, /*inclusive=*/false)) != 0) return ret;
  return s.session->truncate(s.session, nullptr, start, stop, nullptr);
}

Status WiredTigerStore::DeleteRange(std::string_view begin, std::string_view end) {
  if (!(begin < end)) return Status::OK();
  return Run("delete range", /*txn=*/true,
             [&](WtSession& s) { return DeleteRangeInSpaces(s, begin, end); });
}

Status WiredTigerStore::Write(const WriteBatch& batch) {
  KVLAB_RETURN_IF_ERROR(ValidateBatch("wiredtiger", batch, capabilities().max_key_bytes));
  if (batch.empty()) return Status::OK();
  return Run("write batch", /*txn=*/true, [&](WtSession& s) {
    for (const auto& r : batch.records()) {
      if (r.op == WriteBatch::Op::kDeleteRange) {
        // Truncate moves the session's cursors; they are positioned afresh by every record.
        const int ret = r.key < r.value ? DeleteRangeInSpaces(s, r.key, r.value) : 0;
        if (ret != 0) return ret;
        continue;
      }
      WT_CURSOR* c = CursorFor(s, r.key);
      WT_ITEM k = Item(r.key);
      c->set_key(c, &k);
      int ret;
      if (r.op == WriteBatch::Op::kPut) {
        WT_ITEM v = Item(r.value);
        c->set_value(c, &v);
        ret = c->insert(c);
      } else {
        ret = c->remove(c);
        if (ret == WT_NOTFOUND) ret = 0;
      }
      if (ret != 0) return ret;
    }
    return 0;
  });
}

std::unique_ptr<Iterator> WiredTigerStore::NewIterator(const IteratorOptions& options) {
  auto snapshot = std::make_shared<WtSnapshot>(this);
  return NewSpacedIterator(spaces_, options, [&](size_t space, const IteratorOptions& o) {
    return std::make_unique<WiredTigerIterator>(snapshot, space, o);
  });
}

Status WiredTigerStore::Flush() {
  return Run("checkpoint", /*txn=*/false,
             [](WtSession& s) { return s.session->checkpoint(s.session, nullptr); });
}

PhysicalCounters WiredTigerStore::ReadPhysicalCounters() {
  PhysicalCounters out;
  Status st = Run("statistics", /*txn=*/false, [&](WtSession& s) {
    out.clear();
    WT_CURSOR* stats = nullptr;
    int ret = s.session->open_cursor(s.session, "statistics:", nullptr, nullptr, &stats);
    if (ret != 0) return ret;
    for (const StatName& stat : kStats) {
      const char* desc = nullptr;
      const char* printable = nullptr;
      int64_t value = 0;
      stats->set_key(stats, stat.key);
      if ((ret = stats->search(stats)) != 0) break;
      if ((ret = stats->get_value(stats, &desc, &printable, &value)) != 0) break;
      out.emplace_back(stat.name, static_cast<uint64_t>(std::max<int64_t>(value, 0)));
    }
    stats->close(stats);
    return ret;
  });
  if (!st.ok()) {
    std::fprintf(stderr, "kvlab: %s\n", st.message().c_str());
    out.clear();
  }
  out.emplace_back("wiredtiger.conflict_retries", conflict_retries_.load());
  return out;
}

}  // namespace

Status OpenWiredTigerStore(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  return WiredTigerStore::Open(options, /*read_only=*/false, store);
}

Status OpenWiredTigerStoreReadOnly(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  return WiredTigerStore::Open(options, /*read_only=*/true, store);
}

}  // namespace kvlab::backends
