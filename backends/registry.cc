#include "backends/registry.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/etcd_store.h"
#include "backends/kv_store_wrapper.h"
#include "backends/lmdb_store.h"
#include "backends/memory_store.h"
#include "backends/rocksdb_store.h"
#include "backends/store_marker.h"
#include "backends/wiredtiger_store.h"

namespace kvlab::backends {
namespace fs = std::filesystem;

namespace {

constexpr const char* kMarkerFile = "KVLAB_STORE";

using OpenFn = Status (*)(const StoreOptions&, std::unique_ptr<KvStore>*);
using FilesInFn = std::vector<std::string> (*)(const std::string& dir);

// A backend as the registry knows it.
struct BackendRow {
  const char* name;  // as in BackendNames()
  // How messages name its files: "the directory holds RocksDB files (CURRENT, IDENTITY)".
  const char* files_title;
  OpenFn open;
  // The files of a directory that only this backend writes (its own FilesIn): a store's marker
  // must name the backend whose files it holds.
  FilesInFn files_in;
};

const BackendRow kBackendRows[] = {
    {"memory", "memory", &MemoryStore::Open, &MemoryStore::FilesIn},
    {"rocksdb", "RocksDB", &OpenRocksDbStore, &RocksDbFilesIn},
    {"lmdb", "LMDB", &OpenLmdbStore, &LmdbFilesIn},
    {"wiredtiger", "WiredTiger", &OpenWiredTigerStore, &WiredTigerFilesIn},
    // Opened with its EtcdOptions in OpenStore; this entry says the name is known.
    {"etcd", "etcd",
     [](const StoreOptions& options, std::unique_ptr<KvStore>* out) {
       return OpenEtcdStore(options, EtcdOptions(), out);
     },
     &EtcdFilesIn},
};

OpenFn FindBackend(const std::string& name) {
  for (const BackendRow& row : kBackendRows) {
    if (name == row.name) return row.open;
  }
  return nullptr;
}

// "RocksDB files (CURRENT, IDENTITY)" for every backend but `except` whose files dir holds,
// joined with " and "; empty when there are none.
std::string ForeignFiles(const std::string& dir, const std::string& except) {
  std::string out;
  for (const BackendRow& row : kBackendRows) {
    if (row.name == except) continue;
    const std::vector<std::string> files = row.files_in(dir);
    if (files.empty()) continue;
    std::string names;
    for (const std::string& f : files) names += (names.empty() ? "" : ", ") + f;
    out += (out.empty() ? "" : " and ") + std::string(row.files_title) + " files (" + names + ")";
  }
  return out;
}

using FormatRecord = std::vector<std::pair<std::string, std::string>>;

std::string MarkerText(const std::string& backend, const FormatRecord& format) {
  std::string text = "kvlab-store 2\nbackend " + backend + "\n";
  for (const auto& [name, value] : format) text += "format " + name + " " + value + "\n";
  return text;
}

// "layout=1 namespace_prefix= md5_prefix=no", for messages.
std::string Describe(const FormatRecord& format) {
  std::string out;
  for (const auto& [name, value] : format) out += (out.empty() ? "" : " ") + name + "=" + value;
  return out.empty() ? "(no format record)" : out;
}

// What a marker says: its version, backend and format record. False when it is not a marker.
bool ParseMarker(const std::string& text, int* version, std::string* backend,
                 FormatRecord* format) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return false;
  if (line == "kvlab-store 1") {
    *version = 1;
  } else if (line == "kvlab-store 2") {
    *version = 2;
  } else {
    return false;
  }
  if (!std::getline(in, line) || !line.starts_with("backend ")) return false;
  *backend = line.substr(8);
  format->clear();
  while (std::getline(in, line)) {
    if (*version < 2 || !line.starts_with("format ")) return false;
    const size_t space = line.find(' ', 7);
    if (space == std::string::npos) return false;
    format->emplace_back(line.substr(7, space - 7), line.substr(space + 1));
  }
  return true;
}

constexpr const char* kKeySpacesEntry = "key_spaces";

// The key_spaces entry of a format record: the prefixes, comma-separated, each as is when it is
// printable ASCII without spaces or commas, else "0x" and its hex.
std::string KeySpacesValue(const std::vector<std::string>& prefixes) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const std::string& p : prefixes) {
    const bool plain =
        std::all_of(p.begin(), p.end(), [](char c) { return c > ' ' && c < 0x7f && c != ','; });
    std::string v = plain ? p : "0x";
    if (!plain) {
      for (unsigned char c : p) {
        v += kHex[c >> 4];
        v += kHex[c & 15];
      }
    }
    out += (out.empty() ? "" : ",") + v;
  }
  return out;
}

