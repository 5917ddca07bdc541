// `kvlab gate --baseline-binary OLD --run bench run ...`: the two builds measured in one job,
// alternately, so that the machine's drift and load hit both alike.
//
// Pair i runs `OLD bench run ARGS --repetitions 1` and `NEW bench run ARGS --repetitions 1` (the
// workload's own seed, the same for both), each a fresh process with a fresh store:
//
//   - duet (the default): both at the same time, on the same CPU (pinned; pair i on the i-th
//     CPU allowed, round robin), so that they share its time slices, caches and frequency.
//     Whatever the machine does while they run (a compiler next door, a frequency step, a
//     noisy neighbour) it does to both at once; this is "duet benchmarking" (Bulej, Horky,
//     Tuma, Farquet, Prokopec: "Duet Benchmarking: Improving Measurement Accuracy in the
//     Cloud", ICPE 2020). docs/gate.md ("Measured") gives its false alarms and detections
//     on a loaded 2-core machine. Under no change the two sides are exchangeable (the order
//     alternates), so the test stays exact; a slower side runs its last part alone, which can
//     only shrink a difference, never make one. A multi-threaded workload then runs its
//     threads on one CPU: use alternate for it.
//   - alternate: one right after the other.
//
// Either way the baseline starts first in even pairs and second in odd ones (A B, B A, ...), so
// that an order effect (a warmer page cache, an earlier start) falls on each side equally. The
// results of each side are merged into one result whose repetition i is pair i's, which Compare
// (GateOptions::paired) compares pair by pair.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "gate/dataset.h"

namespace kvlab::gate {

enum class Pairing { kDuet, kAlternate };

struct PairedRunOptions {
  Pairing pairing = Pairing::kDuet;
  std::string baseline_binary;  // the old build's kvlab
  std::string current_binary;   // the new build's; "" = this kvlab
  // kvlab bench arguments ("bench run ycsb-a ..." or "run ycsb-a ..."); their --repetitions,
  // --results and report options are replaced.
  std::vector<std::string> args;
  // Pairs to run; 0 = enough for the family: decided after the first pair from its number of
  // timing rows m, PairsNeeded(alpha / m) plus kPairsMargin.
  size_t pairs = 0;
  double alpha = 0.01;
  std::string dir;  // scratch space for the runs' results and logs
  LoadOptions load;
};

struct PairedRunResult {
  Dataset baseline, current;
  size_t pairs = 0;
  // The two commands, as run (for the report).
  std::string baseline_command, current_command;
};

// The pairs the family needs: PairsNeeded(alpha / timing_rows) + kPairsMargin, at most 60.
size_t AutoPairs(double alpha, size_t timing_rows);

// Timing metrics present in both results' matched cells: the family a comparison will correct.
size_t CountTimingRows(const Dataset& a, const Dataset& b);

// One result from several runs of the same workload: runs[k]'s samples become repetition k of
// every metric (a counter missing from a run is 0 there). The first run's environment and
// command line stand for all. REQUIRES: runs non-empty, all of one kind.
Dataset MergeRuns(std::vector<Dataset> runs);

// Runs the pairs. Fails (naming the command and the end of its output) when a run fails or
// writes no result, or when the arguments are not a bench run.
Status RunPaired(const PairedRunOptions& options, PairedRunResult* out);

}  // namespace kvlab::gate
