// Lua scripts for the zsets of refs (zset v2 and v3). A zset of refs sorts members with equal
// scores by ref, not by member: a member of 15 bytes or more is ref'd by its md5. To keep
// replies exact, every window is widened to the whole groups of equal scores at its edges, in
// the same script (one round trip), and kvlab re-sorts those groups by member.
//
// Each script answers nil when the zset does not exist (a cache miss for v2).
#pragma once

namespace kvlab::encodings::zset_scripts {

// ARGV: start stop reverse(0|1). Clamps the ranks as Redis does over n = ZCARD, turns reverse
// ranks into forward ones, and returns {n, a, b, r0, group}: the forward ranks [a, b] of the
// window, r0 the rank of the first member of the first score group, and group the members
// (refs) and scores of every score group the window touches, in ref order. {n} when empty.
inline constexpr const char* kRankWindow = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = redis.call('ZCARD', KEYS[1])
local a, b = tonumber(ARGV[1]), tonumber(ARGV[2])
if a < 0 then a = n + a end
if b < 0 then b = n + b end
if a < 0 then a = 0 end
if a > b or a >= n then return {n} end
if b >= n then b = n - 1 end
if ARGV[3] == '1' then a, b = n - 1 - b, n - 1 - a end
local w = redis.call('ZRANGE', KEYS[1], a, b, 'WITHSCORES')
local r0 = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. w[2])
local g = redis.call('ZRANGE', KEYS[1], w[2], w[#w], 'BYSCORE', 'WITHSCORES')
return {n, a, b, r0, g}
)lua";

// ARGV: min max offset count reverse(0|1), bounds in Redis syntax ("(1", "-inf"). Returns
// {r0, group}: group holds every member whose score lies between the scores of the window's
// first and last members (in range), r0 the number of in-range members before that group in
// the direction of travel. {0} when the window is empty.
inline constexpr const char* kScoreWindow = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local w
if ARGV[5] == '1' then
  w = redis.call('ZRANGE', KEYS[1], ARGV[2], ARGV[1], 'BYSCORE', 'REV', 'LIMIT', ARGV[3], ARGV[4], 'WITHSCORES')
else
  w = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'BYSCORE', 'LIMIT', ARGV[3], ARGV[4], 'WITHSCORES')
end
if #w == 0 then return {0} end
local first, last = w[2], w[#w]
local r0, g
if ARGV[5] == '1' then
  r0 = redis.call('ZCOUNT', KEYS[1], '(' .. first, ARGV[2])
  g = redis.call('ZRANGE', KEYS[1], last, first, 'BYSCORE', 'WITHSCORES')
else
  r0 = redis.call('ZCOUNT', KEYS[1], ARGV[1], '(' .. first)
  g = redis.call('ZRANGE', KEYS[1], first, last, 'BYSCORE', 'WITHSCORES')
end
return {r0, g}
)lua";

// ARGV: ref. Returns {n} when the member is absent, else {n, r0, refs}: r0 the number of members
// with a lower score, refs the refs sharing its score.
inline constexpr const char* kRankOf = R"lua(
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local n = redis.call('ZCARD', KEYS[1])
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s then return {n} end
local r0 = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. s)
return {n, r0, redis.call('ZRANGE', KEYS[1], s, s, 'BYSCORE')}
)lua";

// zset v3's writes to its store. KEYS[1] the zset, KEYS[2] the fence (RedisTier::kFenceKey).
// ARGV: the fence value this write carries, the number of members the zset must hold before it
// (its key-meta's count), 'ZADD' or 'ZREM', and that command's arguments after the key. Refuses
// to write, with an error, when the fence is not the one carried (a late write: kvlab moved the
// fence on since) or the zset does not hold the expected count (the store lost data; a missing
// zset holds 0). Returns {the command's reply, the zset's count after it}.
inline constexpr const char* kStoreWrite = R"lua(
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('KVLABFENCE this write carries an old fence')
end
local n = redis.call('ZCARD', KEYS[1])
if n ~= tonumber(ARGV[2]) then return redis.error_reply('KVLABCOUNT ' .. n) end
local r = redis.call(ARGV[3], KEYS[1], unpack(ARGV, 4))
return {r, redis.call('ZCARD', KEYS[1])}
)lua";

}  // namespace kvlab::encodings::zset_scripts
