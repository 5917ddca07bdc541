#include "engine/collector.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "encodings/coding.h"
#include "encodings/key_meta.h"
#include "encodings/kv_txn.h"
#include "encodings/type_encoding.h"
#include "engine/command_context.h"
#include "engine/engine.h"
#include "engine/handlers.h"

namespace kvlab::engine {

using backends::CountingStore;
using backends::IteratorOptions;
using backends::OpCounts;
using backends::WriteBatch;
using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::KvTxn;
using encodings::SubKeyTag;

std::string GcStats::Line() const {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "gc: scanned %" PRIu64 " records, reclaimed %" PRIu64 " (sub-keys %" PRIu64
                ", metas %" PRIu64 ", tier %" PRIu64 ") in %.2f s",
                scanned, reclaimed(), reclaimed_sub_keys, reclaimed_metas, reclaimed_tier, seconds);
  std::string line = buf;
  if (index_entries > 0) {
    line += "; ttl index: " + std::to_string(index_entries) + " entries read, " +
            std::to_string(stale_index_entries) + " stale deleted";
  }
  if (undecodable > 0) {
    line += "; " + std::to_string(undecodable) + " records not kvlab's were left alone";
  }
  return line;
}

std::string GcStats::DryRunLine() const {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "gc dry run: scanned %" PRIu64 " records, garbage %" PRIu64 " (sub-keys %" PRIu64
                ", metas %" PRIu64 ", tier %" PRIu64 "; %" PRIu64 " bytes) in %.2f s",
                scanned, reclaimed(), reclaimed_sub_keys, reclaimed_metas, reclaimed_tier,
                garbage_bytes, seconds);
  std::string line = buf;
  if (undecodable > 0) line += "; " + std::to_string(undecodable) + " records not kvlab's";
  return line;
}

LiveRecords& LiveRecords::operator+=(const LiveRecords& o) {
  keys += o.keys;
  records += o.records;
  bytes += o.bytes;
  return *this;
}

GcStats& GcStats::operator+=(const GcStats& o) {
  for (const auto& [type, l] : o.live) live[type] += l;
  scanned += o.scanned;
  reclaimed_sub_keys += o.reclaimed_sub_keys;
  reclaimed_metas += o.reclaimed_metas;
  reclaimed_tier += o.reclaimed_tier;
  undecodable += o.undecodable;
  garbage_bytes += o.garbage_bytes;
  index_entries += o.index_entries;
  stale_index_entries += o.stale_index_entries;
  kv += o.kv;
  seconds += o.seconds;
  return *this;
}

namespace {

// Whether deleting this key also deletes Redis-tier data (a zset v3 store zset).
bool HasTierStore(const encodings::EncodingRegistry& registry, const KeyMeta& meta) {
  if (meta.type == KeyType::kString) return false;
  const encodings::EncodingSpec* row = registry.Find(meta.type, meta.encode_version);
  return row != nullptr && row->tier == encodings::TierUse::kStore;
}

// The metas stored for `keys` of database db, as they are (KvTxn::GetMetas would hide the
// expired ones): values->at(i) empty when keys[i] has none.
Status ReadStoredMetas(CountingStore& counting, const encodings::KeyCodec& codec, uint8_t db,
                       const std::vector<std::string>& keys,
                       std::vector<std::optional<std::string>>* values) {
  std::vector<std::string> meta_keys;
  meta_keys.reserve(keys.size());
  for (const std::string& key : keys) meta_keys.push_back(codec.MetaKey(db, key));
  std::vector<std::string_view> views(meta_keys.begin(), meta_keys.end());
  return counting.MultiGet(views, values);
}

// Queues the reap of an expired key into txn: its type's OnDelete hook (zset v3's store zset),
// then the delete of its meta (and, with the TTL index, of its entry). False when the engine
// lacks the version or the hook fails (the tier is down): the key is left for a later pass.
bool QueueReap(const Engine& engine, KvTxn& txn, const std::string& key, const KeyMeta& meta) {
  if (meta.type != KeyType::kString) {
    encodings::TypeEncoding* e = engine.encoding(meta.type, meta.encode_version);
    const KeyHandle h{key, meta, false};
    if (e == nullptr || !e->OnDelete(txn, h).ok()) return false;
  }
  txn.NoteStoredMeta(key, &meta);
  txn.DeleteMeta(key);
  return true;
}

// Commits a reap's batch, then runs its post-commit tier steps, best effort as for DEL: a tier
// step that fails leaves its data to expire by its TTL.
Status CommitReap(CountingStore& counting, KvTxn& txn) {
  Status s;
  if (!txn.batch().empty()) s = counting.Write(txn.batch());
  if (s.ok()) {
    for (auto& step : txn.after_commit()) step().IgnoreError();
  }
  return s;
}

}  // namespace

