#include "backends/remote_store.h"

#include <time.h>

namespace kvlab::backends {
namespace {

// Forwards forward-only operations; reverse ones end the iteration with NotSupported.
class ForwardOnlyIterator final : public IteratorWrapper {
 public:
  explicit ForwardOnlyIterator(std::unique_ptr<Iterator> base) : IteratorWrapper(std::move(base)) {}

  bool Valid() const override { return !unsupported_ && target()->Valid(); }
  void Seek(std::string_view key) override {
    unsupported_ = false;
    target()->Seek(key);
  }
  void SeekForPrev(std::string_view) override { unsupported_ = true; }
  void SeekToFirst() override {
    unsupported_ = false;
    target()->SeekToFirst();
  }
  void SeekToLast() override { unsupported_ = true; }
  void Prev() override { unsupported_ = true; }
  Status status() const override {
    if (unsupported_) return Status::NotSupported("reverse scan is disabled (--no-reverse-scan)");
    return target()->status();
  }

 private:
  bool unsupported_ = false;
};

// Charges one round trip per seek, and one per page of rows a scan moves through.
class PagedIterator final : public IteratorWrapper {
 public:
  PagedIterator(std::unique_ptr<Iterator> base, RemoteLatencyStore* store)
      : IteratorWrapper(std::move(base)), store_(store) {}

  void Seek(std::string_view key) override {
    NewScan();
    target()->Seek(key);
  }
  void SeekForPrev(std::string_view key) override {
    NewScan();
    target()->SeekForPrev(key);
  }
  void SeekToFirst() override {
    NewScan();
    target()->SeekToFirst();
  }
  void SeekToLast() override {
    NewScan();
    target()->SeekToLast();
  }
  void Next() override {
    Step();
    target()->Next();
  }
  void Prev() override {
    Step();
    target()->Prev();
  }

 private:
  void NewScan() {
    store_->RoundTrip();
    rows_in_page_ = 1;
  }
  void Step() {
    if (rows_in_page_ >= store_->options().scan_page_rows) {
      store_->RoundTrip();
      rows_in_page_ = 0;
    }
    ++rows_in_page_;
  }

  RemoteLatencyStore* store_;
  uint32_t rows_in_page_ = 0;
};

}  // namespace

Capabilities NoReverseScanStore::capabilities() const {
  Capabilities c = target()->capabilities();
  c.reverse_scan = false;
  return c;
}

std::unique_ptr<Iterator> NoReverseScanStore::NewIterator(const IteratorOptions& options) {
  return std::make_unique<ForwardOnlyIterator>(target()->NewIterator(options));
}

void RemoteLatencyStore::RoundTrip() {
  round_trips_.fetch_add(1, std::memory_order_relaxed);
  if (options_.round_trip.count() <= 0) return;
  // clock_nanosleep on an absolute deadline does not drift when the sleep is interrupted.
  timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  const int64_t ns = deadline.tv_nsec + options_.round_trip.count() * 1000;
  deadline.tv_sec += ns / 1000000000;
  deadline.tv_nsec = ns % 1000000000;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) != 0) {
  }
}

Status RemoteLatencyStore::Get(std::string_view key, std::string* value) {
  RoundTrip();
  return target()->Get(key, value);
}

Status RemoteLatencyStore::MultiGet(const std::vector<std::string_view>& keys,
                                    std::vector<std::optional<std::string>>* values) {
  RoundTrip();
  return target()->MultiGet(keys, values);
}

Status RemoteLatencyStore::Put(std::string_view key, std::string_view value) {
  RoundTrip();
  return target()->Put(key, value);
}

Status RemoteLatencyStore::Delete(std::string_view key) {
  RoundTrip();
  return target()->Delete(key);
}

Status RemoteLatencyStore::DeleteRange(std::string_view begin, std::string_view end) {
  RoundTrip();
  return target()->DeleteRange(begin, end);
}

Status RemoteLatencyStore::Write(const WriteBatch& batch) {
  RoundTrip();
  return target()->Write(batch);
}

std::unique_ptr<Iterator> RemoteLatencyStore::NewIterator(const IteratorOptions& options) {
  return std::make_unique<PagedIterator>(target()->NewIterator(options), this);
}

PhysicalCounters RemoteLatencyStore::ReadPhysicalCounters() {
  // The base's counters only: the round trips have one source, round_trips(). Adding them here
  // as well counted every round trip twice wherever both were read (per command on RocksDB).
  return target()->ReadPhysicalCounters();
}

}  // namespace kvlab::backends
