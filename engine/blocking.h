// What every blocking command shares (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN,
// BZPOPMAX, BZMPOP): Redis's timeout argument, the load of a key it waits on, and the request to
// wait.
//
// A blocking command first tries to serve itself as its non-blocking form would. When it cannot,
// it calls BlockClient: over `kvlab serve` the connection waits and the server re-runs the
// command when one of the keys is made ready (CommandContext::KeyReady, by the commands that add
// elements); in-process (no server) the command replies an error saying it needs one.
// engine/session_host.h and docs/server.md describe the mechanism.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/command_context.h"
#include "resp/reply.h"

namespace kvlab::engine {

// getTimeoutFromObjectOrReply(UNIT_SECONDS): argument i in seconds, fractional allowed;
// *deadline_ms is the absolute unix time in ms it ends (0: no timeout). Redis's errors: "ERR
// timeout is not a float or out of range", "ERR timeout is negative", "ERR timeout is out of
// range".
bool ParseBlockTimeout(CommandContext& ctx, size_t i, int64_t* deadline_ms);

// Load, for a key a blocking command pops from. While the session's host runs a blocked command
// again (Session::retrying_block), a key of another type counts as absent instead of replying
// WRONGTYPE: Redis serves a blocked client only from a key of the type it waits for and leaves
// it blocked otherwise (a BZPOPMIN on k stays blocked when an LPUSH creates list k, and a BLPOP
// when a ZADD creates zset k).
bool LoadWaitedKey(CommandContext& ctx, std::string_view key, encodings::KeyType type,
                   encodings::KeyHandle* h, bool* exists);

// Asks the session's host to block the client until one of `keys` is ready or the deadline
// passes (then the client gets timeout_reply). Returns false with an error reply when the
// session has no host that can block (an in-process engine). Inside EXEC (Session::
// deny_blocking) the command replies timeout_reply at once and BlockClient returns true.
// REQUIRES: the command has queued no write.
bool BlockClient(CommandContext& ctx, std::vector<std::string> keys, int64_t deadline_ms,
                 resp::Reply timeout_reply);

}  // namespace kvlab::engine
