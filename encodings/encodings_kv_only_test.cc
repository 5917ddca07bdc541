// The KV-only encode-versions (registry rows with TierUse::kNone: hash v0/v1, zset v0, set v0/v1)
// run through a KvTxn with no Redis tier at all. This binary links kvlab_encodings_kv whole (every
// object of the archive, used or not) and the backends, and not kvlab_redis: that it links at all
// proves that no KV-only file references the tier, hiredis or the process spawner
// (encodings/CMakeLists.txt; scripts/check-layers checks their includes).
#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "backends/registry.h"
#include "encodings/clock.h"
#include "encodings/hash_encoding.h"
#include "encodings/key_version.h"
#include "encodings/registry.h"
#include "encodings/set_encoding.h"
#include "encodings/zset_encoding.h"

namespace kvlab::encodings {
namespace {

using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;

// The KV-only rows, built without encoding_table.cc (which is in kvlab_encodings: it names the
// tier's versions too). The same ids, flags and factories as kvlab's rows.
const EncodingRegistry& KvOnly() {
  static const EncodingRegistry* const registry = [] {
    auto* r = new EncodingRegistry();
    const Status s = EncodingRegistry::Make(
        {{KeyType::kHash, "hash", "h", "hash"},
         {KeyType::kZset, "zset", "z", "sorted-set"},
         {KeyType::kSet, "set", "s", "set"}},
        {EncodingSpec{KeyType::kHash,
                      0,
                      "0",
                      "counted",
                      "#000001",
                      true,
                      TierUse::kNone,
                      false,
                      {SubKeyTag::kField},
                      {},
                      [](const EncodingDeps& deps) {
                        EXPECT_EQ(deps.tier, nullptr);
                        return std::unique_ptr<TypeEncoding>(NewCountedHashEncoding(0));
                      }},
         EncodingSpec{KeyType::kHash,
                      1,
                      "1",
                      "blind",
                      "#000002",
                      false,
                      TierUse::kNone,
                      false,
                      {SubKeyTag::kField},
                      {},
                      [](const EncodingDeps& deps) {
                        EXPECT_EQ(deps.tier, nullptr);
                        return std::unique_ptr<TypeEncoding>(NewBlindHashEncoding(1));
                      }},
         EncodingSpec{KeyType::kZset,
                      0,
                      "0",
                      "indexed",
                      "#000003",
                      true,
                      TierUse::kNone,
                      true,
                      {SubKeyTag::kField, SubKeyTag::kScore},
                      {},
                      [](const EncodingDeps& deps) {
                        EXPECT_EQ(deps.tier, nullptr);
                        return std::unique_ptr<TypeEncoding>(NewIndexedZsetEncoding(0));
                      }},
         EncodingSpec{KeyType::kSet,
                      0,
                      "0",
                      "counted",
                      "#000004",
                      true,
                      TierUse::kNone,
                      false,
                      {SubKeyTag::kField},
                      {},
                      [](const EncodingDeps& deps) {
                        EXPECT_EQ(deps.tier, nullptr);
                        return std::unique_ptr<TypeEncoding>(NewCountedSetEncoding(0));
                      }},
         EncodingSpec{KeyType::kSet,
                      1,
                      "1",
                      "blind",
                      "#000005",
                      false,
                      TierUse::kNone,
                      false,
                      {SubKeyTag::kField},
                      {},
                      [](const EncodingDeps& deps) {
                        EXPECT_EQ(deps.tier, nullptr);
                        return std::unique_ptr<TypeEncoding>(NewBlindSetEncoding(1));
                      }}},
        r);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }();
  return *registry;
}

class KvOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(OpenStore(StoreSpec(), &store_).ok()); }

  // Runs `body` in one KvTxn (no key-meta cache) and commits its batch, as the engine does.
  void Command(const std::function<void(KvTxn&)>& body) {
    KvTxn txn(store_->store(), &codec_, &KvOnly(), &versions_, 0, clock_.NowMillis());
    body(txn);
    if (!txn.batch().empty()) {
      ASSERT_TRUE(store_->store()->Write(txn.batch()).ok());
    }
    for (auto& step : txn.after_commit()) ASSERT_TRUE(step().ok());
    EXPECT_EQ(txn.tier_counts(), redis::TierCounts());
  }

  KeyHandle Load(KvTxn& txn, std::string_view key, KeyType type, uint8_t version) {
    KeyHandle h{key, {}, false};
    bool found = false;
    EXPECT_TRUE(txn.GetMeta(key, &h.meta, &found).ok());
    if (!found) {
      h.meta = txn.NewMeta(type, version);
      h.is_new = true;
    }
    return h;
  }

