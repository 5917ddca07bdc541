// Progress of a `kvlab bench` run on stderr: one overall counter over every unit of work (matrix
// cells of every workload and repetition, then sweep points), with an ETA.
//
// On a terminal: one line rewritten in place: "[ 3/40] ycsb-a rocksdb h1 rep 2 | run [####....]
// 45% 12345 ops, 8000 ops/s | ETA 2m10s". Otherwise (CI logs, pipes): a line per finished unit
// with its outcome and the ETA ("[ 3/40] ycsb-a rocksdb h1 rep 2: 1.2 s, 8000 ops/s; ETA
// 2m10s"), a line when a unit enters a phase and every 10 s while it runs, and a last line when
// the run ends.
//
// The ETA covers the whole run, not the running unit: the running unit's time left (from its
// phase's progress) plus the mean time of a unit times the units after it; before the first
// unit is done, the running unit stands for the mean (EstimateRemaining). Units of one kind
// (cells of a workload, points of a sweep) take similar times, so it firms up as the run goes.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "workloads/runner.h"

namespace kvlab::workloads {

class ProgressPrinter {
 public:
  // `out` is where lines go; `terminal` whether it is a terminal (rewritten lines).
  ProgressPrinter(std::FILE* out, bool terminal);
  // On stderr, rewritten in place when stderr is a terminal.
  ProgressPrinter();

  // Adds planned units (the total may grow as a run plans its next part).
  void Plan(size_t units) { total_ += units; }
  // Planned units that will not run (skipped sizes, a failed series).
  void Skip(size_t units);
  // A unit starts.
  void Begin(const std::string& label);
  // The running unit's phase progress (terminal: the line is rewritten; otherwise at most
  // every 10 s).
  void Update(const Progress& p);
  // The running unit is done; `outcome` says how ("1.2 s, 8000 ops/s", "FAILED: ...").
  void End(const std::string& outcome);
  // A line of its own.
  void Note(const std::string& text);
  // The run is over: "kvlab bench: 40 of 40 done in 3m05s".
  void Finish();

  size_t done() const { return done_; }
  size_t total() const { return total_; }
  // "ETA 2m10s", or "" before the first unit is done.
  std::string Eta() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::string Counter() const;  // "[ 3/40]"
  void ClearLine();

  std::FILE* const out_;
  const bool terminal_;
  size_t total_ = 0;
  size_t done_ = 0;
  bool started_ = false;
  Clock::time_point start_{};
  Clock::time_point unit_start_{};
  Clock::time_point last_line_{};
  std::string label_;
  std::string stage_;  // the running unit's phase
  double unit_fraction_ = -1;
  bool in_unit_ = false;  // between Begin and End  // of the running unit's phase; < 0: not known
  bool line_shown_ = false;
};

// Seconds left in a run of `total` units of which `done` are finished, taking `done_s`
// seconds, and the running one has run `unit_s` seconds with its current phase a fraction
// `unit_fraction` done (< 0: not known). Negative when nothing is known yet.
double EstimateRemaining(double done_s, size_t done, size_t total, double unit_s,
                         double unit_fraction);

// "2m10s", "45s", "1h02m".
std::string FormatDuration(double seconds);

}  // namespace kvlab::workloads
