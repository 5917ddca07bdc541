// Hash commands: argument parsing and replies. The storage logic of each encode-version lives in
// encodings/ (HashEncoding); these handlers only choose the encoding a key's meta names.
#include <climits>
#include <cmath>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::FieldValue;
using encodings::HashGetAllPart;
using encodings::KeyHandle;
using encodings::KeyType;
using resp::FormatLongDoubleHuman;
using resp::ParseInt64;
using resp::ParseLongDouble;
using resp::Reply;

namespace {

std::vector<std::string_view> ArgsFrom(const CommandContext& ctx, size_t first) {
  return std::vector<std::string_view>(ctx.argv().begin() + static_cast<ptrdiff_t>(first),
                                       ctx.argv().end());
}

// HSET and HMSET: the field-value pairs from argument 2 on.
bool SetFields(CommandContext& ctx, int64_t* reply) {
  if (ctx.argc() % 2 != 0) {
    std::string name = ctx.arg(0);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ctx.ReplyError("ERR wrong number of arguments for '" + name + "' command");
    return false;
  }
  KeyHandle h;
  if (!ctx.LoadOrCreate(ctx.arg(1), KeyType::kHash, &h)) return false;
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  pairs.reserve((ctx.argc() - 2) / 2);
  for (size_t i = 2; i < ctx.argc(); i += 2) pairs.emplace_back(ctx.arg(i), ctx.arg(i + 1));
  return ctx.Check(ctx.Hash(h.meta).Set(ctx.txn(), &h, pairs, reply));
}

// Loads the hash and reads one field. Returns false when the reply is already set (an error);
// *exists false means the key is absent.
bool ReadField(CommandContext& ctx, KeyHandle* h, bool* exists, std::optional<std::string>* value) {
  if (!ctx.Load(ctx.arg(1), KeyType::kHash, h, exists)) return false;
  value->reset();
  if (!*exists) return true;
  return ctx.Check(ctx.Hash(h->meta).Get(ctx.txn(), *h, ctx.arg(2), value));
}

void GetAll(CommandContext& ctx, HashGetAllPart part) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kHash, &h, &exists)) return;
  std::vector<Reply> out;
  if (exists) {
    std::vector<FieldValue> all;
    if (!ctx.Check(ctx.Hash(h.meta).GetAll(ctx.txn(), h, part, &all))) return;
    out.reserve(all.size() * (part == HashGetAllPart::kBoth ? 2 : 1));
    for (auto& [field, value] : all) {
      if (part != HashGetAllPart::kValues) out.push_back(Reply::Bulk(std::move(field)));
      if (part != HashGetAllPart::kKeys) out.push_back(Reply::Bulk(std::move(value)));
    }
  }
  // HGETALL is a map in RESP3; HKEYS and HVALS are arrays.
  ctx.reply =
      part == HashGetAllPart::kBoth ? Reply::Map(std::move(out)) : Reply::Array(std::move(out));
}

// Writes the new value of the field that ReadField read.
bool WriteField(CommandContext& ctx, KeyHandle* h, bool key_exists, bool field_existed,
                std::string_view value) {
  if (!key_exists) {
    h->meta = ctx.txn().NewMeta(KeyType::kHash, ctx.engine().new_key_version(KeyType::kHash));
    h->is_new = true;
  }
  return ctx.Check(ctx.Hash(h->meta).Put(ctx.txn(), h, ctx.arg(2), value, field_existed));
}

}  // namespace

void HsetCommand(CommandContext& ctx) {
  int64_t n = 0;
  if (SetFields(ctx, &n)) ctx.reply = Reply::Integer(n);
}

void HmsetCommand(CommandContext& ctx) {
  int64_t n = 0;
  if (SetFields(ctx, &n)) ctx.reply = Reply::Ok();
}

void HsetnxCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  std::optional<std::string> value;
  if (!ReadField(ctx, &h, &exists, &value)) return;
  if (value) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  if (WriteField(ctx, &h, exists, false, ctx.arg(3))) ctx.reply = Reply::Integer(1);
}

void HgetCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  std::optional<std::string> value;
  if (!ReadField(ctx, &h, &exists, &value)) return;
  ctx.reply = value ? Reply::Bulk(std::move(*value)) : Reply::Nil();
}

void HmgetCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kHash, &h, &exists)) return;
  const auto fields = ArgsFrom(ctx, 2);
  std::vector<std::optional<std::string>> values(fields.size());
  if (exists && !ctx.Check(ctx.Hash(h.meta).MultiGet(ctx.txn(), h, fields, &values))) return;
  std::vector<Reply> out;
  out.reserve(values.size());
  for (auto& v : values) out.push_back(v ? Reply::Bulk(std::move(*v)) : Reply::Nil());
  ctx.reply = Reply::Array(std::move(out));
}

void HdelCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kHash, &h, &exists)) return;
  int64_t n = 0;
  if (exists && !ctx.Check(ctx.Hash(h.meta).Delete(ctx.txn(), &h, ArgsFrom(ctx, 2), &n))) return;
  ctx.reply = Reply::Integer(n);
}

void HgetallCommand(CommandContext& ctx) { GetAll(ctx, HashGetAllPart::kBoth); }
void HkeysCommand(CommandContext& ctx) { GetAll(ctx, HashGetAllPart::kKeys); }
void HvalsCommand(CommandContext& ctx) { GetAll(ctx, HashGetAllPart::kValues); }

void HlenCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kHash, &h, &exists)) return;
  uint64_t n = 0;
  if (exists && !ctx.Check(ctx.Hash(h.meta).Length(ctx.txn(), h, &n))) return;
  ctx.reply = Reply::Integer(static_cast<int64_t>(n));
}

void HexistsCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  std::optional<std::string> value;
  if (!ReadField(ctx, &h, &exists, &value)) return;
  ctx.reply = Reply::Integer(value ? 1 : 0);
}

void HstrlenCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  std::optional<std::string> value;
  if (!ReadField(ctx, &h, &exists, &value)) return;
  ctx.reply = Reply::Integer(value ? static_cast<int64_t>(value->size()) : 0);
}

void HincrbyCommand(CommandContext& ctx) {
  int64_t incr = 0;
  if (!ctx.ArgInt64(3, &incr)) return;
  KeyHandle h;
  bool exists = false;
  std::optional<std::string> value;
  if (!ReadField(ctx, &h, &exists, &value)) return;
  int64_t old = 0;
  if (value && !ParseInt64(*value, &old)) return ctx.ReplyError("ERR hash value is not an integer");
  if ((incr < 0 && old < 0 && incr < LLONG_MIN - old) ||
      (incr > 0 && old > 0 && incr > LLONG_MAX - old)) {
    return ctx.ReplyError("ERR increment or decrement would overflow");
  }
  const int64_t result = old + incr;
  if (WriteField(ctx, &h, exists, value.has_value(), std::to_string(result))) {
    ctx.reply = Reply::Integer(result);
  }
}

void HincrbyfloatCommand(CommandContext& ctx) {
  long double incr = 0;
  if (!ParseLongDouble(ctx.arg(3), &incr)) return ctx.ReplyError(errors::kNotFloat);
  if (std::isnan(incr) || std::isinf(incr)) return ctx.ReplyError("ERR value is NaN or Infinity");
  KeyHandle h;
  bool exists = false;
  std::optional<std::string> value;
  if (!ReadField(ctx, &h, &exists, &value)) return;
  long double old = 0;
  if (value && !ParseLongDouble(*value, &old)) {
    return ctx.ReplyError("ERR hash value is not a float");
  }
  const long double result = old + incr;
  if (std::isnan(result) || std::isinf(result)) {
    return ctx.ReplyError("ERR increment would produce NaN or Infinity");
  }
  std::string text;
  if (!FormatLongDoubleHuman(result, &text)) {
    return ctx.ReplyError("ERR increment would produce NaN or Infinity");
  }
  if (WriteField(ctx, &h, exists, value.has_value(), text)) ctx.reply = Reply::Bulk(text);
}

}  // namespace kvlab::engine