// The value of `name` in a record, or "" when absent.
std::string EntryOf(const FormatRecord& format, std::string_view name) {
  for (const auto& [n, v] : format) {
    if (n == name) return v;
  }
  return "";
}

// The top of a store opened read-only (StoreSpec::read_only): every write is refused, named,
// before it reaches the backend (which would refuse it in its own words, or, the memory backend
// and etcd, apply it).
class ReadOnlyStore final : public KvStoreWrapper {
 public:
  ReadOnlyStore(std::unique_ptr<KvStore> base, std::string backend)
      : KvStoreWrapper(std::move(base)), backend_(std::move(backend)) {}

  Status Put(std::string_view, std::string_view) override { return Refuse(); }
  Status Delete(std::string_view) override { return Refuse(); }
  Status DeleteRange(std::string_view, std::string_view) override { return Refuse(); }
  Status Write(const WriteBatch&) override { return Refuse(); }

 private:
  Status Refuse() const {
    return Status::NotSupported(backend_ + ": the store is open read-only: writes are refused");
  }
  const std::string backend_;
};

// Checks that dir is usable for `backend` without changing anything in it. Sets *fresh when the
// directory is absent or empty, i.e. a new store will be created, and *adopt when the store has
// no format record yet (marker version 1) and `format` is to be written into it.
Status CheckDirectory(const std::string& backend, const std::string& dir,
                      const FormatRecord& format, bool* fresh, bool* adopt, bool* checksums) {
  const std::string where = backend + ": " + dir + ": ";
  *adopt = false;
  *checksums = false;
  std::error_code ec;
  fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) {
    *fresh = true;
    return Status::OK();
  }
  if (!fs::is_directory(st)) return Status::InvalidArgument(where + "not a directory");
  if (fs::is_empty(dir, ec)) {
    *fresh = true;
    return Status::OK();
  }
  *fresh = false;
  std::ifstream marker(fs::path(dir) / kMarkerFile);
  if (!marker) {
    const std::string found = ForeignFiles(dir, "");
    return Status::InvalidArgument(where + "not a kvlab store (no " + kMarkerFile +
                                   " file, and the directory is not empty" +
                                   (found.empty() ? "" : ": it holds " + found) + ")");
  }
  std::stringstream text;
  text << marker.rdbuf();
  int version = 0;
  std::string stored_backend;
  FormatRecord stored;
  if (!ParseMarker(text.str(), &version, &stored_backend, &stored)) {
    return Status::InvalidArgument(where + "unrecognised " + kMarkerFile + " file");
  }
  if (FindBackend(stored_backend) == nullptr) {
    return Status::InvalidArgument(where + "unrecognised " + kMarkerFile + " file");
  }
  // The marker is the store's word, its files are the facts: a marker edited or copied to name
  // another backend would have that backend open over files it cannot read, serve an empty
  // store and write its own files beside them.
  if (const std::string found = ForeignFiles(dir, stored_backend); !found.empty()) {
    return Status::InvalidArgument(where + "the directory holds " + found + " but its " +
                                   kMarkerFile + " marker names " + stored_backend +
                                   ": the marker must name the backend whose files these are "
                                   "(was it edited, or were files copied in from another "
                                   "store?); nothing was opened");
  }
  if (stored_backend != backend) {
    return Status::InvalidArgument(where + "is a " + stored_backend + " store, not a " + backend +
                                   " store");
  }
  // Whether values carry checksums is the store's, written at its creation (checksum_store.h);
  // the opener does not name it, so it is not part of the comparison below.
  for (auto it = stored.begin(); it != stored.end(); ++it) {
    if (it->first != ChecksumStore::kFormatEntry) continue;
    if (it->second != ChecksumStore::kFormatValue) {
      return Status::InvalidArgument(where + "the store's values carry checksums of kind '" +
                                     it->second + "', which this kvlab does not know (it knows " +
                                     ChecksumStore::kFormatValue + ")");
    }
    *checksums = true;
    stored.erase(it);
    break;
  }
  // Checked for every opener, raw KV tools included: without its key spaces a store shows only
  // part of its records.
  if (const std::string stored_spaces = EntryOf(stored, kKeySpacesEntry),
      wanted_spaces = EntryOf(format, kKeySpacesEntry);
      stored_spaces != wanted_spaces) {
    auto describe = [](const std::string& v) { return v.empty() ? std::string("none") : v; };
    return Status::InvalidArgument(where + "the store was written with key spaces " +
                                   describe(stored_spaces) + ", and is opened with " +
                                   describe(wanted_spaces) +
                                   ": part of its records would be out of view (open it with "
                                   "the options it was written with)");
  }
  if (format.empty()) return Status::OK();
  if (version == 1) {
    *adopt = true;
    return Status::OK();
  }
  if (stored != format) {
    return Status::InvalidArgument(
        where + "the store was written with " + Describe(stored) + ", and is opened with " +
        Describe(format) +
        ": its keys would not be found, and new ones would mix two layouts (open it with the "
        "options it was written with)");
  }
  return Status::OK();
}

