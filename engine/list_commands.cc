// List commands: argument parsing and replies, in the order of checks of Redis 7.0's t_list.c
// (which argument errors come before the key's lookup, and which after). The storage logic of
// each encode-version lives in encodings/ (ListEncoding).
#include <algorithm>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/list_args.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using encodings::ListEnd;
using resp::Reply;

namespace {

// LPUSH, RPUSH, LPUSHX, RPUSHX (pushGenericCommand).
void Push(CommandContext& ctx, ListEnd end, bool only_existing) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    if (only_existing) {
      ctx.reply = Reply::Integer(0);
      return;
    }
    h.meta = ctx.txn().NewMeta(KeyType::kList, ctx.engine().new_key_version(KeyType::kList));
    h.is_new = true;
  }
  std::vector<std::string_view> elements(ctx.argv().begin() + 2, ctx.argv().end());
  if (!ctx.Check(ctx.List(h.meta).Push(ctx.txn(), &h, end, elements))) return;
  ctx.KeyReady(ctx.arg(1));
  ctx.reply = Reply::Integer(h.meta.count);
}

// LPOP, RPOP (popGenericCommand).
void Pop(CommandContext& ctx, ListEnd end) {
  if (ctx.argc() > 3) {
    ctx.ReplyError(std::string("ERR wrong number of arguments for '") +
                   (end == ListEnd::kLeft ? "lpop" : "rpop") + "' command");
    return;
  }
  const bool has_count = ctx.argc() == 3;
  int64_t count = 0;
  if (has_count && !ParsePositive(ctx, 2, nullptr, &count)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    ctx.reply = has_count ? Reply::NilArray() : Reply::Nil();
    return;
  }
  if (has_count && count == 0) {
    ctx.reply = Reply::Array();
    return;
  }
  std::vector<std::string> popped;
  if (!ctx.Check(ctx.List(h.meta).Pop(ctx.txn(), &h, end, has_count ? count : 1, &popped))) {
    return;
  }
  ctx.reply = has_count ? BulkArray(std::move(popped)) : Reply::Bulk(std::move(popped[0]));
}

}  // namespace

void LpushCommand(CommandContext& ctx) { Push(ctx, ListEnd::kLeft, false); }
void RpushCommand(CommandContext& ctx) { Push(ctx, ListEnd::kRight, false); }
void LpushxCommand(CommandContext& ctx) { Push(ctx, ListEnd::kLeft, true); }
void RpushxCommand(CommandContext& ctx) { Push(ctx, ListEnd::kRight, true); }
void LpopCommand(CommandContext& ctx) { Pop(ctx, ListEnd::kLeft); }
void RpopCommand(CommandContext& ctx) { Pop(ctx, ListEnd::kRight); }

void LlenCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  ctx.reply = Reply::Integer(exists ? h.meta.count : 0);
}

void LrangeCommand(CommandContext& ctx) {
  int64_t start = 0, stop = 0;
  if (!ctx.ArgInt64(2, &start) || !ctx.ArgInt64(3, &stop)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  uint64_t first = 0, last = 0;
  if (!exists || !NormalizeRange(h.meta.count, start, stop, &first, &last)) {
    ctx.reply = Reply::Array();
    return;
  }
  std::vector<std::string> out;
  if (!ctx.Check(ctx.List(h.meta).Range(ctx.txn(), h, first, last, &out))) return;
  ctx.reply = BulkArray(std::move(out));
}

void LindexCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    ctx.reply = Reply::Nil();
    return;
  }
  int64_t index = 0;
  if (!ctx.ArgInt64(2, &index)) return;
  uint64_t position = 0;
  if (!NormalizeIndex(h.meta.count, index, &position)) {
    ctx.reply = Reply::Nil();
    return;
  }
  std::vector<std::string> out;
  if (!ctx.Check(ctx.List(h.meta).Range(ctx.txn(), h, position, position, &out))) return;
  ctx.reply = Reply::Bulk(std::move(out[0]));
}

void LsetCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    ctx.ReplyError("ERR no such key");
    return;
  }
  int64_t index = 0;
  if (!ctx.ArgInt64(2, &index)) return;
  uint64_t position = 0;
  if (!NormalizeIndex(h.meta.count, index, &position)) {
    ctx.ReplyError("ERR index out of range");
    return;
  }
  if (ctx.Check(ctx.List(h.meta).Set(ctx.txn(), &h, position, ctx.arg(3)))) ctx.reply = Reply::Ok();
}

