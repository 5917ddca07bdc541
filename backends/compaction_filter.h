// CompactionFilterPolicy: what a backend's own compaction may drop, decided by the records'
// owner (Kvrocks' compaction filters, 004_*: reclaiming space without a scan).
//
// The backend knows nothing of what its records mean; the engine does (engine/
// compaction_policy.h). A backend that compacts (RocksDB) asks the policy for a dropper per
// compaction and offers it every record the compaction rewrites; a dropped record becomes a
// tombstone in the compaction's output (RocksDB's CompactionFilter::Decision::kRemove), so an
// older version of the same key in a lower level can never resurface. Backends that do not
// compact (LMDB's B-tree, WiredTiger, memory) never call it: the scanning collector
// (engine/collector.h) reclaims there.
#pragma once

#include <memory>
#include <string_view>

namespace kvlab::backends {

// Decides for the records of one compaction. Used by one thread; it may keep state across
// records (the last key-meta it read).
class RecordDropper {
 public:
  virtual ~RecordDropper() = default;
  // True when the record is garbage and may be dropped. A record the dropper cannot judge
  // (undecodable, a read failed) must be kept.
  virtual bool Drop(std::string_view key, std::string_view value) = 0;
};

class CompactionFilterPolicy {
 public:
  virtual ~CompactionFilterPolicy() = default;
  // A dropper for one compaction. Called from the backend's compaction threads, concurrently.
  virtual std::unique_ptr<RecordDropper> NewDropper() const = 0;
};

}  // namespace kvlab::backends
