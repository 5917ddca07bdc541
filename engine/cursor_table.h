// CursorTable: where SCAN, HSCAN and ZSCAN iterations resume.
//
// A Redis cursor is an unsigned 64-bit number that encodes a hash-table position, so Redis keeps
// no state per iteration. kvlab walks its keyspace in key order, and a position there is a key,
// which does not fit in 64 bits; clients parse cursors as numbers (redis-cli, redis-py,
// go-redis), so the cursor cannot be the key itself. kvlab's cursor is therefore an id in this
// table, which maps it to the position the next call resumes from.
//
// The guarantee Redis gives, that a full iteration returns every element present from its start
// to its end, holds as long as the iteration's cursors are in the table. The table is bounded
// (max_cursors ids, max_bytes of positions plus a fixed overhead per id) and never drops a
// cursor silently:
// - when it is full, it evicts the oldest cursor of the owner (the client connection that
//   issued it) using the most memory, so a client that opens scans by the thousand evicts its
//   own cursors before anyone else's;
// - a cursor this table issued and then evicted is reported as expired: the command replies
//   with an error that says so, never with a silent restart of the iteration;
// - a number this process never issued (a cursor from before a restart, or any other number)
//   starts the iteration over, as Redis accepts any cursor: the full iteration still returns
//   every element, with duplicates.
//
// Cursor ids: bit 63 is 0 (they also fit a signed 64-bit integer); bits 47-62 are a random
// non-zero epoch chosen per table, so ids of an earlier process are not mistaken for this one's;
// bits 0-46 number the cursors issued, from 1.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

#include "base/status.h"

namespace kvlab::engine {

struct CursorLimits {
  size_t max_cursors = 65536;
  size_t max_bytes = 64ull << 20;  // positions plus kEntryOverhead per cursor
};

class CursorTable {
 public:
  // What one cursor costs besides its position (map node, queue slot), for the byte bound.
  static constexpr size_t kEntryOverhead = 96;

  explicit CursorTable(CursorLimits limits = {});

  // A new cursor id for `position`, owned by `owner` (a client id; 0 for in-process sessions).
  // Fails with InvalidArgument when the position alone is larger than max_bytes.
  Status Issue(uint64_t owner, std::string position, uint64_t* cursor);

  enum class Found { kPosition, kExpired, kUnknown };
  // The position of a cursor. kExpired: this table issued it and evicted it since. kUnknown:
  // this table never issued it (0 included).
  Found Lookup(uint64_t cursor, std::string* position) const;

  size_t size() const;
  size_t bytes() const;
  uint64_t evicted() const;
  const CursorLimits& limits() const { return limits_; }

 private:
  struct Entry {
    uint64_t owner;
    std::string position;
  };
  struct Owner {
    std::deque<uint64_t> ids;  // oldest first
    size_t bytes = 0;
  };
  static size_t Cost(const std::string& position) { return position.size() + kEntryOverhead; }
  // REQUIRES: mu_ held and the table not empty.
  void EvictOne();

  const CursorLimits limits_;
  const uint64_t epoch_;
  mutable std::mutex mu_;
  uint64_t next_seq_ = 1;
  std::unordered_map<uint64_t, Entry> entries_;
  std::map<uint64_t, Owner> owners_;
  std::set<std::pair<size_t, uint64_t>> by_usage_;  // (bytes, owner), the largest last
  size_t bytes_ = 0;
  uint64_t evicted_ = 0;
};

}  // namespace kvlab::engine
