// What the etcd backend adds to the shared suite (kv_store_etcd_test): round trips per call,
// etcd's limits and their errors, the reduction of a batch to one Txn, and key prefixes that
// keep stores apart on one cluster. All on one private 3-member cluster the suite starts.
#include "backends/etcd_store.h"

#include <gtest/gtest.h>

#include <map>

#include "backends/etcd_cluster.h"
#include "testing/kv_test_util.h"

namespace kvlab::backends {
namespace {

using testing::ScratchDir;

uint64_t Counter(KvStore* store, const std::string& name) {
  for (const auto& [n, v] : store->ReadPhysicalCounters()) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

std::map<std::string, std::string> Scan(KvStore* store) {
  std::map<std::string, std::string> out;
  auto it = store->NewIterator();
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace(it->key(), it->value());
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

class EtcdStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<ScratchDir>();
    EtcdClusterOptions options;
    options.dir = dir_->Sub("cluster");
    Status s = EtcdCluster::Start(options, &cluster_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static void TearDownTestSuite() {
    cluster_.reset();
    dir_.reset();
  }
  void SetUp() override {
    ASSERT_NE(cluster_, nullptr) << "the suite's etcd cluster did not start";
  }

  // A store of its own (its own key prefix) on the suite's cluster.
  std::unique_ptr<KvStore> Open(const std::string& name, uint32_t max_txn_ops = 0) {
    EtcdOptions etcd;
    etcd.endpoints = cluster_->client_endpoints();
    etcd.max_txn_ops = max_txn_ops == 0 ? kPrivateMaxTxnOps : max_txn_ops;
    StoreOptions options;
    options.dir = scratch_.Sub(name);
    std::unique_ptr<KvStore> store;
    Status s = OpenEtcdStore(options, etcd, &store);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return store;
  }

  static inline std::unique_ptr<ScratchDir> dir_;
  static inline std::unique_ptr<EtcdCluster> cluster_;
  ScratchDir scratch_;
};

TEST_F(EtcdStoreTest, EachCallIsOneRoundTrip) {
  auto store = Open("s");
  ASSERT_NE(store, nullptr);
  auto trips = [&] { return Counter(store.get(), "etcd.round_trips"); };
  uint64_t before = trips();
  WriteBatch batch;
  for (int i = 0; i < 50; ++i) batch.Put("k" + std::to_string(i), "v");
  batch.DeleteRange("k1", "k2");
  ASSERT_TRUE(store->Write(batch).ok());
  EXPECT_EQ(trips() - before, 1u) << "a batch is one Txn";

  before = trips();
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back("k" + std::to_string(i));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(store->MultiGet(views, &values).ok());
  EXPECT_EQ(trips() - before, 1u) << "a MultiGet is one Txn of Ranges";
  EXPECT_FALSE(values[1].has_value());   // k1: in the deleted range
  EXPECT_FALSE(values[15].has_value());  // k15: too
  EXPECT_EQ(values[2], "v");

  before = trips();
  std::string v;
  ASSERT_TRUE(store->Get("k2", &v).ok());
  EXPECT_EQ(trips() - before, 1u);

  // A scan reads pages of kEtcdPageRows rows: 39 rows are one page, forward and reverse.
  before = trips();
  auto it = store->NewIterator();
  int rows = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++rows;
  for (it->SeekToLast(); it->Valid(); it->Prev()) ++rows;
  EXPECT_EQ(rows, 2 * 39);
  EXPECT_EQ(trips() - before, 2u);
  EXPECT_GT(Counter(store.get(), "etcd.bytes_sent"), 0u);
  EXPECT_GT(Counter(store.get(), "etcd.bytes_received"), 0u);
}

TEST_F(EtcdStoreTest, ScansPageThroughManyRows) {
  auto store = Open("s");
  ASSERT_NE(store, nullptr);
  WriteBatch batch;
  std::map<std::string, std::string> model;
  for (int i = 0; i < 2 * kEtcdPageRows + 7; ++i) {
    const std::string k = "row" + std::to_string(1000 + i);
    batch.Put(k, std::to_string(i));
    model[k] = std::to_string(i);
  }
  ASSERT_TRUE(store->Write(batch).ok());
  const uint64_t before = Counter(store.get(), "etcd.round_trips");
  EXPECT_EQ(Scan(store.get()), model);
  EXPECT_EQ(Counter(store.get(), "etcd.round_trips") - before, 3u) << "three pages";
  auto it = store->NewIterator();
  auto m = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++m) {
    ASSERT_NE(m, model.rend());
    ASSERT_EQ(it->key(), m->first);
  }
  EXPECT_EQ(m, model.rend());
}

// etcd applies a Range's limit after sorting, so a descending page reads every row of its range
// (between the iterator's lower bound and the seek target), however few it returns; an ascending
// page only counts them in etcd's index. The counters say so, and a tighter bound is cheaper.
TEST_F(EtcdStoreTest, ReversePagesReadTheirWholeRange) {
  auto store = Open("s");
  ASSERT_NE(store, nullptr);
  WriteBatch batch;
  const int n = 2 * kEtcdPageRows + 7;
  for (int i = 0; i < n; ++i) batch.Put("row" + std::to_string(1000 + i), "v");
  ASSERT_TRUE(store->Write(batch).ok());
  auto reverse_rows = [&] { return Counter(store.get(), "etcd.reverse_rows_read"); };
  auto range_rows = [&] { return Counter(store.get(), "etcd.page_range_rows"); };

  uint64_t reverse_before = reverse_rows(), range_before = range_rows();
  auto it = store->NewIterator();
  it->SeekToLast();  // one page of 100 rows, the last ones
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(reverse_rows() - reverse_before, static_cast<uint64_t>(n));
  EXPECT_EQ(range_rows() - range_before, static_cast<uint64_t>(n));

  reverse_before = reverse_rows();
  range_before = range_rows();
  it->Seek("row1000");  // forward: counted in the index only
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(reverse_rows() - reverse_before, 0u);
  EXPECT_EQ(range_rows() - range_before, static_cast<uint64_t>(n));

  IteratorOptions bounded;
  bounded.lower_bound = "row1200";
  auto tail = store->NewIterator(bounded);
  reverse_before = reverse_rows();
  int rows = 0;
  for (tail->SeekToLast(); tail->Valid(); tail->Prev()) ++rows;
  EXPECT_EQ(rows, n - 200);
  EXPECT_EQ(reverse_rows() - reverse_before, static_cast<uint64_t>(n - 200));
}

TEST_F(EtcdStoreTest, BatchOverMaxTxnOpsFailsClearlyAndAppliesNothing) {
  auto store = Open("s", kEtcdDefaultMaxTxnOps);
  ASSERT_NE(store, nullptr);
  WriteBatch batch;
  for (uint32_t i = 0; i <= kEtcdDefaultMaxTxnOps; ++i) batch.Put("k" + std::to_string(i), "v");
  const Status s = store->Write(batch);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("a batch of 129 operations"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("--max-txn-ops of 128"), std::string::npos) << s.ToString();
  EXPECT_TRUE(Scan(store.get()).empty());
  // The reduced batch counts: 200 writes of one key are one operation.
  WriteBatch same;
  for (int i = 0; i < 200; ++i) same.Put("one", std::to_string(i));
  ASSERT_TRUE(store->Write(same).ok());
  std::string v;
  ASSERT_TRUE(store->Get("one", &v).ok());
  EXPECT_EQ(v, "199");
}

TEST_F(EtcdStoreTest, ClusterEnforcesItsOwnTxnLimit) {
  // A store told a higher limit than the members have: etcd refuses the Txn, and the error
  // says so rather than a success or a hang.
  auto store = Open("s", 2 * kPrivateMaxTxnOps);
  ASSERT_NE(store, nullptr);
  WriteBatch batch;
  for (int i = 0; i <= kPrivateMaxTxnOps; ++i) batch.Put("k" + std::to_string(i), "");
  const Status s = store->Write(batch);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("too many operations"), std::string::npos) << s.ToString();
  EXPECT_TRUE(Scan(store.get()).empty());
}

TEST_F(EtcdStoreTest, RequestOverMaxRequestBytesFailsClearly) {
  auto store = Open("s");
  ASSERT_NE(store, nullptr);
  const std::string big(kEtcdMaxRequestBytes, 'x');
  Status s = store->Put("big", big);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("--max-request-bytes of 1572864"), std::string::npos) << s.ToString();
  WriteBatch batch;
  const std::string half(kEtcdMaxRequestBytes / 2, 'y');
  batch.Put("a", half);
  batch.Put("b", half);
  s = store->Write(batch);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.message().find("a batch of 2 operations of "), std::string::npos) << s.ToString();
  EXPECT_TRUE(Scan(store.get()).empty());
}

