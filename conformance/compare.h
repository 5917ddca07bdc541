// Comparing a subject's reply with the reply a real redis-server gave to the same command.
//
// Replies are compared by type and bytes, with these declared exceptions:
// - order is ignored where Redis leaves it unspecified: HGETALL and CONFIG GET (as
//   field-value pairs), HKEYS, HVALS, KEYS, SMEMBERS, SINTER, SUNION and SDIFF. SCAN-family
//   commands are compared by the runner over whole iterations, as sets (differential.h);
// - SRANDMEMBER, SPOP, ZRANDMEMBER and HRANDFIELD choose at random: the runner checks the
//   subject's choice against the reference's state (the same shape and size, distinct elements
//   where Redis's are, each one an element, with its score or value) and then makes the
//   reference pop what the subject popped (differential.h);
// - TTL, PTTL, EXPIRETIME and PEXPIRETIME may differ by the declared tolerance, since the two
//   servers read their clocks at slightly different moments; negative replies (-1, -2) are
//   exact;
// - TIME is compared by shape, with its seconds within the declared tolerance;
// - DBSIZE is sent to Redis after a whole SCAN has reaped its logically expired keys (Redis
//   counts them until its expiry cycle notices them; see differential.cc);
// - hiredis cannot tell RESP2's nil array from a nil bulk, so the two are equal.
// Float text is compared as printed: Redis's "%.17g" is part of the reply.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "resp/reply.h"

namespace kvlab::conformance {

struct CompareOptions {
  int64_t ttl_tolerance_ms = 250;  // PTTL and PEXPIRETIME
  int64_t ttl_tolerance_s = 1;     // TTL and EXPIRETIME (whole seconds round either way)
  int64_t time_tolerance_s = 2;    // TIME
};

// "" when the replies agree, otherwise a one-line explanation (long values cut).
std::string CompareReplies(const std::vector<std::string>& argv, const resp::Reply& redis,
                           const resp::Reply& subject, const CompareOptions& options);

// Whether a command's reply order is unspecified by Redis (and so normalised). `argv` is the
// whole command: CONFIG GET is unordered, other CONFIG subcommands are not.
bool IsUnorderedReply(const std::vector<std::string>& argv);
// Whether a command's reply is a random choice (SRANDMEMBER, SPOP, RANDOMKEY, ZRANDMEMBER,
// HRANDFIELD): judged by the runner.
bool IsRandomReply(const std::vector<std::string>& argv);
// Whether a command is a SCAN-family command (compared over whole iterations).
bool IsScanCommand(const std::string& command);
// Whether argv is MEMORY USAGE of a key. Redis's memoryCommand finds the key in its dictionary
// without an expiry check, so it reports an expired key's bytes until something notices the
// expiry (an access, or the active expiry cycle up to ~100 ms later); kvlab's expired key is
// gone at once.
bool IsMemoryUsage(const std::vector<std::string>& argv);
// Reply::Describe, cut to about max_chars with the full length noted.
std::string DescribeShort(const resp::Reply& reply, size_t max_chars = 300);
// The lower-case form of a command name.
std::string LowerCommand(const std::string& name);

}  // namespace kvlab::conformance
