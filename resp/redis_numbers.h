// Numbers as Redis 7.0 parses and prints them, so that replies and errors match byte for byte.
// Each function names the Redis routine it reproduces (util.c, object.c, t_zset.c).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kvlab::resp {

// string2ll: an optional '-', then digits; no '+', no spaces, no leading zeros ("0" alone is
// fine, "-0" is not), must fit in int64.
bool ParseInt64(std::string_view s, int64_t* out);

// string2d (getDoubleFromObject): strtod over the whole string; rejects a leading space, NaN,
// and overflow to +-inf or underflow to 0 (ERANGE). "inf", "-inf", "+inf" are accepted.
bool ParseDouble(std::string_view s, double* out);

// string2ld (getLongDoubleFromObject): as ParseDouble, in long double, for HINCRBYFLOAT.
bool ParseLongDouble(std::string_view s, long double* out);

// zslParseRange's bound: an optional '(' for exclusive, then strtod over the rest; only NaN and
// trailing characters are rejected (no space or range check; "" and "(" read as 0; the text
// ends at an embedded NUL), exactly as in Redis.
bool ParseScoreBound(std::string_view s, double* value, bool* exclusive);

// addReplyDouble (RESP2): "inf", "-inf", or "%.17g".
std::string FormatDouble(double v);

// d2string, the text a listpack-encoded zset stores a score as, which ZSCAN returns as is: an
// integral score within +-2^62 as integer text ("123456789012345680"), otherwise as
// FormatDouble.
std::string FormatListpackScore(double v);

// ld2string(LD_STR_HUMAN): "%.17Lf" with trailing zeros (and a trailing '.') removed, "-0"
// turned into "0". Returns false when the text would exceed Redis's 5 KiB buffer.
bool FormatLongDoubleHuman(long double v, std::string* out);

}  // namespace kvlab::resp