Status Engine::ReapExpired(uint8_t db, const std::vector<std::string>& keys, uint64_t* metas,
                           uint64_t* tier, OpCounts* kv) {
  if (keys.empty()) return Status::OK();
  KeyLocks::Guard guard(&key_locks_, LockMode::kExclusive);
  for (const std::string& key : keys) guard.Add(db, key);
  guard.Lock();

  OpCounts ops;
  CountingStore counting(store_, &ops);
  const int64_t now = clock_->NowMillis();
  KvTxn txn(&counting, &codec_, &registry_, &versions_, db, now, MetaCacheForCommand());
  std::vector<std::optional<std::string>> values;
  Status s = ReadStoredMetas(counting, codec_, db, keys, &values);
  if (s.ok()) {
    uint64_t deleted = 0;
    uint64_t tiered = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      KeyMeta meta;
      if (!values[i] || !KeyMeta::Decode(*values[i], registry_, &meta).ok() ||
          !meta.ExpiredAt(now)) {
        continue;  // gone, not kvlab's, or live again since the scan: kept
      }
      if (!QueueReap(*this, txn, keys[i], meta)) continue;
      ++deleted;
      if (HasTierStore(registry_, meta)) ++tiered;
    }
    s = CommitReap(counting, txn);
    if (s.ok()) {
      *metas += deleted;
      *tier += tiered;
    }
  }
  *kv += ops;
  return s;
}

Status Engine::ReapIndexed(uint8_t db, const std::vector<IndexedExpiry>& entries,
                           std::vector<std::pair<std::string, KeyMeta>>* reaped, uint64_t* metas,
                           uint64_t* tier, uint64_t* stale, OpCounts* kv) {
  if (entries.empty()) return Status::OK();
  std::vector<std::string> keys;
  keys.reserve(entries.size());
  for (const IndexedExpiry& e : entries) keys.push_back(e.key);
  KeyLocks::Guard guard(&key_locks_, LockMode::kExclusive);
  for (const std::string& key : keys) guard.Add(db, key);
  guard.Lock();

  OpCounts ops;
  CountingStore counting(store_, &ops);
  const int64_t now = clock_->NowMillis();
  KvTxn txn(&counting, &codec_, &registry_, &versions_, db, now, MetaCacheForCommand());
  std::vector<std::optional<std::string>> values;
  Status s = ReadStoredMetas(counting, codec_, db, keys, &values);
  if (s.ok()) {
    std::vector<std::pair<std::string, KeyMeta>> deleted;
    uint64_t tiered = 0;
    uint64_t stale_entries = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      KeyMeta meta;
      const bool decoded = values[i] && KeyMeta::Decode(*values[i], registry_, &meta).ok();
      if (decoded && meta.expire_ms == entries[i].expire_ms) {
        // The entry's own expiry: reaped once past (an entry read as expired by a clock that
        // has since stepped back stays for a later cycle).
        if (!meta.ExpiredAt(now) || !QueueReap(*this, txn, keys[i], meta)) continue;
        if (HasTierStore(registry_, meta)) ++tiered;
        deleted.emplace_back(keys[i], meta);
      } else if (!values[i] || decoded) {
        // No meta, or one with another expiry (or none): the entry is stale. Two entries of
        // one key in one batch (the meta's own and a stale one) are told apart by the expiry.
        txn.batch().Delete(codec_.TtlIndexKey(db, entries[i].expire_ms, keys[i]));
        ++stale_entries;
      }
      // A meta that is not kvlab's keeps its entry: nothing here can judge it.
    }
    s = CommitReap(counting, txn);
    if (s.ok()) {
      *metas += deleted.size();
      *tier += tiered;
      *stale += stale_entries;
      for (auto& d : deleted) reaped->push_back(std::move(d));
    }
  }
  *kv += ops;
  return s;
}

