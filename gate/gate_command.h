// `kvlab gate`: a CI regression gate over kvlab bench, kvlab conform and Google Benchmark
// results (docs/gate.md).
//
//   kvlab gate --baseline FILE --current FILE [--threshold 10%] [--alpha 0.01]
//   kvlab gate --baseline FILE --run [bench or conform arguments...]
//   kvlab gate --update --baseline FILE (--current FILE | --run [arguments...])
//
// Exit status: 0 no regression; 1 a regression (each named in the report); 2 bad input: a
// missing or malformed file, a schema or kind mismatch, an untrustworthy result (partial,
// incomplete, degraded), timings that cannot be gated with --timings gate (different machines
// or build types), bad arguments, or a --run that wrote no result.
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::gate {

inline constexpr int kExitPass = 0;
inline constexpr int kExitRegression = 1;
inline constexpr int kExitBadInput = 2;

void AddGateCommand(CLI::App& app, int* exit_code);

}  // namespace kvlab::gate
