// KeptReadsStore: keeps what point reads of a store returned, and answers later reads of the
// same keys from it until they are written through this store.
//
// The engine's pipeline group (Engine::ExecuteGroup) lays it under the group's pending-write
// overlay (PendingWriteStore) while the group holds its keys' locks. redis-benchmark's `HSET
// myhash element:__rand_int__ v` and `ZADD myzset 0 element:__rand_int__` pipeline sixteen
// commands on one key, each of which reads that key's meta; an HSET of an existing field or a
// ZADD of a member with its score writes no meta, so the overlay does not hold it and every
// command read it from the store. Kept, the store is read once per group.
//
// It sits under any counting layer: a read it answers is still a read its caller issued and
// counted (docs/amplification.md). Iterators are the store's own, and do not consult it.
//
// Exact only while the store underneath is written through this store alone (Write, Put,
// Delete, DeleteRange forget the keys they write). Not thread-safe: one thread, the group's.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

class KeptReadsStore final : public KvStoreWrapper {
 public:
  // Values longer than this are not kept: a large string that APPEND or SETRANGE reads would
  // only be copied for nothing.
  static constexpr size_t kMaxKeptValueBytes = 4096;

  // REQUIRES: target outlives this store.
  explicit KeptReadsStore(KvStore* target) : KvStoreWrapper(target) {}

  // While on, what a Get or MultiGet finds in the store underneath (a value, or NotFound) is
  // kept. Kept reads answer whether it is on or not.
  void Keep(bool on) { keep_ = on; }
  // How many reads are kept.
  size_t kept() const { return kept_.size(); }

  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const WriteBatch& batch) override;

 private:
  void KeepRead(std::string_view key, const std::optional<std::string>& value);
  void Forget(const WriteBatch::Record& r);

  bool keep_ = false;
  // nullopt: NotFound. Ordered, so that a range write forgets its range.
  std::map<std::string, std::optional<std::string>, std::less<>> kept_;
};

}  // namespace kvlab::backends
