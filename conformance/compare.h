// Comparing a kvlab reply with the reply a real redis-server gave to the same command.
//
// Replies are compared by type and bytes, with three declared exceptions:
// - order is ignored where Redis leaves it unspecified: HGETALL (as field-value pairs), HKEYS,
//   HVALS and KEYS (SCAN-family commands are compared by the runner over whole iterations);
// - TTL, PTTL, EXPIRETIME and PEXPIRETIME may differ by the declared tolerance, since the two
//   servers read their clocks at slightly different moments;
// - hiredis cannot tell RESP2's nil array from a nil bulk, so the two are equal.
// Float text is compared as printed: Redis's "%.17g" is part of the reply.
#pragma once

#include <string>
#include <vector>

#include "redis/reply.h"

namespace kvlab {

struct CompareOptions {
  int64_t ttl_tolerance_ms = 250;  // PTTL and PEXPIRETIME; TTL and EXPIRETIME allow 1 s
};

// "" when the replies agree, otherwise a one-line explanation.
std::string CompareReplies(const std::vector<std::string>& argv, const Reply& redis,
                           const Reply& kvlab, const CompareOptions& options);

// Whether a command's reply order is unspecified by Redis (and so normalised).
bool IsUnorderedReply(const std::string& command);
// Whether a command is a SCAN-family command (compared over whole iterations).
bool IsScanCommand(const std::string& command);

}  // namespace kvlab
