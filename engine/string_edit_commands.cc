// String commands that change a value in place: the INCR family, APPEND, SETRANGE, and the
// range read GETRANGE (SUBSTR). A string is its key-meta alone, so each is one KV get and, when
// it writes, one put of the meta: the value is rewritten whole, the TTL kept (Redis's
// dbOverwrite keeps it too). Parsing and errors follow Redis 7.0's t_string.c, in its order.
#include <climits>
#include <cmath>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/string_value.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyMeta;
using encodings::KeyType;
using resp::FormatLongDoubleHuman;
using resp::ParseInt64;
using resp::ParseLongDouble;
using resp::Reply;

bool LoadString(CommandContext& ctx, std::string_view key, KeyMeta* meta, bool* found) {
  if (!ctx.Check(ctx.txn().GetMeta(key, meta, found))) return false;
  if (*found && meta->type != KeyType::kString) {
    ctx.ReplyError(errors::kWrongType);
    return false;
  }
  return true;
}

void StoreString(CommandContext& ctx, std::string_view key, KeyMeta* meta, bool found,
                 std::string value) {
  if (!found) *meta = ctx.txn().NewMeta(KeyType::kString, 0);
  meta->value = std::move(value);
  ctx.txn().PutMeta(key, *meta);
}

bool CheckStringLength(CommandContext& ctx, uint64_t size) {
  if (size <= ctx.engine().proto_max_bulk_len()) return true;
  ctx.ReplyError("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  return false;
}

namespace {

// incrDecrCommand.
void IncrDecr(CommandContext& ctx, int64_t incr) {
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  int64_t value = 0;
  if (found && !ParseInt64(meta.value, &value)) return ctx.ReplyError(errors::kNotInteger);
  if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
      (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
    return ctx.ReplyError("ERR increment or decrement would overflow");
  }
  value += incr;
  StoreString(ctx, ctx.arg(1), &meta, found, std::to_string(value));
  ctx.reply = Reply::Integer(value);
}

// getrangeCommand: the offsets are parsed before the key is read.
void GetRange(CommandContext& ctx) {
  int64_t start = 0, end = 0;
  if (!ctx.ArgInt64(2, &start) || !ctx.ArgInt64(3, &end)) return;
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  const auto len = static_cast<int64_t>(meta.value.size());
  if (!found || (start < 0 && end < 0 && start > end)) {
    ctx.reply = Reply::Bulk("");
    return;
  }
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) {
    ctx.reply = Reply::Bulk("");
  } else {
    ctx.reply = Reply::Bulk(
        meta.value.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
  }
}

}  // namespace

void IncrCommand(CommandContext& ctx) { IncrDecr(ctx, 1); }
void DecrCommand(CommandContext& ctx) { IncrDecr(ctx, -1); }

void IncrbyCommand(CommandContext& ctx) {
  int64_t incr = 0;
  if (ctx.ArgInt64(2, &incr)) IncrDecr(ctx, incr);
}

void DecrbyCommand(CommandContext& ctx) {
  int64_t incr = 0;
  if (!ctx.ArgInt64(2, &incr)) return;
  if (incr == LLONG_MIN) return ctx.ReplyError("ERR decrement would overflow");
  IncrDecr(ctx, -incr);
}

// incrbyfloatCommand: the stored value is parsed before the increment, both as long doubles.
void IncrbyfloatCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  long double value = 0, incr = 0;
  if ((found && !ParseLongDouble(meta.value, &value)) || !ParseLongDouble(ctx.arg(2), &incr)) {
    return ctx.ReplyError(errors::kNotFloat);
  }
  value += incr;
  std::string text;
  if (std::isnan(value) || std::isinf(value) || !FormatLongDoubleHuman(value, &text)) {
    return ctx.ReplyError("ERR increment would produce NaN or Infinity");
  }
  StoreString(ctx, ctx.arg(1), &meta, found, text);
  ctx.reply = Reply::Bulk(std::move(text));
}

void AppendCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  if (found && !CheckStringLength(ctx, meta.value.size() + ctx.arg(2).size())) return;
  std::string value = found ? std::move(meta.value) + ctx.arg(2) : ctx.arg(2);
  const auto length = static_cast<int64_t>(value.size());
  StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
  ctx.reply = Reply::Integer(length);
}

void GetrangeCommand(CommandContext& ctx) { GetRange(ctx); }
void SubstrCommand(CommandContext& ctx) { GetRange(ctx); }

// setrangeCommand: an empty value writes nothing (and creates no key).
void SetrangeCommand(CommandContext& ctx) {
  int64_t offset = 0;
  if (!ctx.ArgInt64(2, &offset)) return;
  if (offset < 0) return ctx.ReplyError("ERR offset is out of range");
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  const std::string& patch = ctx.arg(3);
  if (patch.empty()) {
    ctx.reply = Reply::Integer(found ? static_cast<int64_t>(meta.value.size()) : 0);
    return;
  }
  if (!CheckStringLength(ctx, static_cast<uint64_t>(offset) + patch.size())) return;
  std::string value = found ? std::move(meta.value) : std::string();
  const size_t end = static_cast<size_t>(offset) + patch.size();
  if (value.size() < end) value.resize(end, '\0');
  value.replace(static_cast<size_t>(offset), patch.size(), patch);
  const auto length = static_cast<int64_t>(value.size());
  StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
  ctx.reply = Reply::Integer(length);
}

}  // namespace kvlab::engine
