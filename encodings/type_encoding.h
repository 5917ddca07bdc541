// TypeEncoding: what every encode-version of every collection type has in common.
//
// Each type has its own interface (HashEncoding, ZsetEncoding, ...) derived from this one; the
// engine holds one instance per (type, version) of the registry (registry.h) and casts to the
// type's interface after checking the key-meta's type. The keyspace hooks live here, so that the
// keyspace commands (DEL, EXPIRE, FLUSHDB, RENAME, COPY) treat every type alike.
//
// Common REQUIREs: `h` holds the live key-meta of a key of this encoding's type and version.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "encodings/kv_txn.h"

namespace kvlab::encodings {

// What one key occupies (MEMORY USAGE): its records in the KV store, keys and values counted, and
// what the Redis tier holds for it.
struct KeyFootprint {
  uint64_t meta_bytes = 0;       // the key-meta record
  uint64_t sub_key_records = 0;  // live sub-key records of the key's current key-version
  uint64_t sub_key_bytes = 0;
  // Redis's own MEMORY USAGE (SAMPLES 0) of the tier entries of the key's current incarnation
  // (caches and the zset v3 store); 0 for KV-only versions.
  uint64_t tier_bytes = 0;
  uint64_t total() const { return meta_bytes + sub_key_bytes + tier_bytes; }
};

class TypeEncoding {
 public:
  virtual ~TypeEncoding() = default;

  // The encode-version this encoding writes into new key-metas (its registry row's id).
  virtual uint8_t version() const = 0;

  // Keyspace hooks, for versions that keep data outside KV (zset v3's store). `h.meta` is the
  // new meta (OnExpire: its expire-time changed; the old one is old_expire_ms) or the deleted
  // one (OnDelete: DEL, UNLINK, an expiry set in the past; FLUSHDB deletes stores itself).
  virtual Status OnExpire(KvTxn& txn, const KeyHandle& h, int64_t old_expire_ms) {
    return Status::OK();
  }
  virtual Status OnDelete(KvTxn& txn, const KeyHandle& h) { return Status::OK(); }

  // Writes a copy of the key `from` (of txn's database) as the new key `to` of to_txn's database
  // (RENAME, COPY, MOVE; to_txn is txn, or txn's view of another database, KvTxn::NewView),
  // its key-meta included, in the command's batch: the same elements, encode-version and expiry
  // under a fresh key-version.
  // The default copies every sub-key record of the version's registry row (its sub-key tags)
  // under `to`'s prefix, values as they are: one scan step per record read, one put per record
  // written, and no element decoded. That is exact for every version whose records all follow
  // the sub-key layout of key_codec.h and whose Redis-tier state is only a cache: the tier's
  // keys carry the key-version, so `to` starts cold and nothing stale is reachable. A version
  // that keeps data outside KV (zset v3's store) overrides it.
  // REQUIRES: `to->meta` is `from.meta` with a fresh key-version; `to->is_new`; nothing of `to`
  // is live (the caller deleted an old `to` first); `from` and `to` are different keys (another
  // name, or another database).
  virtual Status Copy(KvTxn& txn, const KeyHandle& from, KvTxn& to_txn, KeyHandle* to);

  // Adds the key's footprint to *out (MEMORY USAGE). The default counts the key-meta record and
  // every sub-key record of the version's registry row (one scan per sub-key kind: one seek and
  // one step per record), under the same layout assumption as Copy. A version with Redis-tier
  // entries overrides it to add them.
  virtual Status Footprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out) {
    return KvFootprint(txn, h, out, nullptr);
  }

 protected:
  // The default Footprint. `each_record`, when set, also sees every sub-key record's tag and
  // suffix (the part after SubKeyPrefix: a field or member name in the v0-v3 layouts).
  Status KvFootprint(KvTxn& txn, const KeyHandle& h, KeyFootprint* out,
                     const std::function<void(SubKeyTag, std::string_view)>* each_record);
};

}  // namespace kvlab::encodings
