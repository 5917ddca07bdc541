// LongKeyStore over a base whose keys may be at most 4 bytes, so that most random keys are long
// and share bucket prefixes, checked against a std::map model.
#include "backends/long_key_store.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "backends/kv_store_wrapper.h"
#include "backends/memory_store.h"

namespace kvlab::backends {
namespace {

using Model = std::map<std::string, std::string>;

// Forwards to a memory store but accepts keys of at most kLimit bytes, as LMDB accepts 511.
class ShortKeyStore final : public KvStoreWrapper {
 public:
  static constexpr size_t kLimit = 4;
  ShortKeyStore() : KvStoreWrapper(OpenMemory()) {}
  std::string name() const override { return "short"; }
  Capabilities capabilities() const override {
    Capabilities c = target()->capabilities();
    c.max_key_bytes = kLimit;
    return c;
  }
  Status Put(std::string_view key, std::string_view value) override {
    KVLAB_RETURN_IF_ERROR(ValidateKey("short", key, kLimit));
    return target()->Put(key, value);
  }
  Status Write(const WriteBatch& batch) override {
    KVLAB_RETURN_IF_ERROR(ValidateBatch("short", batch, kLimit));
    return target()->Write(batch);
  }
  Status Flush() override { return Status::OK(); }

 private:
  static std::unique_ptr<KvStore> OpenMemory() {
    std::unique_ptr<KvStore> base;
    Status s = MemoryStore::Open(StoreOptions(), &base);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return base;
  }
};

std::string RandomKey(std::mt19937_64& rng) {
  static const char kAlphabet[] = {'\x00', 'a', 'b', '\xff'};
  std::string k(1 + rng() % 7, '\0');
  for (char& c : k) c = kAlphabet[rng() % sizeof(kAlphabet)];
  return k;
}

class LongKeyStoreTest : public ::testing::Test {
 protected:
  LongKeyStoreTest() : store_(std::make_unique<ShortKeyStore>()) {}

  // Every key in [lower, upper) of the model, forward from each seek point and backward.
  void ExpectIterationMatches(const Model& model, std::mt19937_64& rng) {
    IteratorOptions options;
    if (rng() % 2) options.lower_bound = RandomKey(rng);
    if (rng() % 2) options.upper_bound = RandomKey(rng);
    Model in_bounds;
    for (const auto& [k, v] : model) {
      if (options.lower_bound && k < *options.lower_bound) continue;
      if (options.upper_bound && k >= *options.upper_bound) continue;
      in_bounds.emplace(k, v);
    }
    auto it = store_.NewIterator(options);
    Model seen;
    for (it->SeekToFirst(); it->Valid(); it->Next()) seen.emplace(it->key(), it->value());
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(seen, in_bounds);
    auto m = in_bounds.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++m) {
      ASSERT_NE(m, in_bounds.rend());
      ASSERT_EQ(it->key(), m->first);
    }
    ASSERT_EQ(m, in_bounds.rend());

    const std::string target = RandomKey(rng);
    it->Seek(target);
    auto f = in_bounds.lower_bound(target);
    for (int steps = 0; steps < 5 && f != in_bounds.end(); ++steps, ++f) {
      ASSERT_TRUE(it->Valid()) << "seek " << target;
      ASSERT_EQ(it->key(), f->first);
      ASSERT_EQ(it->value(), f->second);
      it->Next();
    }
    if (f == in_bounds.end()) {
      ASSERT_FALSE(it->Valid());
    }

    it->SeekForPrev(target);
    auto b = in_bounds.upper_bound(target);
    for (int steps = 0; steps < 5 && b != in_bounds.begin(); ++steps) {
      --b;
      ASSERT_TRUE(it->Valid()) << "seek for prev " << target;
      ASSERT_EQ(it->key(), b->first);
      it->Prev();
    }
    if (b == in_bounds.begin()) {
      ASSERT_FALSE(it->Valid());
    }
  }