TEST_F(EtcdStoreTest, BatchReducesToOneValidTxn) {
  auto store = Open("s");
  ASSERT_NE(store, nullptr);
  for (const char* k : {"a", "b", "c", "d", "e", "f"}) ASSERT_TRUE(store->Put(k, "old").ok());
  WriteBatch batch;
  batch.Put("c", "1");
  batch.DeleteRange("b", "e");  // deletes b, c, d (and the put of c before it)
  batch.Put("c", "2");          // a put inside the deleted range, after it
  batch.Delete("c");
  batch.Put("c", "3");
  batch.Put("d", "4");
  batch.DeleteRange("e", "g");
  batch.DeleteRange("a", "a\x01");  // overlapping ranges merge
  batch.DeleteRange("a", "b");
  batch.Put("f", "5");
  ASSERT_TRUE(store->Write(batch).ok());
  EXPECT_EQ(Scan(store.get()),
            (std::map<std::string, std::string>{{"c", "3"}, {"d", "4"}, {"f", "5"}}));
}

TEST_F(EtcdStoreTest, StoresOnOneClusterKeepApart) {
  auto one = Open("one");
  auto two = Open("two");
  ASSERT_NE(one, nullptr);
  ASSERT_NE(two, nullptr);
  ASSERT_TRUE(one->Put("k", "1").ok());
  ASSERT_TRUE(two->Put("k", "2").ok());
  ASSERT_TRUE(two->Put(std::string("\xff\xff", 2), "last").ok());
  ASSERT_TRUE(one->DeleteRange(std::string(1, '\0'), std::string(4, '\xff')).ok());
  EXPECT_TRUE(Scan(one.get()).empty());
  EXPECT_EQ(Scan(two.get()),
            (std::map<std::string, std::string>{{"k", "2"}, {std::string("\xff\xff", 2), "last"}}));
  // A reopen of the same directory finds the same prefix, so the same data.
  two.reset();
  two = Open("two");
  ASSERT_NE(two, nullptr);
  std::string v;
  ASSERT_TRUE(two->Get("k", &v).ok());
  EXPECT_EQ(v, "2");
}

