// The zset range family: ZRANGE with BYSCORE, BYLEX, REV, LIMIT and WITHSCORES, its older
// spellings (ZRANGEBYSCORE, ZREVRANGE, ...), and the ZREMRANGEBY* commands. One parser,
// zrangeGenericCommand's, serves them all, so every spelling checks and fails the same way.
#include <strings.h>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/zset_args.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using encodings::LexRange;
using encodings::RangeLimit;
using encodings::ScoredMember;
using encodings::ScoreRange;
using encodings::ZsetEncoding;
using resp::Reply;

namespace {

enum class RangeType { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

// zrangeGenericCommand. `store` (ZRANGESTORE): the destination is argument 1, the source and the
// range follow it, and the range goes to the destination instead of the reply.
void ZrangeGeneric(CommandContext& ctx, RangeType type, Direction direction, bool store = false) {
  const size_t key_idx = store ? 2 : 1;
  size_t min_idx = key_idx + 1, max_idx = key_idx + 2;
  bool with_scores = false;
  int64_t offset = 0, limit = -1;
  for (size_t j = key_idx + 3; j < ctx.argc(); ++j) {
    const size_t left = ctx.argc() - j - 1;
    const char* opt = ctx.arg(j).c_str();
    if (!store && !strcasecmp(opt, "withscores")) {
      with_scores = true;
    } else if (!strcasecmp(opt, "limit") && left >= 2) {
      if (!ctx.ArgInt64(j + 1, &offset) || !ctx.ArgInt64(j + 2, &limit)) return;
      j += 2;
    } else if (direction == Direction::kAuto && !strcasecmp(opt, "rev")) {
      direction = Direction::kReverse;
    } else if (type == RangeType::kAuto && !strcasecmp(opt, "bylex")) {
      type = RangeType::kLex;
    } else if (type == RangeType::kAuto && !strcasecmp(opt, "byscore")) {
      type = RangeType::kScore;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  if (direction == Direction::kAuto) direction = Direction::kForward;
  if (type == RangeType::kAuto) type = RangeType::kRank;
  if (limit != -1 && type == RangeType::kRank) {
    return ctx.ReplyError(
        "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
  }
  if (with_scores && type == RangeType::kLex) {
    return ctx.ReplyError("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  }
  const bool reverse = direction == Direction::kReverse;
  if (reverse && type != RangeType::kRank) std::swap(min_idx, max_idx);  // given as max, min

  int64_t start = 0, stop = 0;
  ScoreRange score_range;
  LexRange lex_range;
  switch (type) {
    case RangeType::kScore:
      if (!ParseScoreRange(ctx, min_idx, max_idx, &score_range)) return;
      break;
    case RangeType::kLex:
      if (!ParseLexRange(ctx, min_idx, max_idx, &lex_range)) return;
      break;
    default:
      if (!ctx.ArgInt64(min_idx, &start) || !ctx.ArgInt64(max_idx, &stop)) return;
  }

  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(key_idx), KeyType::kZset, &h, &exists)) return;
  std::vector<ScoredMember> out;
  // A negative offset skips everything in Redis (its skip loop runs off the end); rank ranges
  // ignore LIMIT -1 -1, the only LIMIT they accept.
  if (exists && (offset >= 0 || type == RangeType::kRank)) {
    ZsetEncoding& z = ctx.Zset(h.meta);
    const RangeLimit lim{offset, limit};
    Status s = type == RangeType::kRank ? z.RangeByRank(ctx.txn(), h, start, stop, reverse, &out)
               : type == RangeType::kScore
                   ? z.RangeByScore(ctx.txn(), h, score_range, reverse, lim, &out)
                   : z.RangeByLex(ctx.txn(), h, lex_range, reverse, lim, &out);
    if (!ctx.Check(s)) return;
  }
  if (store) return StoreZset(ctx, ctx.arg(1), std::move(out));
  ctx.reply = ScoredReply(ctx, std::move(out), with_scores);
}

// zremrangeGenericCommand: parse the range, then find the key.
void ZremrangeGeneric(CommandContext& ctx, RangeType type) {
  int64_t start = 0, stop = 0;
  ScoreRange score_range;
  LexRange lex_range;
  if (type == RangeType::kRank) {
    if (!ctx.ArgInt64(2, &start) || !ctx.ArgInt64(3, &stop)) return;
  } else if (type == RangeType::kScore) {
    if (!ParseScoreRange(ctx, 2, 3, &score_range)) return;
  } else if (!ParseLexRange(ctx, 2, 3, &lex_range)) {
    return;
  }
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  uint64_t removed = 0;
  if (exists) {
    ZsetEncoding& z = ctx.Zset(h.meta);
    Status s = type == RangeType::kRank ? z.RemoveRangeByRank(ctx.txn(), &h, start, stop, &removed)
               : type == RangeType::kScore
                   ? z.RemoveRangeByScore(ctx.txn(), &h, score_range, &removed)
                   : z.RemoveRangeByLex(ctx.txn(), &h, lex_range, &removed);
    if (!ctx.Check(s)) return;
  }
  ctx.reply = Reply::Integer(static_cast<int64_t>(removed));
}

}  // namespace

void ZrangeCommand(CommandContext& ctx) { ZrangeGeneric(ctx, RangeType::kAuto, Direction::kAuto); }
void ZrangebyscoreCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, RangeType::kScore, Direction::kForward);
}
void ZrevrangebyscoreCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, RangeType::kScore, Direction::kReverse);
}
void ZrangebylexCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, RangeType::kLex, Direction::kForward);
}
void ZrevrangebylexCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, RangeType::kLex, Direction::kReverse);
}
void ZrevrangeCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, RangeType::kRank, Direction::kReverse);
}
void ZrangestoreCommand(CommandContext& ctx) {
  ZrangeGeneric(ctx, RangeType::kAuto, Direction::kAuto, /*store=*/true);
}
void ZremrangebyrankCommand(CommandContext& ctx) { ZremrangeGeneric(ctx, RangeType::kRank); }
void ZremrangebyscoreCommand(CommandContext& ctx) { ZremrangeGeneric(ctx, RangeType::kScore); }
void ZremrangebylexCommand(CommandContext& ctx) { ZremrangeGeneric(ctx, RangeType::kLex); }

}  // namespace kvlab::engine
