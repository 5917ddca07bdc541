// ZRANDMEMBER and HRANDFIELD: random members of a zset, random fields of a hash. Parsing, the
// order of checks and the reply shapes follow Redis 7.0's zrandmemberCommand and
// hrandfieldCommand (t_zset.c, t_hash.c): the count (getRangeLongFromObjectOrReply over
// [-LONG_MAX, LONG_MAX]), then the option (a syntax error for anything but WITHSCORES or
// WITHVALUES, or a fifth argument), then, with the option, the range of a count that doubles
// (+-LONG_MAX/2), and only then the key:
//   no count          one random element, or nil for an absent key;
//   count 0           an empty array (after the key's type check);
//   count > 0         min(count, size) distinct elements: the whole collection, in its order,
//                     when count >= size, otherwise a uniform sample in random order;
//   count < 0         |count| elements drawn independently, repeats allowed;
//   WITHSCORES / WITHVALUES  element, value pairs; nested [element, value] in RESP3.
//
// A KV store has no random access by position and no order statistics, so kvlab reads the
// whole collection once (the range read of ZRANGE z 0 -1 or HGETALL, or the Redis tier's cached
// copy) and draws from it in memory: the cost is the collection's size whatever the count, and
// the same as those commands' for each version (docs/amplification.md). A blind hash (v1, v3)
// keeps no count and needs none: the read gives the size.
#include <strings.h>

#include <climits>
#include <random>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::FieldValue;
using encodings::HashGetAllPart;
using encodings::KeyHandle;
using encodings::KeyType;
using encodings::ScoredMember;
using resp::ParseInt64;
using resp::Reply;

namespace {

// The most elements one negative count may draw. Redis streams such a reply as it draws (and
// a count near LONG_MAX exhausts the client's output buffer); kvlab builds a reply whole, so it
// refuses one that could not fit in memory, with SRANDMEMBER's limit and words.
constexpr uint64_t kMaxRandomReply = uint64_t{1} << 26;

// The parsed count form of either command.
struct CountForm {
  bool has_count = false;
  int64_t count = 0;
  bool with = false;  // WITHSCORES / WITHVALUES
};

// The arguments after the key, in Redis's order of checks. Returns false after setting the
// error reply.
bool ParseCountForm(CommandContext& ctx, const char* option, CountForm* form) {
  form->has_count = ctx.argc() >= 3;
  if (!form->has_count) return true;
  if (!ParseInt64(ctx.arg(2), &form->count)) {
    ctx.ReplyError(errors::kNotInteger);
    return false;
  }
  if (form->count == LLONG_MIN) {
    ctx.ReplyError(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return false;
  }
  if (ctx.argc() > 4 || (ctx.argc() == 4 && strcasecmp(ctx.arg(3).c_str(), option) != 0)) {
    ctx.ReplyError(errors::kSyntax);
    return false;
  }
  if (ctx.argc() == 4) {
    form->with = true;
    if (form->count < -LLONG_MAX / 2 || form->count > LLONG_MAX / 2) {
      ctx.ReplyError("ERR value is out of range");
      return false;
    }
  }
  return true;
}

// The indexes of the elements to reply, among `size`, for a count (see the file comment).
// Returns false after setting the error reply for a count past kMaxRandomReply.
// REQUIRES: size > 0, count != 0.
bool Draw(CommandContext& ctx, int64_t count, size_t size, std::vector<size_t>* out) {
  std::mt19937_64& random = ctx.session().random;
  out->clear();
  if (count < 0) {
    const uint64_t n = static_cast<uint64_t>(-count);
    if (n > kMaxRandomReply) {
      ctx.ReplyError("ERR count is too large: kvlab replies at most " +
                     std::to_string(kMaxRandomReply) + " random members at once");
      return false;
    }
    std::uniform_int_distribution<size_t> any(0, size - 1);
    out->reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) out->push_back(any(random));
    return true;
  }
  out->resize(size);
  for (size_t i = 0; i < size; ++i) (*out)[i] = i;
  if (static_cast<uint64_t>(count) >= size) return true;  // the whole collection, in order
  // A partial Fisher-Yates shuffle: the first `count` slots end up a uniform sample, in random
  // order.
  const size_t k = static_cast<size_t>(count);
  for (size_t i = 0; i < k; ++i) {
    std::uniform_int_distribution<size_t> pick(i, size - 1);
    std::swap((*out)[i], (*out)[pick(random)]);
  }
  out->resize(k);
  return true;
}

// The reply to a count form: [element, ...], or with values [e, v, e, v, ...] (RESP2) and
// [[e, v], ...] (RESP3). `element` and `value` give an item's two halves.
template <typename Item, typename ElementOf, typename ValueOf>
Reply PicksReply(CommandContext& ctx, const std::vector<Item>& items,
                 const std::vector<size_t>& picks, bool with, ElementOf element, ValueOf value) {
  const bool nested = with && ctx.session().resp >= 3;
  std::vector<Reply> out;
  out.reserve(picks.size() * (with && !nested ? 2 : 1));
  for (size_t i : picks) {
    if (!with) {
      out.push_back(Reply::Bulk(element(items[i])));
    } else if (nested) {
      out.push_back(Reply::Array({Reply::Bulk(element(items[i])), value(items[i])}));
    } else {
      out.push_back(Reply::Bulk(element(items[i])));
      out.push_back(value(items[i]));
    }
  }
  return Reply::Array(std::move(out));
}

// What both commands reply when there is nothing to draw from.
Reply EmptyReply(const CountForm& form) { return form.has_count ? Reply::Array() : Reply::Nil(); }

}  // namespace