Status Engine::ReclaimArdbOrphans(uint8_t db, const std::vector<std::string>& keys,
                                  uint64_t* sub_keys, OpCounts* kv) {
  if (keys.empty()) return Status::OK();
  KeyLocks::Guard guard(&key_locks_, LockMode::kExclusive);
  for (const std::string& key : keys) guard.Add(db, key);
  guard.Lock();

  OpCounts ops;
  CountingStore counting(store_, &ops);
  std::vector<std::string> meta_keys;
  meta_keys.reserve(keys.size());
  for (const std::string& key : keys) meta_keys.push_back(codec_.MetaKey(db, key));
  std::vector<std::string_view> views(meta_keys.begin(), meta_keys.end());
  std::vector<std::optional<std::string>> values;
  Status s = counting.MultiGet(views, &values);
  WriteBatch batch;
  for (size_t i = 0; s.ok() && i < keys.size(); ++i) {
    KeyMeta meta;
    if (values[i] && (!KeyMeta::Decode(*values[i], registry_, &meta).ok() || meta.ardb_layout())) {
      continue;  // an Ardb key's own records (or a meta that cannot be read): kept
    }
    const std::string prefix = codec_.ArdbKeyPrefix(db, keys[i]);
    IteratorOptions io;
    io.lower_bound = prefix;
    io.upper_bound = encodings::PrefixSuccessor(prefix);
    std::unique_ptr<backends::Iterator> it = counting.NewIterator(io);
    for (it->Seek(prefix); it->Valid(); it->Next()) batch.Delete(it->key());
    s = it->status();
  }
  if (s.ok() && !batch.empty()) {
    s = counting.Write(batch);
    if (s.ok()) *sub_keys += batch.size();
  }
  *kv += ops;
  return s;
}

Status Engine::ReclaimStoreOrphans(uint8_t db, const std::vector<std::string>& store_keys,
                                   bool dry_run, uint64_t* tier, OpCounts* kv) {
  if (store_keys.empty() || tier_ == nullptr) return Status::OK();
  // "c#" ns "{" key "}" key-version (8 bytes): redis::TierKeyPrefix.
  const std::string prefix = "c#" + codec_.Namespace(db) + "{";
  struct Owner {
    std::string key;
    uint64_t version = 0;
    const std::string* store_key = nullptr;
  };
  std::vector<Owner> owners;
  for (const std::string& k : store_keys) {
    if (k.size() < prefix.size() + 9 || !k.starts_with(prefix) || k[k.size() - 9] != '}') {
      continue;  // not a store zset of kvlab's: left alone
    }
    owners.push_back({k.substr(prefix.size(), k.size() - 9 - prefix.size()),
                      encodings::DecodeFixed64BE(k.data() + k.size() - 8), &k});
  }
  std::optional<KeyLocks::Guard> guard;
  if (!dry_run) {
    guard.emplace(&key_locks_, LockMode::kExclusive);
    for (const Owner& o : owners) guard->Add(db, o.key);
    guard->Lock();
  }
  OpCounts ops;
  CountingStore counting(store_, &ops);
  std::vector<std::string> keys;
  for (const Owner& o : owners) keys.push_back(o.key);
  std::vector<std::optional<std::string>> values;
  Status s = keys.empty() ? Status::OK() : ReadStoredMetas(counting, codec_, db, keys, &values);
  std::vector<std::string> unlink = {"UNLINK"};
  for (size_t i = 0; s.ok() && i < owners.size(); ++i) {
    KeyMeta meta;
    if (values[i] && !KeyMeta::Decode(*values[i], registry_, &meta).ok()) continue;  // not ours
    const bool live =
        values[i] && HasTierStore(registry_, meta) && meta.key_version == owners[i].version;
    if (!live) unlink.push_back(*owners[i].store_key);
  }
  if (s.ok() && unlink.size() > 1) {
    if (dry_run) {
      *tier += unlink.size() - 1;
    } else {
      redis::TierCounts counts;
      std::vector<resp::Reply> replies;
      bool maybe_applied = false;
      s = tier_->PipelineWrite(redis::TierRole::kStore, {unlink}, &replies, &counts,
                               &maybe_applied);
      if (s.ok()) *tier += static_cast<uint64_t>(replies[0].integer());
    }
  }
  *kv += ops;
  return s;
}

