// WiredTiger-specific behaviour that the shared suite does not pin down: its statistics
// counters, the edges of the truncate-based DeleteRange, the retry of write conflicts, snapshot
// iterators and open errors.
#include "backends/wiredtiger_store.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <thread>

#include "testing/kv_test_util.h"

namespace kvlab::backends {

namespace {

using testing::ScratchDir;
using Model = std::map<std::string, std::string>;

class WiredTigerStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    opened_.reset();
    StoreSpec spec;
    spec.backend = "wiredtiger";
    spec.options.dir = scratch_.Sub("store");
    spec.options.sync_writes = sync_writes_;
    Status s = OpenStore(spec, &opened_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
  }
  void Reopen() {
    opened_->Close();
    Open();
  }

  uint64_t Counter(const std::string& name) {
    for (const auto& [n, v] : store_->ReadPhysicalCounters()) {
      if (n == name) return v;
    }
    ADD_FAILURE() << "no counter " << name;
    return 0;
  }

  Model Scan() {
    Model out;
    auto it = store_->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace(it->key(), it->value());
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }

  void PutAll(const Model& m) {
    for (const auto& [k, v] : m) ASSERT_TRUE(store_->Put(k, v).ok());
  }

  ScratchDir scratch_;
  bool sync_writes_ = false;
  std::unique_ptr<OpenedStore> opened_;
  KvStore* store_ = nullptr;
};

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%05d", i);
  return buf;
}

TEST_F(WiredTigerStoreTest, StatisticsCountersMove) {
  for (const char* name : {"wiredtiger.cache_pages_requested", "wiredtiger.cache_pages_read",
                           "wiredtiger.cache_bytes_read", "wiredtiger.cursor_search_calls",
                           "wiredtiger.conflict_retries"}) {
    Counter(name);  // fails when absent
  }
  WriteBatch batch;
  for (int i = 0; i < 5000; ++i) batch.Put(Key(i), std::string(100, 'v'));
  ASSERT_TRUE(store_->Write(batch).ok());
  ASSERT_TRUE(store_->Flush().ok());

  const uint64_t requested = Counter("wiredtiger.cache_pages_requested");
  const uint64_t searches = Counter("wiredtiger.cursor_search_calls");
  std::string v;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store_->Get(Key(i * 37), &v).ok());
  EXPECT_GE(Counter("wiredtiger.cache_pages_requested"), requested + 100);
  EXPECT_GE(Counter("wiredtiger.cursor_search_calls"), searches + 100);

  // After a reopen the cache is cold: reads pull pages from disk.
  Reopen();
  const uint64_t pages_read = Counter("wiredtiger.cache_pages_read");
  const uint64_t bytes_read = Counter("wiredtiger.cache_bytes_read");
  for (int i = 0; i < 5000; i += 50) ASSERT_TRUE(store_->Get(Key(i), &v).ok());
  EXPECT_GT(Counter("wiredtiger.cache_pages_read"), pages_read);
  EXPECT_GT(Counter("wiredtiger.cache_bytes_read"), bytes_read);
}

