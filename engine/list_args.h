// Parsing shared by the list commands, as Redis 7.0's t_list.c and object.c parse: positions
// with negative indexes, non-negative counts, LEFT/RIGHT, and the reply of a run of elements;
// and the numkeys arguments of the multi-key pops, which ZMPOP shares with LMPOP.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "encodings/list_encoding.h"
#include "engine/command_context.h"
#include "engine/config.h"

namespace kvlab::engine {

// getPositiveLongFromObjectOrReply: argument i as an integer >= 0. The error, for a non-integer
// too (as Redis 7.0), is `message` when given, else "ERR value is out of range, must be
// positive".
bool ParsePositive(CommandContext& ctx, size_t i, const char* message, int64_t* out);

// getRangeLongFromObjectOrReply(1, LONG_MAX, message): argument i as an integer >= 1; the error
// is `message` ("ERR numkeys should be greater than 0") for a non-integer too.
bool ParseAtLeastOne(CommandContext& ctx, size_t i, const char* message, int64_t* out);

// The arguments of LMPOP, ZMPOP and their blocking forms from numkeys on: numkeys key... where
// [COUNT n], in Redis's order of checks (lmpopGenericCommand, zmpopGenericCommand).
// `parse_where` reads the direction word at its index (LEFT/RIGHT, MIN/MAX) and replies its own
// error. Sets keys and count (1 without COUNT); returns false after an error reply.
bool ParseMultiPop(CommandContext& ctx, size_t numkeys_at,
                   const std::function<bool(size_t)>& parse_where, std::vector<std::string>* keys,
                   int64_t* count);

// LEFT or RIGHT, case-insensitive (getListPositionFromObjectOrReply): else a syntax error.
bool ParseListEnd(CommandContext& ctx, size_t i, encodings::ListEnd* end);

// addListRangeReply's normalization of start and stop over a list of n elements: false when
// the range is empty, else the positions first..last.
bool NormalizeRange(uint64_t n, int64_t start, int64_t stop, uint64_t* first, uint64_t* last);
// LINDEX and LSET: a negative index counts from the end; false when out of range.
bool NormalizeIndex(uint64_t n, int64_t index, uint64_t* position);

resp::Reply BulkArray(std::vector<std::string>&& elements);

}  // namespace kvlab::engine