Status ReadRecordBatch(backends::KvStore* store, const std::string& from, const std::string& end,
                       size_t limit, bool with_values,
                       std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  IteratorOptions io;
  io.lower_bound = from;
  io.upper_bound = end;
  std::unique_ptr<backends::Iterator> it = store->NewIterator(io);
  for (it->Seek(from); it->Valid() && out->size() < limit; it->Next()) {
    out->emplace_back(std::string(it->key()), with_values ? std::string(it->value()) : "");
  }
  return it->status();
}

namespace {

// The smallest key after `key`.
std::string After(const std::string& key) { return key + '\0'; }

}  // namespace

Status Collector::RunPass(const GcOptions& options, GcStats* stats) {
  start_ = std::chrono::steady_clock::now();
  GcStats pass;
  Status s;
  // Eagerly deleted kinds (Ardb's a#) go with their meta (an expired one's in step 1, through
  // OnDelete); only a blind overwrite (SET) leaves them behind, and they are reclaimed under the
  // key's lock (CollectArdbRecords).
  const std::vector<SubKeyTag> tags = engine_->registry().LazySubKeyTags();
  const std::vector<SubKeyTag> all = engine_->registry().AllSubKeyTags();
  const bool ardb = std::find(all.begin(), all.end(), SubKeyTag::kArdb) != all.end();
  const auto& rows = engine_->registry().rows();
  const bool store_tier =
      engine_->tier() != nullptr &&
      std::any_of(rows.begin(), rows.end(), [](const encodings::EncodingSpec& row) {
        return row.tier == encodings::TierUse::kStore;
      });
  for (int db = 0; db < engine_->databases() && s.ok(); ++db) {
    s = CollectMetas(db, options, &pass);
    for (size_t t = 0; t < tags.size() && s.ok(); ++t) {
      s = CollectSubKeys(db, static_cast<char>(tags[t]), options, &pass);
    }
    if (ardb && s.ok()) s = CollectArdbRecords(db, options, &pass);
    if (store_tier && s.ok()) s = CollectStoreZsets(db, options, &pass);
  }
  pass.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  *stats += pass;
  return s;
}

bool Collector::Pace(const GcOptions& options, const GcStats& stats) {
  if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) return false;
  if (options.max_records_per_second == 0) return true;
  const auto due =
      start_ + std::chrono::microseconds(stats.scanned * 1000000 / options.max_records_per_second);
  // Sleep in short slices, so that a stop request is seen promptly.
  while (std::chrono::steady_clock::now() < due) {
    if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        due - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
  }
  return true;
}