TEST_F(WiredTigerStoreTest, DeleteRangeAtTheEdges) {
  const Model base = {{"b", "1"}, {"c", "2"}, {"d", "3"}, {"e", "4"}};
  PutAll(base);
  const uint64_t truncates = Counter("wiredtiger.cursor_truncate_calls");

  // end == the first key: nothing, and truncate is not even called.
  ASSERT_TRUE(store_->DeleteRange("a", "b").ok());
  EXPECT_EQ(Scan(), base);
  // A gap between two keys, and a range after the last key.
  ASSERT_TRUE(store_->DeleteRange("c1", "c2").ok());
  ASSERT_TRUE(store_->DeleteRange("f", "g").ok());
  EXPECT_EQ(Scan(), base);
  EXPECT_EQ(Counter("wiredtiger.cursor_truncate_calls"), truncates);

  // Neither begin nor end present: only the key between them goes.
  ASSERT_TRUE(store_->DeleteRange("bb", "cc").ok());
  EXPECT_EQ(Scan(), (Model{{"b", "1"}, {"d", "3"}, {"e", "4"}}));
  EXPECT_EQ(Counter("wiredtiger.cursor_truncate_calls"), truncates + 1);
  // begin present, end the key right after it: exactly one key.
  ASSERT_TRUE(store_->DeleteRange("d", "e").ok());
  EXPECT_EQ(Scan(), (Model{{"b", "1"}, {"e", "4"}}));
  // end just above a key that is deleted ("b" < "b\0").
  ASSERT_TRUE(store_->DeleteRange("a", std::string("b\0", 2)).ok());
  EXPECT_EQ(Scan(), (Model{{"e", "4"}}));

  // Ranges covering everything, from the empty string and from 0x00 up to past 0xff.
  PutAll(base);
  ASSERT_TRUE(store_->Put(std::string("\x00", 1), "zero").ok());
  ASSERT_TRUE(store_->Put("\xff\xff", "ff").ok());
  ASSERT_TRUE(store_->DeleteRange("", "\xff\xff\xff").ok());
  EXPECT_TRUE(Scan().empty());
  PutAll(base);
  ASSERT_TRUE(store_->DeleteRange(std::string("\x00", 1), "\xff").ok());
  EXPECT_TRUE(Scan().empty());
  ASSERT_TRUE(store_->DeleteRange("a", "z").ok());  // on an empty table
}

// A range over many pages: the keys just outside it survive, also after a reopen.
TEST_F(WiredTigerStoreTest, DeleteRangeOverManyPagesKeepsItsNeighbours) {
  WriteBatch batch;
  for (int i = 0; i < 20000; ++i) batch.Put(Key(i), std::string(64, 'x'));
  ASSERT_TRUE(store_->Write(batch).ok());
  ASSERT_TRUE(store_->Flush().ok());  // on-disk pages, so truncate can skip whole pages
  ASSERT_TRUE(store_->DeleteRange(Key(1000), Key(19000)).ok());
  for (int pass = 0; pass < 2; ++pass) {
    std::string v;
    EXPECT_TRUE(store_->Get(Key(999), &v).ok());
    EXPECT_TRUE(store_->Get(Key(1000), &v).IsNotFound());
    EXPECT_TRUE(store_->Get(Key(18999), &v).IsNotFound());
    EXPECT_TRUE(store_->Get(Key(19000), &v).ok());
    EXPECT_EQ(Scan().size(), 2000u);
    Reopen();
  }
}

