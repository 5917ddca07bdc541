// String commands that read or replace a whole value: GET, SET and its variants, GETEX,
// GETDEL, GETSET, MGET, MSET, MSETNX, STRLEN. A string is its key-meta alone: encode-version 0,
// key-type 1, and the value as the meta's extra bytes, so GET is one KV get and a plain SET is
// one blind put.
#include <strings.h>

#include <climits>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/string_value.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyMeta;
using encodings::KeyType;
using resp::Reply;

namespace {

std::string LowerName(const CommandContext& ctx) {
  std::string name = ctx.arg(0);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string ExpireTimeError(const CommandContext& ctx) {
  return "ERR invalid expire time in '" + LowerName(ctx) + "' command";
}

// Queues the string value for key: a new key-version, with expiry `expire_ms` (or none).
void WriteString(CommandContext& ctx, std::string_view key, std::string_view value,
                 int64_t expire_ms) {
  KeyMeta meta = ctx.txn().NewMeta(KeyType::kString, 0);
  meta.value.assign(value);
  meta.expire_ms = expire_ms;
  ctx.txn().PutMeta(key, meta);
}

enum SetFlag : unsigned {
  kNx = 1,
  kXx = 2,
  kGet = 4,
  kKeepTtl = 8,
  kEx = 16,
  kPx = 32,
  kExAt = 64,
  kPxAt = 128,
  kPersist = 256,
};

enum class OptionsOf { kSet, kGetex };

// parseExtendedStringArgumentsOrReply for SET (options from argument 3) and GETEX (from 2), in
// Redis's order of checks.
bool ParseSetOptions(CommandContext& ctx, OptionsOf command, unsigned* flags, size_t* expire_arg) {
  auto is = [](const std::string& s, const char* word) { return !strcasecmp(s.c_str(), word); };
  const bool set = command == OptionsOf::kSet;
  for (size_t j = set ? 3 : 2; j < ctx.argc(); ++j) {
    const std::string& opt = ctx.arg(j);
    const bool has_next = j + 1 < ctx.argc();
    const unsigned f = *flags;
    if (set && is(opt, "nx") && !(f & kXx)) {
      *flags |= kNx;
    } else if (set && is(opt, "xx") && !(f & kNx)) {
      *flags |= kXx;
    } else if (set && is(opt, "get")) {
      *flags |= kGet;
    } else if (set && is(opt, "keepttl") && !(f & (kPersist | kEx | kExAt | kPx | kPxAt))) {
      *flags |= kKeepTtl;
    } else if (!set && is(opt, "persist") && !(f & (kEx | kExAt | kPx | kPxAt | kKeepTtl))) {
      *flags |= kPersist;
    } else if (is(opt, "ex") && !(f & (kKeepTtl | kPersist | kExAt | kPx | kPxAt)) && has_next) {
      *flags |= kEx;
      *expire_arg = ++j;
    } else if (is(opt, "px") && !(f & (kKeepTtl | kPersist | kEx | kExAt | kPxAt)) && has_next) {
      *flags |= kPx;
      *expire_arg = ++j;
    } else if (is(opt, "exat") && !(f & (kKeepTtl | kPersist | kEx | kPx | kPxAt)) && has_next) {
      *flags |= kExAt;
      *expire_arg = ++j;
    } else if (is(opt, "pxat") && !(f & (kKeepTtl | kPersist | kEx | kExAt | kPx)) && has_next) {
      *flags |= kPxAt;
      *expire_arg = ++j;
    } else {
      ctx.ReplyError(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// getExpireMillisecondsOrReply: the absolute expiry in ms.
bool ExpireMillis(CommandContext& ctx, size_t arg, bool seconds, bool relative, int64_t* out) {
  int64_t v = 0;
  if (!ctx.ArgInt64(arg, &v)) return false;
  if (v <= 0 || (seconds && v > LLONG_MAX / 1000)) {
    ctx.ReplyError(ExpireTimeError(ctx));
    return false;
  }
  if (seconds) v *= 1000;
  if (relative) {
    // Redis adds without an overflow check and then tests for a non-positive result.
    v = static_cast<int64_t>(static_cast<uint64_t>(v) + static_cast<uint64_t>(ctx.txn().now_ms()));
  }
  if (v <= 0) {
    ctx.ReplyError(ExpireTimeError(ctx));
    return false;
  }
  *out = v;
  return true;
}

// setGenericCommand: SET with its options, and SETEX, PSETEX, SETNX.
void SetGeneric(CommandContext& ctx, std::string_view key, std::string_view value, unsigned flags,
                std::optional<int64_t> expire_ms) {
  const bool needs_read = flags & (kNx | kXx | kGet | kKeepTtl);
  KeyMeta old;
  bool found = false;
  if (needs_read && !ctx.Check(ctx.txn().GetMeta(key, &old, &found))) return;
  if ((flags & kGet) && found && old.type != KeyType::kString) {
    return ctx.ReplyError(errors::kWrongType);
  }
  const Reply previous = found ? Reply::Bulk(old.value) : Reply::Nil();
  if (((flags & kNx) && found) || ((flags & kXx) && !found)) {
    ctx.reply = (flags & kGet) ? previous : Reply::Nil();
    return;
  }
  int64_t expire = KeyMeta::kNoExpire;
  if (expire_ms) {
    expire = *expire_ms;
  } else if ((flags & kKeepTtl) && found) {
    expire = old.expire_ms;
  }
  if (expire != KeyMeta::kNoExpire && expire <= ctx.txn().now_ms()) {
    ctx.txn().DeleteMeta(key);  // set and already expired: the key is gone
  } else {
    WriteString(ctx, key, value, expire);
  }
  ctx.reply = (flags & kGet) ? previous : Reply::Ok();
}

}  // namespace

void GetCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &found))) return;
  if (!found) {
    ctx.reply = Reply::Nil();
  } else if (meta.type != KeyType::kString) {
    ctx.ReplyError(errors::kWrongType);
  } else {
    ctx.reply = Reply::Bulk(std::move(meta.value));
  }
}

void SetCommand(CommandContext& ctx) {
  unsigned flags = 0;
  size_t expire_arg = 0;
  if (!ParseSetOptions(ctx, OptionsOf::kSet, &flags, &expire_arg)) return;
  std::optional<int64_t> expire;
  if (expire_arg != 0) {
    int64_t ms = 0;
    if (!ExpireMillis(ctx, expire_arg, flags & (kEx | kExAt), flags & (kEx | kPx), &ms)) return;
    expire = ms;
  }
  SetGeneric(ctx, ctx.arg(1), ctx.arg(2), flags, expire);
}

void SetexCommand(CommandContext& ctx) {
  int64_t ms = 0;
  if (!ExpireMillis(ctx, 2, /*seconds=*/true, /*relative=*/true, &ms)) return;
  SetGeneric(ctx, ctx.arg(1), ctx.arg(3), 0, ms);
}

void PsetexCommand(CommandContext& ctx) {
  int64_t ms = 0;
  if (!ExpireMillis(ctx, 2, /*seconds=*/false, /*relative=*/true, &ms)) return;
  SetGeneric(ctx, ctx.arg(1), ctx.arg(3), 0, ms);
}

void SetnxCommand(CommandContext& ctx) {
  KeyMeta old;
  bool found = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &old, &found))) return;
  if (!found) WriteString(ctx, ctx.arg(1), ctx.arg(2), KeyMeta::kNoExpire);
  ctx.reply = Reply::Integer(found ? 0 : 1);
}