  template <typename T>
  static std::unique_ptr<T> Make(KeyType type, uint8_t version) {
    std::unique_ptr<TypeEncoding> e = KvOnly().Find(type, version)->factory(EncodingDeps());
    return std::unique_ptr<T>(static_cast<T*>(e.release()));
  }

  std::unique_ptr<OpenedStore> store_;
  const KeyCodec codec_{KeyCodecOptions()};
  SystemClock clock_;
  KeyVersionGenerator versions_{&clock_};
};

TEST_F(KvOnlyTest, HashVersionsRunWithoutATier) {
  for (uint8_t v : {0, 1}) {
    const std::string key = "h" + std::to_string(v);
    auto hash = Make<HashEncoding>(KeyType::kHash, v);
    Command([&](KvTxn& txn) {
      KeyHandle h = Load(txn, key, KeyType::kHash, v);
      ASSERT_TRUE(h.is_new);
      int64_t reply = 0;
      ASSERT_TRUE(hash->Set(txn, &h, {{"a", "1"}, {"b", "2"}}, &reply).ok());
      EXPECT_EQ(reply, 2);
    });
    Command([&](KvTxn& txn) {
      KeyHandle h = Load(txn, key, KeyType::kHash, v);
      ASSERT_FALSE(h.is_new);
      std::vector<FieldValue> all;
      ASSERT_TRUE(hash->GetAll(txn, h, HashGetAllPart::kBoth, &all).ok());
      EXPECT_EQ(all, (std::vector<FieldValue>{{"a", "1"}, {"b", "2"}}));
      uint64_t length = 0;
      ASSERT_TRUE(hash->Length(txn, h, &length).ok());
      EXPECT_EQ(length, 2u);
    });
  }
}

TEST_F(KvOnlyTest, ZsetV0RunsWithoutATier) {
  auto zset = Make<ZsetEncoding>(KeyType::kZset, 0);
  Command([&](KvTxn& txn) {
    KeyHandle h = Load(txn, "z", KeyType::kZset, 0);
    ZAddResult result;
    ASSERT_TRUE(zset->Add(txn, &h, ZAddFlags(), {{"a", 2}, {"b", 1}, {"c", 3}}, &result).ok());
    EXPECT_EQ(result.added, 3);
  });
  Command([&](KvTxn& txn) {
    KeyHandle h = Load(txn, "z", KeyType::kZset, 0);
    std::vector<ScoredMember> out;
    ASSERT_TRUE(zset->RangeByRank(txn, h, 0, -1, /*reverse=*/false, &out).ok());
    EXPECT_EQ(out, (std::vector<ScoredMember>{{"b", 1}, {"a", 2}, {"c", 3}}));
    std::vector<ScoredMember> popped;
    ASSERT_TRUE(zset->Pop(txn, &h, 2, /*max=*/true, &popped).ok());
    EXPECT_EQ(popped, (std::vector<ScoredMember>{{"c", 3}, {"a", 2}}));
  });
  Command([&](KvTxn& txn) {
    KeyHandle h = Load(txn, "z", KeyType::kZset, 0);
    uint64_t card = 0;
    ASSERT_TRUE(zset->Card(txn, h, &card).ok());
    EXPECT_EQ(card, 1u);
  });
}

TEST_F(KvOnlyTest, SetVersionsRunWithoutATier) {
  for (uint8_t v : {0, 1}) {
    const std::string key = "s" + std::to_string(v);
    auto set = Make<SetEncoding>(KeyType::kSet, v);
    Command([&](KvTxn& txn) {
      KeyHandle h = Load(txn, key, KeyType::kSet, v);
      ASSERT_TRUE(h.is_new);
      int64_t reply = 0;
      ASSERT_TRUE(set->Add(txn, &h, {"b", "a", "c"}, &reply).ok());
      EXPECT_EQ(reply, 3);
    });
    Command([&](KvTxn& txn) {
      KeyHandle h = Load(txn, key, KeyType::kSet, v);
      ASSERT_FALSE(h.is_new);
      std::vector<bool> found;
      ASSERT_TRUE(set->Contains(txn, h, {"a", "x"}, &found).ok());
      EXPECT_EQ(found, (std::vector<bool>{true, false}));
      int64_t reply = 0;
      ASSERT_TRUE(set->Remove(txn, &h, {"b"}, RemoveHint(), &reply).ok());
      EXPECT_EQ(reply, 1);
    });
    Command([&](KvTxn& txn) {
      KeyHandle h = Load(txn, key, KeyType::kSet, v);
      std::vector<std::string> members;
      ASSERT_TRUE(set->Members(txn, h, &members).ok());
      EXPECT_EQ(members, (std::vector<std::string>{"a", "c"}));
      uint64_t size = 0;
      ASSERT_TRUE(set->Size(txn, h, &size).ok());
      EXPECT_EQ(size, 2u);
    });
  }
}

}  // namespace
}  // namespace kvlab::encodings
