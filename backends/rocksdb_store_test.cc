// The RocksDB backend beyond the shared suite: its physical counters, data that lives in SST
// files (flushed, with range tombstones), index and filter blocks that stay in the block cache,
// threads, iterator bounds ownership and error messages.
#include "backends/rocksdb_store.h"

#include <gtest/gtest.h>
#include <rocksdb/options.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <rocksdb/sst_file_reader.h>
#include <rocksdb/table_properties.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;
using Model = std::map<std::string, std::string>;

uint64_t Counter(const PhysicalCounters& counters, const std::string& name) {
  for (const auto& [n, v] : counters) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

// The change of one counter between two readings.
uint64_t Delta(const PhysicalCounters& before, const PhysicalCounters& after,
               const std::string& name) {
  return Counter(after, name) - Counter(before, name);
}

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

class RocksDbStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(); }

  void Open() {
    opened_.reset();
    StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch_.Sub("store");
    Status s = OpenStore(spec, &opened_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
  }

  // n keys with 100-byte values, flushed to an SST file.
  void FillAndFlush(int n) {
    WriteBatch batch;
    for (int i = 0; i < n; ++i)
      batch.Put(Key(i), std::string(100, static_cast<char>('a' + i % 26)));
    ASSERT_TRUE(store_->Write(batch).ok());
    ASSERT_TRUE(store_->Flush().ok());
  }

  void ExpectScanEquals(const Model& model) {
    auto it = store_->NewIterator();
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_NE(m, model.end());
      ASSERT_EQ(it->key(), m->first);
      ASSERT_EQ(it->value(), m->second);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(m, model.end());
    auto r = model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_NE(r, model.rend());
      ASSERT_EQ(it->key(), r->first);
    }
    ASSERT_EQ(r, model.rend());
  }

  ScratchDir scratch_;
  std::unique_ptr<OpenedStore> opened_;
  KvStore* store_ = nullptr;
};

TEST_F(RocksDbStoreTest, NameAndCapabilities) {
  EXPECT_EQ(store_->name(), "rocksdb");
  const Capabilities c = store_->capabilities();
  EXPECT_TRUE(c.reverse_scan);
  EXPECT_TRUE(c.native_delete_range);
  EXPECT_TRUE(c.persistent);
  EXPECT_TRUE(c.crash_safe);
}

TEST_F(RocksDbStoreTest, GetOfFlushedKeyReadsBlocksThenHitsTheCache) {
  FillAndFlush(1000);
  std::string v;
  const PhysicalCounters before = store_->ReadPhysicalCounters();
  ASSERT_TRUE(store_->Get(Key(500), &v).ok());
  const PhysicalCounters first = store_->ReadPhysicalCounters();
  EXPECT_GE(Delta(before, first, "rocksdb.block_read_count") +
                Delta(before, first, "rocksdb.block_cache_hit_count"),
            1u)
      << "a Get from an SST file touches at least its data block";

  // The data block is in the block cache now: the same Get hits it and reads nothing.
  ASSERT_TRUE(store_->Get(Key(500), &v).ok());
  const PhysicalCounters second = store_->ReadPhysicalCounters();
  EXPECT_EQ(Delta(first, second, "rocksdb.block_read_count"), 0u);
  EXPECT_GE(Delta(first, second, "rocksdb.block_cache_hit_count"), 1u);
}

TEST_F(RocksDbStoreTest, GetOfUnflushedKeyIsServedByTheMemtable) {
  FillAndFlush(1000);
  ASSERT_TRUE(store_->Put("fresh", "value").ok());
  std::string v;
  const PhysicalCounters before = store_->ReadPhysicalCounters();
  ASSERT_TRUE(store_->Get("fresh", &v).ok());
  EXPECT_EQ(v, "value");
  const PhysicalCounters after = store_->ReadPhysicalCounters();
  EXPECT_GE(Delta(before, after, "rocksdb.get_from_memtable_count"), 1u);
  EXPECT_EQ(Delta(before, after, "rocksdb.block_read_count"), 0u);
  EXPECT_EQ(Delta(before, after, "rocksdb.block_cache_hit_count"), 0u);
}

