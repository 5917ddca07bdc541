// An engine over a chosen backend, driven by command lines, for the engine's tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backends/kv_test_util.h"
#include "backends/registry.h"
#include "encodings/clock.h"
#include "engine/engine.h"
#include "engine/split_args.h"

namespace kvlab::testing {

class EngineHarness {
 public:
  // A fresh store of `backend` in a scratch directory, the engine over it, and a manual clock
  // starting at a fixed date.
  explicit EngineHarness(const std::string& backend = "memory", EngineOptions options = {},
                         bool no_reverse_scan = false)
      : clock_(1700000000000000) {
    StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = scratch_.Sub("store");
    spec.no_reverse_scan = no_reverse_scan;
    Status s = OpenStore(spec, &store_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    options.clock = &clock_;
    engine_ = std::make_unique<Engine>(store_->store(), options);
  }

  // Runs one command line (redis-cli quoting) and returns the reply.
  Reply Exec(const std::string& line, CommandCost* cost = nullptr) {
    std::vector<std::string> argv;
    EXPECT_TRUE(SplitArgs(line, &argv)) << line;
    return engine_->Execute(session_, argv, cost);
  }
  // The reply in redis-cli's words: "(integer) 1", "\"v\"", "(nil)", "[...]", "(error) ...".
  std::string Run(const std::string& line) { return Exec(line).Describe(); }

  Engine& engine() { return *engine_; }
  ManualClock& clock() { return clock_; }
  Session& session() { return session_; }
  KvStore* store() { return store_->store(); }

 private:
  ScratchDir scratch_;
  ManualClock clock_;
  std::unique_ptr<OpenedStore> store_;
  std::unique_ptr<Engine> engine_;
  Session session_;
};

}  // namespace kvlab::testing