void MgetCommand(CommandContext& ctx) {
  std::vector<std::string_view> keys(ctx.argv().begin() + 1, ctx.argv().end());
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return;
  std::vector<Reply> out;
  out.reserve(keys.size());
  for (auto& m : metas) {
    if (m && m->type == KeyType::kString) {
      out.push_back(Reply::Bulk(std::move(m->value)));
    } else {
      out.push_back(Reply::Nil());
    }
  }
  ctx.reply = Reply::Array(std::move(out));
}

void MsetCommand(CommandContext& ctx) {
  if (ctx.argc() % 2 == 0) {
    return ctx.ReplyError("ERR wrong number of arguments for 'mset' command");
  }
  for (size_t i = 1; i < ctx.argc(); i += 2) {
    WriteString(ctx, ctx.arg(i), ctx.arg(i + 1), KeyMeta::kNoExpire);
  }
  ctx.reply = Reply::Ok();
}

void StrlenCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &found))) return;
  if (found && meta.type != KeyType::kString) return ctx.ReplyError(errors::kWrongType);
  ctx.reply = Reply::Integer(found ? static_cast<int64_t>(meta.value.size()) : 0);
}

// getexCommand: options first, then the key; the expire time is validated after the type check,
// and the value is replied before the key's TTL changes.
void GetexCommand(CommandContext& ctx) {
  unsigned flags = 0;
  size_t expire_arg = 0;
  if (!ParseSetOptions(ctx, OptionsOf::kGetex, &flags, &expire_arg)) return;
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  if (!found) {
    ctx.reply = Reply::Nil();
    return;
  }
  int64_t ms = 0;
  if (expire_arg != 0 &&
      !ExpireMillis(ctx, expire_arg, flags & (kEx | kExAt), flags & (kEx | kPx), &ms)) {
    return;
  }
  if ((flags & (kExAt | kPxAt)) && ms <= ctx.txn().now_ms()) {
    ctx.txn().DeleteMeta(ctx.arg(1));  // an absolute time already past: the key goes
  } else if (expire_arg != 0) {
    meta.expire_ms = ms;
    ctx.txn().PutMeta(ctx.arg(1), meta);
  } else if ((flags & kPersist) && meta.has_expire()) {
    meta.expire_ms = KeyMeta::kNoExpire;
    ctx.txn().PutMeta(ctx.arg(1), meta);
  }
  ctx.reply = Reply::Bulk(std::move(meta.value));
}

void GetdelCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  if (!found) {
    ctx.reply = Reply::Nil();
    return;
  }
  ctx.txn().DeleteMeta(ctx.arg(1));
  ctx.reply = Reply::Bulk(std::move(meta.value));
}

// getsetCommand: GET, then SET without options (the TTL is removed).
void GetsetCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  WriteString(ctx, ctx.arg(1), ctx.arg(2), KeyMeta::kNoExpire);
  ctx.reply = found ? Reply::Bulk(std::move(meta.value)) : Reply::Nil();
}

// msetGenericCommand with NX: nothing is set when any key exists (of any type).
void MsetnxCommand(CommandContext& ctx) {
  if (ctx.argc() % 2 == 0) {
    return ctx.ReplyError("ERR wrong number of arguments for 'msetnx' command");
  }
  std::vector<std::string_view> keys;
  for (size_t i = 1; i < ctx.argc(); i += 2) keys.push_back(ctx.arg(i));
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return;
  for (const auto& m : metas) {
    if (m) {
      ctx.reply = Reply::Integer(0);
      return;
    }
  }
  for (size_t i = 1; i < ctx.argc(); i += 2) {
    WriteString(ctx, ctx.arg(i), ctx.arg(i + 1), KeyMeta::kNoExpire);
  }
  ctx.reply = Reply::Integer(1);
}

}  // namespace kvlab::engine
