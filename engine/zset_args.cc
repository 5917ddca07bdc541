#include "engine/zset_args.h"

#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::LexBound;
using encodings::LexRange;
using encodings::ScoredMember;
using encodings::ScoreRange;
using resp::ParseScoreBound;
using resp::Reply;

namespace {

// zslParseLexRangeItem.
bool ParseLexItem(std::string_view s, LexBound* b) {
  if (s.empty()) return false;
  switch (s[0]) {
    case '+':
    case '-':
      // Redis tests the byte after the sign against NUL, so "+\0..." also means +.
      if (s.size() > 1 && s[1] != '\0') return false;
      b->kind = s[0] == '+' ? LexBound::Kind::kPosInf : LexBound::Kind::kNegInf;
      b->value.clear();
      return true;
    case '(':
    case '[':
      b->kind = s[0] == '(' ? LexBound::Kind::kExclusive : LexBound::Kind::kInclusive;
      b->value.assign(s.substr(1));
      return true;
    default:
      return false;
  }
}

}  // namespace

bool ParseScoreRange(CommandContext& ctx, size_t min_arg, size_t max_arg, ScoreRange* range) {
  if (!ParseScoreBound(ctx.arg(min_arg), &range->min.value, &range->min.exclusive) ||
      !ParseScoreBound(ctx.arg(max_arg), &range->max.value, &range->max.exclusive)) {
    ctx.ReplyError("ERR min or max is not a float");
    return false;
  }
  return true;
}

bool ParseLexRange(CommandContext& ctx, size_t min_arg, size_t max_arg, LexRange* range) {
  if (!ParseLexItem(ctx.arg(min_arg), &range->min) ||
      !ParseLexItem(ctx.arg(max_arg), &range->max)) {
    ctx.ReplyError("ERR min or max not valid string range item");
    return false;
  }
  return true;
}

Reply ScoredReply(std::vector<ScoredMember>&& members, bool with_scores, bool nested) {
  std::vector<Reply> out;
  out.reserve(members.size() * (with_scores && !nested ? 2 : 1));
  for (auto& m : members) {
    if (!with_scores) {
      out.push_back(Reply::Bulk(std::move(m.member)));
    } else if (nested) {
      out.push_back(Reply::Array({Reply::Bulk(std::move(m.member)), Reply::Double(m.score)}));
    } else {
      out.push_back(Reply::Bulk(std::move(m.member)));
      out.push_back(Reply::Double(m.score));
    }
  }
  return Reply::Array(std::move(out));
}

Reply ScoredReply(CommandContext& ctx, std::vector<ScoredMember>&& members, bool with_scores) {
  return ScoredReply(std::move(members), with_scores, ctx.session().resp >= 3);
}

}  // namespace kvlab::engine
