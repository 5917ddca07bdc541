// The zset pops over several keys, and the blocking forms: ZMPOP, BZPOPMIN, BZPOPMAX, BZMPOP.
// Their checks follow Redis 7.0's t_zset.c in order (zmpopGenericCommand,
// blockingGenericZpopCommand, genericZpopCommand):
//   ZMPOP numkeys key... MIN|MAX [COUNT n]   numkeys ("ERR numkeys should be greater than 0"),
//       then a syntax error when the keys run past the arguments or MIN|MAX is not there, then
//       COUNT once ("ERR count should be greater than 0"); BZMPOP parses the same after its
//       timeout argument, and the timeout last;
//   BZPOPMIN / BZPOPMAX key... timeout        the timeout first.
// Then the keys in order: an absent key is skipped, the first existing one must be a zset
// (WRONGTYPE) and is popped from (a live zset is never empty). Replies:
//   ZMPOP, BZMPOP        [key, [[member, score], ...]] (nested in RESP2 too), or a null array;
//   BZPOPMIN, BZPOPMAX   [key, member, score], or a null array at the timeout.
// A blocking form that finds nothing asks to block (engine/blocking.h); a zset created on one
// of its keys (ZADD, ZINCRBY, the STORE forms, RENAME, COPY) makes the key ready.
#include <strings.h>

#include "engine/blocking.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/list_args.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using encodings::ScoredMember;
using resp::Reply;

namespace {

// Pops up to `count` members (the lowest, or the highest with `max`) from the first of `keys`
// that exists, and sets the reply: [key, [[member, score], ...]] with `nested`, else
// [key, member, score]. Returns false when the reply is set to an error; *served false when no
// key exists.
bool PopFirst(CommandContext& ctx, const std::vector<std::string>& keys, bool max, uint64_t count,
              bool nested, bool* served) {
  *served = false;
  for (const std::string& key : keys) {
    KeyHandle h;
    bool exists = false;
    if (!LoadWaitedKey(ctx, key, KeyType::kZset, &h, &exists)) return false;
    if (!exists) continue;
    std::vector<ScoredMember> popped;
    if (!ctx.Check(ctx.Zset(h.meta).Pop(ctx.txn(), &h, count, max, &popped))) return false;
    if (popped.empty()) continue;  // a live zset is never empty; as for an absent key
    std::vector<Reply> out;
    out.push_back(Reply::Bulk(key));
    if (nested) {
      std::vector<Reply> pairs;
      pairs.reserve(popped.size());
      for (ScoredMember& m : popped) {
        pairs.push_back(Reply::Array({Reply::Bulk(std::move(m.member)), Reply::Double(m.score)}));
      }
      out.push_back(Reply::Array(std::move(pairs)));
    } else {
      out.push_back(Reply::Bulk(std::move(popped[0].member)));
      out.push_back(Reply::Double(popped[0].score));
    }
    ctx.reply = Reply::Array(std::move(out));
    *served = true;
    return true;
  }
  return true;
}

// ZMPOP and BZMPOP (zmpopGenericCommand): numkeys at argument numkeys_at.
void Mpop(CommandContext& ctx, size_t numkeys_at, bool blocking) {
  bool max = false;
  auto parse_where = [&](size_t i) {
    if (!strcasecmp(ctx.arg(i).c_str(), "min")) {
      max = false;
    } else if (!strcasecmp(ctx.arg(i).c_str(), "max")) {
      max = true;
    } else {
      ctx.ReplyError(errors::kSyntax);
      return false;
    }
    return true;
  };
  std::vector<std::string> keys;
  int64_t count = 0;
  if (!ParseMultiPop(ctx, numkeys_at, parse_where, &keys, &count)) return;
  int64_t deadline = 0;
  if (blocking && !ParseBlockTimeout(ctx, 1, &deadline)) return;
  bool served = false;
  if (!PopFirst(ctx, keys, max, static_cast<uint64_t>(count), true, &served) || served) return;
  if (!blocking) {
    ctx.reply = Reply::NilArray();
    return;
  }
  BlockClient(ctx, std::move(keys), deadline, Reply::NilArray());
}

// BZPOPMIN and BZPOPMAX: keys, then the timeout.
void BlockingPop(CommandContext& ctx, bool max) {
  int64_t deadline = 0;
  if (!ParseBlockTimeout(ctx, ctx.argc() - 1, &deadline)) return;
  std::vector<std::string> keys(ctx.argv().begin() + 1, ctx.argv().end() - 1);
  bool served = false;
  if (!PopFirst(ctx, keys, max, 1, false, &served) || served) return;
  BlockClient(ctx, std::move(keys), deadline, Reply::NilArray());
}

}  // namespace

void ZmpopCommand(CommandContext& ctx) { Mpop(ctx, 1, false); }
void BzmpopCommand(CommandContext& ctx) { Mpop(ctx, 2, true); }
void BzpopminCommand(CommandContext& ctx) { BlockingPop(ctx, false); }
void BzpopmaxCommand(CommandContext& ctx) { BlockingPop(ctx, true); }

}  // namespace kvlab::engine
