#include "encodings/zset_memory.h"

#include <algorithm>
#include <cmath>

namespace kvlab::encodings {

std::vector<size_t> ZAddPlan::Changed() const {
  std::vector<size_t> out;
  for (size_t i = 0; i < members.size(); ++i) {
    if (after[i] != before[i]) out.push_back(i);
  }
  return out;
}

std::vector<std::string_view> DistinctMembers(const std::vector<ScoredMember>& elems) {
  std::vector<std::string_view> out;
  std::unordered_map<std::string_view, size_t> seen;
  for (const auto& e : elems) {
    if (seen.emplace(e.member, out.size()).second) out.push_back(e.member);
  }
  return out;
}

Status ApplyZAdd(const ZAddFlags& flags, const std::vector<ScoredMember>& elems,
                 std::vector<std::optional<double>> before, ZAddPlan* plan) {
  plan->members = DistinctMembers(elems);
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < plan->members.size(); ++i) index.emplace(plan->members[i], i);
  plan->after = before;
  plan->before = std::move(before);
  plan->result = ZAddResult();
  ZAddResult& result = plan->result;
  for (const auto& e : elems) {
    std::optional<double>& cur = plan->after[index.at(e.member)];
    if (cur) {
      if (flags.nx) continue;
      double score = flags.incr ? *cur + e.score : e.score;
      if (std::isnan(score))
        return Status::InvalidArgument("resulting score is not a number (NaN)");
      if ((flags.lt && score >= *cur) || (flags.gt && score <= *cur)) continue;
      // INCR replies the score it computed, -0 included, as Redis does; the zset stores -0 as
      // 0 (they tie in score order).
      if (flags.incr) result.incr_score = score;
      if (score == 0) score = 0.0;
      if (score != *cur) {
        cur = score;
        ++result.updated;
      }
    } else {
      if (flags.xx) continue;
      if (flags.incr) result.incr_score = e.score;
      cur = e.score == 0 ? 0.0 : e.score;
      ++result.added;
    }
  }
  return Status::OK();
}

bool ZsetLess(const ScoredMember& a, const ScoredMember& b) {
  if (a.score != b.score) return a.score < b.score;
  return a.member < b.member;
}

SortedMembers::SortedMembers(std::vector<ScoredMember> members) : members_(std::move(members)) {
  std::sort(members_.begin(), members_.end(), ZsetLess);
}

std::vector<ScoredMember> ApplyLimit(std::vector<ScoredMember> in, const RangeLimit& limit) {
  const auto skip = std::min<uint64_t>(static_cast<uint64_t>(limit.offset), in.size());
  in.erase(in.begin(), in.begin() + static_cast<ptrdiff_t>(skip));
  if (limit.count >= 0 && static_cast<uint64_t>(limit.count) < in.size()) {
    in.resize(static_cast<size_t>(limit.count));
  }
  return in;
}

std::vector<ScoredMember> SortedMembers::RangeByRank(int64_t start, int64_t stop,
                                                     bool reverse) const {
  uint64_t first, last;
  if (!ClampRankRange(start, stop, members_.size(), &first, &last)) return {};
  std::vector<ScoredMember> out;
  for (uint64_t r = first; r <= last; ++r) {
    out.push_back(members_[reverse ? members_.size() - 1 - r : r]);
  }
  return out;
}

std::vector<ScoredMember> SortedMembers::RangeByScore(const ScoreRange& range, bool reverse,
                                                      const RangeLimit& limit) const {
  std::vector<ScoredMember> in;
  if (range.IsEmpty()) return in;
  for (const auto& m : members_) {
    if (range.Contains(m.score)) in.push_back(m);
  }
  if (reverse) std::reverse(in.begin(), in.end());
  return ApplyLimit(std::move(in), limit);
}

std::vector<ScoredMember> SortedMembers::RangeByLex(const LexRange& range, bool reverse,
                                                    const RangeLimit& limit) const {
  std::vector<ScoredMember> in;
  if (range.IsEmpty()) return in;
  for (const auto& m : members_) {
    if (range.Contains(m.member)) in.push_back(m);
  }
  if (reverse) std::reverse(in.begin(), in.end());
  return ApplyLimit(std::move(in), limit);
}

uint64_t SortedMembers::CountByScore(const ScoreRange& range) const {
  if (range.IsEmpty()) return 0;
  return static_cast<uint64_t>(std::count_if(
      members_.begin(), members_.end(), [&](const auto& m) { return range.Contains(m.score); }));
}

uint64_t SortedMembers::CountByLex(const LexRange& range) const {
  if (range.IsEmpty()) return 0;
  return static_cast<uint64_t>(std::count_if(
      members_.begin(), members_.end(), [&](const auto& m) { return range.Contains(m.member); }));
}

std::optional<uint64_t> SortedMembers::Rank(std::string_view member, bool reverse) const {
  for (size_t i = 0; i < members_.size(); ++i) {
    if (members_[i].member == member) return reverse ? members_.size() - 1 - i : i;
  }
  return std::nullopt;
}

}  // namespace kvlab::encodings
