// KvStoreWrapper and IteratorWrapper: a KvStore (an Iterator) that forwards every call to
// another one, as LevelDB's EnvWrapper does for Env. A decorator derives from the wrapper and
// overrides only the calls it changes: counting (CountingStore), remote-store emulation
// (NoReverseScanStore, RemoteLatencyStore), LMDB's long keys (LongKeyStore), tracing
// (workloads' TracingStore). A method added to KvStore is then forwarded by every decorator
// that does not care about it, instead of being forgotten by one.
#pragma once

#include <memory>
#include <utility>

#include "backends/kv_store.h"

namespace kvlab::backends {

class KvStoreWrapper : public KvStore {
 public:
  // Borrows target. REQUIRES: target outlives this store.
  explicit KvStoreWrapper(KvStore* target) : target_(target) {}
  // Owns target.
  explicit KvStoreWrapper(std::unique_ptr<KvStore> target)
      : owned_(std::move(target)), target_(owned_.get()) {}

  // The store calls go to.
  KvStore* target() const { return target_; }

  std::string name() const override { return target_->name(); }
  Capabilities capabilities() const override { return target_->capabilities(); }
  Status Get(std::string_view key, std::string* value) override { return target_->Get(key, value); }
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override {
    return target_->MultiGet(keys, values);
  }
  Status Put(std::string_view key, std::string_view value) override {
    return target_->Put(key, value);
  }
  Status Delete(std::string_view key) override { return target_->Delete(key); }
  Status DeleteRange(std::string_view begin, std::string_view end) override {
    return target_->DeleteRange(begin, end);
  }
  Status Write(const WriteBatch& batch) override { return target_->Write(batch); }
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override {
    return target_->NewIterator(options);
  }
  Status Flush() override { return target_->Flush(); }
  PhysicalCounters ReadPhysicalCounters() override { return target_->ReadPhysicalCounters(); }
  std::vector<PrivateServer> PrivateServers() const override { return target_->PrivateServers(); }

 private:
  std::unique_ptr<KvStore> owned_;
  KvStore* const target_;
};

class IteratorWrapper : public Iterator {
 public:
  explicit IteratorWrapper(std::unique_ptr<Iterator> target) : target_(std::move(target)) {}

  Iterator* target() const { return target_.get(); }

  bool Valid() const override { return target_->Valid(); }
  void Seek(std::string_view key) override { target_->Seek(key); }
  void SeekForPrev(std::string_view key) override { target_->SeekForPrev(key); }
  void SeekToFirst() override { target_->SeekToFirst(); }
  void SeekToLast() override { target_->SeekToLast(); }
  void Next() override { target_->Next(); }
  void Prev() override { target_->Prev(); }
  std::string_view key() const override { return target_->key(); }
  std::string_view value() const override { return target_->value(); }
  Status status() const override { return target_->status(); }

 private:
  std::unique_ptr<Iterator> target_;
};

}  // namespace kvlab::backends