TEST_F(RocksDbStoreTest, ScanAcrossTombstonesShowsTheirCost) {
  FillAndFlush(300);
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(store_->Delete(Key(i)).ok());
  ASSERT_TRUE(store_->Put(Key(1000), "live").ok());
  const PhysicalCounters before = store_->ReadPhysicalCounters();
  auto it = store_->NewIterator();
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(1000));
  const PhysicalCounters after = store_->ReadPhysicalCounters();
  // The first live key lies behind 300 memtable tombstones, each shadowing a flushed entry.
  EXPECT_GE(Delta(before, after, "rocksdb.internal_delete_skipped_count"), 300u);
  EXPECT_GE(Delta(before, after, "rocksdb.internal_key_skipped_count"), 300u);
}

// A prefix scan carries its prefix's end as the upper bound (kv_reads.h's ScanRange, every
// encoding's scan), and RocksDB stops there: the tombstones of the next prefix (a zset whose
// records were just deleted) are never stepped over. Without the bound the same scan reads
// across all of them before it learns that no key of its prefix is left.
TEST_F(RocksDbStoreTest, UpperBoundKeepsAPrefixScanOffTheNextPrefixsTombstones) {
  FillAndFlush(300);
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(store_->Delete(Key(i)).ok());
  for (const char* k : {"a/1", "a/2", "a/3"}) ASSERT_TRUE(store_->Put(k, "v").ok());
  auto scan = [&](const IteratorOptions& options) {
    const PhysicalCounters before = store_->ReadPhysicalCounters();
    auto it = store_->NewIterator(options);
    int rows = 0;
    for (it->Seek("a/"); it->Valid() && it->key().starts_with("a/"); it->Next()) ++rows;
    EXPECT_EQ(rows, 3);
    EXPECT_TRUE(it->status().ok());
    return Delta(before, store_->ReadPhysicalCounters(), "rocksdb.internal_delete_skipped_count");
  };
  IteratorOptions bounded;
  bounded.lower_bound = "a/";
  bounded.upper_bound = "a0";
  EXPECT_EQ(scan(bounded), 0u);
  EXPECT_GE(scan(IteratorOptions()), 300u);
}

