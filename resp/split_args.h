// SplitArgs: Redis's sdssplitargs, which splits an inline command (telnet, redis-cli input,
// kvlab's case files) into arguments: spaces separate; "double quotes" take \n \r \t \b \a \\ \"
// and \xHH escapes; 'single quotes' take only \'. A closing quote must be followed by a space or
// the end. Returns false on unbalanced quotes, as Redis does ("Protocol error: unbalanced
// quotes in request").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kvlab::resp {

bool SplitArgs(std::string_view line, std::vector<std::string>* args);

}  // namespace kvlab::resp
