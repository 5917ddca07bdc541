// Zset logic that does not depend on where the members are stored:
// - ApplyZAdd: ZADD's flags (NX, XX, GT, LT, INCR) over the members' previous scores, in
//   Redis's order of checks, shared by every encode-version;
// - SortedMembers: a whole zset in memory, sorted as Redis sorts it (score, then member bytes),
//   answering every range query exactly. The Redis-tier versions use it when the cache is
//   unusable (the zset is loaded from KV), for lex ranges over refs, and to put the members of
//   a window of refs back into member order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "encodings/zset_encoding.h"

namespace kvlab::encodings {

// The outcome of ZADD over previous scores: the new score of every distinct member (in
// first-appearance order), and the reply counts.
struct ZAddPlan {
  std::vector<std::string_view> members;      // distinct, first-appearance order
  std::vector<std::optional<double>> before;  // as given
  std::vector<std::optional<double>> after;   // after the command
  ZAddResult result;
  // Members whose score changed or that are new.
  std::vector<size_t> Changed() const;
};

// The distinct members of elems, in first-appearance order.
std::vector<std::string_view> DistinctMembers(const std::vector<ScoredMember>& elems);

// Applies ZADD to the previous scores of DistinctMembers(elems). Fails with InvalidArgument
// "resulting score is not a number (NaN)". Scores of -0 become 0, but INCR's result
// (result.incr_score) is the score as computed, -0 included (Redis replies it).
Status ApplyZAdd(const ZAddFlags& flags, const std::vector<ScoredMember>& elems,
                 std::vector<std::optional<double>> before, ZAddPlan* plan);

// Orders as Redis's zsets do: by score, then by member bytes.
bool ZsetLess(const ScoredMember& a, const ScoredMember& b);

class SortedMembers {
 public:
  // REQUIRES: no member twice. Sorts them.
  explicit SortedMembers(std::vector<ScoredMember> members);

  size_t size() const { return members_.size(); }
  const std::vector<ScoredMember>& members() const { return members_; }

  std::vector<ScoredMember> RangeByRank(int64_t start, int64_t stop, bool reverse) const;
  std::vector<ScoredMember> RangeByScore(const ScoreRange& range, bool reverse,
                                         const RangeLimit& limit) const;
  // Walks in zset order from the first member in range, as Redis does; exact when all scores
  // are equal (the only case Redis defines).
  std::vector<ScoredMember> RangeByLex(const LexRange& range, bool reverse,
                                       const RangeLimit& limit) const;
  uint64_t CountByScore(const ScoreRange& range) const;
  uint64_t CountByLex(const LexRange& range) const;
  std::optional<uint64_t> Rank(std::string_view member, bool reverse) const;

 private:
  std::vector<ScoredMember> members_;
};

// Applies offset and count to a list already in the requested order.
std::vector<ScoredMember> ApplyLimit(std::vector<ScoredMember> in, const RangeLimit& limit);

}  // namespace kvlab::encodings