// A SingleDelete and the Put it deletes vanish together when a flush lines them up; a Delete
// stays as a tombstone that every later scan across the range steps over (until a compaction
// to the last level). This is what keeps a churned zset index cheap to scan.
TEST_F(RocksDbStoreTest, SingleDeleteVanishesWithItsPutInAFlush) {
  auto skipped_after_churn = [&](bool single_delete) {
    opened_.reset();
    StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch_.Sub(single_delete ? "single" : "plain");
    spec.options.rocksdb_single_delete = single_delete;
    // No deletion-triggered compaction: it could drop the Deletes before the scan counts them.
    spec.options.rocksdb_compact_on_deletion = false;
    Status s = OpenStore(spec, &opened_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
    for (int i = 0; i < 300; ++i) EXPECT_TRUE(store_->Put(Key(i), "v").ok());
    WriteBatch batch;
    for (int i = 0; i < 300; ++i) batch.SingleDelete(Key(i));
    batch.Put(Key(1000), "live");
    EXPECT_TRUE(store_->Write(batch).ok());
    EXPECT_TRUE(store_->Flush().ok());
    const PhysicalCounters before = store_->ReadPhysicalCounters();
    auto it = store_->NewIterator();
    it->SeekToFirst();
    EXPECT_TRUE(it->Valid() && it->key() == Key(1000));
    return Delta(before, store_->ReadPhysicalCounters(), "rocksdb.internal_delete_skipped_count");
  };
  EXPECT_EQ(skipped_after_churn(true), 0u);
  EXPECT_GE(skipped_after_churn(false), 300u);
}

// The scan-triggered flush: a scan that steps over the memtable's tombstones flushes it, and
// the scans after the flush step over none (each SingleDelete went with its Put); tombstones
// already in SST files, which a flush cannot drop, trigger nothing; off, nothing is flushed.
TEST_F(RocksDbStoreTest, ScanOverMemtableTombstonesFlushesTheMemtable) {
  auto open = [&](const std::string& name, uint64_t trigger) {
    opened_.reset();
    StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch_.Sub(name);
    spec.options.rocksdb_scan_flush_trigger = trigger;
    Status s = OpenStore(spec, &opened_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
  };
  // Deletes skipped by one scan to the first live key, in its own iterator.
  auto scan = [&] {
    const PhysicalCounters before = store_->ReadPhysicalCounters();
    {
      auto it = store_->NewIterator();
      it->SeekToFirst();
      EXPECT_TRUE(it->Valid() && it->key() == Key(1000));
    }
    return Delta(before, store_->ReadPhysicalCounters(), "rocksdb.internal_delete_skipped_count");
  };
  auto flushes = [&] {
    for (const auto& [name, value] : store_->ReadPhysicalCounters()) {
      if (name == "kvlab.rocksdb_scan_flushes") return value;
    }
    ADD_FAILURE() << "no kvlab.rocksdb_scan_flushes counter";
    return uint64_t{0};
  };
  auto churn = [&] {
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(store_->Put(Key(i), "v").ok());
    WriteBatch batch;
    for (int i = 0; i < 300; ++i) batch.SingleDelete(Key(i));
    batch.Put(Key(1000), "live");
    ASSERT_TRUE(store_->Write(batch).ok());
  };

  open("on", 100);
  churn();
  EXPECT_GE(scan(), 300u);
  EXPECT_EQ(flushes(), 1u);
  // The flush runs in the background: once it has, a scan skips nothing.
  uint64_t skipped = 1;
  for (int i = 0; i < 500 && skipped != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    skipped = scan();
  }
  EXPECT_EQ(skipped, 0u);
  EXPECT_EQ(flushes(), 1u);

  open("off", 0);
  churn();
  EXPECT_GE(scan(), 300u);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(scan(), 300u);
  EXPECT_EQ(flushes(), 0u);

  // Plain Deletes flushed to an SST file: the memtable holds none of them.
  open("sst", 100);
  FillAndFlush(300);
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(store_->Delete(Key(i)).ok());
  ASSERT_TRUE(store_->Put(Key(1000), "live").ok());
  ASSERT_TRUE(store_->Flush().ok());
  EXPECT_GE(scan(), 300u);
  EXPECT_EQ(flushes(), 0u);
}

// The scan-triggered range compaction: SingleDeletes flushed into a file of their own, apart
// from their Puts (which a flush cannot drop, and which do not trigger the scan-triggered flush)
// and a memtable's worth of Deletes, are stepped over by a scan until it asks for the range it
// walked to be compacted; once compacted, the scans of the range step over none. Off, they stay.
TEST_F(RocksDbStoreTest, ScanOverTombstonesCompactsTheRangeItWalked) {
  auto open = [&](const std::string& name, uint64_t trigger) {
    opened_.reset();
    StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = scratch_.Sub(name);
    spec.options.rocksdb_scan_compact_trigger = trigger;
    Status s = OpenStore(spec, &opened_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
  };
  // Deletes skipped by one scan from Key(0) to the first live key, in its own iterator.
  auto scan = [&] {
    const PhysicalCounters before = store_->ReadPhysicalCounters();
    {
      IteratorOptions o;
      o.lower_bound = Key(0);
      o.upper_bound = Key(2000);
      auto it = store_->NewIterator(o);
      it->Seek(Key(0));
      EXPECT_TRUE(it->Valid() && it->key() == Key(1000));
    }
    return Delta(before, store_->ReadPhysicalCounters(), "rocksdb.internal_delete_skipped_count");
  };
  auto churn = [&] {
    FillAndFlush(300);
    WriteBatch batch;
    for (int i = 0; i < 300; ++i) batch.SingleDelete(Key(i));
    batch.Put(Key(1000), "live");
    ASSERT_TRUE(store_->Write(batch).ok());
    ASSERT_TRUE(store_->Flush().ok());
    // And in the memtable: Deletes of keys never written.
    for (int i = 300; i < 600; ++i) ASSERT_TRUE(store_->Delete(Key(i)).ok());
  };

  open("on", 100);
  churn();
  EXPECT_GE(scan(), 600u);
  EXPECT_EQ(Counter(store_->ReadPhysicalCounters(), "kvlab.rocksdb_scan_compactions_requested"),
            1u);
  // The compaction runs on the compactor's thread: once it has, a scan skips nothing.
  for (int i = 0; i < 1000; ++i) {
    if (Counter(store_->ReadPhysicalCounters(), "kvlab.rocksdb_scan_compactions") == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(Counter(store_->ReadPhysicalCounters(), "kvlab.rocksdb_scan_compactions"), 1u);
  EXPECT_EQ(scan(), 0u);
  // Nothing more to compact: a scan that skips nothing asks for nothing.
  EXPECT_EQ(Counter(store_->ReadPhysicalCounters(), "kvlab.rocksdb_scan_compactions_requested"),
            1u);

  open("off", 0);
  churn();
  EXPECT_GE(scan(), 600u);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GE(scan(), 600u);
  EXPECT_EQ(Counter(store_->ReadPhysicalCounters(), "kvlab.rocksdb_scan_compactions"), 0u);
}

// Issue 40's read cliff. A compacted file's index and filter must stay in the block cache
// however large the file is: Gets repeated over keys whose blocks are already cached read no
// block from the file, and the filter answers from the cache. With one filter block per file
// and RocksDB's default sharding (shards of 512 KiB for an 8 MiB cache), this file's filter
// (600k keys at 10 bits: 732 KiB) is larger than a shard and is never kept: every Get read it
// again. Counted on this thread's PerfContext, so the test is exact (no timing).
TEST(RocksDbBlockCache, FiltersOfALargeCompactedFileStayCached) {
  constexpr int kKeys = 600000;
  ScratchDir scratch;
  StoreOptions options;
  options.dir = scratch.Sub("store");
  options.cache_bytes = 8ull << 20;
  std::unique_ptr<KvStore> store;
  std::function<Status()> compact_all;
  Status s = OpenRocksDbStore(options, nullptr, &store, &compact_all);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int start = 0; start < kKeys; start += 10000) {
    WriteBatch batch;
    for (int i = start; i < start + 10000; ++i) batch.Put(Key(2 * i), std::to_string(i));
    ASSERT_TRUE(store->Write(batch).ok());
  }
  // Flushed and compacted to the last level: one file, no longer in L0 (whose blocks are
  // pinned whatever the layout).
  s = compact_all();
  ASSERT_TRUE(s.ok()) << s.ToString();
  // The file holds every key, so its filter is as large as the comment above says.
  uint64_t largest = 0;
  for (const auto& entry : std::filesystem::directory_iterator(options.dir)) {
    if (entry.path().extension() != ".sst") continue;
    rocksdb::SstFileReader reader{rocksdb::Options()};
    ASSERT_TRUE(reader.Open(entry.path().string()).ok());
    largest = std::max(largest, reader.GetTableProperties()->num_entries);
  }
  ASSERT_GE(largest, static_cast<uint64_t>(kKeys));

  // Keys spread over the file: present ones (even numbers) and absent ones between them (odd
  // numbers), which only the filter answers without a data block.
  std::vector<std::string> keys;
  for (int i = 0; i < 64; ++i) {
    keys.push_back(Key(2 * (i * (kKeys / 64))));
    keys.push_back(Key(2 * (i * (kKeys / 64)) + 1));
  }
  auto get_all = [&] {
    std::string v;
    for (size_t i = 0; i < keys.size(); ++i) {
      Status g = store->Get(keys[i], &v);
      ASSERT_TRUE(i % 2 == 0 ? g.ok() : g.IsNotFound()) << keys[i] << ": " << g.ToString();
    }
  };
  get_all();  // loads the blocks these keys need
  const rocksdb::PerfContext before = *rocksdb::get_perf_context();
  get_all();
  const rocksdb::PerfContext* after = rocksdb::get_perf_context();
  EXPECT_EQ(after->filter_block_read_count - before.filter_block_read_count, 0u)
      << "filter blocks were read from the file again: they did not stay in the block cache";
  EXPECT_EQ(after->index_block_read_count - before.index_block_read_count, 0u);
  EXPECT_EQ(after->block_read_count - before.block_read_count, 0u);
  // Every Get consulted the filter, from the cache.
  EXPECT_GE(after->block_cache_filter_hit_count - before.block_cache_filter_hit_count, keys.size());
}

// The perf level is per thread: a thread that never touched the store, with counting switched
// off, still has its work counted, because every operation turns counting on for its thread.
TEST_F(RocksDbStoreTest, CountsOnEveryThread) {
  FillAndFlush(1000);
  // RocksDB skips (and does not count) an empty memtable; give it one entry.
  ASSERT_TRUE(store_->Put("fresh", "value").ok());
  PhysicalCounters seen;
  std::thread t([&] {
    rocksdb::SetPerfLevel(rocksdb::kDisable);
    std::string v;
    ASSERT_TRUE(store_->Get(Key(10), &v).ok());
    seen = store_->ReadPhysicalCounters();
  });
  t.join();
  // A new thread's perf context starts at zero, so these are the Get's own counts.
  EXPECT_GE(
      Counter(seen, "rocksdb.block_read_count") + Counter(seen, "rocksdb.block_cache_hit_count"),
      1u);
  EXPECT_GE(Counter(seen, "rocksdb.get_from_memtable_count"), 1u);
}

// Random operations with periodic flushes and reopens, so that reads, scans and range deletes
// cross the memtable and several SST files with range tombstones.
TEST_F(RocksDbStoreTest, RandomOperationsAcrossFlushesMatchModel) {
  std::mt19937_64 rng(424242);
  Model model;
  auto random_key = [&] { return "k" + std::to_string(rng() % 3000); };
  for (int i = 0; i < 8000; ++i) {
    const int op = rng() % 100;
    if (op < 40) {
      const std::string k = random_key(), v = std::to_string(rng());
      ASSERT_TRUE(store_->Put(k, v).ok());
      model[k] = v;
    } else if (op < 55) {
      const std::string k = random_key();
      ASSERT_TRUE(store_->Delete(k).ok());
      model.erase(k);
    } else if (op < 58) {
      std::string a = random_key(), b = random_key();
      if (b < a) std::swap(a, b);
      ASSERT_TRUE(store_->DeleteRange(a, b).ok());
      model.erase(model.lower_bound(a), model.lower_bound(b));
    } else if (op < 80) {
      const std::string k = random_key();
      std::string v;
      Status s = store_->Get(k, &v);
      auto m = model.find(k);
      if (m == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_EQ(v, m->second);
      }
    } else if (op < 90) {
      std::vector<std::string> keys(1 + rng() % 10);
      for (auto& k : keys) k = random_key();
      std::vector<std::string_view> views(keys.begin(), keys.end());
      std::vector<std::optional<std::string>> values;
      ASSERT_TRUE(store_->MultiGet(views, &values).ok());
      for (size_t j = 0; j < keys.size(); ++j) {
        auto m = model.find(keys[j]);
        ASSERT_EQ(values[j].has_value(), m != model.end()) << keys[j];
        if (values[j]) {
          ASSERT_EQ(*values[j], m->second);
        }
      }
    } else {
      // A bounded scan, forward then backward.
      IteratorOptions opts;
      std::string lo = random_key(), hi = random_key();
      if (hi < lo) std::swap(lo, hi);
      opts.lower_bound = lo;
      opts.upper_bound = hi;
      auto it = store_->NewIterator(opts);
      auto m = model.lower_bound(lo);
      for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
        ASSERT_TRUE(m != model.end() && m->first < hi);
        ASSERT_EQ(it->key(), m->first);
        ASSERT_EQ(it->value(), m->second);
      }
      ASSERT_TRUE(m == model.end() || m->first >= hi);
      auto r = std::make_reverse_iterator(model.lower_bound(hi));
      for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
        ASSERT_TRUE(r != model.rend() && r->first >= lo);
        ASSERT_EQ(it->key(), r->first);
      }
      ASSERT_TRUE(r == model.rend() || r->first < lo);
      ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    }
    if (i % 1000 == 999) {
      ASSERT_TRUE(store_->Flush().ok());
    }
    if (i % 3000 == 2999) Open();
  }
  ExpectScanEquals(model);
  Open();
  ExpectScanEquals(model);
}

TEST_F(RocksDbStoreTest, IteratorOwnsItsBounds) {
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(store_->Put(Key(i), "v").ok());
  std::unique_ptr<Iterator> it;
  {
    IteratorOptions opts;
    opts.lower_bound = Key(5);
    opts.upper_bound = Key(8);
    it = store_->NewIterator(opts);
    // Overwrite the caller's strings before they are destroyed: the iterator must not notice.
    opts.lower_bound->assign(Key(0));
    opts.upper_bound->assign(Key(19));
  }
  std::vector<std::string> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace_back(it->key());
  EXPECT_EQ(seen, (std::vector<std::string>{Key(5), Key(6), Key(7)}));
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(7));
  it->SeekForPrev(Key(19));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(7));
  it->Seek(Key(1));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), Key(5));
}

