#include "engine/active_expiry.h"

#include <utility>
#include <vector>

#include "encodings/coding.h"
#include "engine/engine.h"

namespace kvlab::engine {

using backends::CountingStore;
using backends::OpCounts;
using backends::WriteBatch;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::SubKeyTag;
using Clock = std::chrono::steady_clock;

namespace {

bool Stopped(const ActiveExpiryOptions& options) {
  return options.stop != nullptr && options.stop->load(std::memory_order_relaxed);
}

}  // namespace

Status ActiveExpiry::Purge(const ActiveExpiryOptions& options, Clock::time_point deadline,
                           GcStats* stats, bool* done) {
  OpCounts ops;
  CountingStore counting(engine_->store(), &ops);
  std::vector<std::pair<std::string, std::string>> records;
  Status s;
  while (s.ok() && !purges_.empty()) {
    const std::string prefix = purges_.front();
    s = ReadRecordBatch(&counting, prefix, encodings::PrefixSuccessor(prefix),
                        options.purge_records, false, &records);
    if (!s.ok()) break;
    stats->scanned += records.size();
    if (!records.empty()) {
      WriteBatch batch;
      for (const auto& record : records) batch.Delete(record.first);
      s = counting.Write(batch);
      if (s.ok()) stats->reclaimed_sub_keys += records.size();
    }
    // A short read took the prefix's last records.
    if (s.ok() && records.size() < options.purge_records) purges_.pop_front();
    if (Stopped(options)) s = Status::Aborted("active expiry stopped");
    if (options.budget.count() > 0 && Clock::now() >= deadline) break;
  }
  *done = purges_.empty();
  stats->kv += ops;
  return s;
}

Status ActiveExpiry::ExpireDb(int db, const ActiveExpiryOptions& options,
                              Clock::time_point deadline, GcStats* stats, bool* done) {
  const encodings::KeyCodec& codec = engine_->codec();
  const auto d = static_cast<uint8_t>(db);
  const std::string begin = codec.TtlIndexPrefix(d);
  const std::vector<SubKeyTag> tags = engine_->registry().LazySubKeyTags();
  OpCounts ops;
  CountingStore counting(engine_->store(), &ops);
  std::vector<std::pair<std::string, std::string>> records;
  Status s;
  *done = false;
  // Entries the reap keeps (a key whose tier is down, a meta that is not kvlab's) are passed
  // over, so that they do not hold back the entries after them; the next cycle sees them again.
  std::string from = begin;
  while (s.ok()) {
    // Due: an expiry before now (a key expires once now is past it). Read again each batch,
    // since the clock moves.
    const std::string end = codec.TtlIndexKey(d, engine_->clock().NowMillis(), "");
    s = ReadRecordBatch(&counting, from, end, options.batch_entries, false, &records);
    if (!s.ok()) break;
    if (records.empty()) {
      *done = true;
      break;
    }
    from = records.back().first + '\0';
    stats->index_entries += records.size();
    stats->scanned += records.size();
    std::vector<Engine::IndexedExpiry> entries;
    for (const auto& record : records) {
      Engine::IndexedExpiry e;
      if (!codec.DecodeTtlIndexKey(d, record.first, &e.expire_ms, &e.key)) {
        ++stats->undecodable;  // not kvlab's: never deleted
        continue;
      }
      entries.push_back(std::move(e));
    }
    std::vector<std::pair<std::string, KeyMeta>> reaped;
    s = engine_->ReapIndexed(d, entries, &reaped, &stats->reclaimed_metas, &stats->reclaimed_tier,
                             &stats->stale_index_entries, &stats->kv);
    for (const auto& [key, meta] : reaped) {
      // An Ardb layout key's records went with its meta (OnDelete); a string has none.
      if (meta.type == KeyType::kString || meta.ardb_layout()) continue;
      for (SubKeyTag tag : tags) {
        purges_.push_back(codec.SubKeyPrefix(tag, d, key, meta.key_version));
      }
    }
    bool purged = true;
    if (s.ok()) s = Purge(options, deadline, stats, &purged);
    if (s.ok() && Stopped(options)) s = Status::Aborted("active expiry stopped");
    if (options.budget.count() > 0 && Clock::now() >= deadline) break;
  }
  stats->kv += ops;
  return s;
}

Status ActiveExpiry::RunCycle(const ActiveExpiryOptions& options, GcStats* stats, bool* idle) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + options.budget;
  GcStats cycle;
  bool purged = true;
  Status s = Purge(options, deadline, &cycle, &purged);
  const int databases = engine_->databases();
  for (int i = 0; i < databases && s.ok(); ++i) {
    const int db = next_db_;
    // The first database gets a batch whatever the purges took: every cycle makes progress.
    if (i > 0 && options.budget.count() > 0 && Clock::now() >= deadline) break;
    // Entries the reap keeps (a tier down, a meta not kvlab's) are read again by every cycle:
    // a database whose entries were all kept counts as quiet, or RunUntilIdle would not end.
    const uint64_t acted_before = cycle.reclaimed_metas + cycle.stale_index_entries;
    bool done = false;
    s = ExpireDb(db, options, deadline, &cycle, &done);
    if (!done) break;  // the next cycle goes on in this database
    const uint64_t acted = cycle.reclaimed_metas + cycle.stale_index_entries - acted_before;
    quiet_databases_ = acted == 0 ? quiet_databases_ + 1 : 0;
    next_db_ = (db + 1) % databases;
  }
  cycle.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  *stats += cycle;
  if (idle != nullptr) *idle = s.ok() && purges_.empty() && quiet_databases_ >= databases;
  return s;
}

Status ActiveExpiry::RunUntilIdle(const ActiveExpiryOptions& options, GcStats* stats,
                                  const std::function<void(const GcStats&)>& progress) {
  while (true) {
    bool idle = false;
    KVLAB_RETURN_IF_ERROR(RunCycle(options, stats, &idle));
    if (progress) progress(*stats);
    if (idle) return Status::OK();
  }
}

std::unique_ptr<BackgroundCollector> StartActiveExpiry(Engine* engine,
                                                       std::chrono::milliseconds interval,
                                                       ActiveExpiryOptions options) {
  auto expiry = std::make_shared<ActiveExpiry>(engine);
  return std::make_unique<BackgroundCollector>(
      interval,
      [expiry, options](const std::atomic<bool>* stop, GcStats* stats) {
        ActiveExpiryOptions with_stop = options;
        with_stop.stop = stop;
        return expiry->RunCycle(with_stop, stats);
      },
      nullptr);
}

}  // namespace kvlab::engine
