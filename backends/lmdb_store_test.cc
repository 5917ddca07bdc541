// LMDB-specific behaviour, beyond the shared suite: the 511-byte key limit (including seeks
// and range deletes with longer targets), the physical gauges, snapshot iterators, range
// deletes across many pages, open errors, and concurrent readers and writers.
#include "backends/lmdb_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;

std::string NumKey(const std::string& prefix, int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08d", i);
  return prefix + buf;
}

class LmdbStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open(bool sync_writes = false) {
    opened_.reset();
    StoreSpec spec;
    spec.backend = "lmdb";
    spec.options.dir = scratch_.Sub("store");
    spec.options.sync_writes = sync_writes;
    Status s = OpenStore(spec, &opened_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
  }

  uint64_t Gauge(const std::string& name) {
    for (const auto& [n, v] : store_->ReadPhysicalCounters()) {
      if (n == name) return v;
    }
    ADD_FAILURE() << "no counter " << name;
    return 0;
  }

  std::map<std::string, std::string> Scan() {
    std::map<std::string, std::string> out;
    auto it = store_->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace(it->key(), it->value());
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }

  ScratchDir scratch_;
  std::unique_ptr<OpenedStore> opened_;
  KvStore* store_ = nullptr;
};

TEST_F(LmdbStoreTest, CapabilitiesAndName) {
  const Capabilities c = store_->capabilities();
  EXPECT_EQ(store_->name(), "lmdb");
  EXPECT_TRUE(c.reverse_scan);
  EXPECT_FALSE(c.native_delete_range);
  EXPECT_TRUE(c.persistent);
  EXPECT_TRUE(c.crash_safe);
  EXPECT_EQ(c.max_key_bytes, Capabilities().max_key_bytes);  // LongKeyStore lifts LMDB's 511
}

// LMDB itself takes keys of at most 511 bytes; the LongKeyStore layer keeps longer ones in
// buckets, so the store takes keys of any length, in order, across a reopen.
TEST_F(LmdbStoreTest, KeysOfAnyLength) {
  const std::string k510(510, 'k'), k511(511, 'k'), k512(512, 'k'), k1m(1 << 20, 'k');
  const std::string other = std::string(510, 'k') + "l" + std::string(100, 'x');
  for (const std::string& k : {k1m, k512, other, k510, k511}) {
    ASSERT_TRUE(store_->Put(k, std::to_string(k.size())).ok());
  }
  EXPECT_TRUE(store_->Put("", "v").IsInvalidArgument());
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Delete(k512);
  batch.Put(std::string(4096, 'z'), "z");
  ASSERT_TRUE(store_->Write(batch).ok());
  const std::map<std::string, std::string> want = {{"a", "1"},     {k510, "510"},
                                                   {k511, "511"},  {k1m, std::to_string(1 << 20)},
                                                   {other, "611"}, {std::string(4096, 'z'), "z"}};
  EXPECT_EQ(Scan(), want);
  opened_->Close();
  Open();
  EXPECT_EQ(Scan(), want);
  std::string v;
  ASSERT_TRUE(store_->Get(k1m, &v).ok());
  EXPECT_EQ(v, std::to_string(1 << 20));
  EXPECT_TRUE(store_->Get(k512, &v).IsNotFound());
  EXPECT_TRUE(store_->Get("", &v).IsNotFound());
  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(store_->MultiGet({k511, k512, "a"}, &values).ok());
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], std::optional<std::string>("511"));
  EXPECT_FALSE(values[1]);
  EXPECT_EQ(values[2], std::optional<std::string>("1"));
  ASSERT_TRUE(store_->DeleteRange(k511, other).ok());  // long bounds: k511 and k1m go
  EXPECT_EQ(Scan(), (std::map<std::string, std::string>{
                        {"a", "1"}, {k510, "510"}, {other, "611"}, {std::string(4096, 'z'), "z"}}));
}