// Several threads write batches that update one hot key first and then neighbouring keys
// interleaved with the other threads' (the same pages). The hot key makes concurrent snapshot
// transactions conflict, so WT_ROLLBACK is retried; no write may fail or get lost.
TEST_F(WiredTigerStoreTest, ConcurrentWritersRetryConflictsWithoutLosingWrites) {
  constexpr int kThreads = 4, kBatches = 200, kNeighbours = 8;
  auto tag = [](int round, int t, int i) {
    return std::to_string(round) + ":" + std::to_string(t) + ":" + std::to_string(i);
  };
  auto own_key = [&](int t, int i, int j) { return Key((i * kNeighbours + j) * kThreads + t); };
  uint64_t retries = 0;
  int round = 0;
  for (; round < 20 && retries == 0; ++round) {
    std::vector<std::thread> threads;
    std::vector<Status> errors(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kBatches; ++i) {
          WriteBatch b;
          b.Put("hot", tag(round, t, i));
          for (int j = 0; j < kNeighbours; ++j) b.Put(own_key(t, i, j), tag(round, t, i));
          Status s = store_->Write(b);
          if (s.ok()) s = store_->Put("thread" + std::to_string(t), tag(round, t, i));
          if (s.ok()) s = store_->Delete(own_key(t, i, 0) + "/absent");
          if (!s.ok()) {
            errors[t] = s;
            return;
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    for (const Status& s : errors) ASSERT_TRUE(s.ok()) << s.ToString();

    // Every thread's keys hold exactly what it wrote last.
    std::string v;
    for (int t = 0; t < kThreads; ++t) {
      for (int i = 0; i < kBatches; ++i) {
        for (int j = 0; j < kNeighbours; ++j) {
          ASSERT_TRUE(store_->Get(own_key(t, i, j), &v).ok());
          ASSERT_EQ(v, tag(round, t, i));
        }
      }
      ASSERT_TRUE(store_->Get("thread" + std::to_string(t), &v).ok());
      EXPECT_EQ(v, tag(round, t, kBatches - 1));
    }
    // The hot key holds the last batch of whichever thread committed last.
    ASSERT_TRUE(store_->Get("hot", &v).ok());
    bool from_a_last_batch = false;
    for (int t = 0; t < kThreads; ++t) from_a_last_batch |= v == tag(round, t, kBatches - 1);
    EXPECT_TRUE(from_a_last_batch) << v;
    EXPECT_EQ(Scan().size(), static_cast<size_t>(kThreads * kBatches * kNeighbours + kThreads + 1));
    retries = Counter("wiredtiger.conflict_retries");
  }
  EXPECT_GT(retries, 0u) << "no write conflict in " << round << " rounds";
  EXPECT_GE(Counter("wiredtiger.txn_update_conflicts"), retries);
}

// An iterator reads one snapshot: later writes, deletes and truncates do not show through.
TEST_F(WiredTigerStoreTest, IteratorSeesASnapshot) {
  PutAll({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  auto it = store_->NewIterator();
  ASSERT_TRUE(store_->Put("bb", "new").ok());
  ASSERT_TRUE(store_->Put("a", "changed").ok());
  ASSERT_TRUE(store_->DeleteRange("b", "d").ok());
  Model seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace(it->key(), it->value());
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(seen, (Model{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  it.reset();
  EXPECT_EQ(Scan(), (Model{{"a", "changed"}}));
}

// Bounds that exclude every key, and a lower bound above the upper one.
TEST_F(WiredTigerStoreTest, EmptyBoundsYieldNothing) {
  PutAll({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  for (auto [lo, hi] : {std::pair<std::string, std::string>{"b0", "b9"}, {"c", "b"}, {"d", "e"}}) {
    IteratorOptions opts;
    opts.lower_bound = lo;
    opts.upper_bound = hi;
    auto it = store_->NewIterator(opts);
    it->SeekToFirst();
    EXPECT_FALSE(it->Valid()) << lo << " " << hi;
    it->SeekToLast();
    EXPECT_FALSE(it->Valid()) << lo << " " << hi;
    it->Seek("a");
    EXPECT_FALSE(it->Valid()) << lo << " " << hi;
    it->SeekForPrev("z");
    EXPECT_FALSE(it->Valid()) << lo << " " << hi;
    EXPECT_TRUE(it->status().ok());
  }
}

TEST_F(WiredTigerStoreTest, SyncWritesSurviveReopen) {
  sync_writes_ = true;
  Reopen();
  WriteBatch b;
  b.Put("x", "1");
  b.Put("y", "2");
  ASSERT_TRUE(store_->Write(b).ok());
  ASSERT_TRUE(store_->Delete("x").ok());
  sync_writes_ = false;
  Reopen();
  EXPECT_EQ(Scan(), (Model{{"y", "2"}}));
}

TEST(WiredTigerOpen, ErrorNamesTheBackendAndThePath) {
  ScratchDir scratch;
  StoreOptions options;
  options.dir = scratch.Sub("missing/dir");  // OpenStore would create it; the backend does not
  std::unique_ptr<KvStore> store;
  Status s = OpenWiredTigerStore(options, &store);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("wiredtiger: ", 0), 0u) << s.ToString();
  EXPECT_NE(s.message().find(options.dir), std::string::npos) << s.ToString();
  EXPECT_EQ(store, nullptr);
}

}  // namespace
}  // namespace kvlab::backends
