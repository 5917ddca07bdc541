// PendingWriteStore: a read-your-writes overlay that gathers many atomic writes into one.
//
// Writes to this store (Write, Put, Delete, DeleteRange) do not reach the store underneath:
// they are appended, in order, to one pending WriteBatch and applied to an in-memory index of
// it. Reads (Get, MultiGet, iterators) see the store underneath with the pending writes laid
// over it, exactly as they would see it if the pending batch had been written. Commit() then
// writes the pending batch to the store underneath as one atomic Write, and Discard() drops it.
// This is RocksDB's WriteBatchWithIndex, over any KvStore: the engine runs the commands of a
// MULTI/EXEC transaction over it, so that the transaction lands as one atomic write.
//
// What a pending write looks like to a read:
// - a pending Put or Delete of a key decides that key (value, or absent);
// - a pending DeleteRange hides every key of the store underneath inside [begin, end), and
//   drops the pending writes inside it; a later pending Put of a key inside the range shows it.
//
// Without read-your-writes (the constructor's flag), writes are only gathered: reads see the
// store underneath alone, and cost nothing more than its own. For a caller that does not read
// a key it has pending: the engine's group commit of pipelined writes runs commands on disjoint
// keys so, and turns read-your-writes on (StartReadingYourWrites) at the first command on a key
// written before it in the group (Engine::ExecuteGroup).
//
// Capabilities are the underlying store's: an iterator over a store without reverse scan
// refuses Prev, SeekForPrev and SeekToLast with NotSupported, as the store's own would.
//
// Not thread-safe: one thread writes and reads it (the engine's EXEC, which holds every key
// lock of its commands). The store underneath must not be written by anyone else in between
// for reads to be exact; the engine's key locks see to that.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

class PendingWriteStore final : public KvStoreWrapper {
 public:
  // REQUIRES: target outlives this store and every iterator it returns.
  explicit PendingWriteStore(KvStore* target, bool read_your_writes = true);
  // From now on reads see the pending writes, those gathered before included.
  void StartReadingYourWrites();

  std::string name() const override { return target()->name(); }

  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  // Validates the batch's keys as the store underneath would (so that a batch it would refuse
  // is refused now, and nothing of it is pending), then appends it to the pending batch.
  Status Write(const WriteBatch& batch) override;
  // REQUIRES: the iterator is destroyed before the next write to this store.
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options = {}) override;
  // Flushes the store underneath; pending writes are not part of it.
  Status Flush() override { return target()->Flush(); }

  // Writes the pending batch to the store underneath in one atomic Write, then forgets it,
  // whether the write succeeded or not (after a failure nothing of it was written).
  Status Commit();
  // Forgets the pending writes.
  void Discard();
  // True when writes are pending.
  bool has_pending() const { return !batch_.empty(); }
  const WriteBatch& pending() const { return batch_; }

 private:
  class OverlayIterator;
  // nullopt: a pending Delete (or a key a pending range hides and nothing re-put).
  using Index = std::map<std::string, std::optional<std::string>, std::less<>>;

  // Lays a pending record over the store underneath, for reads.
  void IndexRecord(const WriteBatch::Record& r);
  // True when a pending DeleteRange covers key.
  bool Hidden(std::string_view key) const;

  bool read_your_writes_;
  WriteBatch batch_;
  Index index_;
  std::vector<std::pair<std::string, std::string>> ranges_;  // pending DeleteRange [begin, end)
};

}  // namespace kvlab::backends
