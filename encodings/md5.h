// MD5 of a byte string, for the optional key-meta prefix and for zset member refs.
// Not used for security: only to spread keys and to shorten long members, as Camellia does.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace kvlab::encodings {

using Md5Digest = std::array<unsigned char, 16>;

Md5Digest Md5(std::string_view data);
// Lower-case hexadecimal, 32 characters.
std::string Md5Hex(std::string_view data);

}  // namespace kvlab::encodings
