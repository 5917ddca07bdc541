// The set algebra: SINTER, SUNION, SDIFF, their STORE forms and SINTERCARD, as Redis 7.0's
// t_set.c (sinterGenericCommand, sunionDiffGenericCommand, sinterCardCommand) checks and replies.
//
// Cost (docs/amplification.md): every key-meta in one multiget, and each source set read at most
// once, either fully (SetEncoding::Members) or by point probes of the candidates that are left
// (SetEncoding::Contains: one multiget, or one cache round trip). SINTER reads the smallest set
// whose size the key-meta knows (v0, v2) and probes the others, as Redis iterates its smallest
// set; sets of unknown size (v1, v3) come after, in argument order. SDIFF reads the first set and
// probes the others. SUNION reads every set. A STORE writes its destination as a new incarnation
// (a fresh key-version: the old members become unreachable, O(1)).
#include <strings.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/set_keys.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using resp::ParseInt64;
using resp::Reply;

bool ReadSetKeys(CommandContext& ctx, const std::vector<std::string_view>& keys,
                 std::vector<SetKey>* out) {
  out->assign(keys.size(), SetKey());
  if (keys.size() == 1) {
    (*out)[0].h.key = keys[0];
    return ctx.Check(ctx.txn().GetMeta(keys[0], &(*out)[0].h.meta, &(*out)[0].exists));
  }
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return false;
  for (size_t i = 0; i < keys.size(); ++i) {
    (*out)[i].h.key = keys[i];
    (*out)[i].exists = metas[i].has_value();
    if (metas[i]) (*out)[i].h.meta = std::move(*metas[i]);
  }
  return true;
}

bool CheckSetKey(CommandContext& ctx, SetKey* key) {
  if (!key->exists) return true;
  if (key->h.meta.type != KeyType::kSet) {
    ctx.ReplyError(errors::kWrongType);
    return false;
  }
  if (ctx.engine().encoding(KeyType::kSet, key->h.meta.encode_version) == nullptr) {
    ctx.ReplyError("ERR key '" + std::string(key->h.key) + "' uses encode-version " +
                   std::to_string(key->h.meta.encode_version) + ", which this engine cannot run");
    return false;
  }
  return ctx.MigrateIfWritten(&key->h, &key->exists);
}