// Seek targets, bounds and range ends longer than the key limit are exact.
TEST_F(LmdbStoreTest, TargetsLongerThanTheKeyLimit) {
  const std::string a(510, 'k'), b(511, 'k'), c = std::string(510, 'k') + "l";
  for (const std::string& k : {a, b, c}) ASSERT_TRUE(store_->Put(k, k.substr(509)).ok());
  const std::string t600(600, 'k'), t512 = std::string(511, 'k') + std::string(1, '\0');
  for (const std::string& target : {t600, t512}) {
    auto it = store_->NewIterator();
    it->Seek(target);
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), c);  // a and b are prefixes of the target, so smaller
    it->SeekForPrev(target);
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->key(), b);
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  }
  IteratorOptions upper;
  upper.upper_bound = t600;
  auto it = store_->NewIterator(upper);
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), b);
  IteratorOptions lower;
  lower.lower_bound = t600;
  it = store_->NewIterator(lower);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), c);
  it->Prev();
  EXPECT_FALSE(it->Valid());  // b is below the lower bound
  it.reset();

  ASSERT_TRUE(store_->DeleteRange(t600, "l").ok());
  EXPECT_EQ(Scan().size(), 2u);
  EXPECT_EQ(Scan().count(c), 0u);
  ASSERT_TRUE(store_->DeleteRange("", t600).ok());
  EXPECT_TRUE(Scan().empty());
}

TEST_F(LmdbStoreTest, GaugesGrowWithTheData) {
  const std::set<std::string> expected_names = {
      "lmdb.depth",   "lmdb.branch_pages", "lmdb.leaf_pages", "lmdb.overflow_pages",
      "lmdb.entries", "lmdb.page_size",    "lmdb.map_size",   "lmdb.last_pgno"};
  std::set<std::string> names;
  for (const auto& [n, v] : store_->ReadPhysicalCounters()) names.insert(n);
  EXPECT_EQ(names, expected_names);

  EXPECT_EQ(Gauge("lmdb.entries"), 0u);
  EXPECT_EQ(Gauge("lmdb.leaf_pages"), 0u);
  EXPECT_EQ(Gauge("lmdb.depth"), 0u);
  EXPECT_EQ(Gauge("lmdb.map_size"), uint64_t{64} << 30);
  const uint64_t page = Gauge("lmdb.page_size");
  ASSERT_GE(page, 4096u);
  const uint64_t last_pgno_before = Gauge("lmdb.last_pgno");

  constexpr int kKeys = 20000;
  const std::string value(100, 'v');
  for (int start = 0; start < kKeys; start += 1000) {
    WriteBatch batch;
    for (int i = start; i < start + 1000; ++i) batch.Put(NumKey("key", i), value);
    ASSERT_TRUE(store_->Write(batch).ok());
  }
  EXPECT_EQ(Gauge("lmdb.entries"), uint64_t{kKeys});
  // 20000 entries of about 120 bytes cannot fit in fewer than 2.4 MB of leaf pages.
  EXPECT_GE(Gauge("lmdb.leaf_pages"), kKeys * 120 / page);
  EXPECT_GE(Gauge("lmdb.branch_pages"), 1u);
  EXPECT_GE(Gauge("lmdb.depth"), 2u);
  EXPECT_EQ(Gauge("lmdb.overflow_pages"), 0u);
  EXPECT_GT(Gauge("lmdb.last_pgno"), last_pgno_before + Gauge("lmdb.leaf_pages") / 2);

  // A value larger than a page goes to overflow pages.
  ASSERT_TRUE(store_->Put("big", std::string(1 << 20, 'b')).ok());
  EXPECT_GE(Gauge("lmdb.overflow_pages"), (1u << 20) / page);
  EXPECT_EQ(Gauge("lmdb.entries"), uint64_t{kKeys} + 1);

  ASSERT_TRUE(store_->DeleteRange("key", "kez").ok());
  EXPECT_EQ(Gauge("lmdb.entries"), 1u);
}

