// An engine over a chosen backend, driven by command lines, for the engine's tests.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "backends/kv_store_wrapper.h"
#include "backends/registry.h"
#include "encodings/clock.h"
#include "engine/engine.h"
#include "resp/split_args.h"
#include "testing/kv_test_util.h"

namespace kvlab::testing {

// Counts the atomic writes that reach the store, and fails the next one when armed.
class WriteCountingStore final : public backends::KvStoreWrapper {
 public:
  explicit WriteCountingStore(backends::KvStore* base) : KvStoreWrapper(base) {}
  Status Write(const backends::WriteBatch& batch) override {
    ++writes;
    if (fail_next) {
      fail_next = false;
      return Status::IOError("injected write failure");
    }
    return target()->Write(batch);
  }
  int writes = 0;
  bool fail_next = false;
};

// An engine over a fresh store of `backend` seen through a WriteCountingStore.
struct CountedWritesEngine {
  explicit CountedWritesEngine(const std::string& backend) {
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = scratch.Sub("store");
    const Status s = backends::OpenStore(spec, &store);
    EXPECT_TRUE(s.ok()) << s.ToString();
    counted = std::make_unique<WriteCountingStore>(store->store());
    engine = std::make_unique<engine::Engine>(counted.get(), engine::EngineOptions{});
  }
  // Runs one command line on `session` and describes the reply.
  std::string Run(const std::string& line) {
    std::vector<std::string> argv;
    EXPECT_TRUE(resp::SplitArgs(line, &argv)) << line;
    return engine->Execute(session, argv).Describe();
  }

  ScratchDir scratch;
  std::unique_ptr<backends::OpenedStore> store;
  std::unique_ptr<WriteCountingStore> counted;
  std::unique_ptr<engine::Engine> engine;
  engine::Session session;
};

class EngineHarness {
 public:
  // A fresh store of `backend` in a scratch directory, the engine over it, and a manual clock
  // starting at a fixed date.
  explicit EngineHarness(const std::string& backend = "memory", engine::EngineOptions options = {},
                         bool no_reverse_scan = false)
      : clock_(1700000000000000) {
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = scratch_.Sub("store");
    spec.no_reverse_scan = no_reverse_scan;
    Status s = backends::OpenStore(spec, &store_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    options.clock = &clock_;
    engine_ = std::make_unique<engine::Engine>(store_->store(), options);
  }

  // Runs one command line (redis-cli quoting) and returns the reply.
  resp::Reply Exec(const std::string& line, engine::CommandCost* cost = nullptr) {
    std::vector<std::string> argv;
    EXPECT_TRUE(resp::SplitArgs(line, &argv)) << line;
    return engine_->Execute(session_, argv, cost);
  }
  // The reply in redis-cli's words: "(integer) 1", "\"v\"", "(nil)", "[...]", "(error) ...".
  std::string Run(const std::string& line) { return Exec(line).Describe(); }

  engine::Engine& engine() { return *engine_; }
  encodings::ManualClock& clock() { return clock_; }
  // Sets the manual clock to the real time: for tests whose Redis tier sees absolute expiries
  // (zset v3 gives its store zset the key's PEXPIREAT), which a real redis-server judges by its
  // own clock.
  void SetClockToNow() {
    clock_.SetMillis(std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count());
  }
  engine::Session& session() { return session_; }
  backends::KvStore* store() { return store_->store(); }

 private:
  ScratchDir scratch_;
  encodings::ManualClock clock_;
  std::unique_ptr<backends::OpenedStore> store_;
  std::unique_ptr<engine::Engine> engine_;
  engine::Session session_;
};

}  // namespace kvlab::testing