void LinsertCommand(CommandContext& ctx) {
  bool after = false;
  if (EqualsIgnoreCase(ctx.arg(2), "after")) {
    after = true;
  } else if (!EqualsIgnoreCase(ctx.arg(2), "before")) {
    ctx.ReplyError(errors::kSyntax);
    return;
  }
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  int64_t reply = 0;
  if (!ctx.Check(ctx.List(h.meta).Insert(ctx.txn(), &h, after, ctx.arg(3), ctx.arg(4), &reply))) {
    return;
  }
  ctx.reply = Reply::Integer(reply);
}

void LremCommand(CommandContext& ctx) {
  int64_t count = 0;
  if (!ctx.ArgInt64(2, &count)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  int64_t removed = 0;
  if (!ctx.Check(ctx.List(h.meta).Remove(ctx.txn(), &h, count, ctx.arg(3), &removed))) return;
  ctx.reply = Reply::Integer(removed);
}

void LtrimCommand(CommandContext& ctx) {
  int64_t start = 0, stop = 0;
  if (!ctx.ArgInt64(2, &start) || !ctx.ArgInt64(3, &stop)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (exists) {
    const uint64_t n = h.meta.count;
    uint64_t first = 0, last = 0;
    uint64_t left = n, right = 0;  // an empty range drops everything
    if (NormalizeRange(n, start, stop, &first, &last)) {
      left = first;
      right = n - 1 - last;
    }
    if (!ctx.Check(ctx.List(h.meta).Trim(ctx.txn(), &h, left, right))) return;
  }
  ctx.reply = Reply::Ok();
}

void LposCommand(CommandContext& ctx) {
  int64_t rank = 1, count = -1, maxlen = 0;  // count -1: not given
  for (size_t j = 3; j < ctx.argc(); ++j) {
    const bool more = j + 1 < ctx.argc();
    const std::string& opt = ctx.arg(j);
    if (EqualsIgnoreCase(opt, "RANK") && more) {
      if (!ctx.ArgInt64(++j, &rank)) return;
      if (rank == 0) {
        ctx.ReplyError(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
            "or use negative to start from the end of the list");
        return;
      }
    } else if (EqualsIgnoreCase(opt, "COUNT") && more) {
      if (!ParsePositive(ctx, ++j, "ERR COUNT can't be negative", &count)) return;
    } else if (EqualsIgnoreCase(opt, "MAXLEN") && more) {
      if (!ParsePositive(ctx, ++j, "ERR MAXLEN can't be negative", &maxlen)) return;
    } else {
      ctx.ReplyError(errors::kSyntax);
      return;
    }
  }
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kList, &h, &exists)) return;
  if (!exists) {
    ctx.reply = count != -1 ? Reply::Array() : Reply::Nil();
    return;
  }
  const std::string& element = ctx.arg(2);
  const uint64_t n = h.meta.count;
  // lposCommand: matches from the chosen end, skipping the first rank-1, up to count of them
  // (0: all), looking at no more than maxlen elements (0: all).
  const bool from_tail = rank < 0;
  const uint64_t skip = static_cast<uint64_t>(from_tail ? -(rank + 1) : rank - 1);
  const uint64_t wanted = count == -1 ? 1 : count == 0 ? UINT64_MAX : static_cast<uint64_t>(count);
  const uint64_t window = maxlen == 0 ? n : std::min<uint64_t>(n, maxlen);
  std::vector<Reply> found;
  uint64_t matches = 0;
  auto visit = [&](uint64_t position, std::string_view v) {
    if (v != element) return true;
    if (matches++ < skip) return true;
    found.push_back(Reply::Integer(static_cast<int64_t>(position)));
    return found.size() < wanted;
  };
  encodings::ListEncoding& list = ctx.List(h.meta);
  if (!from_tail) {
    if (!ctx.Check(list.Scan(ctx.txn(), h, window, visit))) return;
  } else if (window > 0) {
    // From the tail: read the last `window` elements, then look at them backwards.
    std::vector<std::string> tail;
    if (!ctx.Check(list.Range(ctx.txn(), h, n - window, n - 1, &tail))) return;
    for (uint64_t i = tail.size(); i-- > 0;) {
      if (!visit(n - window + i, tail[i])) break;
    }
  }
  if (count != -1) {
    ctx.reply = Reply::Array(std::move(found));
  } else {
    ctx.reply = found.empty() ? Reply::Nil() : std::move(found[0]);
  }
}

}  // namespace kvlab::engine