// An iterator reads the snapshot of its creation, and the thread holding it can still write.
TEST_F(LmdbStoreTest, IteratorIsASnapshotAndDoesNotBlockWriters) {
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(store_->Put(NumKey("k", i), "old").ok());
  auto old_view = store_->NewIterator();
  old_view->SeekToFirst();
  ASSERT_TRUE(old_view->Valid());
  const std::string_view first_key = old_view->key(), first_value = old_view->value();

  // The same thread writes while it holds the iterator (MDB_NOTLS): no deadlock, no error.
  WriteBatch batch;
  for (int i = 0; i < 100; i += 2) batch.Put(NumKey("k", i), "new");
  batch.Put("k~added", "new");
  ASSERT_TRUE(store_->Write(batch).ok());
  ASSERT_TRUE(store_->DeleteRange(NumKey("k", 50), NumKey("k", 60)).ok());
  ASSERT_TRUE(store_->Flush().ok());

  int rows = 0;
  for (; old_view->Valid(); old_view->Next(), ++rows) ASSERT_EQ(old_view->value(), "old");
  EXPECT_EQ(rows, 100);
  ASSERT_TRUE(old_view->status().ok());
  // The views into the map stay valid for the iterator's life, not only until it moves.
  EXPECT_EQ(first_key, NumKey("k", 0));
  EXPECT_EQ(first_value, "old");

  auto new_view = store_->NewIterator();
  new_view->SeekToLast();
  ASSERT_TRUE(new_view->Valid());
  EXPECT_EQ(new_view->key(), "k~added");
  EXPECT_EQ(Scan().size(), 91u);
}

TEST_F(LmdbStoreTest, MovingAnUnpositionedIteratorIsAnError) {
  ASSERT_TRUE(store_->Put("a", "1").ok());
  auto it = store_->NewIterator();
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsInvalidArgument()) << it->status().ToString();
}

TEST_F(LmdbStoreTest, DeleteRangeAcrossManyPagesMatchesModel) {
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(5);
  WriteBatch batch;
  for (int i = 0; i < 30000; ++i) {
    std::string k = NumKey("r", i), v(rng() % 200, 'x');
    batch.Put(k, v);
    model[k] = v;
  }
  ASSERT_TRUE(store_->Write(batch).ok());
  for (int round = 0; round < 40; ++round) {
    int a = static_cast<int>(rng() % 31000), b = static_cast<int>(rng() % 31000);
    if (b < a) std::swap(a, b);
    if (round % 10 == 0) b = a + 5000;  // long ranges that empty whole subtrees
    const std::string begin = NumKey("r", a), end = NumKey("r", b);
    ASSERT_TRUE(store_->DeleteRange(begin, end).ok());
    model.erase(model.lower_bound(begin), model.lower_bound(end));
    ASSERT_EQ(Gauge("lmdb.entries"), model.size()) << "round " << round;
  }
  ASSERT_EQ(Scan(), model);
  ASSERT_TRUE(store_->DeleteRange("r", "s").ok());
  EXPECT_TRUE(Scan().empty());
  EXPECT_EQ(Gauge("lmdb.entries"), 0u);
}

TEST_F(LmdbStoreTest, SyncWritesSurviveReopen) {
  Open(/*sync_writes=*/true);
  ASSERT_TRUE(store_->Put("durable", "yes").ok());
  ASSERT_TRUE(store_->Flush().ok());
  Open(/*sync_writes=*/false);
  std::string v;
  ASSERT_TRUE(store_->Get("durable", &v).ok());
  EXPECT_EQ(v, "yes");
}

TEST(LmdbOpen, ErrorsNameTheDirectory) {
  ScratchDir scratch;
  std::unique_ptr<KvStore> store;
  StoreOptions missing;
  missing.dir = scratch.Sub("does-not-exist");
  Status s = OpenLmdbStore(missing, &store);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("lmdb: ", 0), 0u) << s.ToString();
  EXPECT_NE(s.message().find(missing.dir), std::string::npos) << s.ToString();

  StoreOptions garbage;
  garbage.dir = scratch.Sub("garbage");
  std::filesystem::create_directories(garbage.dir);
  std::ofstream(garbage.dir + "/data.mdb") << std::string(16384, 'x');
  s = OpenLmdbStore(garbage, &store);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(s.message().rfind("lmdb: ", 0), 0u) << s.ToString();
  EXPECT_NE(s.message().find(garbage.dir), std::string::npos) << s.ToString();
  EXPECT_EQ(store, nullptr);
}

