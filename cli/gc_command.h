// `kvlab gc`: one pass of the scanning garbage collector (engine/collector.h) over an existing
// store, on demand (docs/gc.md).
//
//   kvlab gc --backend rocksdb --dir DIR [--batch 1000] [--rate 0] [--quiet]
//
// Prints progress on stderr and, at the end, one line on stdout:
//   gc: scanned S records, reclaimed R (sub-keys X, metas Y, tier Z) in T s
// Exit status (flags/conventions.h): 0 done; 1 a store error stopped the pass (what it reclaimed
// so far stays reclaimed); 2 usage: no --dir, or a --dir with no store; 130 interrupted.
#pragma once

#include <CLI/CLI.hpp>

namespace kvlab::flags {
struct TestHooks;  // flags/common_flags.h
}  // namespace kvlab::flags

namespace kvlab::cli {

// `hooks`: the test-only switches the binary supplies (flags::TestHooks); copied while adding.
void AddGcCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code);

}  // namespace kvlab::cli