Status Collector::CollectMetas(int db, const GcOptions& options, GcStats* stats) {
  const encodings::KeyCodec& codec = engine_->codec();
  const uint8_t d = static_cast<uint8_t>(db);
  const std::string begin = codec.MetaPrefix(d);
  const std::string end = encodings::PrefixSuccessor(begin);
  OpCounts ops;
  CountingStore counting(engine_->store(), &ops);
  std::vector<std::pair<std::string, std::string>> records;
  std::string from = begin;
  Status s;
  while (s.ok()) {
    s = ReadRecordBatch(&counting, from, end, options.batch_records, true, &records);
    if (!s.ok() || records.empty()) break;
    stats->scanned += records.size();
    const int64_t now = engine_->clock().NowMillis();
    std::vector<std::string> expired;
    for (const auto& [meta_key, value] : records) {
      std::string key;
      KeyMeta meta;
      if (!codec.DecodeMetaKey(d, meta_key, &key) ||
          !KeyMeta::Decode(value, engine_->registry(), &meta).ok()) {
        ++stats->undecodable;
        continue;
      }
      if (!meta.ExpiredAt(now)) {
        if (options.dry_run) {
          LiveRecords& l = stats->live[meta.type];
          ++l.keys;
          ++l.records;
          l.bytes += meta_key.size() + value.size();
        }
        continue;
      }
      if (options.dry_run) {
        ++stats->reclaimed_metas;
        stats->garbage_bytes += meta_key.size() + value.size();
        if (HasTierStore(engine_->registry(), meta)) ++stats->reclaimed_tier;
      } else {
        expired.push_back(std::move(key));
      }
    }
    s = engine_->ReapExpired(d, expired, &stats->reclaimed_metas, &stats->reclaimed_tier,
                             &stats->kv);
    from = After(records.back().first);
    if (options.progress) options.progress({db, "metas", *stats});
    if (s.ok() && !Pace(options, *stats)) s = Status::Aborted("gc stopped");
  }
  stats->kv += ops;
  return s;
}

Status Collector::CollectSubKeys(int db, char tag, const GcOptions& options, GcStats* stats) {
  const encodings::KeyCodec& codec = engine_->codec();
  const uint8_t d = static_cast<uint8_t>(db);
  const SubKeyTag sub_key_tag = static_cast<SubKeyTag>(tag);
  const std::string begin = codec.SubKeyDbPrefix(sub_key_tag, d);
  const std::string end = encodings::PrefixSuccessor(begin);
  const std::string phase = std::string(1, tag) + "#";
  OpCounts ops;
  CountingStore counting(engine_->store(), &ops);
  std::vector<std::pair<std::string, std::string>> records;
  std::string from = begin;
  Status s;
  while (s.ok()) {
    s = ReadRecordBatch(&counting, from, end, options.batch_records, options.dry_run, &records);
    if (!s.ok() || records.empty()) break;
    stats->scanned += records.size();
    // The owner of each record, then one MultiGet for the distinct owners' metas.
    struct Owner {
      std::string key;
      uint64_t version = 0;
    };
    std::vector<std::optional<Owner>> owners(records.size());
    std::map<std::string, size_t> meta_index;  // key -> position in meta_keys
    std::vector<std::string> meta_keys;
    for (size_t i = 0; i < records.size(); ++i) {
      Owner o;
      size_t prefix_bytes = 0;
      if (!codec.DecodeSubKey(sub_key_tag, d, records[i].first, &o.key, &o.version,
                              &prefix_bytes)) {
        ++stats->undecodable;
        continue;
      }
      if (meta_index.emplace(o.key, meta_keys.size()).second) {
        meta_keys.push_back(codec.MetaKey(d, o.key));
      }
      owners[i] = std::move(o);
    }
    std::vector<std::string_view> views(meta_keys.begin(), meta_keys.end());
    std::vector<std::optional<std::string>> metas;
    if (!views.empty()) s = counting.MultiGet(views, &metas);
    if (!s.ok()) break;
    // The key-version each owner's meta holds now (nullopt: no meta; in a dry run also an
    // expired meta, which a pass reaps first). An undecodable meta keeps its sub-keys: what it
    // owns cannot be known.
    const int64_t now = engine_->clock().NowMillis();
    std::vector<std::optional<uint64_t>> current(meta_keys.size());
    std::vector<KeyType> owner_type(meta_keys.size(), KeyType::kString);
    std::vector<bool> unknown(meta_keys.size(), false);
    for (size_t j = 0; j < metas.size(); ++j) {
      if (!metas[j]) continue;
      KeyMeta meta;
      if (!KeyMeta::Decode(*metas[j], engine_->registry(), &meta).ok()) {
        unknown[j] = true;
      } else if (!options.dry_run || !meta.ExpiredAt(now)) {
        current[j] = meta.key_version;
        owner_type[j] = meta.type;
      }
    }
    WriteBatch batch;
    for (size_t i = 0; i < records.size(); ++i) {
      if (!owners[i]) continue;
      const size_t j = meta_index[owners[i]->key];
      if (unknown[j]) continue;
      if (current[j] == owners[i]->version) {
        if (options.dry_run) {
          LiveRecords& l = stats->live[owner_type[j]];
          ++l.records;
          l.bytes += records[i].first.size() + records[i].second.size();
        }
        continue;
      }
      if (options.dry_run) {
        ++stats->reclaimed_sub_keys;
        stats->garbage_bytes += records[i].first.size() + records[i].second.size();
      } else {
        batch.Delete(records[i].first);
      }
    }
    if (!batch.empty()) {
      s = counting.Write(batch);
      if (s.ok()) stats->reclaimed_sub_keys += batch.size();
    }
    from = After(records.back().first);
    if (options.progress) options.progress({db, phase, *stats});
    if (s.ok() && !Pace(options, *stats)) s = Status::Aborted("gc stopped");
  }
  stats->kv += ops;
  return s;
}

