// Redis's glob matching (util.c stringmatchlen), for KEYS, SCAN MATCH and CONFIG GET:
// '*', '?', '[abc]', '[^a]', '[a-z]' and '\' escapes, over bytes.
#pragma once

#include <string_view>

namespace kvlab::engine {

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase = false);

}  // namespace kvlab::engine