// Writes the marker at path (the store's first open, or adopting a format record). The lock,
// when held, is on the file's inode, which rewriting in place keeps.
Status WriteMarker(const std::string& backend, const std::string& path,
                   const FormatRecord& format) {
  std::ofstream out(path, std::ios::trunc);
  out << MarkerText(backend, format);
  out.flush();
  if (!out) return Status::IOError(backend + ": cannot write " + path);
  return Status::OK();
}

// Opens (creating if needed) the marker and takes an exclusive, non-blocking flock on it.
Status LockDirectory(const std::string& backend, const std::string& dir, bool fresh,
                     const FormatRecord& format, int* fd) {
  const std::string path = (fs::path(dir) / kMarkerFile).string();
  if (fresh) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Status::IOError(backend + ": cannot create " + dir + ": " + ec.message());
    KVLAB_RETURN_IF_ERROR(WriteMarker(backend, path, format));
  }
  *fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0) return Status::IOError(backend + ": cannot open " + path + ": " + strerror(errno));
  if (::flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(*fd);
    *fd = -1;
    if (err == EWOULDBLOCK) {
      return Status::Busy(backend + ": " + dir + ": the store is in use by another process");
    }
    return Status::IOError(backend + ": cannot lock " + path + ": " + strerror(err));
  }
  return Status::OK();
}

}  // namespace

std::string MarkedBackend(const std::string& dir) {
  if (dir.empty()) return "";
  std::ifstream marker(fs::path(dir) / kMarkerFile);
  if (!marker) return "";
  std::stringstream text;
  text << marker.rdbuf();
  int version = 0;
  std::string backend;
  FormatRecord format;
  if (!ParseMarker(text.str(), &version, &backend, &format)) return "";
  return FindBackend(backend) == nullptr ? "" : backend;
}

const std::vector<std::string>& BackendNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const BackendRow& row : kBackendRows) names.push_back(row.name);
    return names;
  }();
  return kNames;
}

const std::vector<std::string>& EmbeddedBackendNames() {
  static const std::vector<std::string> kNames = {"memory", "rocksdb", "lmdb", "wiredtiger"};
  return kNames;
}

const std::vector<std::string>& PersistentEmbeddedBackendNames() {
  static const std::vector<std::string> kNames = {"rocksdb", "lmdb", "wiredtiger"};
  return kNames;
}

std::string BackendOfColumn(std::string_view column) {
  return std::string(column.substr(0, column.find(':')));
}

