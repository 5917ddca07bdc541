#include "backends/memory_store.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "backends/store_files.h"

namespace kvlab::backends {
namespace {

constexpr char kMagic[8] = {'K', 'V', 'L', 'A', 'B', 'M', 'E', 'M'};
constexpr uint32_t kFormatVersion = 1;

class Fnv1a {
 public:
  void Update(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ull;
  }
  uint64_t value() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

// Appends fixed-width little-endian integers and tracks the checksum.
class SnapshotWriter {
 public:
  explicit SnapshotWriter(std::ofstream* out) : out_(out) {}
  void Bytes(const void* p, size_t n) {
    out_->write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
    fnv_.Update(p, n);
  }
  template <typename T>
  void Int(T v) {
    unsigned char buf[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) buf[i] = static_cast<unsigned char>(v >> (8 * i));
    Bytes(buf, sizeof(T));
  }
  uint64_t checksum() const { return fnv_.value(); }

 private:
  std::ofstream* out_;
  Fnv1a fnv_;
};

class SnapshotReader {
 public:
  explicit SnapshotReader(std::string_view data) : data_(data) {}
  bool Bytes(size_t n, std::string_view* out) {
    if (data_.size() - pos_ < n) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  template <typename T>
  bool Int(T* v) {
    std::string_view b;
    if (!Bytes(sizeof(T), &b)) return false;
    *v = 0;
    for (size_t i = 0; i < sizeof(T); ++i)
      *v |= static_cast<T>(static_cast<unsigned char>(b[i])) << (8 * i);
    return true;
  }
  size_t pos() const { return pos_; }
  std::string_view data() const { return data_; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace

// Re-finds its position by key on every step, so a concurrent writer cannot invalidate it.
class MemoryIterator final : public Iterator {
 public:
  MemoryIterator(const MemoryStore* store, IteratorOptions options)
      : store_(store), options_(std::move(options)) {}

  bool Valid() const override { return valid_; }
  void Seek(std::string_view target) override {
    std::shared_lock lock(store_->mu_);
    if (options_.lower_bound && target < *options_.lower_bound) target = *options_.lower_bound;
    Land(store_->map_.lower_bound(target));
  }
  void SeekForPrev(std::string_view target) override {
    std::shared_lock lock(store_->mu_);
    // The last key <= target, but also < upper_bound.
    auto it = store_->map_.upper_bound(target);
    if (options_.upper_bound && target >= *options_.upper_bound) {
      it = store_->map_.lower_bound(*options_.upper_bound);
    }
    LandBefore(it);
  }
  void SeekToFirst() override {
    std::shared_lock lock(store_->mu_);
    Land(options_.lower_bound ? store_->map_.lower_bound(*options_.lower_bound)
                              : store_->map_.begin());
  }
  void SeekToLast() override {
    std::shared_lock lock(store_->mu_);
    LandBefore(options_.upper_bound ? store_->map_.lower_bound(*options_.upper_bound)
                                    : store_->map_.end());
  }
  void Next() override {
    std::shared_lock lock(store_->mu_);
    Land(store_->map_.upper_bound(key_));
  }
  void Prev() override {
    std::shared_lock lock(store_->mu_);
    LandBefore(store_->map_.lower_bound(key_));
  }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return value_; }
  Status status() const override { return Status::OK(); }

 private:
  using MapIter = MemoryStore::Map::const_iterator;

  // Positions on `it` when it is in bounds. REQUIRES: the shared lock is held.
  void Land(MapIter it) {
    valid_ = it != store_->map_.end() &&
             (!options_.upper_bound || it->first < *options_.upper_bound) &&
             (!options_.lower_bound || it->first >= *options_.lower_bound);
    if (valid_) {
      key_ = it->first;
      value_ = it->second;
    }
  }
  // Positions on the entry before `it`. REQUIRES: the shared lock is held.
  void LandBefore(MapIter it) {
    if (it == store_->map_.begin()) {
      valid_ = false;
      return;
    }
    Land(std::prev(it));
  }

  const MemoryStore* store_;
  const IteratorOptions options_;
  bool valid_ = false;
  std::string key_;
  std::string value_;
};

Status MemoryStore::OpenWith(const StoreOptions& options, bool read_only,
                             std::unique_ptr<KvStore>* store) {
  std::unique_ptr<MemoryStore> s(new MemoryStore(options.dir, read_only));
  if (!options.dir.empty()) KVLAB_RETURN_IF_ERROR(s->LoadSnapshot());
  *store = std::move(s);
  return Status::OK();
}

Status MemoryStore::Open(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  return OpenWith(options, /*read_only=*/false, store);
}

Status MemoryStore::OpenReadOnly(const StoreOptions& options, std::unique_ptr<KvStore>* store) {
  return OpenWith(options, /*read_only=*/true, store);
}

MemoryStore::~MemoryStore() {
  Status s = Flush();
  if (!s.ok()) std::fprintf(stderr, "kvlab: %s\n", s.ToString().c_str());
}

std::vector<std::string> MemoryStore::FilesIn(const std::string& dir) {
  if (FileHasBytesAt(std::filesystem::path(dir) / kSnapshotFile, 0,
                     std::string_view(kMagic, sizeof(kMagic)))) {
    return {kSnapshotFile};
  }
  return {};
}

Capabilities MemoryStore::capabilities() const {
  Capabilities c;
  c.reverse_scan = true;
  c.native_delete_range = false;
  c.persistent = !dir_.empty();
  c.crash_safe = false;
  return c;
}

Status MemoryStore::LoadSnapshot() {
  const std::filesystem::path path = std::filesystem::path(dir_) / kSnapshotFile;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::OK();  // a new store
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SnapshotReader r(data);
  auto corrupt = [&](const char* what) {
    return Status::Corruption("memory: " + path.string() + ": " + what);
  };
  std::string_view magic;
  uint32_t version = 0;
  uint64_t count = 0;
  if (!r.Bytes(sizeof(kMagic), &magic) || std::memcmp(magic.data(), kMagic, sizeof(kMagic)) != 0) {
    return corrupt("not a kvlab memory snapshot (bad magic)");
  }
  if (!r.Int(&version) || version != kFormatVersion) return corrupt("unknown snapshot version");
  if (!r.Int(&count)) return corrupt("truncated header");
  Map loaded;
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t klen = 0, vlen = 0;
    std::string_view k, v;
    if (!r.Int(&klen) || !r.Bytes(klen, &k) || !r.Int(&vlen) || !r.Bytes(vlen, &v)) {
      return corrupt("truncated record");
    }
    loaded.emplace_hint(loaded.end(), std::string(k), std::string(v));
  }
  Fnv1a fnv;
  fnv.Update(r.data().data(), r.pos());
  uint64_t checksum = 0;
  if (!r.Int(&checksum) || checksum != fnv.value()) return corrupt("checksum mismatch");
  if (r.pos() != r.data().size()) return corrupt("trailing bytes");
  map_ = std::move(loaded);
  return Status::OK();
}

Status MemoryStore::Flush() {
  if (dir_.empty() || read_only_) return Status::OK();
  const std::filesystem::path path = std::filesystem::path(dir_) / kSnapshotFile;
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::IOError("memory: cannot write " + tmp.string());
    SnapshotWriter w(&out);
    std::shared_lock lock(mu_);
    w.Bytes(kMagic, sizeof(kMagic));
    w.Int<uint32_t>(kFormatVersion);
    w.Int<uint64_t>(map_.size());
    for (const auto& [k, v] : map_) {
      w.Int<uint32_t>(static_cast<uint32_t>(k.size()));
      w.Bytes(k.data(), k.size());
      w.Int<uint32_t>(static_cast<uint32_t>(v.size()));
      w.Bytes(v.data(), v.size());
    }
    const uint64_t checksum = w.checksum();
    w.Int<uint64_t>(checksum);
    out.flush();
    if (!out) return Status::IOError("memory: short write to " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IOError("memory: rename " + tmp.string() + ": " + ec.message());
  return Status::OK();
}

Status MemoryStore::Get(std::string_view key, std::string* value) {
  std::shared_lock lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return Status::NotFound();
  value->assign(it->second);
  return Status::OK();
}

Status MemoryStore::MultiGet(const std::vector<std::string_view>& keys,
                             std::vector<std::optional<std::string>>* values) {
  values->assign(keys.size(), std::nullopt);
  std::shared_lock lock(mu_);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = map_.find(keys[i]);
    if (it != map_.end()) (*values)[i] = it->second;
  }
  return Status::OK();
}

Status MemoryStore::Put(std::string_view key, std::string_view value) {
  KVLAB_RETURN_IF_ERROR(ValidateKey("memory", key, capabilities().max_key_bytes));
  std::unique_lock lock(mu_);
  map_.insert_or_assign(std::string(key), std::string(value));
  return Status::OK();
}

Status MemoryStore::Delete(std::string_view key) {
  KVLAB_RETURN_IF_ERROR(ValidateKey("memory", key, capabilities().max_key_bytes));
  std::unique_lock lock(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) map_.erase(it);
  return Status::OK();
}

Status MemoryStore::DeleteRange(std::string_view begin, std::string_view end) {
  if (!(begin < end)) return Status::OK();
  std::unique_lock lock(mu_);
  map_.erase(map_.lower_bound(begin), map_.lower_bound(end));
  return Status::OK();
}

Status MemoryStore::Write(const WriteBatch& batch) {
  KVLAB_RETURN_IF_ERROR(ValidateBatch("memory", batch, capabilities().max_key_bytes));
  std::unique_lock lock(mu_);
  for (const auto& r : batch.records()) {
    if (r.op == WriteBatch::Op::kPut) {
      map_.insert_or_assign(r.key, r.value);
    } else if (r.op == WriteBatch::Op::kDeleteRange) {
      if (r.key < r.value) map_.erase(map_.lower_bound(r.key), map_.lower_bound(r.value));
    } else if (auto it = map_.find(r.key); it != map_.end()) {
      map_.erase(it);
    }
  }
  return Status::OK();
}

std::unique_ptr<Iterator> MemoryStore::NewIterator(const IteratorOptions& options) {
  return std::make_unique<MemoryIterator>(this, options);
}

PhysicalCounters MemoryStore::ReadPhysicalCounters() {
  std::shared_lock lock(mu_);
  return {{"memory.entries", map_.size()}};
}

}  // namespace kvlab::backends
