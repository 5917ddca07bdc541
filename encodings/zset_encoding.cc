#include "encodings/zset_encoding.h"

#include <unordered_set>

namespace kvlab::encodings {
namespace {

// Compares a member with a lex bound's value: <0, 0, >0 as for memcmp order.
int CompareToBound(std::string_view member, const LexBound& b) {
  switch (b.kind) {
    case LexBound::Kind::kNegInf:
      return 1;
    case LexBound::Kind::kPosInf:
      return -1;
    default:
      return member.compare(b.value);
  }
}

}  // namespace

bool LexRange::Contains(std::string_view member) const {
  const int lo = CompareToBound(member, min);
  const int hi = CompareToBound(member, max);
  const bool above_min = min.kind == LexBound::Kind::kExclusive ? lo > 0 : lo >= 0;
  const bool below_max = max.kind == LexBound::Kind::kExclusive ? hi < 0 : hi <= 0;
  return above_min && below_max;
}

bool LexRange::IsEmpty() const {
  using K = LexBound::Kind;
  if (min.kind == K::kPosInf || max.kind == K::kNegInf) return true;
  if (min.kind == K::kNegInf || max.kind == K::kPosInf) return false;
  const int c = min.value.compare(max.value);
  if (c > 0) return true;
  return c == 0 && (min.kind == K::kExclusive || max.kind == K::kExclusive);
}

bool ClampRankRange(int64_t start, int64_t stop, uint64_t size, uint64_t* first, uint64_t* last) {
  const int64_t n = static_cast<int64_t>(size);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) return false;
  if (stop >= n) stop = n - 1;
  *first = static_cast<uint64_t>(start);
  *last = static_cast<uint64_t>(stop);
  return true;
}

Status ZsetBase::Remove(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& members,
                        uint64_t* removed) {
  *removed = 0;
  std::vector<std::string_view> distinct;
  std::unordered_set<std::string_view> seen;
  for (std::string_view m : members) {
    if (seen.insert(m).second) distinct.push_back(m);
  }
  return RemoveDistinct(txn, h, distinct, removed);
}

Status ZsetBase::RemoveRangeByRank(KvTxn& txn, KeyHandle* h, int64_t start, int64_t stop,
                                   uint64_t* removed) {
  std::vector<ScoredMember> victims;
  KVLAB_RETURN_IF_ERROR(RangeByRank(txn, *h, start, stop, false, &victims));
  return RemoveVictims(txn, h, victims, removed);
}

Status ZsetBase::RemoveRangeByScore(KvTxn& txn, KeyHandle* h, const ScoreRange& range,
                                    uint64_t* removed) {
  std::vector<ScoredMember> victims;
  KVLAB_RETURN_IF_ERROR(RangeByScore(txn, *h, range, false, RangeLimit(), &victims));
  return RemoveVictims(txn, h, victims, removed);
}

Status ZsetBase::RemoveRangeByLex(KvTxn& txn, KeyHandle* h, const LexRange& range,
                                  uint64_t* removed) {
  std::vector<ScoredMember> victims;
  KVLAB_RETURN_IF_ERROR(RangeByLex(txn, *h, range, false, RangeLimit(), &victims));
  return RemoveVictims(txn, h, victims, removed);
}

Status ZsetBase::Pop(KvTxn& txn, KeyHandle* h, uint64_t count, bool max,
                     std::vector<ScoredMember>* out) {
  out->clear();
  if (count == 0) return Status::OK();
  const int64_t last =
      count > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(count - 1);
  KVLAB_RETURN_IF_ERROR(RangeByRank(txn, *h, 0, last, max, out));
  uint64_t removed = 0;
  return RemoveVictims(txn, h, *out, &removed);
}

}  // namespace kvlab::encodings
