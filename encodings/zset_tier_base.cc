#include "encodings/zset_tier_base.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "encodings/zset_tier_scripts.h"

namespace kvlab::encodings {

using resp::Reply;

std::string ZsetScoreText(double v) {
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::vector<ScoredMember> ZsetPairs(const Reply& flat) {
  std::vector<ScoredMember> out;
  const auto& e = flat.elements();
  for (size_t i = 0; i + 1 < e.size(); i += 2)
    out.push_back({e[i].str(), std::strtod(e[i + 1].str().c_str(), nullptr)});
  return out;
}

namespace {

std::string BoundText(const ScoreBound& b) {
  return (b.exclusive ? "(" : "") + ZsetScoreText(b.value);
}
std::string LexText(const LexBound& b) {
  switch (b.kind) {
    case LexBound::Kind::kNegInf:
      return "-";
    case LexBound::Kind::kPosInf:
      return "+";
    case LexBound::Kind::kInclusive:
      return "[" + b.value;
    default:
      return "(" + b.value;
  }
}

std::vector<std::string> Script(const char* script, const std::string& key,
                                std::vector<std::string> args) {
  std::vector<std::string> out = {"EVAL", script, "1", key};
  out.insert(out.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  return out;
}

// ZRANGE's arguments after the key.
std::vector<std::string> Args(std::vector<std::string> head, bool reverse, bool scores,
                              std::vector<std::string> tail = {}) {
  if (reverse) head.push_back("REV");
  head.insert(head.end(), tail.begin(), tail.end());
  if (scores) head.push_back("WITHSCORES");
  return head;
}

}  // namespace

TierZset::TierZset(uint8_t version, redis::RedisTier* tier, redis::TierRole zset_role, bool refs)
    : version_(version),
      tier_(tier),
      zset_role_(zset_role),
      refs_(refs ? std::make_unique<ZsetRefs>(tier) : nullptr) {}

std::string TierZset::Element(std::string_view member) const {
  return refs_ ? ZsetRefs::Of(member) : std::string(member);
}

// --- reads -----------------------------------------------------------------------------------

Status TierZset::RangeByRank(KvTxn& txn, const KeyHandle& h, int64_t start, int64_t stop,
                             bool reverse, std::vector<ScoredMember>* out) {
  const std::string key = Session(txn).Prefix(h);
  std::vector<std::string> cmd =
      refs_ ? Script(zset_scripts::kRankWindow, key,
                     {std::to_string(start), std::to_string(stop), reverse ? "1" : "0"})
            : IfExists("ZRANGE", key,
                       Args({std::to_string(start), std::to_string(stop)}, reverse, true));
  return Read(
      txn, h, cmd,
      [&](const Reply& r) -> Status {
        if (!refs_) {
          *out = ZsetPairs(r.elements()[0]);
          return Status::OK();
        }
        out->clear();
        if (r.elements().size() < 5) return Status::OK();
        const auto a = static_cast<uint64_t>(r.elements()[1].integer());
        const auto b = static_cast<uint64_t>(r.elements()[2].integer());
        const auto r0 = static_cast<uint64_t>(r.elements()[3].integer());
        std::vector<ScoredMember> group = ZsetPairs(r.elements()[4]);
        KVLAB_RETURN_IF_ERROR(refs_->ResolveSorted(txn, h, &group));
        for (uint64_t i = a; i <= b && i - r0 < group.size(); ++i) out->push_back(group[i - r0]);
        if (reverse) std::reverse(out->begin(), out->end());
        return Status::OK();
      },
      [&](const SortedMembers& z) { *out = z.RangeByRank(start, stop, reverse); });
}

Status TierZset::RangeByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range, bool reverse,
                              const RangeLimit& limit, std::vector<ScoredMember>* out) {
  out->clear();
  if (range.IsEmpty()) return Status::OK();
  const std::string key = Session(txn).Prefix(h);
  const std::string lo = BoundText(range.min), hi = BoundText(range.max);
  const std::string off = std::to_string(limit.offset), cnt = std::to_string(limit.count);
  std::vector<std::string> cmd =
      refs_ ? Script(zset_scripts::kScoreWindow, key, {lo, hi, off, cnt, reverse ? "1" : "0"})
            : IfExists("ZRANGE", key,
                       Args(reverse ? std::vector<std::string>{hi, lo, "BYSCORE"}
                                    : std::vector<std::string>{lo, hi, "BYSCORE"},
                            reverse, true, {"LIMIT", off, cnt}));
  return Read(
      txn, h, cmd,
      [&](const Reply& r) -> Status {
        if (!refs_) {
          *out = ZsetPairs(r.elements()[0]);
          return Status::OK();
        }
        if (r.elements().size() < 2) return Status::OK();
        const auto r0 = static_cast<int64_t>(r.elements()[0].integer());
        std::vector<ScoredMember> group = ZsetPairs(r.elements()[1]);
        KVLAB_RETURN_IF_ERROR(refs_->ResolveSorted(txn, h, &group));
        if (reverse) std::reverse(group.begin(), group.end());
        *out = ApplyLimit(std::move(group), {limit.offset - r0, limit.count});
        return Status::OK();
      },
      [&](const SortedMembers& z) { *out = z.RangeByScore(range, reverse, limit); });
}

Status TierZset::RangeByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range, bool reverse,
                            const RangeLimit& limit, std::vector<ScoredMember>* out) {
  out->clear();
  if (range.IsEmpty()) return Status::OK();
  auto local = [&](const SortedMembers& z) { *out = z.RangeByLex(range, reverse, limit); };
  if (refs_) return ReadWhole(txn, h, local);
  const std::string key = Session(txn).Prefix(h);
  std::vector<std::string> args = {LexText(reverse ? range.max : range.min),
                                   LexText(reverse ? range.min : range.max), "BYLEX"};
  if (reverse) args.push_back("REV");
  args.insert(args.end(), {"LIMIT", std::to_string(limit.offset), std::to_string(limit.count)});
  return Read(
      txn, h, IfExists("ZRANGE", key, args),
      [&](const Reply& r) -> Status {
        for (const Reply& m : r.elements()[0].elements()) out->push_back({m.str(), 0});
        return Status::OK();
      },
      local);
}

Status TierZset::CountByScore(KvTxn& txn, const KeyHandle& h, const ScoreRange& range,
                              uint64_t* count) {
  *count = 0;
  if (range.IsEmpty()) return Status::OK();
  const std::string key = Session(txn).Prefix(h);
  return Read(
      txn, h, IfExists("ZCOUNT", key, {BoundText(range.min), BoundText(range.max)}),
      [&](const Reply& r) -> Status {
        *count = static_cast<uint64_t>(r.elements()[0].integer());
        return Status::OK();
      },
      [&](const SortedMembers& z) { *count = z.CountByScore(range); });
}

Status TierZset::CountByLex(KvTxn& txn, const KeyHandle& h, const LexRange& range,
                            uint64_t* count) {
  *count = 0;
  if (range.IsEmpty()) return Status::OK();
  auto local = [&](const SortedMembers& z) { *count = z.CountByLex(range); };
  if (refs_) return ReadWhole(txn, h, local);
  return Read(
      txn, h,
      IfExists("ZLEXCOUNT", Session(txn).Prefix(h), {LexText(range.min), LexText(range.max)}),
      [&](const Reply& r) -> Status {
        *count = static_cast<uint64_t>(r.elements()[0].integer());
        return Status::OK();
      },
      local);
}

Status TierZset::Rank(KvTxn& txn, const KeyHandle& h, std::string_view member, bool reverse,
                      std::optional<uint64_t>* rank) {
  rank->reset();
  const std::string key = Session(txn).Prefix(h);
  std::vector<std::string> cmd =
      refs_ ? Script(zset_scripts::kRankOf, key, {ZsetRefs::Of(member)})
            : IfExists(reverse ? "ZREVRANK" : "ZRANK", key, {std::string(member)});
  return Read(
      txn, h, cmd,
      [&](const Reply& r) -> Status {
        if (!refs_) {
          const auto& boxed = r.elements();
          if (!boxed.empty() && boxed[0].type() == Reply::Type::kInteger) {
            *rank = static_cast<uint64_t>(boxed[0].integer());
          }
          return Status::OK();
        }
        if (r.elements().size() < 3) return Status::OK();
        const auto n = static_cast<uint64_t>(r.elements()[0].integer());
        uint64_t forward = static_cast<uint64_t>(r.elements()[1].integer());
        std::vector<std::string> refs_tied;
        for (const Reply& e : r.elements()[2].elements()) refs_tied.push_back(e.str());
        if (refs_tied.size() > 1) {  // ties: order them by member, not by ref
          std::vector<std::string> tied;
          KVLAB_RETURN_IF_ERROR(refs_->Resolve(txn, h, refs_tied, &tied));
          for (const std::string& m : tied) forward += m < member;
        }
        *rank = reverse ? n - 1 - forward : forward;
        return Status::OK();
      },
      [&](const SortedMembers& z) { *rank = z.Rank(member, reverse); });
}

Status TierZset::Read(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& cmd,
                      const std::function<Status(const Reply&)>& remote,
                      const std::function<void(const SortedMembers&)>& local) {
  if (h.is_new) {
    local(SortedMembers({}));
    return Status::OK();
  }
  return ReadLive(txn, h, cmd, remote, local);
}

Status TierZset::ReadWhole(KvTxn& txn, const KeyHandle& h,
                           const std::function<void(const SortedMembers&)>& local) {
  return Read(
      txn, h, IfExists("ZRANGE", Session(txn).Prefix(h), {"0", "-1", "WITHSCORES"}),
      [&](const Reply& r) -> Status {
        std::vector<ScoredMember> all = ZsetPairs(r.elements()[0]);
        KVLAB_RETURN_IF_ERROR(refs_->ResolveInPlace(txn, h, &all));
        local(SortedMembers(std::move(all)));
        return Status::OK();
      },
      local);
}

// --- writes ----------------------------------------------------------------------------------

Status TierZset::Add(KvTxn& txn, KeyHandle* h, const ZAddFlags& flags,
                     const std::vector<ScoredMember>& elems, ZAddResult* result) {
  const std::vector<std::string_view> distinct = DistinctMembers(elems);
  std::vector<std::optional<double>> before(distinct.size());
  if (!h->is_new) KVLAB_RETURN_IF_ERROR(Scores(txn, *h, distinct, &before));
  ZAddPlan plan;
  KVLAB_RETURN_IF_ERROR(ApplyZAdd(flags, elems, std::move(before), &plan));
  *result = plan.result;
  const std::vector<size_t> changed = plan.Changed();
  if (changed.empty()) return Status::OK();
  return ApplyAdd(txn, h, plan, changed, *result);
}

Status TierZset::Footprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out) {
  const std::string key = Session(txn).Prefix(h);
  const bool cached = zset_role_ == redis::TierRole::kCache;
  std::vector<std::string> cache_entries;
  if (cached) cache_entries.push_back(key);
  const std::function<void(SubKeyTag, std::string_view)> each = [&](SubKeyTag tag,
                                                                    std::string_view ref) {
    if (tag == SubKeyTag::kIndex) cache_entries.push_back(key + std::string(ref));
  };
  KVLAB_RETURN_IF_ERROR(KvFootprint(txn, h, out, &each));
  KVLAB_RETURN_IF_ERROR(
      TierFootprint(Session(txn), redis::TierRole::kCache, cache_entries, &out->tier_bytes));
  if (cached) return Status::OK();
  return TierFootprint(Session(txn), zset_role_, {key}, &out->tier_bytes);
}

}  // namespace kvlab::encodings
