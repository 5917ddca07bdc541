// Parsing shared by the zset commands: score and lex ranges as Redis 7.0 parses them, and the
// reply shape of scored members.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "encodings/zset_encoding.h"
#include "engine/command_context.h"

namespace kvlab::engine {

// zslParseRange over arguments min_arg and max_arg. Sets Redis's error and returns false.
bool ParseScoreRange(CommandContext& ctx, size_t min_arg, size_t max_arg,
                     encodings::ScoreRange* range);
// zslParseLexRange over arguments min_arg and max_arg. Sets Redis's error and returns false.
bool ParseLexRange(CommandContext& ctx, size_t min_arg, size_t max_arg, encodings::LexRange* range);
// [member, ...] without scores; with scores [member, score, member, score, ...] in RESP2 and
// [[member, score], ...] in RESP3 (`nested`), as zrangeResultEmitCBufferToClient replies.
resp::Reply ScoredReply(std::vector<encodings::ScoredMember>&& members, bool with_scores,
                        bool nested);
// ScoredReply nested as the session's protocol wants (RESP3).
resp::Reply ScoredReply(CommandContext& ctx, std::vector<encodings::ScoredMember>&& members,
                        bool with_scores);

// The STORE forms' write (zset_algebra_commands.cc): replaces dst, of any type, by a zset of
// `members` in the configured zset encode-version with a fresh key-version, or deletes it when
// `members` is empty (setKey / dbDelete), and replies the new size. `preloaded`: dst's key-meta
// when the command read it already. REQUIRES: the members are distinct and no score is NaN.
void StoreZset(CommandContext& ctx, std::string_view dst,
               std::vector<encodings::ScoredMember>&& members,
               const std::optional<encodings::KeyMeta>* preloaded = nullptr);

}  // namespace kvlab::engine
