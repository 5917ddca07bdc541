// Walking the key-metas of a database (KEYS, SCAN, DBSIZE), and SCAN's cursors.
//
// Redis cursors are integers that encode a hash-table position. A KV store is walked in key
// order instead, so kvlab's cursor is an id in a CursorTable that remembers where the walk
// stopped (the last key-meta key examined). The table is bounded: a cursor that has been
// evicted, or was never issued, restarts the walk from the beginning, which keeps SCAN's
// guarantee that every key present for the whole iteration is returned at least once.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "encodings/kv_txn.h"

namespace kvlab::engine {

class CommandContext;

struct KeyScanFilter {
  std::optional<std::string> pattern;  // glob on the key
  std::optional<std::string> type;     // TYPE filter: "string", "hash", "zset", ...
};

// Calls visit(key, meta) for live keys of the transaction's database that pass the filter, in
// key-meta order, starting after the key-meta key `after` ("" for the start), examining at most
// `max_examined` metas. *last is the last key-meta key examined, or "" when the walk reached the
// end (pass nullptr when not needed).
Status ScanKeys(
    encodings::KvTxn& txn, const std::string& after, const KeyScanFilter& filter,
    uint64_t max_examined,
    const std::function<void(const std::string& key, const encodings::KeyMeta& meta)>& visit,
    std::string* last);

// Maps cursor ids to resume positions. Thread-safe; bounded FIFO.
class CursorTable {
 public:
  explicit CursorTable(size_t capacity = 16384) : capacity_(capacity) {}
  // A new non-zero cursor id for `position`.
  uint64_t Issue(std::string position);
  // The position of a cursor, or nullopt when unknown (0, evicted, or never issued).
  std::optional<std::string> Lookup(uint64_t cursor) const;

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::unordered_map<uint64_t, std::string> positions_;
  std::deque<uint64_t> order_;
};

// Parses a SCAN-family cursor as Redis does (strtoul; "ERR invalid cursor").
bool ParseScanCursor(CommandContext& ctx, size_t arg, uint64_t* cursor);

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
void KeyspaceScanCommand(CommandContext& ctx);

}  // namespace kvlab::engine