// Four threads write their own keys (single puts, batches and range deletes) while reading and
// iterating; every thread checks that it sees its own completed writes, and at the end no write
// is lost.
TEST_F(LmdbStoreTest, ConcurrentReadersAndWriters) {
  constexpr int kThreads = 4, kKeysPerThread = 1500;
  std::mutex failures_mu;
  std::vector<std::string> failures;
  auto fail = [&](const std::string& what) {
    std::lock_guard lock(failures_mu);
    failures.push_back(what);
  };
  auto value_of = [](int t, int i) { return std::string(10 + i % 50, static_cast<char>('a' + t)); };

  auto worker = [&](int t) {
    const std::string prefix = "t" + std::to_string(t) + "/";
    std::mt19937_64 rng(t);
    // An iterator held across this thread's writes, checked at the end against its snapshot.
    std::unique_ptr<Iterator> held;
    int held_rows = 0;
    for (int i = 0; i < kKeysPerThread;) {
      if (i % 7 == 0 && i + 5 <= kKeysPerThread) {
        WriteBatch batch;
        for (int j = 0; j < 5; ++j) batch.Put(NumKey(prefix, i + j), value_of(t, i + j));
        batch.Put(prefix + "scratch/" + std::to_string(i), "to be range-deleted");
        if (Status s = store_->Write(batch); !s.ok()) return fail(s.ToString());
        i += 5;
      } else {
        if (Status s = store_->Put(NumKey(prefix, i), value_of(t, i)); !s.ok()) {
          return fail(s.ToString());
        }
        ++i;
      }
      // A written key reads back.
      const int probe = static_cast<int>(rng() % i);
      std::string v;
      if (Status s = store_->Get(NumKey(prefix, probe), &v); !s.ok() || v != value_of(t, probe)) {
        return fail("get " + NumKey(prefix, probe) + ": " + s.ToString());
      }
      if (i % 100 < 5) {
        if (Status s = store_->DeleteRange(prefix + "scratch/", prefix + "scratch0"); !s.ok()) {
          return fail(s.ToString());
        }
      }
      if (i % 150 < 5) {
        // A bounded scan of this thread's keys sees exactly the i written so far, in order.
        IteratorOptions opts;
        opts.lower_bound = prefix;
        opts.upper_bound = prefix + "scratch/";
        auto it = store_->NewIterator(opts);
        int n = 0;
        for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
          if (it->key() != NumKey(prefix, n) || it->value() != value_of(t, n)) {
            return fail("scan of " + prefix + " at row " + std::to_string(n));
          }
        }
        if (!it->status().ok() || n != i) {
          return fail("scan of " + prefix + " saw " + std::to_string(n) + " of " +
                      std::to_string(i) + " rows: " + it->status().ToString());
        }
        if (!held) {
          held = std::move(it);
          held_rows = n;
        }
      }
      // A reverse scan over the whole store, across the other threads' writes.
      if (i % 250 < 5) {
        auto it = store_->NewIterator();
        std::string previous;
        for (it->SeekToLast(); it->Valid(); it->Prev()) {
          if (!previous.empty() && !(it->key() < previous)) return fail("reverse scan order");
          previous = std::string(it->key());
        }
        if (!it->status().ok()) return fail(it->status().ToString());
      }
    }
    // The held iterator still reads its snapshot: the rows of its creation, no more.
    if (held) {
      int n = 0;
      for (held->SeekToFirst(); held->Valid(); held->Next()) ++n;
      if (n != held_rows || !held->status().ok()) {
        fail("held iterator saw " + std::to_string(n) + " rows, not " + std::to_string(held_rows));
      }
    }
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (std::thread& th : threads) th.join();
  ASSERT_TRUE(failures.empty()) << failures.front();

  // No write was lost, and every scratch key was range-deleted or is in the last window.
  std::map<std::string, std::string> all = Scan();
  for (int t = 0; t < kThreads; ++t) {
    const std::string prefix = "t" + std::to_string(t) + "/";
    ASSERT_TRUE(store_->DeleteRange(prefix + "scratch/", prefix + "scratch0").ok());
    for (int i = 0; i < kKeysPerThread; ++i) {
      auto it = all.find(NumKey(prefix, i));
      ASSERT_NE(it, all.end()) << NumKey(prefix, i) << " was lost";
      ASSERT_EQ(it->second, value_of(t, i));
    }
  }
  EXPECT_EQ(Scan().size(), size_t{kThreads} * kKeysPerThread);
  EXPECT_EQ(Gauge("lmdb.entries"), uint64_t{kThreads} * kKeysPerThread);
}

}  // namespace
}  // namespace kvlab::backends
