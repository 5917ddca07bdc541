// Per-key locking under load: read-only commands share their keys, and a command over very many
// keys stalls only the commands on its own keys. A store decorator holds one chosen read of a
// command in flight (the command then holds its locks), and the test checks which other
// commands can run meanwhile.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "backends/kv_store_wrapper.h"
#include "testing/engine_test_util.h"

namespace kvlab::engine {

using backends::Capabilities;
using backends::Iterator;
using backends::IteratorOptions;
using backends::KvStore;
using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using backends::WriteBatch;
using resp::Reply;

namespace {

// Forwards to a store; the next Get of an armed key, or MultiGet of at least an armed number
// of keys, waits until Open().
class GateStore final : public backends::KvStoreWrapper {
 public:
  explicit GateStore(KvStore* base) : KvStoreWrapper(base) {}

  void ArmGet(std::string key) {
    std::lock_guard lock(mu_);
    get_key_ = std::move(key);
  }
  void ArmMultiGet(size_t min_keys) {
    std::lock_guard lock(mu_);
    multiget_min_ = min_keys;
  }
  // Waits until a call is held at the gate.
  void WaitHeld() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return held_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

  Status Get(std::string_view key, std::string* value) override {
    bool hold = false;
    {
      std::lock_guard lock(mu_);
      if (!get_key_.empty() && key == get_key_) {
        get_key_.clear();
        hold = true;
      }
    }
    if (hold) Hold();
    return target()->Get(key, value);
  }
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override {
    bool hold = false;
    {
      std::lock_guard lock(mu_);
      if (multiget_min_ != 0 && keys.size() >= multiget_min_) {
        multiget_min_ = 0;
        hold = true;
      }
    }
    if (hold) Hold();
    return target()->MultiGet(keys, values);
  }

 private:
  void Hold() {
    std::unique_lock lock(mu_);
    held_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::string get_key_;
  size_t multiget_min_ = 0;
  bool held_ = false;
  bool open_ = false;
};

// An engine over a memory store behind a GateStore, each command on its own session.
class GatedEngine {
 public:
  explicit GatedEngine(size_t lock_stripes) {
    StoreSpec spec;
    spec.backend = "memory";
    spec.options.dir = scratch_.Sub("store");
    EXPECT_TRUE(OpenStore(spec, &store_).ok());
    gate_ = std::make_unique<GateStore>(store_->store());
    EngineOptions options;
    options.lock_stripes = lock_stripes;
    engine_ = std::make_unique<Engine>(gate_.get(), options);
  }
  ~GatedEngine() { gate_->Open(); }

  GateStore& gate() { return *gate_; }
  Engine& engine() { return *engine_; }

  Reply Run(const std::vector<std::string>& argv) {
    Session session;
    return engine_->Execute(session, argv);
  }
  std::future<Reply> Start(std::vector<std::string> argv) {
    return std::async(std::launch::async, [this, argv] { return Run(argv); });
  }

