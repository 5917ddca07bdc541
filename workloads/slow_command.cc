#include "workloads/slow_command.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <vector>

namespace kvlab::workloads {

namespace {

using Clock = std::chrono::steady_clock;

// What one Clock::now() costs here, typically: the median of a few batches (the least would be
// the cost on an idle cache and core, less than during a run; a batch that the scheduler
// interrupted is an outlier the median ignores).
Clock::duration ClockCost() {
  constexpr int kBatch = 64, kBatches = 31;
  std::vector<Clock::duration> costs;
  for (int b = 0; b < kBatches; ++b) {
    const Clock::time_point t0 = Clock::now();
    Clock::time_point t = t0;
    for (int i = 0; i < kBatch; ++i) t = Clock::now();
    costs.push_back((t - t0) / kBatch);
  }
  std::nth_element(costs.begin(), costs.begin() + kBatches / 2, costs.end());
  return costs[kBatches / 2];
}

class SlowCommandConnection final : public TargetConnection {
 public:
  SlowCommandConnection(std::unique_ptr<TargetConnection> inner, SlowCommand slow)
      : inner_(std::move(inner)), slow_(std::move(slow)), clock_cost_(ClockCost()) {}

  Status Execute(const std::vector<std::string>& argv, resp::Reply* reply,
                 CommandSample* sample) override {
    if (argv.empty() || !SameName(argv[0])) return inner_->Execute(argv, reply, sample);
    const Clock::time_point start = Clock::now();
    Status s = inner_->Execute(argv, reply, sample);
    const Clock::time_point end = Clock::now();
    // The decorator's own clock reads (the two above and the last one of the wait) are part of
    // the slowdown, not extra: a 2 us command with 60 ns reads would otherwise be 9% slower
    // than asked.
    const Clock::duration extra =
        std::chrono::duration_cast<Clock::duration>((end - start) * slow_.fraction) -
        3 * clock_cost_;
    const Clock::time_point until = end + extra;
    while (extra.count() > 0 && Clock::now() < until) {
      // Busy: the slowdown must cost CPU like the command's own work.
    }
    return s;
  }

 private:
  bool SameName(const std::string& name) const {
    return name.size() == slow_.command.size() &&
           std::equal(name.begin(), name.end(), slow_.command.begin(), [](char a, char b) {
             return std::toupper(static_cast<unsigned char>(a)) == b;
           });
  }

  std::unique_ptr<TargetConnection> inner_;
  SlowCommand slow_;
  Clock::duration clock_cost_;
};

}  // namespace

Status ParseSlowCommand(const std::string& text, SlowCommand* out) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidArgument("--test-slow-command '" + text +
                                   "': expected COMMAND=FRACTION (e.g. HGET=0.15)");
  }
  SlowCommand s;
  for (char c : text.substr(0, eq)) {
    s.command += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  const std::string number = text.substr(eq + 1);
  char* end = nullptr;
  s.fraction = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() ||
      !(s.fraction > 0 && s.fraction <= 10)) {
    return Status::InvalidArgument(fmt::format(
        "--test-slow-command '{}': the fraction must be a number in (0, 10] (0.15 = 15% slower)",
        text));
  }
  *out = std::move(s);
  return Status::OK();
}

std::unique_ptr<TargetConnection> NewSlowCommandConnection(std::unique_ptr<TargetConnection> inner,
                                                           SlowCommand slow) {
  return std::make_unique<SlowCommandConnection>(std::move(inner), std::move(slow));
}

}  // namespace kvlab::workloads
