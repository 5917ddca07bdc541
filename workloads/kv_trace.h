// KV traces: the exact KV calls one command issues, recorded and replayed.
//
// The engine benchmark's floor for a command is the replay of the command's own trace on the
// raw store: the same gets, multigets, batches, seeks and nexts on the same keys, with no Redis
// parsing, locking, encoding or reply building. That is the raw cost of the KV operations the
// command issues (the primitives backends/kv_bench.cc measures one by one), so the ratio
// engine time / replay time is the engine's own overhead.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::workloads {

struct TraceOp {
  enum class Kind {
    kGet,
    kMultiGet,
    kPut,
    kDelete,
    kDeleteRange,
    kWrite,
    kNewIterator,
    kSeek,
    kSeekForPrev,
    kSeekToFirst,
    kSeekToLast,
    kNext,
    kPrev,
  };
  Kind kind = Kind::kGet;
  int iterator = -1;                  // the iterator an iterator operation acts on
  std::string key;                    // Get, Put, Delete, Seek, SeekForPrev; DeleteRange's begin
  std::string value;                  // Put; DeleteRange's end
  std::vector<std::string> keys;      // MultiGet
  backends::WriteBatch batch;         // Write
  backends::IteratorOptions options;  // NewIterator
};

using KvTrace = std::vector<TraceOp>;

// A KvStore decorator that records every call. Thread-safe; meant for one command at a time.
class TracingStore final : public backends::KvStoreWrapper {
 public:
  // REQUIRES: base outlives this store.
  explicit TracingStore(backends::KvStore* base) : KvStoreWrapper(base) {}

  // The calls since the last Take.
  KvTrace Take();

  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const backends::WriteBatch& batch) override;
  std::unique_ptr<backends::Iterator> NewIterator(
      const backends::IteratorOptions& options) override;

  // Records an operation; for the iterators.
  void Record(TraceOp op);

 private:
  std::mutex mu_;
  KvTrace trace_;
  int next_iterator_ = 0;
};

// Issues the trace's calls on `store` in order, touching every value read and every entry an
// iterator lands on. Returns the first failure (NotFound of a Get is not one).
Status ReplayTrace(const KvTrace& trace, backends::KvStore* store);

}  // namespace kvlab::workloads
