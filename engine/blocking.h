// What every blocking command shares (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP; BZPOPMIN,
// BZPOPMAX and BZMPOP are to use the same): Redis's timeout argument, and the request to wait.
//
// A blocking command first tries to serve itself as its non-blocking form would. When it cannot,
// it calls BlockClient: over `kvlab serve` the connection waits and the server re-runs the
// command when one of the keys is made ready (CommandContext::KeyReady, by the commands that add
// elements); in-process (no server) the command replies an error saying it needs one.
// engine/session_host.h and docs/server.md describe the mechanism.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/command_context.h"
#include "resp/reply.h"

namespace kvlab::engine {

// getTimeoutFromObjectOrReply(UNIT_SECONDS): argument i in seconds, fractional allowed;
// *deadline_ms is the absolute unix time in ms it ends (0: no timeout). Redis's errors: "ERR
// timeout is not a float or out of range", "ERR timeout is negative", "ERR timeout is out of
// range".
bool ParseBlockTimeout(CommandContext& ctx, size_t i, int64_t* deadline_ms);

// Asks the session's host to block the client until one of `keys` is ready or the deadline
// passes (then the client gets timeout_reply). Returns false with an error reply when the
// session has no host that can block (an in-process engine).
// REQUIRES: the command has queued no write.
bool BlockClient(CommandContext& ctx, std::vector<std::string> keys, int64_t deadline_ms,
                 resp::Reply timeout_reply);

}  // namespace kvlab::engine