Status ParseBackendColumn(std::string_view column, const std::vector<std::string>& record_kinds,
                          StoreSpec* out) {
  const std::string backend = BackendOfColumn(column);
  const auto& names = BackendNames();
  if (std::find(names.begin(), names.end(), backend) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown backend '" + backend + "' in '" + std::string(column) +
                                   "' (known: " + known + ")");
  }
  bool noreverse = false, cf = false, plaindelete = false, dtc = false, scanflush = false,
       scancompact = false, rtt = false, page = false;
  uint64_t scan_flush_trigger = 0, scan_compact_trigger = 0, rtt_us = 0, page_rows = 0;
  std::string_view rest = column.substr(backend.size());
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the ':'
    std::string_view modifier = rest.substr(0, rest.find(':'));
    rest.remove_prefix(modifier.size());
    // The modifiers that take a positive number: NAME=N.
    struct Numeric {
      std::string_view name;
      uint64_t* value;
      const char* meaning;
    };
    const Numeric numerics[] = {
        {"scanflush", &scan_flush_trigger,
         "a positive count of deleted records a scan steps over, e.g. :scanflush=64"},
        {"scancompact", &scan_compact_trigger,
         "a positive count of deleted records a scan steps over, e.g. :scancompact=64"},
        {"rtt", &rtt_us, "a positive round-trip time in microseconds, e.g. :rtt=2000"},
        {"page", &page_rows, "a positive count of rows per scan round trip, e.g. :page=100"},
    };
    for (const Numeric& numeric : numerics) {
      // "rtt" alone is a numeric modifier without its number, not an unknown one.
      if (!modifier.starts_with(numeric.name) ||
          (modifier.size() > numeric.name.size() && modifier[numeric.name.size()] != '=')) {
        continue;
      }
      const std::string_view n =
          modifier.substr(std::min(modifier.size(), numeric.name.size() + 1));
      const auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), *numeric.value);
      if (ec != std::errc() || end != n.data() + n.size() || *numeric.value == 0 ||
          (numeric.value == &page_rows && page_rows > 1000000)) {
        return Status::InvalidArgument("bad backend column '" + std::string(column) + "': " +
                                       std::string(numeric.name) + "= takes " + numeric.meaning);
      }
      modifier = numeric.name;
    }
    bool* seen = modifier == "noreverse"     ? &noreverse
                 : modifier == "cf"          ? &cf
                 : modifier == "plaindelete" ? &plaindelete
                 : modifier == "dtc"         ? &dtc
                 : modifier == "scanflush"   ? &scanflush
                 : modifier == "scancompact" ? &scancompact
                 : modifier == "rtt"         ? &rtt
                 : modifier == "page"        ? &page
                                             : nullptr;
    if (seen == nullptr || *seen) {
      return Status::InvalidArgument(
          "bad backend column '" + std::string(column) + "': " +
          (seen == nullptr ? "unknown" : "repeated") + " modifier '" + std::string(modifier) +
          "' (expected NAME, then any of :noreverse (no reverse scan), :cf (record kinds in "
          "column families, named databases or tables), :rtt=US and :page=N (the remote-store "
          "emulation: a round trip of US microseconds per KV call, N rows per scan round trip), "
          "and for rocksdb :plaindelete (SingleDelete as Delete), :dtc (deletion-triggered "
          "compaction), :scanflush=N (a scan over N memtable tombstones flushes the "
          "memtable) and :scancompact=N (a scan over N tombstones compacts the range it "
          "walked))");
    }
    if ((seen == &plaindelete || seen == &dtc || seen == &scanflush || seen == &scancompact) &&
        backend != "rocksdb") {
      return Status::InvalidArgument("bad backend column '" + std::string(column) +
                                     "': modifier '" + std::string(modifier) +
                                     "' applies to rocksdb only");
    }
    *seen = true;
  }
  if (page && !rtt) {
    return Status::InvalidArgument("bad backend column '" + std::string(column) +
                                   "': :page=N sets the emulated remote store's scan page, so "
                                   "it needs :rtt=US in the same column");
  }
  out->backend = backend;
  if (noreverse) out->no_reverse_scan = true;
  if (cf) out->options.key_spaces = record_kinds;
  if (plaindelete) out->options.rocksdb_single_delete = false;
  if (dtc) out->options.rocksdb_compact_on_deletion = true;
  if (scanflush) out->options.rocksdb_scan_flush_trigger = scan_flush_trigger;
  if (scancompact) out->options.rocksdb_scan_compact_trigger = scan_compact_trigger;
  if (rtt) {
    // The column's emulation replaces --rtt-us and --scan-page for this column.
    out->remote_latency = true;
    out->remote.round_trip = std::chrono::microseconds(rtt_us);
    out->remote.scan_page_rows = page ? static_cast<uint32_t>(page_rows) : 100;
  }
  return Status::OK();
}

OpenedStore::~OpenedStore() { Close(); }

Status OpenedStore::CompactAll() {
  if (!compact_all_) {
    return Status::NotSupported(backend_ +
                                " does not compact; its space is reclaimed by the "
                                "collector (kvlab gc)");
  }
  return compact_all_();
}

void OpenedStore::Close() {
  compact_all_ = nullptr;
  base_ = nullptr;
  checksums_ = nullptr;
  store_.reset();
  remote_ = nullptr;
  disk_guard_ = nullptr;
  if (lock_fd_ >= 0) {
    ::close(lock_fd_);
    lock_fd_ = -1;
  }
  if (temporary_ && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    temporary_ = false;
  }
}

