// Zset commands other than the range family: ZADD, ZINCRBY, point reads, ZREM and the pops.
// Parsing and replies follow Redis 7.0's t_zset.c, in its order of checks; the storage logic of
// each encode-version lives in encodings/ (ZsetEncoding).
#include <strings.h>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/zset_args.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using encodings::LexRange;
using encodings::ScoredMember;
using encodings::ScoreRange;
using encodings::ZAddFlags;
using encodings::ZAddResult;
using resp::ParseDouble;
using resp::ParseInt64;
using resp::Reply;

namespace {

// zaddGenericCommand; ZINCRBY is ZADD with INCR preset.
void ZaddGeneric(CommandContext& ctx, bool incr_command) {
  ZAddFlags flags;
  flags.incr = incr_command;
  bool ch = false;
  size_t score_idx = 2;
  for (; score_idx < ctx.argc(); ++score_idx) {
    const char* opt = ctx.arg(score_idx).c_str();
    if (!strcasecmp(opt, "nx")) {
      flags.nx = true;
    } else if (!strcasecmp(opt, "xx")) {
      flags.xx = true;
    } else if (!strcasecmp(opt, "ch")) {
      ch = true;
    } else if (!strcasecmp(opt, "incr")) {
      flags.incr = true;
    } else if (!strcasecmp(opt, "gt")) {
      flags.gt = true;
    } else if (!strcasecmp(opt, "lt")) {
      flags.lt = true;
    } else {
      break;
    }
  }
  const size_t args = ctx.argc() - score_idx;
  if (args % 2 != 0 || args == 0) return ctx.ReplyError(errors::kSyntax);
  if (flags.nx && flags.xx) {
    return ctx.ReplyError("ERR XX and NX options at the same time are not compatible");
  }
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    return ctx.ReplyError("ERR GT, LT, and/or NX options at the same time are not compatible");
  }
  if (flags.incr && args > 2) {
    return ctx.ReplyError("ERR INCR option supports a single increment-element pair");
  }
  std::vector<ScoredMember> elems(args / 2);
  for (size_t j = 0; j < elems.size(); ++j) {
    if (!ParseDouble(ctx.arg(score_idx + 2 * j), &elems[j].score)) {
      return ctx.ReplyError(errors::kNotFloat);
    }
    elems[j].member = ctx.arg(score_idx + 2 * j + 1);
  }
  KeyHandle h;
  if (!ctx.LoadOrCreate(ctx.arg(1), KeyType::kZset, &h)) return;
  ZAddResult result;
  if (!ctx.Check(ctx.Zset(h.meta).Add(ctx.txn(), &h, flags, elems, &result))) return;
  // A zset created here may serve clients blocked on the key (BZPOPMIN, BZMPOP).
  if (result.added > 0) ctx.KeyReady(ctx.arg(1));
  if (flags.incr) {
    ctx.reply = result.incr_score ? Reply::Double(*result.incr_score) : Reply::Nil();
  } else {
    ctx.reply = Reply::Integer(ch ? result.added + result.updated : result.added);
  }
}

// genericZpopCommand for one key.
void PopGeneric(CommandContext& ctx, bool max) {
  if (ctx.argc() > 3) return ctx.ReplyError(errors::kSyntax);
  int64_t count = 1;
  if (ctx.argc() == 3) {
    if (!ParseInt64(ctx.arg(2), &count) || count < 0) {
      return ctx.ReplyError(errors::kOutOfRangePositive);
    }
  }
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  std::vector<ScoredMember> popped;
  if (exists && count > 0 &&
      !ctx.Check(ctx.Zset(h.meta).Pop(ctx.txn(), &h, static_cast<uint64_t>(count), max, &popped))) {
    return;
  }
  // RESP3 nests [member, score] pairs only when a count was given.
  ctx.reply = ScoredReply(std::move(popped), true, ctx.session().resp >= 3 && ctx.argc() == 3);
}

void RankGeneric(CommandContext& ctx, bool reverse) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  std::optional<uint64_t> rank;
  if (exists && !ctx.Check(ctx.Zset(h.meta).Rank(ctx.txn(), h, ctx.arg(2), reverse, &rank))) {
    return;
  }
  ctx.reply = rank ? Reply::Integer(static_cast<int64_t>(*rank)) : Reply::Nil();
}

}  // namespace

void ZaddCommand(CommandContext& ctx) { ZaddGeneric(ctx, false); }
void ZincrbyCommand(CommandContext& ctx) { ZaddGeneric(ctx, true); }

void ZcardCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  uint64_t n = 0;
  if (exists && !ctx.Check(ctx.Zset(h.meta).Card(ctx.txn(), h, &n))) return;
  ctx.reply = Reply::Integer(static_cast<int64_t>(n));
}

void ZscoreCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  std::vector<std::optional<double>> scores(1);
  if (exists && !ctx.Check(ctx.Zset(h.meta).Scores(ctx.txn(), h, {ctx.arg(2)}, &scores))) return;
  ctx.reply = scores[0] ? Reply::Double(*scores[0]) : Reply::Nil();
}

void ZmscoreCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  std::vector<std::string_view> members(ctx.argv().begin() + 2, ctx.argv().end());
  std::vector<std::optional<double>> scores(members.size());
  if (exists && !ctx.Check(ctx.Zset(h.meta).Scores(ctx.txn(), h, members, &scores))) return;
  std::vector<Reply> out;
  out.reserve(scores.size());
  for (const auto& s : scores) out.push_back(s ? Reply::Double(*s) : Reply::Nil());
  ctx.reply = Reply::Array(std::move(out));
}

void ZcountCommand(CommandContext& ctx) {
  ScoreRange range;
  if (!ParseScoreRange(ctx, 2, 3, &range)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  uint64_t n = 0;
  if (exists && !ctx.Check(ctx.Zset(h.meta).CountByScore(ctx.txn(), h, range, &n))) return;
  ctx.reply = Reply::Integer(static_cast<int64_t>(n));
}

void ZlexcountCommand(CommandContext& ctx) {
  LexRange range;
  if (!ParseLexRange(ctx, 2, 3, &range)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  uint64_t n = 0;
  if (exists && !ctx.Check(ctx.Zset(h.meta).CountByLex(ctx.txn(), h, range, &n))) return;
  ctx.reply = Reply::Integer(static_cast<int64_t>(n));
}

void ZrankCommand(CommandContext& ctx) { RankGeneric(ctx, false); }
void ZrevrankCommand(CommandContext& ctx) { RankGeneric(ctx, true); }

void ZremCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  uint64_t n = 0;
  std::vector<std::string_view> members(ctx.argv().begin() + 2, ctx.argv().end());
  if (exists && !ctx.Check(ctx.Zset(h.meta).Remove(ctx.txn(), &h, members, &n))) return;
  ctx.reply = Reply::Integer(static_cast<int64_t>(n));
}

void ZpopminCommand(CommandContext& ctx) { PopGeneric(ctx, false); }
void ZpopmaxCommand(CommandContext& ctx) { PopGeneric(ctx, true); }

}  // namespace kvlab::engine
