// The test-only slowdown of one command (workloads/slow_command.h): what it parses, that it
// passes every call through unchanged, and that the slowed command takes at least (1 + fraction)
// times its own time, less its own clock reads (a bound the busy wait guarantees, not a speed
// target).
#include "workloads/slow_command.h"

#include <gtest/gtest.h>

#include <chrono>

namespace kvlab::workloads {
namespace {

// Takes `work` of busy time per call and replies with the command's name.
class FixedCostConnection final : public TargetConnection {
 public:
  explicit FixedCostConnection(std::chrono::microseconds work, int* calls)
      : work_(work), calls_(calls) {}
  Status Execute(const std::vector<std::string>& argv, resp::Reply* reply,
                 CommandSample* sample) override {
    const auto until = std::chrono::steady_clock::now() + work_;
    while (std::chrono::steady_clock::now() < until) {
    }
    ++*calls_;
    sample->has_kv = true;
    sample->kv.gets = 2;
    *reply = resp::Reply::Bulk(argv[0]);
    return Status::OK();
  }

 private:
  std::chrono::microseconds work_;
  int* calls_;
};

TEST(SlowCommand, Parses) {
  SlowCommand s;
  ASSERT_TRUE(ParseSlowCommand("hget=0.15", &s).ok());
  EXPECT_EQ(s.command, "HGET");
  EXPECT_DOUBLE_EQ(s.fraction, 0.15);
  for (const char* bad : {"HGET", "=0.1", "HGET=", "HGET=0", "HGET=-1", "HGET=abc", "HGET=11"}) {
    const Status st = ParseSlowCommand(bad, &s);
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("--test-slow-command"), std::string::npos) << st.message();
  }
}

TEST(SlowCommand, SlowsOnlyItsCommandAndChangesNothingElse) {
  using Clock = std::chrono::steady_clock;
  int calls = 0;
  auto inner = std::make_unique<FixedCostConnection>(std::chrono::microseconds(2000), &calls);
  std::unique_ptr<TargetConnection> c = NewSlowCommandConnection(std::move(inner), {"HGET", 0.5});
  resp::Reply reply;
  CommandSample sample;
  Clock::time_point t0 = Clock::now();
  ASSERT_TRUE(c->Execute({"hget", "k", "f"}, &reply, &sample).ok());
  const auto slowed = Clock::now() - t0;
  // 2 ms of its own, then half of that, less the decorator's three clock reads (well under
  // 100 us, even on a loaded machine).
  EXPECT_GE(slowed, std::chrono::microseconds(2900));
  EXPECT_EQ(reply, resp::Reply::Bulk("hget"));
  EXPECT_TRUE(sample.has_kv);
  EXPECT_EQ(sample.kv.gets, 2u);  // counters untouched
  ASSERT_TRUE(c->Execute({"HSET", "k", "f", "v"}, &reply, &sample).ok());
  EXPECT_EQ(reply, resp::Reply::Bulk("HSET"));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace kvlab::workloads