// As etcd's own client does: a cluster without authentication serves a store told a user, so
// that clients can get their credentials before an operator enables authentication.
TEST_F(EtcdStoreTest, UserOnAClusterWithoutAuthenticationIsServed) {
  EtcdOptions etcd;
  etcd.endpoints = cluster_->client_endpoints();
  etcd.user = "kvlab";
  etcd.password = "not-checked";
  StoreOptions options;
  options.dir = scratch_.Sub("user");
  std::unique_ptr<KvStore> store;
  const Status s = OpenEtcdStore(options, etcd, &store);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(store->Put("k", "v").ok());
  EXPECT_EQ(Counter(store.get(), "etcd.authentications"), 0u) << "no token was fetched";
}

TEST_F(EtcdStoreTest, UnreachableClusterFailsTheOpen) {
  EtcdOptions etcd;
  etcd.endpoints = {"127.0.0.1:" + std::to_string(FreeLoopbackPort())};
  etcd.timeout_ms = 300;
  StoreOptions options;
  options.dir = scratch_.Sub("nowhere");
  std::unique_ptr<KvStore> store;
  const Status s = OpenEtcdStore(options, etcd, &store);
  ASSERT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_NE(s.message().find("within 300 ms"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(etcd.endpoints[0]), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace kvlab::backends
