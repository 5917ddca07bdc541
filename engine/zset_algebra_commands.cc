// The zset algebra: ZUNION, ZINTER, ZDIFF, their STORE forms, ZINTERCARD, and the destination
// write that ZRANGESTORE shares with them. Parsing, arithmetic and replies follow Redis 7.0's
// zunionInterDiffGenericCommand (t_zset.c), in its order of checks:
//   numkeys; "at least 1 input key"; numkeys beyond the arguments (syntax error); the sources'
//   types (WRONGTYPE before any option error); the options; then the computation.
//
// Each source is read once, whole (its key-meta in one multiget with the others' and the
// destination's, then its members in one range read), whatever the number of times it is named.
// The computation runs in memory, as Redis's does, in Redis's order: the inputs of ZUNION and
// ZINTER sorted by size (stably, as glibc's qsort sorts them), so that sums of floating-point
// scores round exactly as Redis's do. A STORE form writes its destination in the configured
// zset encode-version, with a fresh key-version, in the command's one batch; a destination that
// is also a source is read before it is replaced.
#include <strings.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "encodings/set_encoding.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/zset_args.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::ScoredMember;
using encodings::ZAddFlags;
using encodings::ZAddResult;
using resp::ParseDouble;
using resp::ParseInt64;
using resp::Reply;

