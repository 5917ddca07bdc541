// PendingWriteStore against a model: the same writes applied directly to a second store. Every
// read of the overlay (Get, MultiGet, iteration both ways, with and without bounds, with
// direction changes) must equal the model's, and after Commit the store underneath must equal it.
#include "backends/pending_write_store.h"

#include <gtest/gtest.h>

#include <random>

#include "backends/counting_store.h"
#include "backends/kept_reads_store.h"
#include "backends/memory_store.h"
#include "backends/remote_store.h"

namespace kvlab::backends {
namespace {

std::unique_ptr<KvStore> NewMemory() {
  std::unique_ptr<KvStore> store;
  EXPECT_TRUE(MemoryStore::Open({}, &store).ok());
  return store;
}

std::string RandomKey(std::mt19937& rng) {
  return "k" + std::to_string(std::uniform_int_distribution<int>(0, 39)(rng));
}

// Applies one random write (a one-record or a few-record batch) to both stores.
void RandomWrite(std::mt19937& rng, KvStore* overlay, KvStore* model) {
  WriteBatch batch;
  const int records = std::uniform_int_distribution<int>(1, 3)(rng);
  for (int i = 0; i < records; ++i) {
    switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
      case 0:
      case 1:
      case 2:
        batch.Delete(RandomKey(rng));
        break;
      case 3: {
        std::string a = RandomKey(rng), b = RandomKey(rng);
        if (b < a) std::swap(a, b);
        batch.DeleteRange(a, b);
        break;
      }
      default:
        batch.Put(RandomKey(rng), "v" + std::to_string(rng() % 1000));
    }
  }
  ASSERT_TRUE(overlay->Write(batch).ok());
  ASSERT_TRUE(model->Write(batch).ok());
}

using Entries = std::vector<std::pair<std::string, std::string>>;

Entries Forward(KvStore* store, const IteratorOptions& options) {
  Entries out;
  auto it = store->NewIterator(options);
  for (it->SeekToFirst(); it->Valid(); it->Next()) out.emplace_back(it->key(), it->value());
  EXPECT_TRUE(it->status().ok());
  return out;
}

Entries Backward(KvStore* store, const IteratorOptions& options) {
  Entries out;
  auto it = store->NewIterator(options);
  for (it->SeekToLast(); it->Valid(); it->Prev()) out.emplace_back(it->key(), it->value());
  EXPECT_TRUE(it->status().ok());
  return out;
}

// A random walk of seeks and steps in both directions, recorded as the keys visited.
std::vector<std::string> Walk(KvStore* store, uint32_t seed, const IteratorOptions& options) {
  std::mt19937 rng(seed);
  std::vector<std::string> visited;
  auto it = store->NewIterator(options);
  for (int step = 0; step < 60; ++step) {
    switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
      case 0:
        it->Seek(RandomKey(rng));
        break;
      case 1:
        it->SeekForPrev(RandomKey(rng));
        break;
      case 2:
      case 3:
        if (it->Valid()) it->Next();
        break;
      default:
        if (it->Valid()) it->Prev();
    }
    visited.push_back(it->Valid() ? std::string(it->key()) + "=" + std::string(it->value())
                                  : "<end>");
  }
  EXPECT_TRUE(it->status().ok());
  return visited;
}

void ExpectSameReads(KvStore* overlay, KvStore* model, uint32_t seed) {
  for (int i = 0; i < 40; ++i) {
    const std::string k = "k" + std::to_string(i);
    std::string a, b;
    const Status sa = overlay->Get(k, &a), sb = model->Get(k, &b);
    ASSERT_EQ(sa.ok(), sb.ok()) << k;
    ASSERT_TRUE(sa.ok() || sa.IsNotFound());
    if (sa.ok()) {
      EXPECT_EQ(a, b) << k;
    }
  }
  std::vector<std::string> keys = {"k1", "k13", "k2", "k27", "k39", "zz"};
  std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::optional<std::string>> va, vb;
  ASSERT_TRUE(overlay->MultiGet(views, &va).ok());
  ASSERT_TRUE(model->MultiGet(views, &vb).ok());
  EXPECT_EQ(va, vb);
  for (const IteratorOptions& options :
       {IteratorOptions{}, IteratorOptions{std::string("k15"), std::string("k3")},
        IteratorOptions{std::nullopt, std::string("k2")}}) {
    EXPECT_EQ(Forward(overlay, options), Forward(model, options));
    EXPECT_EQ(Backward(overlay, options), Backward(model, options));
    EXPECT_EQ(Walk(overlay, seed, options), Walk(model, seed, options));
  }
}

