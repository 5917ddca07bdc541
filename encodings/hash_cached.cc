// Hash v2 and v3: v0 and v1 in KV, plus two Redis caches (cache-aside, with TTLs).
//
//   hget cache     c# ns {key} key-version field -> value      (string, kv.cache.hget.cache.millis)
//   hgetall cache  c# ns {key} key-version       -> full hash  (hash,
//   kv.cache.hgetall.cache.millis)
//
// Reads try the cache; a miss reads KV and refills (misses are not cached). Writes commit to KV
// first, then update only the cache entries that already exist (SET ... XX, and an HSET/HDEL
// that runs only if the whole-hash entry exists). v3's HLEN asks the whole-hash entry first.
// The empty field name would collide with the whole-hash entry's name in the spec's layout, so
// it is never cached. A cache that is down or dirty sends reads to KV (degraded, counted) and
// marks what writes could not update (redis/tier.h), so that no stale entry is ever served.
#include "encodings/hash_encoding.h"
#include "encodings/tier_ops.h"
#include "encodings/tiered_encodings.h"

namespace kvlab::encodings {

using resp::Reply;

namespace {

class CachedHash final : public HashEncoding {
 public:
  CachedHash(std::unique_ptr<HashEncoding> inner, uint8_t version, bool length_from_cache,
             redis::RedisTier* tier)
      : inner_(std::move(inner)),
        version_(version),
        length_from_cache_(length_from_cache),
        tier_(tier) {}

  uint8_t version() const override { return version_; }

  Status Get(KvTxn& txn, const KeyHandle& h, std::string_view field,
             std::optional<std::string>* value) override {
    std::vector<std::optional<std::string>> values;
    KVLAB_RETURN_IF_ERROR(MultiGet(txn, h, {field}, &values));
    *value = std::move(values[0]);
    return Status::OK();
  }