Status Collector::CollectArdbRecords(int db, const GcOptions& options, GcStats* stats) {
  const encodings::KeyCodec& codec = engine_->codec();
  const uint8_t d = static_cast<uint8_t>(db);
  const std::string begin = codec.SubKeyDbPrefix(SubKeyTag::kArdb, d);
  const std::string end = encodings::PrefixSuccessor(begin);
  OpCounts ops;
  CountingStore counting(engine_->store(), &ops);
  std::vector<std::pair<std::string, std::string>> records;
  std::string from = begin;
  Status s;
  while (s.ok()) {
    s = ReadRecordBatch(&counting, from, end, options.batch_records, options.dry_run, &records);
    if (!s.ok() || records.empty()) break;
    stats->scanned += records.size();
    // The distinct owners, then one MultiGet for their metas: a key without an Ardb meta has
    // orphans, which the engine deletes under the key's lock.
    std::vector<std::string> owners;
    std::vector<std::optional<size_t>> owner_of(records.size());  // index in owners
    for (size_t i = 0; i < records.size(); ++i) {
      std::string key;
      if (!codec.DecodeArdbKey(d, records[i].first, &key)) {
        ++stats->undecodable;
        continue;
      }
      if (owners.empty() || owners.back() != key) owners.push_back(std::move(key));
      owner_of[i] = owners.size() - 1;
    }
    std::vector<std::string> meta_keys;
    for (const std::string& key : owners) meta_keys.push_back(codec.MetaKey(d, key));
    std::vector<std::string_view> views(meta_keys.begin(), meta_keys.end());
    std::vector<std::optional<std::string>> metas;
    if (!views.empty()) s = counting.MultiGet(views, &metas);
    if (!s.ok()) break;
    const int64_t now = engine_->clock().NowMillis();
    std::vector<std::string> orphaned;
    std::vector<bool> is_orphan(owners.size(), false);
    std::vector<std::optional<KeyType>> owner_type(owners.size());  // a live owner's type
    for (size_t j = 0; j < metas.size(); ++j) {
      KeyMeta meta;
      if (metas[j] && !KeyMeta::Decode(*metas[j], engine_->registry(), &meta).ok()) continue;
      if (metas[j] && meta.ardb_layout() && !(options.dry_run && meta.ExpiredAt(now))) {
        owner_type[j] = meta.type;
        continue;
      }
      orphaned.push_back(owners[j]);
      is_orphan[j] = true;
    }
    if (options.dry_run) {
      // The records of this batch whose key a pass would reclaim (a key's records may span
      // batches: each batch counts its own).
      for (size_t i = 0; i < records.size(); ++i) {
        if (!owner_of[i]) continue;
        if (const std::optional<KeyType>& type = owner_type[*owner_of[i]]; type.has_value()) {
          LiveRecords& l = stats->live[*type];
          ++l.records;
          l.bytes += records[i].first.size() + records[i].second.size();
        }
        if (!is_orphan[*owner_of[i]]) continue;
        ++stats->reclaimed_sub_keys;
        stats->garbage_bytes += records[i].first.size() + records[i].second.size();
      }
      orphaned.clear();
    }
    s = engine_->ReclaimArdbOrphans(d, orphaned, &stats->reclaimed_sub_keys, &stats->kv);
    from = After(records.back().first);
    if (options.progress) options.progress({db, "a#", *stats});
    if (s.ok() && !Pace(options, *stats)) s = Status::Aborted("gc stopped");
  }
  stats->kv += ops;
  return s;
}

