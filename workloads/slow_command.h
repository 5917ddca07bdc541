// A test-only decorator of a target's connections: one command, by name, takes (1 + fraction)
// times as long as it does. It exists to measure the CI gate (scripts/gate-noise,
// docs/gate.md): a known slowdown of one command, on a real engine and workload, that the gate
// must find, and nothing else must move.
//
// The call is timed and then followed by a busy wait of `fraction` times its own duration, less
// what the decorator's own three clock reads cost (measured once per connection), so the
// slowdown is proportional whatever the command costs, the backend, or the load: a 15% slower
// HGET is 15% slower at p50 and at p99, on memory and on RocksDB, quiet or loaded (a busy wait,
// not a sleep, so that it competes for the CPU as real work would, and so that it is exact
// below the scheduler's sleep granularity). A command shorter than those reads divided by the
// fraction (about 1.2 us at 0.15 with 60 ns reads) cannot be slowed that little: it gets its
// reads' worth. KV counters are untouched: only timings move.
//
// It is installed only through EngineTargetOptions::connection_decorator, which the hidden
// `kvlab bench --test-slow-command COMMAND=FRACTION` sets; nothing in the command path knows
// about it. In-process targets only (a RESP server's time is its own).
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "workloads/target.h"

namespace kvlab::workloads {

struct SlowCommand {
  std::string command;  // upper case: "HGET"
  double fraction = 0;  // 0.15 = 15% slower
};

// "HGET=0.15" (the command case-insensitive; the fraction in (0, 10]). InvalidArgument naming
// the problem otherwise.
Status ParseSlowCommand(const std::string& text, SlowCommand* out);

// `inner`, with `slow.command` slowed by `slow.fraction`; every other command is inner's.
std::unique_ptr<TargetConnection> NewSlowCommandConnection(std::unique_ptr<TargetConnection> inner,
                                                           SlowCommand slow);

}  // namespace kvlab::workloads
