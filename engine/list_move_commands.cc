// The list commands over several keys, and the blocking forms: LMOVE, RPOPLPUSH, LMPOP, BLPOP,
// BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP. Their checks follow Redis 7.0's t_list.c in order; a
// blocking form that cannot serve itself asks to block (engine/blocking.h).
#include "engine/blocking.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/list_args.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using encodings::ListEnd;
using resp::Reply;

namespace {

// lmoveGenericCommand: pops one element from `source` at `from` and pushes it onto
// `destination` at `to`. Returns false when the reply is set (an error, or nil for an absent
// source: *moved false).
bool Move(CommandContext& ctx, const std::string& source, const std::string& destination,
          ListEnd from, ListEnd to, bool* moved) {
  *moved = false;
  KeyHandle src;
  bool exists = false;
  if (!LoadWaitedKey(ctx, source, KeyType::kList, &src, &exists)) return false;
  if (!exists) return true;
  KeyHandle dst_own;
  KeyHandle* dst = &src;  // LMOVE l l: one handle, so the pop and the push see each other
  bool dst_exists = true;
  if (destination != source) {
    dst = &dst_own;
    if (!ctx.Load(destination, KeyType::kList, dst, &dst_exists)) return false;
  }
  std::vector<std::string> popped;
  if (!ctx.Check(ctx.List(src.meta).Pop(ctx.txn(), &src, from, 1, &popped))) return false;
  if (!dst_exists) {
    dst->meta = ctx.txn().NewMeta(KeyType::kList, ctx.engine().new_key_version(KeyType::kList));
    dst->is_new = true;
  }
  if (!ctx.Check(ctx.List(dst->meta).Push(ctx.txn(), dst, to, {popped[0]}))) return false;
  ctx.KeyReady(destination);
  ctx.reply = Reply::Bulk(std::move(popped[0]));
  *moved = true;
  return true;
}

// mpopGenericCommand / blockingPopGenericCommand: pops from the first of `keys` that is not
// empty. `count` < 0: one element, replied [key, element] (BLPOP); else up to count, replied
// [key, [elements]] (LMPOP). Returns false when the reply is set to an error; *served false
// when every key is empty.
bool PopFirst(CommandContext& ctx, const std::vector<std::string>& keys, ListEnd end, int64_t count,
              bool* served) {
  *served = false;
  for (const std::string& key : keys) {
    KeyHandle h;
    bool exists = false;
    if (!LoadWaitedKey(ctx, key, KeyType::kList, &h, &exists)) return false;
    if (!exists) continue;
    std::vector<std::string> popped;
    if (!ctx.Check(ctx.List(h.meta).Pop(ctx.txn(), &h, end, count < 0 ? 1 : count, &popped))) {
      return false;
    }
    std::vector<Reply> pair;
    pair.push_back(Reply::Bulk(key));
    pair.push_back(count < 0 ? Reply::Bulk(std::move(popped[0])) : BulkArray(std::move(popped)));
    ctx.reply = Reply::Array(std::move(pair));
    *served = true;
    return true;
  }
  return true;
}

// LMPOP and BLMPOP (lmpopGenericCommand): numkeys at argument numkeys_at.
void Mpop(CommandContext& ctx, size_t numkeys_at, bool blocking) {
  ListEnd end;
  std::vector<std::string> keys;
  int64_t count = 0;
  if (!ParseMultiPop(
          ctx, numkeys_at, [&](size_t i) { return ParseListEnd(ctx, i, &end); }, &keys, &count)) {
    return;
  }
  int64_t deadline = 0;
  if (blocking && !ParseBlockTimeout(ctx, 1, &deadline)) return;
  bool served = false;
  if (!PopFirst(ctx, keys, end, count, &served) || served) return;
  if (!blocking) {
    ctx.reply = Reply::NilArray();
    return;
  }
  BlockClient(ctx, std::move(keys), deadline, Reply::NilArray());
}

// BLPOP and BRPOP: keys, then the timeout.
void BlockingPop(CommandContext& ctx, ListEnd end) {
  int64_t deadline = 0;
  if (!ParseBlockTimeout(ctx, ctx.argc() - 1, &deadline)) return;
  std::vector<std::string> keys(ctx.argv().begin() + 1, ctx.argv().end() - 1);
  bool served = false;
  if (!PopFirst(ctx, keys, end, -1, &served) || served) return;
  BlockClient(ctx, std::move(keys), deadline, Reply::NilArray());
}

// BLMOVE and BRPOPLPUSH (blmoveGenericCommand).
void BlockingMove(CommandContext& ctx, ListEnd from, ListEnd to, int64_t deadline) {
  bool moved = false;
  if (!Move(ctx, ctx.arg(1), ctx.arg(2), from, to, &moved) || moved) return;
  BlockClient(ctx, {ctx.arg(1)}, deadline, Reply::Nil());
}

}  // namespace

void LmoveCommand(CommandContext& ctx) {
  ListEnd from, to;
  if (!ParseListEnd(ctx, 3, &from) || !ParseListEnd(ctx, 4, &to)) return;
  bool moved = false;
  if (Move(ctx, ctx.arg(1), ctx.arg(2), from, to, &moved) && !moved) ctx.reply = Reply::Nil();
}

void RpoplpushCommand(CommandContext& ctx) {
  bool moved = false;
  if (Move(ctx, ctx.arg(1), ctx.arg(2), ListEnd::kRight, ListEnd::kLeft, &moved) && !moved) {
    ctx.reply = Reply::Nil();
  }
}

void LmpopCommand(CommandContext& ctx) { Mpop(ctx, 1, false); }
void BlmpopCommand(CommandContext& ctx) { Mpop(ctx, 2, true); }
void BlpopCommand(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kLeft); }
void BrpopCommand(CommandContext& ctx) { BlockingPop(ctx, ListEnd::kRight); }

void BlmoveCommand(CommandContext& ctx) {
  ListEnd from, to;
  if (!ParseListEnd(ctx, 3, &from) || !ParseListEnd(ctx, 4, &to)) return;
  int64_t deadline = 0;
  if (!ParseBlockTimeout(ctx, 5, &deadline)) return;
  BlockingMove(ctx, from, to, deadline);
}

void BrpoplpushCommand(CommandContext& ctx) {
  int64_t deadline = 0;
  if (!ParseBlockTimeout(ctx, 3, &deadline)) return;
  BlockingMove(ctx, ListEnd::kRight, ListEnd::kLeft, deadline);
}

}  // namespace kvlab::engine
