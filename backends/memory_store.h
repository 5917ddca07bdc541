// MemoryStore: the reference ordered KV backend, a std::map under a reader-writer lock.
//
// It is the model the other backends are checked against, so it favours obviousness over
// speed. Its iterators re-find their position by key after every step, which keeps them
// correct while other threads write.
//
// Persistence: Flush() and Close() write the whole map to DIR/memory.snapshot (via a temporary
// file and rename, so a crash leaves the previous snapshot whole), and Open() loads it. Writes
// after the last Flush() are lost on a crash; Capabilities::crash_safe is false.
//
// Snapshot file layout (integers little-endian):
//   magic "KVLABMEM" (8 bytes) | format version u32 = 1 | record count u64
//   repeated: key length u32 | key | value length u32 | value
//   checksum u64: FNV-1a 64 over every byte before it
#pragma once

#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "backends/kv_store.h"

namespace kvlab::backends {

class MemoryStore final : public KvStore {
 public:
  // The name of the snapshot file inside the store's directory.
  static constexpr const char* kSnapshotFile = "memory.snapshot";

  // Opens the store in options.dir, loading its snapshot when present. An empty dir keeps the
  // store purely in memory (nothing is written).
  static Status Open(const StoreOptions& options, std::unique_ptr<KvStore>* store);
  // The same, never writing the snapshot (registry.h, StoreSpec::read_only).
  static Status OpenReadOnly(const StoreOptions& options, std::unique_ptr<KvStore>* store);
  // The files of `dir` that only a memory store writes, by name (empty: none): its snapshot,
  // recognised by its magic. The registry refuses a store whose KVLAB_STORE marker names another
  // backend while it is there (registry.h).
  static std::vector<std::string> FilesIn(const std::string& dir);
  ~MemoryStore() override;

  std::string name() const override { return "memory"; }
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
  friend class MemoryIterator;
  using Map = std::map<std::string, std::string, std::less<>>;

  MemoryStore(std::string dir, bool read_only) : dir_(std::move(dir)), read_only_(read_only) {}
  static Status OpenWith(const StoreOptions& options, bool read_only,
                         std::unique_ptr<KvStore>* store);
  Status LoadSnapshot();

  const std::string dir_;
  const bool read_only_;  // OpenReadOnly: the snapshot is never written
  mutable std::shared_mutex mu_;
  Map map_;
};

}  // namespace kvlab::backends
