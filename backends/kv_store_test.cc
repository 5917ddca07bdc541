// The shared KV conformance suite: every backend, with every decorator combination, is checked
// against a std::map model.
//
// Built twice: kv_store_test runs it on the embedded backends (EmbeddedBackendNames()), and
// kv_store_etcd_test (KVLAB_KV_SUITE_ETCD) on etcd, each test in a store of its own (a key
// prefix of its own) on one private 3-member cluster the suite starts and stops.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "backends/counting_store.h"
#include "backends/etcd_cluster.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;
using testing::StoreVariant;
using Model = std::map<std::string, std::string>;

// etcd commits every write through raft (about 2 ms on loopback): its suite runs the two long
// random tests with fewer operations, so that it takes seconds, not a minute.
#ifdef KVLAB_KV_SUITE_ETCD
constexpr int kOpScale = 8;
#else
constexpr int kOpScale = 1;
#endif

class KvStoreTest : public ::testing::TestWithParam<StoreVariant> {
 protected:
#ifdef KVLAB_KV_SUITE_ETCD
  static void SetUpTestSuite() {
    etcd_dir_ = std::make_unique<ScratchDir>();
    EtcdClusterOptions options;
    options.dir = etcd_dir_->Sub("cluster");
    Status s = EtcdCluster::Start(options, &etcd_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static void TearDownTestSuite() {
    etcd_.reset();
    etcd_dir_.reset();
  }
  static inline std::unique_ptr<ScratchDir> etcd_dir_;
  static inline std::unique_ptr<EtcdCluster> etcd_;
#endif
  void SetUp() override {
#ifdef KVLAB_KV_SUITE_ETCD
    ASSERT_NE(etcd_, nullptr) << "the suite's etcd cluster did not start";
#endif
    Open();
  }

  void Open() {
    opened_.reset();
    StoreSpec spec = GetParam().Spec(scratch_.Sub("store"));
#ifdef KVLAB_KV_SUITE_ETCD
    spec.etcd.endpoints = etcd_->client_endpoints();
    spec.etcd.max_txn_ops = kPrivateMaxTxnOps;
#endif
    Status s = OpenStore(spec, &opened_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    store_ = opened_->store();
  }
  void Reopen() {
    opened_->Close();
    Open();
  }
  bool reverse() const { return store_->capabilities().reverse_scan; }

  // Random byte strings from a small alphabet that includes 0x00 and 0xff, so that keys collide
  // and share prefixes.
  std::string RandomKey(std::mt19937_64& rng) {
    static const char kAlphabet[] = {'\x00', '\x01', 'a', 'b', '\x7f', '\x80', '\xfe', '\xff'};
    std::string k(1 + rng() % 4, '\0');
    for (char& c : k) c = kAlphabet[rng() % sizeof(kAlphabet)];
    return k;
  }
  std::string RandomValue(std::mt19937_64& rng) {
    std::string v(rng() % 3 == 0 ? 0 : rng() % 40, '\0');
    for (char& c : v) c = static_cast<char>(rng());
    return v;
  }

  // Checks a full forward scan (and a reverse one where supported) against the model.
  void ExpectScanEquals(const Model& model) {
    auto it = store_->NewIterator();
    Model seen;
    for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace(it->key(), it->value());
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(seen, model);
    if (!reverse()) return;
    auto m = model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++m) {
      ASSERT_NE(m, model.rend());
      ASSERT_EQ(it->key(), m->first);
      ASSERT_EQ(it->value(), m->second);
    }
    ASSERT_EQ(m, model.rend());
  }

  ScratchDir scratch_;
  std::unique_ptr<OpenedStore> opened_;
  KvStore* store_ = nullptr;
};

TEST_P(KvStoreTest, RandomOperationsMatchModel) {
  std::mt19937_64 rng(20261121);
  Model model;
  constexpr int kOps = 12000 / kOpScale;
  for (int i = 0; i < kOps; ++i) {
    const int op = rng() % 100;
    if (op < 30) {
      std::string k = RandomKey(rng), v = RandomValue(rng);
      ASSERT_TRUE(store_->Put(k, v).ok());
      model[k] = v;
    } else if (op < 40) {
      std::string k = RandomKey(rng);
      ASSERT_TRUE(store_->Delete(k).ok());
      model.erase(k);
    } else if (op < 60) {
      std::string k = RandomKey(rng), v;
      Status s = store_->Get(k, &v);
      auto m = model.find(k);
      if (m == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_EQ(v, m->second);
      }
    } else if (op < 70) {
      std::vector<std::string> keys(1 + rng() % 6);
      for (auto& k : keys) k = RandomKey(rng);
      std::vector<std::string_view> views(keys.begin(), keys.end());
      std::vector<std::optional<std::string>> values;
      ASSERT_TRUE(store_->MultiGet(views, &values).ok());
      ASSERT_EQ(values.size(), keys.size());
      for (size_t j = 0; j < keys.size(); ++j) {
        auto m = model.find(keys[j]);
        ASSERT_EQ(values[j].has_value(), m != model.end());
        if (values[j]) {
          ASSERT_EQ(*values[j], m->second);
        }
      }
    } else if (op < 88) {
      WriteBatch batch;
      const int n = 1 + rng() % 8;
      for (int j = 0; j < n; ++j) {
        std::string k = RandomKey(rng);
        if (rng() % 10 == 0) {
          // A range inside the batch, applied in order with its other records.
          std::string e = RandomKey(rng);
          batch.DeleteRange(k, e);
          if (k < e) model.erase(model.lower_bound(k), model.lower_bound(e));
        } else if (rng() % 3 == 0) {
          batch.Delete(k);
          model.erase(k);
        } else {
          std::string v = RandomValue(rng);
          batch.Put(k, v);
          model[k] = v;
        }
      }
      ASSERT_TRUE(store_->Write(batch).ok());
    } else if (op < 91) {
      std::string a = RandomKey(rng), b = RandomKey(rng);
      if (b < a) std::swap(a, b);
      ASSERT_TRUE(store_->DeleteRange(a, b).ok());
      model.erase(model.lower_bound(a), model.lower_bound(b));
    } else {
      // A short bounded scan from a random point.
      IteratorOptions opts;
      std::string lo = RandomKey(rng), hi = RandomKey(rng);
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
      ASSERT_TRUE(it->status().ok());
      ASSERT_TRUE(m == model.end() || m->first >= hi);
    }
  }
  ExpectScanEquals(model);
}

// Forward and reverse iteration from random seek points, with and without bounds.
TEST_P(KvStoreTest, IterationFromRandomSeekPoints) {
  std::mt19937_64 rng(7);
  Model model;
  WriteBatch batch;
  for (int i = 0; i < 400; ++i) {
    std::string k = RandomKey(rng), v = RandomValue(rng);
    batch.Put(k, v);
    model[k] = v;
  }
  ASSERT_TRUE(store_->Write(batch).ok());
  for (int round = 0; round < 300; ++round) {
    IteratorOptions opts;
    const bool bounded = round % 2 == 1;
    if (bounded) {
      std::string lo = RandomKey(rng), hi = RandomKey(rng);
      if (hi < lo) std::swap(lo, hi);
      opts.lower_bound = lo;
      opts.upper_bound = hi;
    }
    auto in_bounds = [&](const std::string& k) {
      return (!opts.lower_bound || k >= *opts.lower_bound) &&
             (!opts.upper_bound || k < *opts.upper_bound);
    };
    const std::string target = RandomKey(rng);
    auto it = store_->NewIterator(opts);

    // Seek + Next: the model's first in-bounds key >= target, then onwards.
    it->Seek(target);
    auto m = model.lower_bound(std::max(target, opts.lower_bound.value_or("")));
    for (int steps = 0; steps < 20; ++steps) {
      const bool expect_valid = m != model.end() && in_bounds(m->first);
      ASSERT_EQ(it->Valid(), expect_valid) << "round " << round << " step " << steps;
      if (!expect_valid) break;
      ASSERT_EQ(it->key(), m->first);
      ASSERT_EQ(it->value(), m->second);
      it->Next();
      ++m;
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();

    // SeekForPrev + Prev: the model's last in-bounds key <= target, then backwards.
    it->SeekForPrev(target);
    if (!reverse()) {
      ASSERT_FALSE(it->Valid());
      ASSERT_TRUE(it->status().IsNotSupported()) << it->status().ToString();
      continue;
    }
    std::vector<std::string> expected;
    for (auto r = model.rbegin(); r != model.rend(); ++r) {
      if (r->first <= target && in_bounds(r->first)) expected.push_back(r->first);
    }
    for (size_t steps = 0; steps < 20; ++steps) {
      const bool expect_valid = steps < expected.size();
      ASSERT_EQ(it->Valid(), expect_valid) << "round " << round << " step " << steps;
      if (!expect_valid) break;
      ASSERT_EQ(it->key(), expected[steps]);
      ASSERT_EQ(it->value(), model.at(expected[steps]));
      it->Prev();
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();

    // SeekToLast lands on the last in-bounds key.
    it->SeekToLast();
    auto last =
        std::find_if(model.rbegin(), model.rend(), [&](auto& e) { return in_bounds(e.first); });
    ASSERT_EQ(it->Valid(), last != model.rend());
    if (it->Valid()) {
      ASSERT_EQ(it->key(), last->first);
    }
  }
}

// Direction changes in the middle of a scan: Next then Prev returns to the same entry.
TEST_P(KvStoreTest, DirectionChanges) {
  if (!reverse()) GTEST_SKIP() << "no reverse scan on this variant";
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(store_->Put("k" + std::to_string(100 + i), "v").ok());
  auto it = store_->NewIterator();
  it->Seek("k120");
  ASSERT_TRUE(it->Valid());
  it->Next();
  it->Next();
  ASSERT_EQ(it->key(), "k122");
  it->Prev();
  ASSERT_EQ(it->key(), "k121");
  it->Prev();
  it->Prev();
  ASSERT_EQ(it->key(), "k119");
  it->Next();
  ASSERT_EQ(it->key(), "k120");
}

TEST_P(KvStoreTest, BinaryKeysEmptyAndLargeValues) {
  const std::string zero_key("\x00\x00", 2), ff_key("\xff\xff\xff", 3),
      mixed(
          "a\x00\xff"
          "b",
          4);
  const std::string big(1 << 20, 'x');
  std::string big_random(1 << 20, '\0');
  std::mt19937_64 rng(3);
  for (char& c : big_random) c = static_cast<char>(rng());
  ASSERT_TRUE(store_->Put(zero_key, "").ok());
  ASSERT_TRUE(store_->Put(ff_key, big).ok());
  WriteBatch batch;
  batch.Put(mixed, big_random);
  ASSERT_TRUE(store_->Write(batch).ok());

  std::string v = "not empty";
  ASSERT_TRUE(store_->Get(zero_key, &v).ok());
  EXPECT_EQ(v, "");
  ASSERT_TRUE(store_->Get(ff_key, &v).ok());
  EXPECT_EQ(v, big);
  ASSERT_TRUE(store_->Get(mixed, &v).ok());
  EXPECT_EQ(v, big_random);
  EXPECT_TRUE(store_->Get(std::string("\x00", 1), &v).IsNotFound());
  ExpectScanEquals({{zero_key, ""}, {mixed, big_random}, {ff_key, big}});
  if (store_->capabilities().persistent) {
    Reopen();
    ExpectScanEquals({{zero_key, ""}, {mixed, big_random}, {ff_key, big}});
  }
}

TEST_P(KvStoreTest, RejectsInvalidKeys) {
  EXPECT_TRUE(store_->Put("", "v").IsInvalidArgument());
  WriteBatch batch;
  batch.Put("fine", "v");
  batch.Put("", "v");
  EXPECT_TRUE(store_->Write(batch).IsInvalidArgument());
  std::string v;
  EXPECT_TRUE(store_->Get("fine", &v).IsNotFound()) << "a rejected batch must apply nothing";
  const size_t max = store_->capabilities().max_key_bytes;
  if (max < (1u << 20)) {
    EXPECT_TRUE(store_->Put(std::string(max + 1, 'k'), "v").IsInvalidArgument());
    EXPECT_TRUE(store_->Put(std::string(max, 'k'), "v").ok());
  }
}

TEST_P(KvStoreTest, DeleteRangeIsHalfOpen) {
  for (const char* k : {"a", "b", "b\x00", "ba", "c", "d"}) ASSERT_TRUE(store_->Put(k, k).ok());
  ASSERT_TRUE(store_->Put(std::string("b\x00", 2), "z").ok());
  ASSERT_TRUE(store_->DeleteRange("b", "c").ok());
  ExpectScanEquals({{"a", "a"}, {"c", "c"}, {"d", "d"}});
  ASSERT_TRUE(store_->DeleteRange("d", "d").ok());  // empty range
  ASSERT_TRUE(store_->DeleteRange("x", "y").ok());  // nothing there
  ExpectScanEquals({{"a", "a"}, {"c", "c"}, {"d", "d"}});
}

TEST_P(KvStoreTest, BatchAppliesInOrder) {
  WriteBatch batch;
  batch.Put("k", "1");
  batch.Delete("k");
  batch.Put("k", "2");
  batch.Put("j", "1");
  batch.Delete("j");
  ASSERT_TRUE(store_->Write(batch).ok());
  ExpectScanEquals({{"k", "2"}});
}

// A range delete inside a batch applies in order with the batch's other records: what the batch
// put before the range is deleted, what it puts after survives, and an inverted range is a
// no-op. The whole batch is one atomic write.
TEST_P(KvStoreTest, BatchRangeDeletesApplyInOrder) {
  for (const char* k : {"a", "b", "b1", "c", "d"}) ASSERT_TRUE(store_->Put(k, "old").ok());
  WriteBatch batch;
  batch.Put("b2", "new");
  batch.DeleteRange("b", "c");
  batch.Put("b3", "after");
  batch.DeleteRange("d", "a");     // inverted: nothing
  batch.DeleteRange("", "a\x01");  // an empty begin is the start
  ASSERT_TRUE(store_->Write(batch).ok());
  ExpectScanEquals({{"b3", "after"}, {"c", "old"}, {"d", "old"}});
}

// SingleDelete deletes a key written once, as Delete does, on every backend; a key put again
// after it is visible again. The churn of a zset's score index (each record written once,
// deleted once, and re-created under a new key) stays exact through flushes, compactions (where
// RocksDB drops a SingleDelete with its Put) and a reopen.
TEST_P(KvStoreTest, SingleDeleteDeletesAKeyWrittenOnce) {
  WriteBatch batch;
  batch.Put("k1", "a");
  batch.Put("k2", "b");
  ASSERT_TRUE(store_->Write(batch).ok());
  batch.Clear();
  batch.SingleDelete("k1");
  batch.Put("k3", "c");
  batch.SingleDelete("k3");  // put and deleted in one batch
  ASSERT_TRUE(store_->Write(batch).ok());
  ExpectScanEquals({{"k2", "b"}});
  std::string v;
  EXPECT_TRUE(store_->Get("k1", &v).IsNotFound());
  batch.Clear();
  batch.Put("k1", "again");
  ASSERT_TRUE(store_->Write(batch).ok());
  ExpectScanEquals({{"k1", "again"}, {"k2", "b"}});

  // Score-index churn: 20 members re-scored 30 times each, the store flushed (and compacted
  // where it compacts) between rounds, so that SingleDeletes meet their Puts in every place.
  Model model = {{"k1", "again"}, {"k2", "b"}};
  std::vector<int> score(20, 0);
  auto index_key = [](int s, int m) {
    return "i" + std::to_string(1000 + s) + "/" + std::to_string(m);
  };
  for (int m = 0; m < 20; ++m) {
    batch.Clear();
    batch.Put(index_key(0, m), "");
    ASSERT_TRUE(store_->Write(batch).ok());
    model[index_key(0, m)] = "";
  }
  for (int round = 1; round <= 30; ++round) {
    for (int m = 0; m < 20; ++m) {
      const int next = (score[m] + 7 * m + round) % 97;
      if (next == score[m]) continue;
      batch.Clear();
      batch.SingleDelete(index_key(score[m], m));
      batch.Put(index_key(next, m), "");
      ASSERT_TRUE(store_->Write(batch).ok());
      model.erase(index_key(score[m], m));
      model[index_key(next, m)] = "";
      score[m] = next;
    }
    ASSERT_TRUE(store_->Flush().ok());
    if (round % 10 == 0) {
      Status s = opened_->CompactAll();
      ASSERT_TRUE(s.ok() || s.IsNotSupported()) << s.ToString();
    }
  }
  ExpectScanEquals(model);
  if (!store_->capabilities().persistent) return;
  Reopen();
  ExpectScanEquals(model);
}

TEST_P(KvStoreTest, CloseAndReopenKeepsData) {
  if (!store_->capabilities().persistent) GTEST_SKIP() << "not persistent";
  Model model;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 2000 / kOpScale; ++i) {
    std::string k = "key" + std::to_string(rng() % (1500 / kOpScale)), v = RandomValue(rng);
    ASSERT_TRUE(store_->Put(k, v).ok());
    model[k] = v;
  }
  ASSERT_TRUE(store_->DeleteRange("key1", "key2").ok());
  model.erase(model.lower_bound("key1"), model.lower_bound("key2"));
  Reopen();
  ExpectScanEquals(model);
  ASSERT_TRUE(store_->Put("after", "reopen").ok());
  model["after"] = "reopen";
  Reopen();
  ExpectScanEquals(model);
}

// A random walk: seeks of every kind, then steps that change direction at random, against
// the model. Over key spaces this drives the merge of several spaces' iterators through every
// change of direction at every boundary between spaces.
TEST_P(KvStoreTest, RandomWalkWithDirectionChanges) {
  if (!reverse()) GTEST_SKIP() << "no reverse scan on this variant";
  std::mt19937_64 rng(11);
  Model model;
  WriteBatch batch;
  for (int i = 0; i < 300; ++i) {
    std::string k = RandomKey(rng), v = RandomValue(rng);
    batch.Put(k, v);
    model[k] = v;
  }
  ASSERT_TRUE(store_->Write(batch).ok());
  for (int round = 0; round < 100; ++round) {
    IteratorOptions opts;
    if (round % 3 != 0) {
      std::string lo = RandomKey(rng), hi = RandomKey(rng);
      if (hi < lo) std::swap(lo, hi);
      if (round % 3 == 1) opts.lower_bound = lo;
      opts.upper_bound = hi;
    }
    Model view;
    for (const auto& [k, v] : model) {
      if ((!opts.lower_bound || k >= *opts.lower_bound) &&
          (!opts.upper_bound || k < *opts.upper_bound)) {
        view.emplace(k, v);
      }
    }
    auto it = store_->NewIterator(opts);
    Model::const_iterator m = view.end();  // view.end(): invalid
    for (int step = 0; step < 60; ++step) {
      const int op = rng() % 10;
      const std::string target = RandomKey(rng);
      if (op == 0) {
        it->Seek(target);
        m = view.lower_bound(target);
      } else if (op == 1) {
        it->SeekForPrev(target);
        m = view.upper_bound(target);
        m = m == view.begin() ? view.end() : std::prev(m);
      } else if (op == 2) {
        it->SeekToFirst();
        m = view.begin();
      } else if (op == 3) {
        it->SeekToLast();
        m = view.empty() ? view.end() : std::prev(view.end());
      } else if (m == view.end()) {
        continue;  // stepping needs a position
      } else if (op < 7) {
        it->Next();
        ++m;
      } else {
        it->Prev();
        m = m == view.begin() ? view.end() : std::prev(m);
      }
      ASSERT_EQ(it->Valid(), m != view.end()) << "round " << round << " step " << step;
      ASSERT_TRUE(it->status().ok()) << it->status().ToString();
      if (m == view.end()) continue;
      ASSERT_EQ(it->key(), m->first) << "round " << round << " step " << step;
      ASSERT_EQ(it->value(), m->second);
    }
  }
}

// Exact counts for a known sequence, through the counting layer over this variant.
TEST_P(KvStoreTest, CountersAreExact) {
  OpCounters sink;
  CountingStore counting(store_, &sink);
  ASSERT_TRUE(counting.Put("a1", "xyz").ok());
  ASSERT_TRUE(counting.Put("a2", "").ok());
  WriteBatch batch;
  batch.Put("a3", "12");
  batch.Put("a4", "3");
  batch.Delete("zz");
  batch.Put("a5", "");
  batch.SingleDelete("a5");  // a single delete is a delete
  ASSERT_TRUE(counting.Write(batch).ok());
  std::string v;
  ASSERT_TRUE(counting.Get("a1", &v).ok());
  ASSERT_TRUE(counting.Get("nope", &v).IsNotFound());
  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(counting.MultiGet({"a3", "a9", "a4"}, &values).ok());
  ASSERT_TRUE(counting.Delete("a2").ok());
  auto it = counting.NewIterator({});
  int rows = 0;
  for (it->Seek("a"); it->Valid(); it->Next()) ++rows;
  ASSERT_EQ(rows, 3);  // a1 a3 a4
  ASSERT_TRUE(counting.DeleteRange("a3", "a4").ok());

  OpCounts c = sink.Snapshot();
  EXPECT_EQ(c.puts, 2u);
  EXPECT_EQ(c.batches, 1u);
  EXPECT_EQ(c.batch_records, 5u);
  EXPECT_EQ(c.gets, 2u);
  EXPECT_EQ(c.multiget_calls, 1u);
  EXPECT_EQ(c.multiget_keys, 3u);
  EXPECT_EQ(c.deletes, 1u);
  EXPECT_EQ(c.range_deletes, 1u);
  EXPECT_EQ(c.seeks, 1u);
  EXPECT_EQ(c.nexts, 3u);  // two moves between rows, one off the end
  EXPECT_EQ(c.prevs, 0u);
  // Written: a1+xyz (5), a2 (2), batch a3+12 a4+3 zz a5 a5 (4+3+2+2+2), delete a2 (2), range
  // a3,a4 (4).
  EXPECT_EQ(c.bytes_written, 5u + 2 + 13 + 2 + 4);
  // Read: get a1+xyz (5) + get nope (4) + multiget keys (6) and found values (2+1) + rows
  // a1+xyz, a3+12, a4+3 (5+4+3).
  EXPECT_EQ(c.bytes_read, 5u + 4 + 6 + 3 + 12);

  OpCounts before = sink.Snapshot();
  ASSERT_TRUE(counting.Get("a1", &v).ok());
  OpCounts delta = sink.Snapshot() - before;
  EXPECT_EQ(delta.gets, 1u);
  EXPECT_EQ(delta.Describe(), "1 gets");
}

#ifdef KVLAB_KV_SUITE_ETCD
// etcd itself, and under the remote-store decorators (its round trips are real, the decorator's
// only counted: the suite checks that the decorators' paging composes with etcd's).
INSTANTIATE_TEST_SUITE_P(Etcd, KvStoreTest,
                         ::testing::Values(StoreVariant{"etcd"},
                                           StoreVariant{"etcd", /*no_reverse_scan=*/true,
                                                        /*remote=*/true}),
                         [](const auto& info) { return info.param.Name(); });
#else
INSTANTIATE_TEST_SUITE_P(AllBackends, KvStoreTest, ::testing::ValuesIn(testing::AllStoreVariants()),
                         [](const auto& info) { return info.param.Name(); });
#endif

}  // namespace
}  // namespace kvlab::backends