Status Collector::CollectStoreZsets(int db, const GcOptions& options, GcStats* stats) {
  const auto d = static_cast<uint8_t>(db);
  const std::string prefix = "c#" + engine_->codec().Namespace(d) + "{";
  redis::TierCounts counts;
  std::vector<std::string> keys;
  std::string cursor = "0";
  Status s;
  do {
    s = engine_->tier()->ScanStore(prefix, options.batch_records, &cursor, &keys, &counts);
    if (!s.ok()) break;
    stats->scanned += keys.size();
    s = engine_->ReclaimStoreOrphans(d, keys, options.dry_run, &stats->reclaimed_tier, &stats->kv);
    if (options.progress) options.progress({db, "store zsets", *stats});
    if (s.ok() && !Pace(options, *stats)) s = Status::Aborted("gc stopped");
  } while (s.ok() && cursor != "0");
  return s;
}

// KVLAB.GC: one pass, synchronously, on the calling connection (others keep running: the
// command holds no key lock; each reap locks only its own keys). Replies with the pass's line.
void KvlabGcCommand(CommandContext& ctx) {
  GcStats stats;
  const Status s = Collector(&ctx.engine()).RunPass(GcOptions(), &stats);
  if (!ctx.Check(s)) return;
  ctx.reply = resp::Reply::Bulk(stats.Line());
}

BackgroundCollector::BackgroundCollector(Engine* engine, std::chrono::milliseconds interval,
                                         GcOptions options,
                                         std::function<void(const std::string&)> log)
    : BackgroundCollector(
          interval,
          [engine, options](const std::atomic<bool>* stop, GcStats* stats) {
            GcOptions with_stop = options;
            with_stop.stop = stop;
            return Collector(engine).RunPass(with_stop, stats);
          },
          std::move(log)) {}

BackgroundCollector::BackgroundCollector(std::chrono::milliseconds interval, Pass pass,
                                         std::function<void(const std::string&)> log)
    : interval_(interval), pass_(std::move(pass)), log_(std::move(log)) {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      if (cv_.wait_for(lock, interval_, [this] { return stop_.load(); })) break;
      lock.unlock();
      GcStats pass;
      const Status s = pass_(&stop_, &pass);
      if (log_ && !s.ok() && !(s.IsAborted() && stop_)) {
        log_(pass.Line() + "; stopped: " + s.ToString());
      } else if (log_ && s.ok() && pass.reclaimed() > 0) {
        log_(pass.Line());
      }
      lock.lock();
      totals_ += pass;
      ++passes_;
    }
  });
}

BackgroundCollector::~BackgroundCollector() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

GcStats BackgroundCollector::totals() const {
  std::lock_guard<std::mutex> lock(mu_);
  return totals_;
}

uint64_t BackgroundCollector::passes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return passes_;
}

}  // namespace kvlab::engine
