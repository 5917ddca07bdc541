#include "encodings/zset_refs.h"

#include <algorithm>

#include "encodings/kv_reads.h"
#include "encodings/md5.h"
#include "encodings/tier_ops.h"
#include "encodings/zset_memory.h"

namespace kvlab::encodings {

using resp::Reply;

namespace {
constexpr size_t kShortMemberLimit = 15;  // members shorter than this are their own ref
}  // namespace

std::string ZsetRefs::Of(std::string_view member) {
  std::string ref;
  if (member.size() < kShortMemberLimit) {
    ref.push_back('\x00');
    ref.append(member);
  } else {
    const Md5Digest d = Md5(member);
    ref.push_back('\x01');
    ref.append(reinterpret_cast<const char*>(d.data()), d.size());
  }
  return ref;
}

std::string ZsetRefs::MemberTtl() const { return std::to_string(tier_->zset_member_ttl_ms.load()); }

Status ZsetRefs::Resolve(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& refs_in,
                         std::vector<std::string>* members) const {
  members->assign(refs_in.size(), "");
  std::vector<size_t> longs;
  for (size_t i = 0; i < refs_in.size(); ++i) {
    if (IsLong(refs_in[i])) {
      longs.push_back(i);
    } else {
      (*members)[i] = refs_in[i].substr(1);
    }
  }
  if (longs.empty()) return Status::OK();
  const TierSession session(tier_, &txn);
  const std::string key = session.Prefix(h);
  std::vector<std::string> mget = {"MGET"};
  for (size_t i : longs) mget.push_back(key + refs_in[i]);
  std::vector<Reply> r;
  const bool cached = CacheRead(session, key, {mget}, &r);
  std::vector<size_t> from_kv;
  for (size_t j = 0; j < longs.size(); ++j) {
    if (cached && r[0].elements()[j].type() == Reply::Type::kBulk) {
      (*members)[longs[j]] = r[0].elements()[j].str();
      ++txn.tier_counts().cache_hits;
    } else {
      if (cached) ++txn.tier_counts().cache_misses;
      from_kv.push_back(longs[j]);
    }
  }
  if (from_kv.empty()) return Status::OK();
  std::vector<std::string_view> suffixes;
  for (size_t i : from_kv) suffixes.push_back(refs_in[i]);
  std::vector<std::optional<std::string>> found;
  KVLAB_RETURN_IF_ERROR(
      ReadPoints(txn.kv(), txn.SubKeyPrefix(SubKeyTag::kIndex, h), suffixes, &found));
  std::vector<std::vector<std::string>> refill;
  std::vector<std::string> touched;
  const std::string ttl = MemberTtl();
  for (size_t k = 0; k < from_kv.size(); ++k) {
    if (!found[k]) return Status::Corruption("zset ref without its member index (i#)");
    (*members)[from_kv[k]] = *found[k];
    if (!cached) continue;
    touched.push_back(key + refs_in[from_kv[k]]);
    refill.push_back({"SET", touched.back(), *found[k], "PX", ttl});
  }
  CacheWriteNow(session, key, refill, touched);
  return Status::OK();
}

Status ZsetRefs::ResolveInPlace(KvTxn& txn, const KeyHandle& h,
                                std::vector<ScoredMember>* items) const {
  std::vector<std::string> refs_in, members;
  for (const auto& i : *items) refs_in.push_back(i.member);
  KVLAB_RETURN_IF_ERROR(Resolve(txn, h, refs_in, &members));
  for (size_t i = 0; i < items->size(); ++i) (*items)[i].member = std::move(members[i]);
  return Status::OK();
}

Status ZsetRefs::ResolveSorted(KvTxn& txn, const KeyHandle& h,
                               std::vector<ScoredMember>* items) const {
  KVLAB_RETURN_IF_ERROR(ResolveInPlace(txn, h, items));
  std::sort(items->begin(), items->end(), ZsetLess);
  return Status::OK();
}

}  // namespace kvlab::encodings