TEST_F(RocksDbStoreTest, StepOffAnUnpositionedIteratorIsAnError) {
  ASSERT_TRUE(store_->Put("a", "1").ok());
  auto it = store_->NewIterator();
  it->Seek("b");
  ASSERT_FALSE(it->Valid());
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsInvalidArgument()) << it->status().ToString();
  EXPECT_EQ(it->status().message().rfind("rocksdb: ", 0), 0u);
  it->Seek("a");  // a new positioning clears the error
  ASSERT_TRUE(it->Valid());
  EXPECT_TRUE(it->status().ok());
}

TEST_F(RocksDbStoreTest, ConcurrentWritersAndReaders) {
  constexpr int kThreads = 4, kPerThread = 1500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string v;
      for (int i = 0; i < kPerThread; ++i) {
        const std::string k = "t" + std::to_string(t) + "/" + Key(i);
        ASSERT_TRUE(store_->Put(k, k).ok());
        ASSERT_TRUE(store_->Get(k, &v).ok());
        ASSERT_EQ(v, k);
        if (i % 500 == 0) {
          ASSERT_TRUE(store_->Flush().ok());
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  auto it = store_->NewIterator();
  int rows = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ASSERT_EQ(it->key(), it->value());
    ++rows;
  }
  EXPECT_EQ(rows, kThreads * kPerThread);
}

TEST_F(RocksDbStoreTest, ErrorsNameTheBackend) {
  Status s = store_->Put("", "v");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message().rfind("rocksdb: ", 0), 0u) << s.ToString();
}

TEST(RocksDbOpen, FailureNamesTheBackendAndThePath) {
  ScratchDir scratch;
  const std::string path = scratch.Sub("a-file");
  std::ofstream(path) << "not a directory";
  StoreOptions options;
  options.dir = path;
  std::unique_ptr<KvStore> store;
  Status s = OpenRocksDbStore(options, &store);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(store, nullptr);
  EXPECT_EQ(s.message().rfind("rocksdb: ", 0), 0u) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace kvlab::backends