namespace {

enum class Op { kInter, kUnion, kDiff };

std::vector<std::string_view> Views(const std::vector<std::string>& v) {
  return std::vector<std::string_view>(v.begin(), v.end());
}

// Keeps the candidates that `key` holds (keep == true) or lacks (keep == false), by one probe.
bool Filter(CommandContext& ctx, const SetKey& key, bool keep, std::vector<std::string>* cand) {
  if (cand->empty()) return true;
  std::vector<bool> found;
  if (!ctx.Check(ctx.Set(key.h.meta).Contains(ctx.txn(), key.h, Views(*cand), &found))) {
    return false;
  }
  size_t w = 0;
  for (size_t i = 0; i < cand->size(); ++i) {
    if (found[i] != keep) continue;
    if (w != i) (*cand)[w] = std::move((*cand)[i]);  // never a self-move: it empties the string
    ++w;
  }
  cand->resize(w);
  return true;
}

// The keys once each, in first-appearance order.
std::vector<const SetKey*> DistinctKeys(const std::vector<SetKey>& keys) {
  std::vector<const SetKey*> out;
  std::unordered_set<std::string_view> seen;
  for (const SetKey& k : keys) {
    if (seen.insert(k.h.key).second) out.push_back(&k);
  }
  return out;
}

// Computes the operation over `sources` (all checked to be sets or absent). The result is in
// byte order (Redis's order is its hash order, which no client may rely on).
bool Compute(CommandContext& ctx, Op op, const std::vector<SetKey>& sources,
             std::vector<std::string>* result) {
  result->clear();
  std::vector<const SetKey*> keys = DistinctKeys(sources);
  if (op == Op::kInter) {
    // An absent key is an empty set: the intersection is empty, and nothing need be read.
    if (std::any_of(keys.begin(), keys.end(), [](const SetKey* k) { return !k->exists; })) {
      return true;
    }
    std::stable_sort(keys.begin(), keys.end(), [](const SetKey* a, const SetKey* b) {
      const bool ak = a->h.meta.has_count(), bk = b->h.meta.has_count();
      if (ak != bk) return ak;  // known sizes first
      return ak && a->h.meta.count < b->h.meta.count;
    });
    if (!ctx.Check(ctx.Set(keys[0]->h.meta).Members(ctx.txn(), keys[0]->h, result))) return false;
    for (size_t i = 1; i < keys.size(); ++i) {
      if (!Filter(ctx, *keys[i], true, result)) return false;
    }
  } else if (op == Op::kDiff) {
    const SetKey& first = sources[0];
    if (!first.exists) return true;
    for (size_t i = 1; i < sources.size(); ++i) {
      if (sources[i].h.key == first.h.key) return true;  // SDIFF a ... a: nothing is left
    }
    if (!ctx.Check(ctx.Set(first.h.meta).Members(ctx.txn(), first.h, result))) return false;
    for (size_t i = 1; i < keys.size(); ++i) {  // keys[0] is the first source
      if (keys[i]->exists && !Filter(ctx, *keys[i], false, result)) return false;
    }
  } else {
    std::set<std::string> all;
    std::vector<std::string> members;
    for (const SetKey* k : keys) {
      if (!k->exists) continue;
      if (!ctx.Check(ctx.Set(k->h.meta).Members(ctx.txn(), k->h, &members))) return false;
      for (std::string& m : members) all.insert(std::move(m));
    }
    result->assign(std::make_move_iterator(all.begin()), std::make_move_iterator(all.end()));
    return true;
  }
  std::sort(result->begin(), result->end());
  return true;
}

std::vector<std::string_view> ArgsFrom(const CommandContext& ctx, size_t first, size_t end) {
  return std::vector<std::string_view>(ctx.argv().begin() + static_cast<ptrdiff_t>(first),
                                       ctx.argv().begin() + static_cast<ptrdiff_t>(end));
}

// SINTER, SUNION, SDIFF: the sources are every argument from 1 on.
void Algebra(CommandContext& ctx, Op op) {
  std::vector<SetKey> keys;
  if (!ReadSetKeys(ctx, ArgsFrom(ctx, 1, ctx.argc()), &keys)) return;
  for (SetKey& k : keys) {
    if (!CheckSetKey(ctx, &k)) return;
  }
  std::vector<std::string> result;
  if (!Compute(ctx, op, keys, &result)) return;
  std::vector<Reply> out;
  out.reserve(result.size());
  for (std::string& m : result) out.push_back(Reply::Bulk(std::move(m)));
  ctx.reply = Reply::Set(std::move(out));
}

// SINTERSTORE, SUNIONSTORE, SDIFFSTORE: argument 1 is the destination, of any type (it is
// overwritten); the sources follow. Replies the size of the result; an empty result deletes the
// destination.
void AlgebraStore(CommandContext& ctx, Op op) {
  std::vector<SetKey> keys;
  if (!ReadSetKeys(ctx, ArgsFrom(ctx, 1, ctx.argc()), &keys)) return;
  std::vector<SetKey> sources(keys.begin() + 1, keys.end());
  for (SetKey& k : sources) {
    if (!CheckSetKey(ctx, &k)) return;
  }
  std::vector<std::string> result;
  if (!Compute(ctx, op, sources, &result)) return;
  SetKey& dst = keys[0];
  // The old value goes: O(1) through its key-version; a type that keeps data outside KV (zset
  // v3's store) is told, as DEL tells it, and so is an Ardb key (its records go with it). When
  // the destination is also a source that migrating on write rewrote, PrepareOverwrite deletes
  // the rewritten key, not the meta read before it.
  std::optional<KeyMeta> dst_meta;
  if (dst.exists) dst_meta = dst.h.meta;
  bool existed = false;
  if (!ctx.PrepareOverwrite(dst.h.key, &existed, &dst_meta)) return;
  if (existed) ctx.txn().DeleteMeta(dst.h.key);
  if (!result.empty()) {
    KeyHandle h;
    h.key = dst.h.key;
    h.meta = ctx.txn().NewMeta(KeyType::kSet, ctx.engine().new_key_version(KeyType::kSet));
    h.is_new = true;
    int64_t ignored = 0;  // a new set: the encoding adds them all (its reply may count the given)
    if (!ctx.Check(ctx.Set(h.meta).Add(ctx.txn(), &h, Views(result), &ignored))) return;
  }
  ctx.reply = Reply::Integer(static_cast<int64_t>(result.size()));
}

}  // namespace

void SinterCommand(CommandContext& ctx) { Algebra(ctx, Op::kInter); }
void SunionCommand(CommandContext& ctx) { Algebra(ctx, Op::kUnion); }
void SdiffCommand(CommandContext& ctx) { Algebra(ctx, Op::kDiff); }
void SinterstoreCommand(CommandContext& ctx) { AlgebraStore(ctx, Op::kInter); }
void SunionstoreCommand(CommandContext& ctx) { AlgebraStore(ctx, Op::kUnion); }
void SdiffstoreCommand(CommandContext& ctx) { AlgebraStore(ctx, Op::kDiff); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void SintercardCommand(CommandContext& ctx) {
  int64_t numkeys = 0;
  if (!ParseInt64(ctx.arg(1), &numkeys) || numkeys < 1) {
    return ctx.ReplyError("ERR numkeys should be greater than 0");
  }
  if (static_cast<uint64_t>(numkeys) > ctx.argc() - 2) {
    return ctx.ReplyError("ERR Number of keys can't be greater than number of args");
  }
  const size_t end = 2 + static_cast<size_t>(numkeys);
  int64_t limit = 0;
  for (size_t i = end; i < ctx.argc(); ++i) {
    if (!strcasecmp(ctx.arg(i).c_str(), "limit") && i + 1 < ctx.argc()) {
      if (!ParseInt64(ctx.arg(i + 1), &limit) || limit < 0) {
        return ctx.ReplyError("ERR LIMIT can't be negative");
      }
      ++i;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  std::vector<SetKey> keys;
  if (!ReadSetKeys(ctx, ArgsFrom(ctx, 2, end), &keys)) return;
  for (SetKey& k : keys) {
    if (!CheckSetKey(ctx, &k)) return;
  }
  std::vector<std::string> result;
  if (!Compute(ctx, Op::kInter, keys, &result)) return;
  int64_t n = static_cast<int64_t>(result.size());
  if (limit > 0) n = std::min(n, limit);
  ctx.reply = Reply::Integer(n);
}

}  // namespace kvlab::engine
