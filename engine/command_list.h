// The list of supported commands that README.md shows, generated from the command table, so that
// the README cannot fall behind it (command_list_test compares them; scripts/update-command-list
// rewrites README's block).
#pragma once

#include <string>

#include "engine/command_table.h"

namespace kvlab::engine {

// README's markers around the generated block.
inline constexpr const char* kCommandListBegin = "<!-- supported-commands: begin -->";
inline constexpr const char* kCommandListEnd = "<!-- supported-commands: end -->";

// Markdown: one line per command group in Redis's group order ("**Strings** (22): APPEND,
// BITCOUNT, ..."), the commands upper-case and sorted, and a total. kvlab's own commands (a
// name with a dot) are listed apart.
std::string SupportedCommandsMarkdown(const CommandTable& table);

}  // namespace kvlab::engine