  Status MultiGet(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& fields,
                  std::vector<std::optional<std::string>>* values) override {
    values->assign(fields.size(), std::nullopt);
    const std::string prefix = Session(txn).Prefix(h);
    std::vector<size_t> from_kv;
    std::vector<std::string> mget = {"MGET"};
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].empty()) {
        from_kv.push_back(i);  // never cached (see the file comment)
      } else {
        mget.push_back(prefix + std::string(fields[i]));
      }
    }
    std::vector<Reply> replies;
    const bool cached = mget.size() > 1 && CacheRead(Session(txn), prefix, {mget}, &replies);
    size_t j = 0;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].empty()) continue;
      const Reply* r = cached ? &replies[0].elements()[j++] : nullptr;
      if (r != nullptr && r->type() == Reply::Type::kBulk) {
        (*values)[i] = r->str();
        ++txn.tier_counts().cache_hits;
      } else {
        if (cached) ++txn.tier_counts().cache_misses;
        from_kv.push_back(i);
      }
    }
    if (from_kv.empty()) return Status::OK();
    std::vector<std::string_view> missing;
    for (size_t i : from_kv) missing.push_back(fields[i]);
    std::vector<std::optional<std::string>> found;
    KVLAB_RETURN_IF_ERROR(inner_->MultiGet(txn, h, missing, &found));
    std::vector<std::vector<std::string>> refill;
    std::vector<std::string> touched;
    for (size_t k = 0; k < from_kv.size(); ++k) {
      (*values)[from_kv[k]] = found[k];
      if (!cached || !found[k] || missing[k].empty()) continue;
      touched.push_back(prefix + std::string(missing[k]));
      refill.push_back({"SET", touched.back(), *found[k], "PX", Ttl(Kind::kField)});
    }
    CacheWriteNow(Session(txn), prefix, refill, touched);
    return Status::OK();
  }

  Status GetAll(KvTxn& txn, const KeyHandle& h, HashGetAllPart part,
                std::vector<FieldValue>* out) override {
    out->clear();
    const std::string prefix = Session(txn).Prefix(h);
    std::vector<Reply> replies;
    const bool cached =
        !h.is_new && CacheRead(Session(txn), prefix, {{"HGETALL", prefix}}, &replies);
    if (cached && !replies[0].elements().empty()) {
      ++txn.tier_counts().cache_hits;
      const auto& e = replies[0].elements();
      for (size_t i = 0; i + 1 < e.size(); i += 2) {
        out->emplace_back(part == HashGetAllPart::kValues ? "" : e[i].str(),
                          part == HashGetAllPart::kKeys ? "" : e[i + 1].str());
      }
      return Status::OK();
    }
    if (cached) ++txn.tier_counts().cache_misses;
    KVLAB_RETURN_IF_ERROR(inner_->GetAll(txn, h, HashGetAllPart::kBoth, out));
    if (cached && !out->empty()) {
      std::vector<std::vector<std::string>> refill;
      std::vector<std::string> hset = {"HSET", prefix};
      for (const auto& [f, v] : *out) {
        hset.push_back(f);
        hset.push_back(v);
      }
      refill.push_back(std::move(hset));
      refill.push_back({"PEXPIRE", prefix, Ttl(Kind::kHash)});
      CacheWriteNow(Session(txn), prefix, refill, {prefix});
    }
    for (auto& [f, v] : *out) {
      if (part == HashGetAllPart::kKeys) v.clear();
      if (part == HashGetAllPart::kValues) f.clear();
    }
    return Status::OK();
  }

  Status Length(KvTxn& txn, const KeyHandle& h, uint64_t* length) override {
    if (length_from_cache_ && !h.is_new) {
      const std::string prefix = Session(txn).Prefix(h);
      std::vector<Reply> replies;
      if (CacheRead(Session(txn), prefix, {{"HLEN", prefix}}, &replies)) {
        if (replies[0].integer() > 0) {
          ++txn.tier_counts().cache_hits;
          *length = static_cast<uint64_t>(replies[0].integer());
          return Status::OK();
        }
        ++txn.tier_counts().cache_misses;
      }
    }
    return inner_->Length(txn, h, length);
  }

  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<FieldValue>* out,
              std::optional<std::string>* next) override {
    return inner_->Scan(txn, h, after, count, out, next);
  }

  Status Set(KvTxn& txn, KeyHandle* h,
             const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
             int64_t* reply) override {
    const bool is_new = h->is_new;
    KVLAB_RETURN_IF_ERROR(inner_->Set(txn, h, pairs, reply));
    if (!is_new) UpdateCache(txn, *h, pairs, {});
    return Status::OK();
  }

  Status Put(KvTxn& txn, KeyHandle* h, std::string_view field, std::string_view value,
             bool existed) override {
    const bool is_new = h->is_new;
    KVLAB_RETURN_IF_ERROR(inner_->Put(txn, h, field, value, existed));
    if (!is_new) UpdateCache(txn, *h, {{field, value}}, {});
    return Status::OK();
  }

  Status Delete(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& fields,
                int64_t* reply) override {
    KVLAB_RETURN_IF_ERROR(inner_->Delete(txn, h, fields, reply));
    // v2 knows when nothing was removed; v3 replies the fields given, so it always updates.
    if (*reply > 0) UpdateCache(txn, *h, {}, fields);
    return Status::OK();
  }

  // The KV records, plus the whole-hash entry and one hget entry per field (the empty field is
  // never cached) in the cache Redis.
  Status Footprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out) override {
    const std::string prefix = Session(txn).Prefix(h);
    std::vector<std::string> entries = {prefix};
    const std::function<void(SubKeyTag, std::string_view)> each = [&](SubKeyTag tag,
                                                                      std::string_view field) {
      if (tag == SubKeyTag::kField && !field.empty())
        entries.push_back(prefix + std::string(field));
    };
    KVLAB_RETURN_IF_ERROR(KvFootprint(txn, h, out, &each));
    return TierFootprint(Session(txn), redis::TierRole::kCache, entries, &out->tier_bytes);
  }

 private:
  enum class Kind { kField, kHash };

  TierSession Session(KvTxn& txn) const { return TierSession(tier_, &txn); }

  std::string Ttl(Kind kind) const {
    return std::to_string(kind == Kind::kField ? tier_->hget_ttl_ms.load()
                                               : tier_->hgetall_ttl_ms.load());
  }

  // After the commit: rewrite the field entries that exist, and the whole-hash entry if it
  // exists. A new key has no cache entries (its key-version is new), so it needs none.
  void UpdateCache(KvTxn& txn, const KeyHandle& h,
                   const std::vector<std::pair<std::string_view, std::string_view>>& set,
                   const std::vector<std::string_view>& deleted) {
    const std::string prefix = Session(txn).Prefix(h);
    std::vector<std::vector<std::string>> commands;
    std::vector<std::string> touched = {prefix};
    std::vector<std::string> hash_args;
    for (const auto& [field, value] : set) {
      hash_args.emplace_back(field);
      hash_args.emplace_back(value);
      if (field.empty()) continue;
      touched.push_back(prefix + std::string(field));
      commands.push_back(
          {"SET", touched.back(), std::string(value), "XX", "PX", Ttl(Kind::kField)});
    }
    std::vector<std::string> del = {"DEL"};
    for (std::string_view field : deleted) {
      hash_args.emplace_back(field);
      if (field.empty()) continue;
      touched.push_back(prefix + std::string(field));
      del.push_back(touched.back());
    }
    if (del.size() > 1) commands.push_back(std::move(del));
    const char* hash_command = set.empty() ? "HDEL" : "HSET";
    for (size_t start = 0; start < hash_args.size(); start += kMaxLuaArgs) {
      const size_t end = std::min(hash_args.size(), start + kMaxLuaArgs);
      commands.push_back(
          IfExists(hash_command, prefix,
                   std::vector<std::string>(hash_args.begin() + start, hash_args.begin() + end)));
    }
    CacheWriteAfterCommit(Session(txn), prefix, std::move(commands), std::move(touched));
  }

  const std::unique_ptr<HashEncoding> inner_;
  const uint8_t version_;
  const bool length_from_cache_;
  redis::RedisTier* const tier_;
};

}  // namespace

std::unique_ptr<HashEncoding> NewCachedHashEncoding(std::unique_ptr<HashEncoding> inner,
                                                    uint8_t version, bool length_from_cache,
                                                    redis::RedisTier* tier) {
  return std::make_unique<CachedHash>(std::move(inner), version, length_from_cache, tier);
}

}  // namespace kvlab::encodings
