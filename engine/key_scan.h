// Walking the key-metas of a database (KEYS, SCAN, DBSIZE), and the SCAN family's cursors.
//
// Redis cursors are integers that encode a hash-table position. A KV store is walked in key
// order instead, so kvlab's cursor is an id in the engine's CursorTable (cursor_table.h), which
// holds where the walk resumes. For SCAN that is the shortest key that sorts after the last
// key-meta examined and no later than the next one, so a cursor over 4 MB keys usually holds a
// few bytes; HSCAN and ZSCAN hold the last field or member (and the key-version it belongs to).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "encodings/kv_txn.h"
#include "engine/cursor_table.h"

namespace kvlab::engine {

class CommandContext;

struct KeyScanFilter {
  std::optional<std::string> pattern;  // glob on the key
  std::optional<std::string> type;     // TYPE filter: "string", "hash", "zset", ...
};

// Calls visit(key, meta) for live keys of the transaction's database that pass the filter, in
// key-meta order, starting at the key-meta key `from` ("" for the start; inclusive), examining
// at most `max_examined` metas. *resume is where the next call starts: the shortest key after
// the last meta examined and no later than the next one, or "" when the walk reached the end
// (pass nullptr when not needed).
Status ScanKeys(
    encodings::KvTxn& txn, const std::string& from, const KeyScanFilter& filter,
    uint64_t max_examined,
    const std::function<void(const std::string& key, const encodings::KeyMeta& meta)>& visit,
    std::string* resume);

// The shortest string s with a < s <= b. REQUIRES: a < b.
std::string ShortestSeparator(std::string_view a, std::string_view b);

// Parses a SCAN-family cursor as Redis does (strtoul; "ERR invalid cursor").
bool ParseScanCursor(CommandContext& ctx, size_t arg, uint64_t* cursor);
// The position a parsed cursor names. Returns false after replying an error when the table
// issued the cursor and evicted it since. 0, and numbers the table never issued, leave
// *position empty: the iteration starts over.
bool CursorPosition(CommandContext& ctx, uint64_t cursor, std::string* position);
// The cursor to reply for `position`: "0" when there is none (the iteration is over), else a
// new id in the table. Returns false after replying an error when the position cannot be kept.
bool IssueCursor(CommandContext& ctx, std::optional<std::string> position, std::string* cursor);

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
void KeyspaceScanCommand(CommandContext& ctx);

}  // namespace kvlab::engine
