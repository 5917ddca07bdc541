// LongKeyStore: keys of any length over a store whose keys are short (LMDB: 511 bytes).
//
// Redis keys, hash fields and zset members may be up to 512 MB, and the encodings put them in KV
// keys. LMDB cannot store a key over its compile-time limit, so without this layer a 600-byte
// field would be an error where Redis answers. LongKeyStore keeps the base store's order and
// atomicity while lifting the limit:
//
// - A key of at most kShortMax = limit - 1 bytes is stored as itself.
// - A longer key K goes into the *bucket* of its first kShortMax bytes P: one base record
//     key   = P + 0x00                      (exactly `limit` bytes; no short key has that length)
//     value = entries sorted by suffix, each
//             fixed32 suffix length (little-endian) | suffix (K minus P, >= 1 byte)
//             fixed32 value length  (little-endian) | value
//   Every key of the bucket starts with P and is longer than P, so in byte order the whole
//   bucket sits right after the short key P (if any) and before the next key without prefix P:
//   iterating the base store and expanding each bucket in place yields every key in order.
//
// Costs: a write of a long key reads and rewrites its bucket (all long keys sharing its first
// kShortMax bytes), and such writes are serialized by a mutex here. Short keys cost nothing
// extra. A DeleteRange whose bounds are short deletes buckets whole; a long bound makes it an
// iterate-and-delete in one batch.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

class LongKeyStore final : public KvStoreWrapper {
 public:
  // REQUIRES: base->capabilities().max_key_bytes >= 2.
  explicit LongKeyStore(std::unique_ptr<KvStore> base);

  Capabilities capabilities() const override;
  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Delete(std::string_view key) override;
  Status DeleteRange(std::string_view begin, std::string_view end) override;
  Status Write(const WriteBatch& batch) override;
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override;

  KvStore* base() const { return target(); }

 private:
  bool IsLong(std::string_view key) const { return key.size() > short_max_; }
  // Write's work once bucket_mu_ is held. REQUIRES: bucket_mu_ held by the caller.
  Status WriteLocked(const WriteBatch& batch);
  // Applies a put or delete of a long key to its bucket in *buckets, loading the bucket first
  // (empty when one of `ranges`, deleted earlier in the batch, holds it).
  using Bucket = std::map<std::string, std::string, std::less<>>;
  Status ApplyToBucket(const WriteBatch::Record& r,
                       const std::vector<std::pair<std::string, std::string>>& ranges,
                       std::map<std::string, Bucket>* buckets);

  const size_t short_max_;  // the longest key stored as itself (the base limit - 1)
  // Held by every write that reads and rewrites a bucket, and by DeleteRange, so that a bucket
  // is never rewritten from a stale read.
  std::mutex bucket_mu_;
};

}  // namespace kvlab::backends