TEST(PendingWriteStore, ReadsSeePendingWritesAndCommitAppliesThemAtOnce) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto base = NewMemory();
    auto model = NewMemory();
    // A committed state underneath first.
    for (int i = 0; i < 25; ++i) {
      const std::string k = RandomKey(rng);
      ASSERT_TRUE(base->Put(k, "base").ok());
      ASSERT_TRUE(model->Put(k, "base").ok());
    }
    // Every other seed keeps reads under the overlay, as the engine's pipeline groups do:
    // a kept read must never answer for a key written since.
    KeptReadsStore kept(base.get());
    kept.Keep(seed % 2 == 0);
    PendingWriteStore overlay(&kept);
    const Entries before = Forward(base.get(), {});
    for (int round = 0; round < 12; ++round) {
      RandomWrite(rng, &overlay, model.get());
      ExpectSameReads(&overlay, model.get(), seed * 100 + round);
    }
    // Nothing reached the store underneath before Commit.
    EXPECT_EQ(Forward(base.get(), {}), before);
    EXPECT_TRUE(overlay.has_pending());
    ASSERT_TRUE(overlay.Commit().ok());
    EXPECT_FALSE(overlay.has_pending());
    EXPECT_EQ(Forward(base.get(), {}), Forward(model.get(), {}));
    ExpectSameReads(&overlay, model.get(), seed);
  }
}

TEST(PendingWriteStore, DiscardLeavesTheStoreAsItWas) {
  auto base = NewMemory();
  ASSERT_TRUE(base->Put("a", "1").ok());
  PendingWriteStore overlay(base.get());
  ASSERT_TRUE(overlay.Put("b", "2").ok());
  ASSERT_TRUE(overlay.DeleteRange("a", "z").ok());
  std::string v;
  EXPECT_TRUE(overlay.Get("a", &v).IsNotFound());
  overlay.Discard();
  ASSERT_TRUE(overlay.Get("a", &v).ok());
  EXPECT_EQ(v, "1");
  EXPECT_TRUE(overlay.Get("b", &v).IsNotFound());
  ASSERT_TRUE(overlay.Commit().ok());  // nothing pending: nothing written
  EXPECT_EQ(Forward(base.get(), {}), (Entries{{"a", "1"}}));
}

// Without read-your-writes the writes are only gathered; turned on, reads see every pending
// write, those gathered before included; the commit writes them all, in order.
TEST(PendingWriteStore, ReadYourWritesCanStartLate) {
  auto base = NewMemory();
  ASSERT_TRUE(base->Put("a", "1").ok());
  ASSERT_TRUE(base->Put("c", "3").ok());
  PendingWriteStore overlay(base.get(), /*read_your_writes=*/false);
  ASSERT_TRUE(overlay.Put("b", "2").ok());
  ASSERT_TRUE(overlay.Delete("a").ok());
  std::string v;
  ASSERT_TRUE(overlay.Get("a", &v).ok());  // the store's own
  EXPECT_EQ(v, "1");
  EXPECT_TRUE(overlay.Get("b", &v).IsNotFound());
  EXPECT_EQ(Forward(&overlay, {}), (Entries{{"a", "1"}, {"c", "3"}}));
  overlay.StartReadingYourWrites();
  EXPECT_TRUE(overlay.Get("a", &v).IsNotFound());
  ASSERT_TRUE(overlay.Put("c", "4").ok());
  EXPECT_EQ(Forward(&overlay, {}), (Entries{{"b", "2"}, {"c", "4"}}));
  EXPECT_EQ(Forward(base.get(), {}), (Entries{{"a", "1"}, {"c", "3"}}));
  ASSERT_TRUE(overlay.Commit().ok());
  EXPECT_EQ(Forward(base.get(), {}), (Entries{{"b", "2"}, {"c", "4"}}));
}

