// `kvlab gate`: a CI regression gate over kvlab bench, kvlab conform and Google Benchmark
// results (docs/gate.md).
//
//   kvlab gate --baseline FILE --current FILE [--threshold 10%] [--alpha 0.01]
//   kvlab gate --baseline FILE --run [bench or conform arguments...]
//   kvlab gate --baseline-binary OLD_KVLAB [--pairs N] --run bench run ...   # paired, one job
//   kvlab gate --history DIR [--plots OUT]                                    # change points
//   kvlab gate --update --baseline FILE [--history DIR] (--current FILE | --run [arguments...])
//
// Exit status: 0 no regression; 1 a regression (each named in the report); 2 bad input: a
// missing or malformed file, a schema or kind mismatch, an untrustworthy result (partial,
// incomplete, degraded), timings that cannot be gated with --timings gate (different machines
// or build types), bad arguments, a --run that wrote no result, a paired run that failed;
// 4 inconclusive: gated timings the data cannot judge (too few repetitions or pairs for the
// family of timing rows, or, unpaired, a loaded machine or a machine-wide shift), and no
// regression; the report names the command that would make it conclusive.
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::gate {

inline constexpr int kExitPass = 0;
inline constexpr int kExitRegression = 1;
inline constexpr int kExitBadInput = 2;
// The timings cannot be judged: too few repetitions for the family, a loaded machine or a
// machine-wide shift in an unpaired comparison. Never a pass; 3 is taken by "cannot run on this
// machine or build" (flags/conventions.h).
inline constexpr int kExitInconclusive = 4;

void AddGateCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::gate