Status OpenStore(const StoreSpec& spec, std::unique_ptr<OpenedStore>* out) {
  OpenFn open = FindBackend(spec.backend);
  if (open == nullptr) {
    return Status::InvalidArgument("unknown backend '" + spec.backend +
                                   "' (expected memory, rocksdb, lmdb, wiredtiger or etcd)");
  }
  if (spec.compaction_filter != nullptr && spec.backend != "rocksdb") {
    return Status::InvalidArgument(
        "a compaction filter needs RocksDB: " + spec.backend +
        " does not compact (reclaim its space with the collector: kvlab gc)");
  }
  if (spec.remote_latency && spec.remote.scan_page_rows == 0) {
    return Status::InvalidArgument("the scan page size must be at least 1 row");
  }
  if (spec.read_only && spec.options.dir.empty()) {
    return Status::InvalidArgument(spec.backend +
                                   ": a read-only open needs the directory of an existing store");
  }
  std::unique_ptr<OpenedStore> opened(new OpenedStore());
  opened->backend_ = spec.backend;
  StoreOptions options = spec.options;
  if (options.dir.empty()) {
    std::string templ =
        (fs::temp_directory_path() / ("kvlab-" + spec.backend + "-XXXXXX")).string();
    if (::mkdtemp(templ.data()) == nullptr) {
      return Status::IOError(spec.backend +
                             ": cannot create a temporary directory: " + strerror(errno));
    }
    options.dir = templ;
    opened->temporary_ = true;
  }
  opened->dir_ = options.dir;

  // The reserve must cover what the backend writes on its own while writes are refused; one
  // too small for it is refused before the backend opens (disk_guard_store.h).
  const bool guarded = spec.disk_reserve.enabled() && !spec.read_only && spec.backend != "memory" &&
                       spec.backend != "etcd";
  DiskNeeds disk_needs;
  if (spec.backend == "wiredtiger") disk_needs = WiredTigerDiskNeeds(options);
  if (guarded) {
    KVLAB_RETURN_IF_ERROR(
        CheckDiskReserve(spec.backend, options.dir, spec.disk_reserve, disk_needs));
  }

  // Key spaces decide where the backend looks for records, so they are part of the record
  // whoever opens the store: a store opened with other spaces is refused by the record check
  // before the backend sees it.
  FormatRecord format = spec.format;
  if (!options.key_spaces.empty()) {
    format.emplace_back(kKeySpacesEntry, KeySpacesValue(options.key_spaces));
  }
  bool fresh = false, adopt = false, checksums = false;
  KVLAB_RETURN_IF_ERROR(
      CheckDirectory(spec.backend, options.dir, format, &fresh, &adopt, &checksums));
  if (fresh && spec.read_only) {
    return Status::InvalidArgument(spec.backend + ": " + options.dir +
                                   ": no store to open read-only (the directory is missing or "
                                   "empty); nothing was created");
  }
  // A new LMDB store gets checksums (spec.checksums); an existing one keeps what its record says:
  // an LMDB store from before checksums has none and keeps opening, without them.
  if (fresh) checksums = spec.backend == "lmdb" && spec.checksums;
  FormatRecord written = format;
  if (fresh && checksums) {
    written.emplace_back(ChecksumStore::kFormatEntry, ChecksumStore::kFormatValue);
  }
  KVLAB_RETURN_IF_ERROR(
      LockDirectory(spec.backend, options.dir, fresh, written, &opened->lock_fd_));
  if (adopt && !spec.read_only) {
    // A store from before format records: it takes the opener's (see registry.h). Opened
    // read-only, it keeps none: nothing could be checked, and nothing is written.
    KVLAB_RETURN_IF_ERROR(
        WriteMarker(spec.backend, (fs::path(options.dir) / kMarkerFile).string(), format));
    opened->format_adopted_ = true;
  }

  if (spec.backend == "lmdb" && !fresh && spec.scrub_on_open) {
    LmdbScrubOptions scrub_options;
    scrub_options.checksums = checksums;
    const auto start = std::chrono::steady_clock::now();
    KVLAB_RETURN_IF_ERROR(ScrubLmdbStore(options.dir, scrub_options, &opened->scrub_));
    opened->scrub_seconds_ =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    opened->scrubbed_ = true;
    if (spec.scrub_report != nullptr) *spec.scrub_report = opened->scrub_;
    const LmdbScrubReport& report = opened->scrub_;
    if (spec.scrub_report != nullptr ? report.structural > 0 : report.damaged()) {
      return Status::Corruption(
          DescribeLmdbDamage(options.dir, report) +
          ". LMDB keeps no checksums of its own pages, so kvlab scrubs data.mdb before opening "
          "it; nothing was opened. `kvlab verify --dir " +
          options.dir +
          "` lists the damage: restore the store from a copy, or, to read what is left, open it "
          "with --scrub-on-open=false (LMDB may then answer wrong or crash on the damaged "
          "pages)");
    }
  }

  std::unique_ptr<KvStore> store;
  if (spec.backend == "rocksdb" && spec.read_only) {
    KVLAB_RETURN_IF_ERROR(OpenRocksDbStoreReadOnly(options, &store));
  } else if (spec.backend == "rocksdb") {
    KVLAB_RETURN_IF_ERROR(
        OpenRocksDbStore(options, spec.compaction_filter, &store, &opened->compact_all_));
  } else if (spec.backend == "lmdb") {
    KVLAB_RETURN_IF_ERROR(
        OpenLmdbStoreWith(options, checksums, spec.read_only, &store, &opened->checksums_));
  } else if (spec.backend == "wiredtiger" && spec.read_only) {
    KVLAB_RETURN_IF_ERROR(OpenWiredTigerStoreReadOnly(options, &store));
  } else if (spec.backend == "memory" && spec.read_only) {
    KVLAB_RETURN_IF_ERROR(MemoryStore::OpenReadOnly(options, &store));
  } else if (spec.backend == "etcd") {
    KVLAB_RETURN_IF_ERROR(OpenEtcdStore(options, spec.etcd, &store));
  } else {
    KVLAB_RETURN_IF_ERROR(open(options, &store));
  }
  opened->base_ = store.get();
  if (spec.read_only) store = std::make_unique<ReadOnlyStore>(std::move(store), spec.backend);
  if (guarded) {
    auto guard = std::make_unique<DiskGuardStore>(std::move(store), options.dir, spec.disk_reserve,
                                                  disk_needs);
    opened->disk_guard_ = guard.get();
    store = std::move(guard);
  }
  if (spec.no_reverse_scan) store = std::make_unique<NoReverseScanStore>(std::move(store));
  if (spec.remote_latency) {
    auto remote = std::make_unique<RemoteLatencyStore>(std::move(store), spec.remote);
    opened->remote_ = remote.get();
    store = std::move(remote);
  }
  opened->store_ = std::move(store);
  *out = std::move(opened);
  return Status::OK();
}