void ZrandmemberCommand(CommandContext& ctx) {
  CountForm form;
  if (!ParseCountForm(ctx, "withscores", &form)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kZset, &h, &exists)) return;
  if (!exists || (form.has_count && form.count == 0)) {
    ctx.reply = EmptyReply(form);
    return;
  }
  std::vector<ScoredMember> all;
  if (!ctx.Check(ctx.Zset(h.meta).RangeByRank(ctx.txn(), h, 0, -1, false, &all))) return;
  if (all.empty()) {  // a live zset is never empty; answer as for an absent one
    ctx.reply = EmptyReply(form);
    return;
  }
  if (!form.has_count) {
    std::uniform_int_distribution<size_t> any(0, all.size() - 1);
    ctx.reply = Reply::Bulk(std::move(all[any(ctx.session().random)].member));
    return;
  }
  std::vector<size_t> picks;
  if (!Draw(ctx, form.count, all.size(), &picks)) return;
  ctx.reply = PicksReply(
      ctx, all, picks, form.with, [](const ScoredMember& m) { return m.member; },
      [](const ScoredMember& m) { return Reply::Double(m.score); });
}

void HrandfieldCommand(CommandContext& ctx) {
  CountForm form;
  if (!ParseCountForm(ctx, "withvalues", &form)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kHash, &h, &exists)) return;
  if (!exists || (form.has_count && form.count == 0)) {
    ctx.reply = EmptyReply(form);
    return;
  }
  std::vector<FieldValue> all;
  const HashGetAllPart part = form.with ? HashGetAllPart::kBoth : HashGetAllPart::kKeys;
  if (!ctx.Check(ctx.Hash(h.meta).GetAll(ctx.txn(), h, part, &all))) return;
  if (all.empty()) {  // a live hash is never empty; answer as for an absent one
    ctx.reply = EmptyReply(form);
    return;
  }
  if (!form.has_count) {
    std::uniform_int_distribution<size_t> any(0, all.size() - 1);
    ctx.reply = Reply::Bulk(std::move(all[any(ctx.session().random)].first));
    return;
  }
  std::vector<size_t> picks;
  if (!Draw(ctx, form.count, all.size(), &picks)) return;
  ctx.reply = PicksReply(
      ctx, all, picks, form.with, [](const FieldValue& f) { return f.first; },
      [](const FieldValue& f) { return Reply::Bulk(f.second); });
}

}  // namespace kvlab::engine