namespace {

enum class SetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// The types a source may hold (Redis's zuiInitIterator: zsets, and sets with score 1).
constexpr std::initializer_list<KeyType> kSourceTypes = {KeyType::kZset, KeyType::kSet};

// Reads the whole of one source: a zset's members and scores in score order. This is the one
// place a source type plugs in: a set's members, each with score 1 (zuiNext), go here.
// REQUIRES: h holds the live key-meta of a key of one of kSourceTypes.
Status ReadWholeSource(CommandContext& ctx, const KeyHandle& h, std::vector<ScoredMember>* out) {
  switch (h.meta.type) {
    case KeyType::kZset:
      return ctx.Zset(h.meta).RangeByRank(ctx.txn(), h, 0, -1, false, out);
    case KeyType::kSet: {
      // zuiNext: a set's members, each with score 1. In member order, as a zset of equal
      // scores would give them.
      std::vector<std::string> members;
      KVLAB_RETURN_IF_ERROR(ctx.Set(h.meta).Members(ctx.txn(), h, &members));
      std::sort(members.begin(), members.end());
      out->clear();
      out->reserve(members.size());
      for (std::string& m : members) out->push_back({std::move(m), 1.0});
      return Status::OK();
    }
    default:
      return Status::InvalidArgument("not a source of the zset algebra");
  }
}

// zunionInterAggregate.
void AggregateInto(double* target, double value, Aggregate aggregate) {
  switch (aggregate) {
    case Aggregate::kSum:
      *target = *target + value;
      // The sum of +inf and -inf is NaN: Redis makes it 0.
      if (std::isnan(*target)) *target = 0.0;
      break;
    case Aggregate::kMin:
      *target = value < *target ? value : *target;
      break;
    case Aggregate::kMax:
      *target = value > *target ? value : *target;
      break;
  }
}

// Redis's zset order: by score, then by member bytes (zslInsert; -0 and 0 tie).
void SortAsZset(std::vector<ScoredMember>* members) {
  std::sort(members->begin(), members->end(), [](const ScoredMember& a, const ScoredMember& b) {
    return a.score < b.score || (a.score == b.score && a.member < b.member);
  });
}

struct Source {
  double weight = 1.0;
  // The source's members: empty for an absent key. Points into the command's distinct reads.
  const std::vector<ScoredMember>* members = nullptr;
  size_t read = 0;  // index of its distinct read: equal for the same key named twice
};

std::vector<ScoredMember> Compute(SetOp op, Aggregate aggregate, std::vector<Source> src,
                                  uint64_t limit, uint64_t* cardinality, bool cardinality_only) {
  std::vector<ScoredMember> out;
  if (op != SetOp::kDiff) {
    std::stable_sort(src.begin(), src.end(), [](const Source& a, const Source& b) {
      return a.members->size() < b.members->size();
    });
  }
  if (op == SetOp::kInter) {
    if (src[0].members->empty()) return out;
    // The other sources' members, for lookups (zuiFind).
    std::vector<std::unordered_map<std::string_view, double>> index(src.size());
    for (size_t j = 1; j < src.size(); ++j) {
      if (src[j].read == src[0].read) continue;
      index[j].reserve(src[j].members->size());
      for (const ScoredMember& m : *src[j].members) index[j].emplace(m.member, m.score);
    }
    for (const ScoredMember& m : *src[0].members) {
      double score = src[0].weight * m.score;
      if (std::isnan(score)) score = 0;
      size_t j = 1;
      for (; j < src.size(); ++j) {
        double value;
        if (src[j].read == src[0].read) {
          value = m.score * src[j].weight;
        } else {
          auto it = index[j].find(m.member);
          if (it == index[j].end()) break;
          value = it->second * src[j].weight;
        }
        AggregateInto(&score, value, aggregate);
      }
      if (j < src.size()) continue;
      if (cardinality_only) {
        ++*cardinality;
        if (limit != 0 && *cardinality >= limit) break;
      } else {
        out.push_back({m.member, score});
      }
    }
  } else if (op == SetOp::kUnion) {
    std::unordered_map<std::string_view, size_t> at;  // member -> index in out
    for (const Source& s : src) {
      for (const ScoredMember& m : *s.members) {
        double score = s.weight * m.score;
        if (std::isnan(score)) score = 0;
        auto [it, added] = at.emplace(m.member, out.size());
        if (added) {
          out.push_back({m.member, score});
        } else {
          AggregateInto(&out[it->second].score, score, aggregate);
        }
      }
    }
  } else {
    // zdiff: the first source's members that no other source has, with their own scores.
    std::vector<std::unordered_map<std::string_view, double>> index(src.size());
    for (size_t j = 1; j < src.size(); ++j) {
      for (const ScoredMember& m : *src[j].members) index[j].emplace(m.member, m.score);
    }
    for (const ScoredMember& m : *src[0].members) {
      bool elsewhere = false;
      for (size_t j = 1; j < src.size() && !elsewhere; ++j) {
        elsewhere = src[j].read == src[0].read || index[j].count(m.member) > 0;
      }
      if (!elsewhere) out.push_back(m);
    }
  }
  SortAsZset(&out);
  return out;
}

std::string LowerName(const CommandContext& ctx) {
  std::string name = ctx.arg(0);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// zunionInterDiffGenericCommand. `store`: the destination is argv[1] and numkeys argv[2].
void AlgebraGeneric(CommandContext& ctx, SetOp op, bool store, bool cardinality_only) {
  const size_t numkeys_index = store ? 2 : 1;
  int64_t setnum = 0;
  if (!ctx.ArgInt64(numkeys_index, &setnum)) return;
  if (setnum < 1) {
    return ctx.ReplyError("ERR at least 1 input key is needed for '" + LowerName(ctx) +
                          "' command");
  }
  if (static_cast<uint64_t>(setnum) > ctx.argc() - (numkeys_index + 1)) {
    return ctx.ReplyError(errors::kSyntax);
  }
  const size_t first_key = numkeys_index + 1;
  const size_t nkeys = static_cast<size_t>(setnum);

  // Every key-meta in one multiget: the sources', then the destination's.
  std::vector<std::string_view> keys(
      ctx.argv().begin() + static_cast<ptrdiff_t>(first_key),
      ctx.argv().begin() + static_cast<ptrdiff_t>(first_key + nkeys));
  if (store) keys.push_back(ctx.arg(1));
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return;

  // The sources' types, before the options (lookupKeyRead, then the type check).
  std::vector<KeyHandle> handles(nkeys);
  std::vector<bool> exists(nkeys, false);
  for (size_t i = 0; i < nkeys; ++i) {
    bool e = false;
    if (!ctx.LoadOneOf(keys[i], kSourceTypes, &handles[i], &e, &metas[i])) return;
    exists[i] = e;
  }

  std::vector<Source> src(nkeys);
  Aggregate aggregate = Aggregate::kSum;
  bool with_scores = false;
  uint64_t limit = 0;
  size_t j = first_key + nkeys;
  size_t remaining = ctx.argc() - j;
  while (remaining > 0) {
    const char* opt = ctx.arg(j).c_str();
    if (op != SetOp::kDiff && !cardinality_only && remaining >= nkeys + 1 &&
        !strcasecmp(opt, "weights")) {
      ++j;
      --remaining;
      for (size_t i = 0; i < nkeys; ++i, ++j, --remaining) {
        if (!ParseDouble(ctx.arg(j), &src[i].weight)) {
          return ctx.ReplyError("ERR weight value is not a float");
        }
      }
    } else if (op != SetOp::kDiff && !cardinality_only && remaining >= 2 &&
               !strcasecmp(opt, "aggregate")) {
      const char* how = ctx.arg(j + 1).c_str();
      if (!strcasecmp(how, "sum")) {
        aggregate = Aggregate::kSum;
      } else if (!strcasecmp(how, "min")) {
        aggregate = Aggregate::kMin;
      } else if (!strcasecmp(how, "max")) {
        aggregate = Aggregate::kMax;
      } else {
        return ctx.ReplyError(errors::kSyntax);
      }
      j += 2;
      remaining -= 2;
    } else if (!store && !cardinality_only && !strcasecmp(opt, "withscores")) {
      with_scores = true;
      ++j;
      --remaining;
    } else if (cardinality_only && remaining >= 2 && !strcasecmp(opt, "limit")) {
      int64_t l = 0;
      if (!ParseInt64(ctx.arg(j + 1), &l) || l < 0) {
        return ctx.ReplyError("ERR LIMIT can't be negative");
      }
      limit = static_cast<uint64_t>(l);
      j += 2;
      remaining -= 2;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }

  // Read each distinct live source once. An intersection with an absent source is empty
  // whatever the others hold: nothing is read.
  static const std::vector<ScoredMember> kEmpty;
  const bool any_absent = std::find(exists.begin(), exists.end(), false) != exists.end();
  std::vector<std::vector<ScoredMember>> reads;
  std::map<std::string_view, size_t> read_of;
  for (size_t i = 0; i < nkeys; ++i) {
    auto [it, added] = read_of.emplace(keys[i], reads.size());
    if (added) {
      reads.emplace_back();
      if (exists[i] && !(op == SetOp::kInter && any_absent) &&
          !ctx.Check(ReadWholeSource(ctx, handles[i], &reads.back()))) {
        return;
      }
    }
    src[i].read = it->second;
  }
  for (size_t i = 0; i < nkeys; ++i) src[i].members = &reads[src[i].read];

  uint64_t cardinality = 0;
  std::vector<ScoredMember> result =
      Compute(op, aggregate, std::move(src), limit, &cardinality, cardinality_only);
  if (cardinality_only) {
    ctx.reply = Reply::Integer(static_cast<int64_t>(cardinality));
  } else if (store) {
    StoreZset(ctx, ctx.arg(1), std::move(result), &metas.back());
  } else {
    ctx.reply = ScoredReply(ctx, std::move(result), with_scores);
  }
}

}  // namespace

void StoreZset(CommandContext& ctx, std::string_view dst, std::vector<ScoredMember>&& members,
               const std::optional<KeyMeta>* preloaded) {
  bool existed = false;
  if (!ctx.PrepareOverwrite(dst, &existed, preloaded)) return;
  if (members.empty()) {
    if (existed) ctx.txn().DeleteMeta(dst);
    ctx.reply = Reply::Integer(0);
    return;
  }
  // Stored zsets hold -0 as 0 (encodings/zset_encoding.h); the members are distinct.
  for (ScoredMember& m : members) {
    if (m.score == 0) m.score = 0.0;
  }
  KeyHandle h;
  h.key = dst;
  h.meta = ctx.txn().NewMeta(KeyType::kZset, ctx.engine().new_key_version(KeyType::kZset));
  h.is_new = true;
  ZAddResult added;
  if (!ctx.Check(ctx.Zset(h.meta).Add(ctx.txn(), &h, ZAddFlags{}, members, &added))) return;
  ctx.KeyReady(dst);  // clients blocked on dst (BZPOPMIN, BZMPOP) may be served now
  ctx.reply = Reply::Integer(static_cast<int64_t>(members.size()));
}

void ZunionCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kUnion, false, false); }
void ZinterCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kInter, false, false); }
void ZdiffCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kDiff, false, false); }
void ZunionstoreCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kUnion, true, false); }
void ZinterstoreCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kInter, true, false); }
void ZdiffstoreCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kDiff, true, false); }
void ZintercardCommand(CommandContext& ctx) { AlgebraGeneric(ctx, SetOp::kInter, false, true); }

}  // namespace kvlab::engine