 private:
  testing::ScratchDir scratch_;
  std::unique_ptr<OpenedStore> store_;
  std::unique_ptr<GateStore> gate_;
  std::unique_ptr<Engine> engine_;
};

constexpr auto kRuns = std::chrono::seconds(20);         // generous: a loaded machine
constexpr auto kWaits = std::chrono::milliseconds(300);  // must still be waiting after this
bool Finishes(std::future<Reply>& f) { return f.wait_for(kRuns) == std::future_status::ready; }
bool Waits(std::future<Reply>& f) { return f.wait_for(kWaits) == std::future_status::timeout; }

TEST(Locking, ReadersOfOneKeyShareItAndAWriterWaitsForThem) {
  GatedEngine e(4096);
  ASSERT_EQ(e.Run({"SET", "hot", "v"}).Describe(), "OK");
  e.gate().ArmGet(e.engine().codec().MetaKey(0, "hot"));
  auto reader = e.Start({"GET", "hot"});
  e.gate().WaitHeld();  // the first GET holds the key's lock, stuck in the store

  auto second_reader = e.Start({"GET", "hot"});
  EXPECT_TRUE(Finishes(second_reader)) << "a second reader waited for the first";
  auto writer = e.Start({"SET", "hot", "w"});
  EXPECT_TRUE(Waits(writer)) << "a writer ran while a reader held the key";

  e.gate().Open();
  ASSERT_TRUE(Finishes(reader));
  EXPECT_EQ(reader.get().Describe(), "\"v\"");
  ASSERT_TRUE(Finishes(writer));
  EXPECT_EQ(e.Run({"GET", "hot"}).Describe(), "\"w\"");
  ASSERT_TRUE(Finishes(second_reader));
  EXPECT_EQ(second_reader.get().Describe(), "\"v\"");
}

// SORT with a BY or GET pattern reads keys no argument names, so it locks everything in its
// mode: while SORT_RO is held inside a pattern key's read, a reader of another key runs and a
// writer of one waits; while SORT is, a reader waits too. Without a pattern it locks its keys.
TEST(Locking, SortWithPatternsLocksEverythingInItsMode) {
  GatedEngine e(4096);
  ASSERT_EQ(e.Run({"RPUSH", "l", "1", "2"}).Describe(), "(integer) 2");
  ASSERT_EQ(e.Run({"MSET", "w_1", "9", "w_2", "3", "other", "v"}).Describe(), "OK");

  e.gate().ArmGet(e.engine().codec().MetaKey(0, "w_1"));
  auto sort_ro = e.Start({"SORT_RO", "l", "BY", "w_*"});
  e.gate().WaitHeld();
  auto reader = e.Start({"GET", "other"});
  EXPECT_TRUE(Finishes(reader)) << "a reader of an unrelated key waited for SORT_RO";
  auto writer = e.Start({"SET", "w_2", "100"});
  EXPECT_TRUE(Waits(writer)) << "a pattern key was written while SORT_RO read the patterns";
  e.gate().Open();
  ASSERT_TRUE(Finishes(sort_ro));
  EXPECT_EQ(sort_ro.get().Describe(), "[\"2\", \"1\"]");
  ASSERT_TRUE(Finishes(writer));

  GatedEngine w(4096);
  ASSERT_EQ(w.Run({"RPUSH", "l", "1", "2"}).Describe(), "(integer) 2");
  ASSERT_EQ(w.Run({"MSET", "w_1", "9", "other", "v"}).Describe(), "OK");
  w.gate().ArmGet(w.engine().codec().MetaKey(0, "w_1"));
  auto sort = w.Start({"SORT", "l", "BY", "w_*", "GET", "#", "STORE", "d"});
  w.gate().WaitHeld();
  auto blocked_reader = w.Start({"GET", "other"});
  EXPECT_TRUE(Waits(blocked_reader)) << "a reader ran while SORT BY held everything";
  w.gate().Open();
  ASSERT_TRUE(Finishes(sort));
  EXPECT_EQ(sort.get().Describe(), "(integer) 2");
  ASSERT_TRUE(Finishes(blocked_reader));
  EXPECT_EQ(w.Run({"LRANGE", "d", "0", "-1"}).Describe(), "[\"2\", \"1\"]");

  // No pattern: only its keys.
  w.gate().ArmGet(w.engine().codec().MetaKey(0, "l"));
  auto plain = w.Start({"SORT", "l", "STORE", "d"});
  w.gate().WaitHeld();
  auto unrelated_writer = w.Start({"SET", "other", "x"});
  EXPECT_TRUE(Finishes(unrelated_writer)) << "a plain SORT locked more than its keys";
  w.gate().Open();
  ASSERT_TRUE(Finishes(plain));
}

std::vector<std::string> ManyKeys(const char* command, int n) {
  std::vector<std::string> argv = {command};
  for (int i = 0; i < n; ++i) argv.push_back("k" + std::to_string(i));
  return argv;
}

void Fill(GatedEngine& e, int n) {
  std::vector<std::string> mset = {"MSET"};
  for (int i = 0; i < n; ++i) {
    mset.push_back("k" + std::to_string(i));
    mset.push_back("v" + std::to_string(i));
  }
  ASSERT_EQ(e.Run(mset).Describe(), "OK");
}

// 16 stripes: the command's 3000 keys cover every stripe, so every other key shares one.
TEST(Locking, AHugeMgetStallsNoUnrelatedKeyAndNoReader) {
  GatedEngine e(16);
  Fill(e, 3000);
  e.gate().ArmMultiGet(3000);
  auto mget = e.Start(ManyKeys("MGET", 3000));
  e.gate().WaitHeld();

  auto unrelated_write = e.Start({"SET", "unrelated", "1"});
  EXPECT_TRUE(Finishes(unrelated_write)) << "a write of an unrelated key waited for the MGET";
  auto reader = e.Start({"GET", "k5"});
  EXPECT_TRUE(Finishes(reader)) << "a reader of one of its keys waited for the MGET";
  auto writer = e.Start({"SET", "k5", "new"});
  EXPECT_TRUE(Waits(writer)) << "a write of one of its keys ran during the MGET";

  e.gate().Open();
  ASSERT_TRUE(Finishes(mget));
  const Reply r = mget.get();
  ASSERT_EQ(r.elements().size(), 3000u);
  EXPECT_EQ(r.elements()[5].str(), "v5");  // the MGET read before the SET
  ASSERT_TRUE(Finishes(writer));
  EXPECT_EQ(e.Run({"GET", "k5"}).Describe(), "\"new\"");
}

TEST(Locking, AHugeDelIsAtomicAndStallsOnlyItsOwnKeys) {
  GatedEngine e(16);
  Fill(e, 3000);
  e.gate().ArmMultiGet(3000);
  auto del = e.Start(ManyKeys("DEL", 3000));
  e.gate().WaitHeld();

  auto unrelated_write = e.Start({"SET", "unrelated", "1"});
  EXPECT_TRUE(Finishes(unrelated_write)) << "a write of an unrelated key waited for the DEL";
  auto unrelated_read = e.Start({"GET", "unrelated"});
  EXPECT_TRUE(Finishes(unrelated_read));
  auto reader = e.Start({"GET", "k7"});
  EXPECT_TRUE(Waits(reader)) << "a reader saw a key of the DEL while it ran";
  auto flush = e.Start({"FLUSHALL"});
  EXPECT_TRUE(Waits(flush)) << "FLUSHALL interleaved with the DEL";

  e.gate().Open();
  ASSERT_TRUE(Finishes(del));
  EXPECT_EQ(del.get().Describe(), "(integer) 3000");
  ASSERT_TRUE(Finishes(reader));
  EXPECT_EQ(reader.get().Describe(), "(nil)");
  ASSERT_TRUE(Finishes(flush));
}

// Many threads, large and ordinary commands on overlapping keys: every MGET sees one MSET
// whole, and no increment is lost.
TEST(Locking, LargeAndOrdinaryCommandsOnOverlappingKeysStayAtomic) {
  GatedEngine e(64);
  constexpr int kKeys = 1500;
  Fill(e, kKeys);
  std::atomic<int> torn{0};
  // A reply torn between two MSETs: some value of one, some of another (or of the fill).
  auto is_torn = [](const Reply& r) {
    bool any_g = false, all_equal = true;
    for (const Reply& x : r.elements()) {
      any_g = any_g || x.str().starts_with("g");
      all_equal = all_equal && x.str() == r.elements()[0].str();
    }
    return any_g && !all_equal;
  };
  std::vector<std::thread> threads;
  threads.emplace_back([&] {  // a large writer
    for (int n = 0; n < 20; ++n) {
      std::vector<std::string> mset = {"MSET"};
      for (int i = 0; i < kKeys; ++i) {
        mset.push_back("k" + std::to_string(i));
        mset.push_back("g" + std::to_string(n));
      }
      e.Run(mset);
    }
  });
  threads.emplace_back([&] {  // a large reader
    for (int n = 0; n < 20; ++n) {
      const Reply r = e.Run(ManyKeys("MGET", kKeys));
      if (r.elements().size() != kKeys || is_torn(r)) ++torn;
    }
  });
  threads.emplace_back([&] {  // an ordinary reader of two of its keys
    for (int n = 0; n < 300; ++n) {
      const Reply r = e.Run({"MGET", "k0", "k1499"});
      if (is_torn(r)) ++torn;
    }
  });
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      for (int n = 0; n < 300; ++n) e.Run({"HINCRBY", "h", "f", "1"});
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(torn.load(), 0) << "a reader saw part of an MSET";
  EXPECT_EQ(e.Run({"HGET", "h", "f"}).Describe(), "\"600\"");
  EXPECT_EQ(e.engine().key_locks().large_commands(), 41u);  // the fill, 20 MSETs, 20 MGETs
}

}  // namespace
}  // namespace kvlab::engine
