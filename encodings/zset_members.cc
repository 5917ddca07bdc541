#include "encodings/zset_members.h"

#include "encodings/ardb_common.h"
#include "encodings/kv_reads.h"
#include "encodings/score_codec.h"

namespace kvlab::encodings::zset_members {
namespace {

// The score bytes of a record's value: 8 bytes, after Ardb's type byte 0b in Ardb's layout.
Status ScoreOfValue(std::string_view value, double* score) {
  if (value.size() == 8) {
    *score = DecodeScore(value.data());
    return Status::OK();
  }
  if (value.size() == 9 &&
      static_cast<uint8_t>(value[0]) == static_cast<uint8_t>(ArdbTag::kZsetScore)) {
    *score = DecodeScore(value.data() + 1);
    return Status::OK();
  }
  return Status::Corruption("zset member score is not 8 bytes");
}

}  // namespace

std::string Value(double score, bool ardb) {
  std::string value;
  if (ardb) value.push_back(static_cast<char>(ArdbTag::kZsetScore));
  PutScore(&value, score);
  return value;
}

Status ReadScores(KvTxn& txn, std::string_view prefix, const std::vector<std::string_view>& members,
                  std::vector<std::optional<double>>* scores) {
  std::vector<std::optional<std::string>> raw;
  KVLAB_RETURN_IF_ERROR(ReadPoints(txn.kv(), prefix, members, &raw));
  scores->assign(members.size(), std::nullopt);
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!raw[i]) continue;
    double score = 0;
    KVLAB_RETURN_IF_ERROR(ScoreOfValue(*raw[i], &score));
    (*scores)[i] = score;
  }
  return Status::OK();
}

Status Walk(KvTxn& txn, std::string_view prefix, const std::string& lower, const std::string& upper,
            bool reverse, uint64_t skip, int64_t take, std::vector<ScoredMember>* out) {
  Status bad;
  Status s = ScanRange(txn.kv(), lower, upper, reverse, skip, take,
                       [&](std::string_view k, std::string_view v) {
                         double score = 0;
                         bad = ScoreOfValue(v, &score);
                         if (!bad.ok()) return false;
                         out->push_back({std::string(k.substr(prefix.size())), score});
                         return true;
                       });
  return bad.ok() ? s : bad;
}

Status ReadAll(KvTxn& txn, std::string_view prefix, uint64_t expected,
               std::vector<ScoredMember>* out) {
  out->clear();
  out->reserve(expected);
  return Walk(txn, prefix, std::string(prefix), PrefixSuccessor(prefix), false, 0, -1, out);
}

Status ScanPage(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
                uint64_t count, std::vector<ScoredMember>* out, std::optional<std::string>* next) {
  out->clear();
  next->reset();
  if (h.is_new || count == 0) return Status::OK();
  const std::string prefix = txn.SubKeyPrefix(SubKeyTag::kField, h);
  Status bad;
  Status s = encodings::ScanPage(txn.kv(), prefix, after, count, next,
                                 [&](std::string_view member, std::string_view v) {
                                   double score = 0;
                                   Status r = ScoreOfValue(v, &score);
                                   if (r.ok()) {
                                     out->push_back({std::string(member), score});
                                   } else if (bad.ok()) {
                                     bad = r;
                                   }
                                 });
  return bad.ok() ? s : bad;
}

}  // namespace kvlab::encodings::zset_members
