// A trace as a workload: `kvlab bench run trace:FILE` and `kvlab study trace:FILE` replay a
// trace recorded by `kvlab serve --record` or imported from MONITOR output (docs/traces.md).
//
// - Each client of the trace gets its own connection, so that its database, its transactions
//   (MULTI ... EXEC, WATCH) and its order stay its own. A connection is switched to the
//   database a command was recorded in (SELECT, not counted) when it is not there already.
// - Order: with one thread (the default) the commands go out in the trace's order, each after
//   the one before it replied, so a replay through the engine makes the same KV operations as
//   the recorded run did. With --threads N, the clients are split over N threads (client
//   number modulo N); each client's order is kept, the order across threads is not.
// - Pace: closed loop (as fast as replies come) by default; `--pace recorded` issues each
//   command at its recorded time, `--pace 2x` at twice that speed. A replay that falls behind
//   issues at once (it never skips); latency is each command's own time.
// - Keys keep their identity: the trace's arguments are replayed as they are (an anonymized
//   trace's hashed keys are consistent, and its values are synthetic of the recorded length).
// - Commands that are not sent are counted by name with the reason in the phase's
//   not_replayed: commands kvlab does not serve, blocking commands (in a replay they could wait
//   for ever), and SHUTDOWN, QUIT, HELLO and AUTH (they would stop the server, close the
//   replay's connection, or change its protocol or credentials).
// - --operations bounds the commands replayed (the first N), --warmup replays the first N
//   without recording them, --duration stops the replay after that many seconds.
// - No load phase: the replay starts from an empty store, as the matrix gives every cell; a
//   trace recorded on a server that already held data reads keys it never wrote.
#pragma once

#include <string>

#include "base/status.h"
#include "workloads/runner.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

// Reads and checks the whole trace at `path` (every block's checksum) and makes its workload:
// named "trace-<file stem>", source "trace:<path>", one phase "replay". InvalidArgument naming
// the file and the byte offset for a truncated or corrupt trace.
Status TraceWorkload(const std::string& path, Workload* out);

// Why a command is not sent in a replay, or "" when it is. name: any case.
std::string NotReplayedReason(const std::string& name);

// REQUIRES: workload.trace is set (TraceWorkload made it).
void ReplayTrace(const Workload& workload, Target& target, const RunOptions& options,
                 WorkloadRunResult* result);

}  // namespace kvlab::workloads