TEST(PendingWriteStore, RefusesAnInvalidBatchWhole) {
  auto base = NewMemory();
  PendingWriteStore overlay(base.get());
  WriteBatch batch;
  batch.Put("ok", "1");
  batch.Put("", "empty key");
  const Status s = overlay.Write(batch);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_FALSE(overlay.has_pending());
  std::string v;
  EXPECT_TRUE(overlay.Get("ok", &v).IsNotFound());
}

TEST(PendingWriteStore, ReverseScanOnlyWhereTheStoreHasIt) {
  NoReverseScanStore no_reverse(NewMemory());
  PendingWriteStore overlay(&no_reverse);
  ASSERT_TRUE(overlay.Put("a", "1").ok());
  auto it = overlay.NewIterator({});
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "a");
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsNotSupported()) << it->status().ToString();
}

}  // namespace
}  // namespace kvlab::backends

namespace kvlab::backends {
namespace {

// Kept reads answer a second read of a key without the store underneath, NotFound included;
// a write of the key through the kept store (the overlay's commit, an immediate write) forgets
// it; a value over kMaxKeptValueBytes is never kept; with Keep off nothing new is kept.
TEST(KeptReadsStore, AnswersUntilTheKeyIsWritten) {
  auto base = NewMemory();
  ASSERT_TRUE(base->Put("a", "1").ok());
  ASSERT_TRUE(base->Put("big", std::string(KeptReadsStore::kMaxKeptValueBytes + 1, 'x')).ok());
  OpCounts below;
  CountingStore counted(base.get(), &below);
  KeptReadsStore kept(&counted);
  kept.Keep(true);
  PendingWriteStore overlay(&kept, /*read_your_writes=*/false);
  std::string v;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(overlay.Get("a", &v).ok());
    EXPECT_EQ(v, "1");
    EXPECT_TRUE(overlay.Get("none", &v).IsNotFound());
  }
  EXPECT_EQ(below.point_reads(), 2u);
  std::vector<std::optional<std::string>> values;
  ASSERT_TRUE(overlay.MultiGet({"a", "none", "c"}, &values).ok());
  EXPECT_EQ(values, (std::vector<std::optional<std::string>>{"1", std::nullopt, std::nullopt}));
  EXPECT_EQ(below.point_reads(), 3u);  // only "c" reached the store
  EXPECT_TRUE(overlay.Get("c", &v).IsNotFound());
  EXPECT_EQ(below.point_reads(), 3u);  // kept by the MultiGet
  ASSERT_TRUE(overlay.Get("big", &v).ok());
  ASSERT_TRUE(overlay.Get("big", &v).ok());
  EXPECT_EQ(below.point_reads(), 5u);
  EXPECT_EQ(kept.kept(), 3u);

  // Written at once (KvTxn::WriteNow's path): forgotten.
  ASSERT_TRUE(kept.Put("c", "3").ok());
  ASSERT_TRUE(overlay.Get("c", &v).ok());
  EXPECT_EQ(v, "3");
  EXPECT_EQ(below.point_reads(), 6u);
  // A pending write is invisible without read-your-writes, so the kept read still answers
  // (the store's value, as before); its commit writes through the kept store, which forgets.
  ASSERT_TRUE(overlay.Put("a", "2").ok());
  ASSERT_TRUE(overlay.Get("a", &v).ok());
  EXPECT_EQ(v, "1");
  ASSERT_TRUE(overlay.Commit().ok());
  ASSERT_TRUE(overlay.Get("a", &v).ok());
  EXPECT_EQ(v, "2");
  EXPECT_EQ(below.point_reads(), 7u);
  // A range forgets every kept read inside it, and only those.
  ASSERT_TRUE(overlay.DeleteRange("a", "b").ok());
  ASSERT_TRUE(overlay.Commit().ok());
  EXPECT_TRUE(overlay.Get("a", &v).IsNotFound());
  EXPECT_TRUE(overlay.Get("c", &v).ok());
  EXPECT_EQ(below.point_reads(), 8u);
  // Off: what is kept still answers, nothing new is kept.
  kept.Keep(false);
  EXPECT_TRUE(overlay.Get("a", &v).IsNotFound());
  EXPECT_TRUE(overlay.Get("zz", &v).IsNotFound());
  EXPECT_TRUE(overlay.Get("zz", &v).IsNotFound());
  EXPECT_EQ(below.point_reads(), 10u);
}

}  // namespace
}  // namespace kvlab::backends