namespace {

// Calls f(path, allocated bytes) for every regular file under dir.
template <typename F>
void ForEachFile(const std::string& dir, F f) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st;
    if (it->is_regular_file(ec) && ::stat(it->path().c_str(), &st) == 0) {
      // Allocated blocks, not apparent sizes: LMDB's data file is a sparse file of the map size.
      f(it->path(), static_cast<uint64_t>(st.st_blocks) * 512);
    }
  }
}

}  // namespace

uint64_t DirectorySize(const std::string& dir) {
  uint64_t total = 0;
  ForEachFile(dir, [&](const fs::path&, uint64_t bytes) { total += bytes; });
  return total;
}

bool IsStoreLogFile(const std::string& backend, std::string_view name) {
  if (backend == "rocksdb") {
    return name == "LOG" || name.starts_with("LOG.old.") || name.ends_with(".log");
  }
  if (backend == "wiredtiger") {
    return name.starts_with("WiredTigerLog.") || name.starts_with("WiredTigerPreplog.");
  }
  return false;
}

DiskUsage MeasureDiskUsage(const std::string& backend, const std::string& dir) {
  DiskUsage usage;
  ForEachFile(dir, [&](const fs::path& path, uint64_t bytes) {
    // Only the store's own top-level files can be its logs (a zset v3 store Redis keeps its
    // AOF, which is data, in a sub-directory).
    const bool top_level = path.lexically_relative(dir).parent_path().empty();
    if (top_level && IsStoreLogFile(backend, path.filename().string())) {
      usage.log_bytes += bytes;
    } else {
      usage.data_bytes += bytes;
    }
  });
  return usage;
}

}  // namespace kvlab::backends
