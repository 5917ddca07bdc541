// ShadowStore: a KvStore view in which some key ranges are read from records held in memory
// instead of from the store underneath.
//
// It gives one command read-your-writes over records it has queued but not committed: a key that
// a write migrates to another encode-version (migrate.h) is rewritten in the command's batch,
// and the write that follows reads it through this view, as RocksDB's WriteBatchWithIndex
// serves reads from a pending batch. Reads of a shadowed range never reach the store, so they
// cost no KV operation; every other call goes to the store as it is.
//
// The view is exact for the shadowed ranges because the store holds nothing in them: they are
// the sub-key prefixes of a key-version (or an Ardb key) that the command itself created.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/kv_store.h"

namespace kvlab::encodings {

class ShadowStore : public backends::KvStore {
 public:
  // REQUIRES: base outlives this view.
  explicit ShadowStore(backends::KvStore* base) : base_(base) {}

  // Serves [begin, end) from memory from now on: from the records written through this view
  // (Put, Delete, Write) and added with Apply.
  // REQUIRES: the store holds no key in [begin, end).
  void AddRange(std::string begin, std::string end);
  // Applies records (a batch's, not written to the store) to the shadowed ranges; records
  // outside them are ignored.
  void Apply(const std::vector<backends::WriteBatch::Record>& records, size_t first);

  std::string name() const override { return base_->name(); }
  backends::Capabilities capabilities() const override { return base_->capabilities(); }
  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  // Writes go to the store, and into the shadowed ranges they touch.
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const backends::WriteBatch& batch) override;
  // An iterator whose bounds lie inside one shadowed range iterates the records in memory;
  // any other iterates the store.
  std::unique_ptr<backends::Iterator> NewIterator(
      const backends::IteratorOptions& options) override;
  Status Flush() override { return base_->Flush(); }
  backends::PhysicalCounters ReadPhysicalCounters() override {
    return base_->ReadPhysicalCounters();
  }
  std::vector<backends::PrivateServer> PrivateServers() const override {
    return base_->PrivateServers();
  }

 private:
  bool Shadowed(std::string_view key) const;
  void ApplyOne(const backends::WriteBatch::Record& r);

  backends::KvStore* base_;
  std::vector<std::pair<std::string, std::string>> ranges_;  // [begin, end)
  std::map<std::string, std::string, std::less<>> records_;
};

}  // namespace kvlab::encodings
