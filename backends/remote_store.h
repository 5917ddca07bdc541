// Decorators that make a local backend behave like a remote, distributed KV store.
//
// NoReverseScanStore takes away reverse iteration, as TiKV and OBKV lack it in Camellia's use
// (see ../shared/notes/camellia.md). Encodings must then choose a forward-only plan, and the
// cost of that plan shows in the counters.
//
// RemoteLatencyStore adds a round-trip delay per call, as a networked KV would:
// - Get, Put, Delete, DeleteRange: one round trip each;
// - MultiGet and Write(batch): one round trip for the whole call;
// - an iterator: one round trip per seek, and one more each time a scan moves past a page of
//   `scan_page_rows` rows (TiKV's scan batch, Camellia's kv.scan.batch = 100).
// The delay is real (the calling thread sleeps), and the round trips are counted, so that a
// report can also compute the simulated time without trusting the sleeps.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

class NoReverseScanStore final : public KvStoreWrapper {
 public:
  explicit NoReverseScanStore(std::unique_ptr<KvStore> base) : KvStoreWrapper(std::move(base)) {}

  std::string name() const override { return target()->name() + "+noreverse"; }
  Capabilities capabilities() const override;
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override;
};

struct RemoteLatencyOptions {
  std::chrono::microseconds round_trip{0};
  uint32_t scan_page_rows = 100;  // REQUIRES: > 0
};

class RemoteLatencyStore final : public KvStoreWrapper {
 public:
  RemoteLatencyStore(std::unique_ptr<KvStore> base, RemoteLatencyOptions options)
      : KvStoreWrapper(std::move(base)), options_(options) {}

  std::string name() const override { return target()->name() + "+remote"; }
  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const WriteBatch& batch) override;
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override;
  // The base store's physical counters, without the round trips (read those from round_trips()).
  PhysicalCounters ReadPhysicalCounters() override;

  // Round trips simulated so far, and the configured delay of each. The only source of the
  // "remote.round_trips" counter of results.
  uint64_t round_trips() const { return round_trips_.load(std::memory_order_relaxed); }
  const RemoteLatencyOptions& options() const { return options_; }

  // Counts one round trip and sleeps for its delay. Public for the iterator.
  void RoundTrip();

 private:
  const RemoteLatencyOptions options_;
  std::atomic<uint64_t> round_trips_{0};
};

}  // namespace kvlab::backends
