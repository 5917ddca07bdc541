#include "engine/blocking.h"

#include <cctype>
#include <climits>
#include <cmath>

#include "engine/session_host.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

bool ParseBlockTimeout(CommandContext& ctx, size_t i, int64_t* deadline_ms) {
  long double seconds = 0;
  if (!resp::ParseLongDouble(ctx.arg(i), &seconds)) {
    ctx.ReplyError("ERR timeout is not a float or out of range");
    return false;
  }
  // Redis 7.0 (timeout.c): (long long)ceill(ftval * 1000.0). Rounding up keeps a positive
  // timeout under 1 ms (0.001 parses to a hair less than 1/1000) from becoming 0, which means
  // "wait for ever". Beyond long long's range the conversion is undefined in C; on x86-64
  // (where Redis 7.0 runs) it yields LLONG_MIN, hence "negative".
  const long double ms = std::ceil(seconds * 1000.0L);
  const int64_t whole =
      std::isnan(ms) || ms >= 9223372036854775808.0L || ms < -9223372036854775808.0L
          ? INT64_MIN
          : static_cast<int64_t>(ms);
  if (whole < 0) {
    ctx.ReplyError("ERR timeout is negative");
    return false;
  }
  if (whole == 0) {
    *deadline_ms = 0;
    return true;
  }
  const int64_t now = ctx.txn().now_ms();
  if (whole > INT64_MAX - now) {
    ctx.ReplyError("ERR timeout is out of range");
    return false;
  }
  *deadline_ms = now + whole;
  return true;
}

bool LoadWaitedKey(CommandContext& ctx, std::string_view key, encodings::KeyType type,
                   encodings::KeyHandle* h, bool* exists) {
  if (!ctx.session().retrying_block) return ctx.Load(key, type, h, exists);
  if (!ctx.LoadAny(key, h, exists)) return false;
  if (*exists && h->meta.type != type) *exists = false;
  return true;
}

bool BlockClient(CommandContext& ctx, std::vector<std::string> keys, int64_t deadline_ms,
                 resp::Reply timeout_reply) {
  if (ctx.session().deny_blocking) {
    // Inside EXEC a blocking command does not block: it times out at once, as in Redis.
    ctx.reply = std::move(timeout_reply);
    return true;
  }
  SessionHost* host = ctx.session().host;
  BlockRequest request{std::move(keys), deadline_ms, std::move(timeout_reply)};
  if (host != nullptr && host->Block(std::move(request))) {
    ctx.reply = resp::Reply::Nil();  // dropped: the host answers when the client is served
    return true;
  }
  std::string name = ctx.arg(0);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ctx.ReplyError("ERR " + name +
                 " would block, and only a server can block a client: this engine runs "
                 "in-process (run it over kvlab serve)");
  return false;
}

}  // namespace kvlab::engine
