// TypeEncoding: what every encode-version of every collection type has in common.
//
// Each type has its own interface (HashEncoding, ZsetEncoding, ...) derived from this one; the
// engine holds one instance per (type, version) of the registry (registry.h) and casts to the
// type's interface after checking the key-meta's type. The keyspace hooks live here, so that the
// keyspace commands (DEL, EXPIRE, FLUSHDB) treat every type alike.
//
// Common REQUIREs: `h` holds the live key-meta of a key of this encoding's type and version.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "encodings/kv_txn.h"

namespace kvlab::encodings {

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
};

}  // namespace kvlab::encodings
