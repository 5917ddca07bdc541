#include "encodings/tier_ops.h"

#include <algorithm>

namespace kvlab::encodings {

using redis::RedisTier;
using redis::TierRole;
using resp::Reply;

namespace {

// KEYS[1] is the key; ARGV[1] the command; ARGV[2..] its arguments after the key. The result
// is boxed in a one-element array (empty when the command returned nil), so that "the key is
// absent" (a nil reply) stays distinct from a nil result.
constexpr const char* kIfExistsScript =
    "if redis.call('EXISTS', KEYS[1]) == 1 then "
    "return {redis.call(ARGV[1], KEYS[1], unpack(ARGV, 2))} end "
    "return false";

}  // namespace

std::vector<std::string> IfExists(std::string_view command, const std::string& key,
                                  const std::vector<std::string>& args) {
  std::vector<std::string> out = {"EVAL", kIfExistsScript, "1", key, std::string(command)};
  out.insert(out.end(), args.begin(), args.end());
  return out;
}

bool CacheRead(const TierSession& t, const std::string& prefix,
               const std::vector<std::vector<std::string>>& commands, std::vector<Reply>* replies) {
  RedisTier& tier = t.tier();
  if (!tier.CacheUsable(prefix, t.counts())) return false;
  if (!tier.Pipeline(TierRole::kCache, commands, replies, t.counts()).ok()) {
    ++t.counts()->degraded;
    return false;
  }
  for (const Reply& r : *replies) {
    if (r.is_error()) {
      ++t.counts()->degraded;
      return false;
    }
  }
  return true;
}

void CacheWriteNow(const TierSession& t, const std::string& prefix,
                   const std::vector<std::vector<std::string>>& commands,
                   const std::vector<std::string>& touched_keys) {
  if (commands.empty()) return;
  RedisTier& tier = t.tier();
  if (tier.CacheUsable(prefix, t.counts())) {
    std::vector<Reply> replies;
    bool ok = tier.Pipeline(TierRole::kCache, commands, &replies, t.counts()).ok();
    for (const Reply& r : replies) ok = ok && !r.is_error();
    if (ok) return;
    ++t.counts()->degraded;
  }
  tier.MarkDirty(prefix, touched_keys);
}

void CacheWriteAfterCommit(const TierSession& t, const std::string& prefix,
                           std::vector<std::vector<std::string>> commands,
                           std::vector<std::string> touched_keys) {
  if (commands.empty()) return;
  t.txn().AfterCommit(
      [t, prefix, commands = std::move(commands), touched_keys = std::move(touched_keys)] {
        CacheWriteNow(t, prefix, commands, touched_keys);
        return Status::OK();
      });
}

Status TierFootprint(const TierSession& t, TierRole role, const std::vector<std::string>& keys,
                     uint64_t* bytes) {
  for (size_t begin = 0; begin < keys.size(); begin += kMaxLuaArgs) {
    const size_t end = std::min(keys.size(), begin + kMaxLuaArgs);
    std::vector<std::vector<std::string>> commands;
    for (size_t i = begin; i < end; ++i) {
      commands.push_back({"MEMORY", "USAGE", keys[i], "SAMPLES", "0"});
    }
    std::vector<Reply> replies;
    KVLAB_RETURN_IF_ERROR(t.tier().Pipeline(role, commands, &replies, t.counts()));
    for (const Reply& r : replies) {
      if (r.is_error()) {
        return Status::Unavailable("the Redis tier (" + t.tier().Describe(role) +
                                   ") refused MEMORY USAGE: " + r.str());
      }
      if (r.type() == Reply::Type::kInteger) *bytes += static_cast<uint64_t>(r.integer());
    }
  }
  return Status::OK();
}

}  // namespace kvlab::encodings
