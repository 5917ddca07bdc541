// The counting layer under threads, and the remote-store decorators' round-trip accounting.
#include "backends/counting_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "backends/memory_store.h"
#include "backends/remote_store.h"

namespace kvlab::backends {
namespace {

std::unique_ptr<KvStore> NewMemory() {
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(MemoryStore::Open({}, &store).ok());
  return store;
}

TEST(OpCounters, ExactUnderThreads) {
  auto base = NewMemory();
  OpCounters sink;
  CountingStore counting(base.get(), &sink);
  constexpr int kThreads = 8, kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string v;
      for (int i = 0; i < kPerThread; ++i) {
        const std::string k = "t" + std::to_string(t) + "-" + std::to_string(i);
        ASSERT_TRUE(counting.Put(k, "v").ok());
        ASSERT_TRUE(counting.Get(k, &v).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  OpCounts c = sink.Snapshot();
  EXPECT_EQ(c.puts, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(c.gets, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(c.bytes_written, c.bytes_read);  // each key+value written once and read once
}

TEST(OpCounters, SnapshotDifferenceAndAdd) {
  OpCounters sink;
  OpCounts a;
  a.gets = 3;
  a.nexts = 10;
  sink.Add(a);
  OpCounts first = sink.Snapshot();
  OpCounts b;
  b.gets = 2;
  b.seeks = 1;
  sink.Add(b);
  OpCounts delta = sink.Snapshot() - first;
  EXPECT_EQ(delta, b);
  EXPECT_EQ(delta.Describe(), "2 gets, 1 seeks");
  sink.Reset();
  EXPECT_EQ(sink.Snapshot(), OpCounts{});
  EXPECT_EQ(OpCounts{}.Describe(), "no operations");
}

TEST(RemoteLatencyStore, RoundTripsPerCallBatchAndScanPage) {
  RemoteLatencyOptions opts;
  opts.scan_page_rows = 4;
  RemoteLatencyStore remote(NewMemory(), opts);
  WriteBatch batch;
  for (int i = 0; i < 10; ++i) batch.Put("k" + std::to_string(i), "v");
  ASSERT_TRUE(remote.Write(batch).ok());
  EXPECT_EQ(remote.round_trips(), 1u);  // a batch is one round trip
  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(remote.MultiGet({"k1", "k2", "k3"}, &values).ok());
  EXPECT_EQ(remote.round_trips(), 2u);  // so is a MultiGet
  std::string v;
  ASSERT_TRUE(remote.Get("k1", &v).ok());
  EXPECT_EQ(remote.round_trips(), 3u);
  auto it = remote.NewIterator({});
  int rows = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++rows;
  EXPECT_EQ(rows, 10);
  // 10 rows in pages of 4: the seek fetches rows 1-4, then two more pages (5-8, 9-10), and the
  // step off the end fits in the last page.
  EXPECT_EQ(remote.round_trips(), 3u + 3u);
  it->Seek("k5");
  EXPECT_EQ(remote.round_trips(), 7u);  // every seek is a new request
}

TEST(RemoteLatencyStore, DelaysEachRoundTrip) {
  RemoteLatencyOptions opts;
  opts.round_trip = std::chrono::microseconds(2000);
  RemoteLatencyStore remote(NewMemory(), opts);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(remote.Put("k", "v").ok());
  // A lower bound only: sleeping may take longer on a loaded machine, never shorter.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::microseconds(10000));
}

TEST(NoReverseScanStore, TakesAwayReverseIterationOnly) {
  NoReverseScanStore store(NewMemory());
  EXPECT_FALSE(store.capabilities().reverse_scan);
  ASSERT_TRUE(store.Put("a", "1").ok());
  ASSERT_TRUE(store.Put("b", "2").ok());
  auto it = store.NewIterator({});
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsNotSupported());
  it->Seek("a");
  ASSERT_TRUE(it->Valid());
  EXPECT_TRUE(it->status().ok());
  it->Prev();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsNotSupported());
}

}  // namespace
}  // namespace kvlab::backends