  LongKeyStore store_;
};

TEST_F(LongKeyStoreTest, RandomOperationsMatchModel) {
  std::mt19937_64 rng(7);
  Model model;
  for (int i = 0; i < 6000; ++i) {
    const int op = rng() % 100;
    if (op < 35) {
      const std::string k = RandomKey(rng), v = std::to_string(i);
      ASSERT_TRUE(store_.Put(k, v).ok());
      model[k] = v;
    } else if (op < 45) {
      const std::string k = RandomKey(rng);
      ASSERT_TRUE(store_.Delete(k).ok());
      model.erase(k);
    } else if (op < 60) {
      WriteBatch batch;
      for (int r = 0; r < 4; ++r) {
        const std::string k = RandomKey(rng);
        if (rng() % 8 == 0) {
          // A range in the batch: short bounds delete whole buckets, long ones cut into them.
          const std::string e = RandomKey(rng);
          batch.DeleteRange(k, e);
          if (k < e) model.erase(model.lower_bound(k), model.lower_bound(e));
        } else if (rng() % 3 == 0) {
          batch.Delete(k);
          model.erase(k);
        } else {
          batch.Put(k, "b" + std::to_string(i));
          model[k] = "b" + std::to_string(i);
        }
      }
      ASSERT_TRUE(store_.Write(batch).ok());
    } else if (op < 63) {
      std::string begin = RandomKey(rng), end = RandomKey(rng);
      if (end < begin) std::swap(begin, end);
      ASSERT_TRUE(store_.DeleteRange(begin, end).ok());
      model.erase(model.lower_bound(begin), model.lower_bound(end));
    } else if (op < 85) {
      const std::string k = RandomKey(rng);
      std::string v;
      Status s = store_.Get(k, &v);
      auto m = model.find(k);
      if (m == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_EQ(v, m->second);
      }
    } else if (op < 90) {
      const std::vector<std::string> keys = {RandomKey(rng), RandomKey(rng), RandomKey(rng)};
      std::vector<std::optional<std::string>> values;
      ASSERT_TRUE(store_.MultiGet({keys[0], keys[1], keys[2]}, &values).ok());
      for (size_t k = 0; k < keys.size(); ++k) {
        auto m = model.find(keys[k]);
        ASSERT_EQ(values[k].has_value(), m != model.end());
        if (values[k]) {
          ASSERT_EQ(*values[k], m->second);
        }
      }
    } else {
      ASSERT_NO_FATAL_FAILURE(ExpectIterationMatches(model, rng));
    }
  }
  ASSERT_NO_FATAL_FAILURE(ExpectIterationMatches(model, rng));
}

TEST_F(LongKeyStoreTest, LongKeysLiveInBucketsOfTheirPrefix) {
  EXPECT_EQ(store_.capabilities().max_key_bytes, Capabilities().max_key_bytes);
  ASSERT_TRUE(store_.Put("abc", "short").ok());
  ASSERT_TRUE(store_.Put("abcdef", "1").ok());
  ASSERT_TRUE(store_.Put("abcd", "2").ok());
  // The base holds the short key and one bucket ("abc" + 0x00) for both long keys.
  auto it = store_.base()->NewIterator({});
  std::vector<std::string> base_keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) base_keys.emplace_back(it->key());
  EXPECT_EQ(base_keys, (std::vector<std::string>{"abc", std::string("abc\0", 4)}));
  // Deleting the last long key removes the bucket.
  ASSERT_TRUE(store_.Delete("abcd").ok());
  ASSERT_TRUE(store_.Delete("abcdef").ok());
  std::string v;
  EXPECT_TRUE(store_.base()->Get(std::string("abc\0", 4), &v).IsNotFound());
  EXPECT_TRUE(store_.Get("abc", &v).ok());
}

TEST_F(LongKeyStoreTest, CorruptBucketIsAnError) {
  ASSERT_TRUE(store_.base()->Put(std::string("abc\0", 4), "garbage").ok());
  std::string v;
  EXPECT_TRUE(store_.Get("abcdef", &v).IsCorruption());
  auto it = store_.NewIterator({});
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

}  // namespace
}  // namespace kvlab::backends
