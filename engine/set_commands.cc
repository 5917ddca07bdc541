// Set commands on one key (and SMOVE): argument parsing, random choices and replies. The storage
// logic of each encode-version lives in encodings/ (SetEncoding); these handlers choose the
// encoding a key's meta names. Parsing, checks and replies follow Redis 7.0's t_set.c, in its
// order of checks. The multi-key algebra is in set_algebra_commands.cc.
#include <strings.h>

#include <algorithm>
#include <climits>
#include <numeric>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/set_keys.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using resp::ParseInt64;
using resp::Reply;

namespace {

// The most members one SRANDMEMBER with a negative count may reply (each is a copy).
constexpr uint64_t kMaxRandomReply = uint64_t{1} << 26;

std::vector<std::string_view> ArgsFrom(const CommandContext& ctx, size_t first) {
  return std::vector<std::string_view>(ctx.argv().begin() + static_cast<ptrdiff_t>(first),
                                       ctx.argv().end());
}

std::vector<Reply> Bulks(std::vector<std::string> members) {
  std::vector<Reply> out;
  out.reserve(members.size());
  for (std::string& m : members) out.push_back(Reply::Bulk(std::move(m)));
  return out;
}

// `count` distinct members of `all`, chosen uniformly, in random order.
// REQUIRES: count <= all.size().
std::vector<std::string> SampleDistinct(std::vector<std::string> all, size_t count,
                                        std::mt19937_64& random) {
  // A partial Fisher-Yates shuffle: the first `count` slots end up a uniform sample.
  for (size_t i = 0; i < count; ++i) {
    std::uniform_int_distribution<size_t> pick(i, all.size() - 1);
    std::swap(all[i], all[pick(random)]);
  }
  all.resize(count);
  return all;
}

// SPOP's and SRANDMEMBER's count parsers (getPositiveLongFromObjectOrReply and
// getRangeLongFromObjectOrReply in Redis).
bool ParsePopCount(CommandContext& ctx, int64_t* count) {
  if (!ParseInt64(ctx.arg(2), count) || *count < 0) {
    ctx.ReplyError("ERR value is out of range, must be positive");
    return false;
  }
  return true;
}

bool ParseRandCount(CommandContext& ctx, int64_t* count) {
  if (!ctx.ArgInt64(2, count)) return false;
  if (*count == LLONG_MIN) {
    ctx.ReplyError(
        "ERR value is out of range, value must between -9223372036854775807 and "
        "9223372036854775807");
    return false;
  }
  return true;
}

// Loads a set and all its members. Returns false after setting the reply (an error); *exists
// false means the key is absent and *members is empty.
bool LoadMembers(CommandContext& ctx, KeyHandle* h, bool* exists,
                 std::vector<std::string>* members) {
  members->clear();
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, h, exists)) return false;
  return !*exists || ctx.Check(ctx.Set(h->meta).Members(ctx.txn(), *h, members));
}

}  // namespace

void SaddCommand(CommandContext& ctx) {
  KeyHandle h;
  if (!ctx.LoadOrCreate(ctx.arg(1), KeyType::kSet, &h)) return;
  int64_t n = 0;
  if (!ctx.Check(ctx.Set(h.meta).Add(ctx.txn(), &h, ArgsFrom(ctx, 2), &n))) return;
  ctx.reply = Reply::Integer(n);
}

void SremCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, &h, &exists)) return;
  int64_t n = 0;
  if (exists && !ctx.Check(ctx.Set(h.meta).Remove(ctx.txn(), &h, ArgsFrom(ctx, 2), {}, &n))) {
    return;
  }
  ctx.reply = Reply::Integer(n);
}

void ScardCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, &h, &exists)) return;
  uint64_t n = 0;
  if (exists && !ctx.Check(ctx.Set(h.meta).Size(ctx.txn(), h, &n))) return;
  ctx.reply = Reply::Integer(static_cast<int64_t>(n));
}

void SismemberCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, &h, &exists)) return;
  std::vector<bool> found = {false};
  if (exists && !ctx.Check(ctx.Set(h.meta).Contains(ctx.txn(), h, {ctx.arg(2)}, &found))) return;
  ctx.reply = Reply::Integer(found[0] ? 1 : 0);
}

void SmismemberCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, &h, &exists)) return;
  const auto members = ArgsFrom(ctx, 2);
  std::vector<bool> found(members.size(), false);
  if (exists && !ctx.Check(ctx.Set(h.meta).Contains(ctx.txn(), h, members, &found))) return;
  std::vector<Reply> out;
  out.reserve(found.size());
  for (bool f : found) out.push_back(Reply::Integer(f ? 1 : 0));
  ctx.reply = Reply::Array(std::move(out));
}

void SmembersCommand(CommandContext& ctx) {
  KeyHandle h;
  bool exists = false;
  std::vector<std::string> members;
  if (!LoadMembers(ctx, &h, &exists, &members)) return;
  ctx.reply = Reply::Set(Bulks(std::move(members)));
}

void SrandmemberCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) return ctx.ReplyError(errors::kSyntax);
  int64_t count = 1;
  const bool with_count = ctx.argc() == 3;
  if (with_count && !ParseRandCount(ctx, &count)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, &h, &exists)) return;
  if (!exists || count == 0) {
    ctx.reply = with_count ? Reply::Array() : Reply::Nil();
    return;
  }
  std::vector<std::string> members;
  if (!ctx.Check(ctx.Set(h.meta).Members(ctx.txn(), h, &members))) return;
  if (members.empty()) {  // a live meta always has members; stay safe if KV disagrees
    ctx.reply = with_count ? Reply::Array() : Reply::Nil();
    return;
  }
  std::mt19937_64& random = ctx.session().random;
  std::uniform_int_distribution<size_t> any(0, members.size() - 1);
  if (!with_count) {
    ctx.reply = Reply::Bulk(std::move(members[any(random)]));
    return;
  }
  std::vector<Reply> out;
  if (count < 0) {
    // Repetitions allowed: |count| independent picks, as Redis's case 1. Redis streams such a
    // reply as it goes (and runs out of memory for counts near LONG_MAX); kvlab builds it whole,
    // so it refuses one that could not fit in memory.
    const uint64_t n = static_cast<uint64_t>(-count);
    if (n > kMaxRandomReply) {
      return ctx.ReplyError("ERR count is too large: kvlab replies at most " +
                            std::to_string(kMaxRandomReply) + " random members at once");
    }
    out.reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) out.push_back(Reply::Bulk(members[any(random)]));
  } else {
    const size_t n = std::min(members.size(), static_cast<size_t>(count));
    out = Bulks(SampleDistinct(std::move(members), n, random));
  }
  ctx.reply = Reply::Array(std::move(out));
}

void SpopCommand(CommandContext& ctx) {
  if (ctx.argc() > 3) return ctx.ReplyError(errors::kSyntax);
  int64_t count = 1;
  const bool with_count = ctx.argc() == 3;
  if (with_count && !ParsePopCount(ctx, &count)) return;
  KeyHandle h;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), KeyType::kSet, &h, &exists)) return;
  if (!exists || count == 0) {
    ctx.reply = with_count ? Reply::Set() : Reply::Nil();
    return;
  }
  encodings::SetEncoding& set = ctx.Set(h.meta);
  std::vector<std::string> members;
  if (!ctx.Check(set.Members(ctx.txn(), h, &members))) return;
  if (members.empty()) {
    ctx.reply = with_count ? Reply::Set() : Reply::Nil();
    return;
  }
  if (static_cast<uint64_t>(count) >= members.size()) {
    // The whole set: delete the key, O(1) through its key-version (Redis's case 1 of
    // spopWithCountCommand replies the members as SMEMBERS would).
    if (!ctx.Check(set.OnDelete(ctx.txn(), h))) return;
    ctx.txn().DeleteMeta(h.key);
    ctx.reply =
        with_count ? Reply::Set(Bulks(std::move(members))) : Reply::Bulk(std::move(members[0]));
    return;
  }
  std::vector<std::string> popped =
      SampleDistinct(std::move(members), static_cast<size_t>(count), ctx.session().random);
  const std::vector<std::string_view> views(popped.begin(), popped.end());
  int64_t removed = 0;
  const encodings::RemoveHint hint{.present = true, .empties = false};  // count < size
  if (!ctx.Check(set.Remove(ctx.txn(), &h, views, hint, &removed))) return;
  ctx.reply = with_count ? Reply::Set(Bulks(std::move(popped))) : Reply::Bulk(std::move(popped[0]));
}

void SmoveCommand(CommandContext& ctx) {
  std::vector<SetKey> keys;
  if (!ReadSetKeys(ctx, {ctx.arg(1), ctx.arg(2)}, &keys)) return;
  SetKey& src = keys[0];
  SetKey& dst = keys[1];
  // Redis: a missing source replies 0 before any type check; then both keys' types.
  if (!src.exists) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  if (!CheckSetKey(ctx, &src) || !CheckSetKey(ctx, &dst)) return;
  const std::string_view member = ctx.arg(3);
  std::vector<bool> found = {false};
  if (!ctx.Check(ctx.Set(src.h.meta).Contains(ctx.txn(), src.h, {member}, &found))) return;
  if (!found[0] || ctx.arg(1) == ctx.arg(2)) {
    ctx.reply = Reply::Integer(found[0] ? 1 : 0);  // the same set: a no-op
    return;
  }
  int64_t n = 0;
  const encodings::RemoveHint hint{.present = true, .empties = std::nullopt};
  if (!ctx.Check(ctx.Set(src.h.meta).Remove(ctx.txn(), &src.h, {member}, hint, &n))) return;
  if (!dst.exists) {
    dst.h.meta = ctx.txn().NewMeta(KeyType::kSet, ctx.engine().new_key_version(KeyType::kSet));
    dst.h.is_new = true;
  }
  if (!ctx.Check(ctx.Set(dst.h.meta).Add(ctx.txn(), &dst.h, {member}, &n))) return;
  ctx.reply = Reply::Integer(1);
}

}  // namespace kvlab::engine
