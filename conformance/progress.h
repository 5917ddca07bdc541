// Progress of a long conformance run on stderr.
//
// On a terminal: one line, rewritten in place at most ten times a second ("[ 37/120] rocksdb
// h1z0 zset_range  0 failures"). Otherwise (CI logs, pipes): no in-place updates; a plain line
// every 10 s at most, so a soak shows it is alive without flooding the log. Messages always
// get their own line.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "conformance/matrix.h"

namespace kvlab::conformance {

class StderrProgress final : public ProgressSink {
 public:
  StderrProgress();
  ~StderrProgress() override;
  void Update(size_t done, size_t total, const std::string& what, uint64_t failures) override;
  void Message(const std::string& line) override;

 private:
  void ClearLine();

  const bool terminal_;
  bool line_shown_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace kvlab::conformance
