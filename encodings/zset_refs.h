// Refs: how zset v2 and v3 name a member in their Redis zset, and the resolver that turns refs
// back into members.
//
//   ref          00 | member          (a member under 15 bytes is its own ref)
//                01 | md5(member)     (16 raw bytes, md5.h)
//   i# (KV)      i# ... | key-version | ref -> member       (long members only)
//   ref entry    c# ns {key} key-version | ref -> member    (cache Redis, a string with
//                                                            PX kv.cache.zset.member.millis)
//
// A long member's i# record is written with the member's first ref (v2: in the command's batch;
// v3: before the store write) and deleted with the member; its ref entry is a cache-aside copy,
// refilled by Resolve.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "encodings/zset_encoding.h"
#include "redis/tier.h"

namespace kvlab::encodings {

class ZsetRefs {
 public:
  // REQUIRES: tier is not null and outlives the resolver.
  explicit ZsetRefs(redis::RedisTier* tier) : tier_(tier) {}

  static std::string Of(std::string_view member);
  // Whether `ref` names a long member (its member is in i#, not in the ref).
  static bool IsLong(std::string_view ref) { return !ref.empty() && ref[0] == '\x01'; }

  // The members of refs_in, in order: short refs carry theirs; long ones come from their ref
  // entries (one MGET on the cache, hits and misses counted), else from i# (one point read),
  // refilling the entries when the cache is usable. Fails with Corruption when a long ref has no
  // i# record.
  Status Resolve(KvTxn& txn, const KeyHandle& h, const std::vector<std::string>& refs_in,
                 std::vector<std::string>* members) const;
  // Replaces each item's ref with its member (Resolve's cost).
  Status ResolveInPlace(KvTxn& txn, const KeyHandle& h, std::vector<ScoredMember>* items) const;
  // ResolveInPlace, then sorts as Redis sorts members (score, then member bytes).
  Status ResolveSorted(KvTxn& txn, const KeyHandle& h, std::vector<ScoredMember>* items) const;

  // The ref entries' TTL in milliseconds, as Redis's PX argument.
  std::string MemberTtl() const;

 private:
  redis::RedisTier* const tier_;
};

}  // namespace kvlab::encodings
