// KeyMetaCompactionPolicy: what RocksDB's compactions may drop of kvlab's records, Kvrocks's
// way (its MetadataFilter and SubkeyFilter, 004_*): space is reclaimed as the store compacts,
// without the collector's scan (engine/collector.h) and without any foreground write.
//
// A record is dropped when:
//   - it is a key-meta (m#) expired more than `grace_ms` ago, except an Ardb layout's (its
//     records carry no key-version, so they must be deleted with the meta: the collector's reap
//     or the next command on the key does both);
//   - it is a sub-key of a lazily deleting version (s#, k#, i#, ...: the registry's
//     LazySubKeyTags) whose key has no meta, a meta of another key-version (deleted,
//     overwritten, re-created), or a meta expired more than `grace_ms` ago.
// Everything else is kept: strings' data is their meta; Ardb's records (a#) carry no
// key-version and are deleted with their key, and an orphan among them is only provable under
// the key's lock (the collector's step 3); a record that does not decode or whose meta cannot
// be read is kept.
//
// Why this never drops live data:
//   - A command writes a key's meta and sub-keys in one atomic batch, so a sub-key a compaction
//     sees was committed with its meta; if the meta read now is missing or of another version,
//     that incarnation is gone for good (key-versions are never reused).
//   - A dropped record becomes a tombstone in the compaction's output (compaction_filter.h), so
//     an older version below it cannot resurface; a newer write of the key (a re-created key)
//     sits above it and wins.
//   - The grace period. A compaction holds no key lock and ignores snapshots, so without one a
//     command that read a meta an instant before it expired (say an HGETALL of a big hash) could
//     lose the sub-keys it is still reading, and a clock that stepped back after a compaction
//     judged a meta expired would bring a key back to life without its sub-keys. Kvrocks met
//     both (its issue 1298: expired keys filtered under running reads). `grace_ms` must exceed
//     the longest command and any clock step; the default is a minute. An expired key inside
//     the grace period is absent to every command all the same (expiry is checked on read);
//     only its bytes wait.
// The Redis-tier data of an expired zset v3 key is not touched: its store zset expires by its
// own TTL (docs/gc.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "backends/compaction_filter.h"
#include "backends/kv_store.h"
#include "encodings/clock.h"
#include "encodings/key_codec.h"
#include "encodings/registry.h"

namespace kvlab::engine {

struct CompactionPolicyOptions {
  // The store's key layout options (the engine's EngineOptions::keys).
  encodings::KeyCodecOptions keys;
  // REQUIRES: both outlive the policy.
  const encodings::EncodingRegistry* registry = &encodings::EncodingRegistry::Builtin();
  const encodings::Clock* clock = nullptr;  // null: the system clock
  int64_t grace_ms = 60'000;
};

// What the policy's droppers have done, cumulative (read at any time).
struct CompactionDrops {
  uint64_t examined = 0;
  uint64_t sub_keys = 0;
  uint64_t metas = 0;
};

class KeyMetaCompactionPolicy final : public backends::CompactionFilterPolicy {
 public:
  explicit KeyMetaCompactionPolicy(CompactionPolicyOptions options);

  // The store droppers read key-metas from: the store opened with this policy. Until it is
  // attached (the policy is given before the store opens), droppers keep every record.
  // REQUIRES: the store outlives its compactions (it does: closing it waits for them).
  void Attach(backends::KvStore* store) { store_.store(store, std::memory_order_release); }

  std::unique_ptr<backends::RecordDropper> NewDropper() const override;

  CompactionDrops drops() const;

 private:
  friend class MetaCheckingDropper;

  const CompactionPolicyOptions options_;
  const encodings::KeyCodec codec_;
  const encodings::SystemClock system_clock_;
  std::atomic<backends::KvStore*> store_{nullptr};
  mutable std::atomic<uint64_t> examined_{0};
  mutable std::atomic<uint64_t> dropped_sub_keys_{0};
  mutable std::atomic<uint64_t> dropped_metas_{0};
};

}  // namespace kvlab::engine
