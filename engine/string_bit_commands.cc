// String commands that work on a value's bits or bytes: SETBIT, GETBIT, BITCOUNT, BITPOS
// (Redis 7.0's bitops.c) and LCS (t_string.c). Each reads the one key-meta that holds the value;
// SETBIT writes it back only when the value changes.
#include <strings.h>

#include <bit>
#include <climits>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/string_value.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyMeta;
using encodings::KeyType;
using resp::ParseInt64;
using resp::Reply;

namespace {

// SETBIT's and GETBIT's offset: getBitOffsetFromArgument without BITFIELD's '#' form.
bool BitOffset(CommandContext& ctx, size_t arg, uint64_t* offset) {
  return BitOffsetArg(ctx, arg, /*bits=*/0, offset);
}

int64_t Popcount(std::string_view bytes) {
  int64_t n = 0;
  for (unsigned char c : bytes) n += std::popcount(c);
  return n;
}

// redisBitpos: the position of the first bit equal to `bit` in bytes, counting from the first
// byte's most significant bit. Not found: -1 for a 1, and the first bit past the end for a 0
// (the string is taken as padded with zeros to the right).
int64_t Bitpos(std::string_view bytes, int bit) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bit ? bytes[i] : ~bytes[i]);
    if (b != 0) return static_cast<int64_t>(i) * 8 + std::countl_zero(b);
  }
  return bit ? -1 : static_cast<int64_t>(bytes.size()) * 8;
}

// Parses "BIT" or "BYTE" (case-insensitive). Sets the syntax error and returns false otherwise.
bool BitOrByte(CommandContext& ctx, size_t arg, bool* is_bit) {
  if (!strcasecmp(ctx.arg(arg).c_str(), "bit")) {
    *is_bit = true;
  } else if (!strcasecmp(ctx.arg(arg).c_str(), "byte")) {
    *is_bit = false;
  } else {
    ctx.ReplyError(errors::kSyntax);
    return false;
  }
  return true;
}

// The byte range [*start, *end] of a range given in bits or bytes over a value of `length`
// bytes, as bitcountCommand and bitposCommand convert it; for a bit range also the masks of the
// bits of the first and last byte that lie outside it.
struct ByteRange {
  int64_t start = 0, end = 0;
  unsigned char first_mask = 0, last_mask = 0;
};
ByteRange ToByteRange(int64_t start, int64_t end, int64_t length, bool is_bit) {
  int64_t total = is_bit ? length << 3 : length;
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  ByteRange r;
  if (is_bit && start <= end) {
    r.first_mask = static_cast<unsigned char>(~((1u << (8 - (start & 7))) - 1) & 0xFF);
    r.last_mask = static_cast<unsigned char>((1u << (7 - (end & 7))) - 1);
    start >>= 3;
    end >>= 3;
  }
  r.start = start;
  r.end = end;
  return r;
}

}  // namespace

bool BitOffsetArg(CommandContext& ctx, size_t arg, int bits, uint64_t* offset) {
  std::string_view text = ctx.arg(arg);
  const bool hash = bits > 0 && !text.empty() && text[0] == '#';
  if (hash) text.remove_prefix(1);
  int64_t v = 0;
  bool ok = ParseInt64(text, &v);
  // Redis multiplies as a C long long: a product past 64 bits wraps (and may then pass the
  // checks below, as it does on Redis).
  if (ok && hash) v = static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(bits));
  if (!ok || v < 0 || static_cast<uint64_t>(v >> 3) >= ctx.engine().proto_max_bulk_len()) {
    ctx.ReplyError("ERR bit offset is not an integer or out of range");
    return false;
  }
  *offset = static_cast<uint64_t>(v);
  return true;
}

// setbitCommand.
void SetbitCommand(CommandContext& ctx) {
  uint64_t offset = 0;
  if (!BitOffset(ctx, 2, &offset)) return;
  int64_t on = 0;
  if (!ParseInt64(ctx.arg(3), &on) || (on & ~1) != 0) {
    return ctx.ReplyError("ERR bit is not an integer or out of range");
  }
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  const size_t byte = offset >> 3;
  const int shift = 7 - static_cast<int>(offset & 7);
  std::string value = found ? std::move(meta.value) : std::string();
  const bool grows = value.size() < byte + 1;
  if (grows) value.resize(byte + 1, '\0');
  auto byte_value = static_cast<unsigned char>(value[byte]);
  const int old_bit = (byte_value >> shift) & 1;
  if (!found || grows || old_bit != on) {
    byte_value = static_cast<unsigned char>((byte_value & ~(1u << shift)) |
                                            (static_cast<unsigned>(on) << shift));
    value[byte] = static_cast<char>(byte_value);
    StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
  }
  ctx.reply = Reply::Integer(old_bit);
}

// getbitCommand: the offset is checked before the key is read.
void GetbitCommand(CommandContext& ctx) {
  uint64_t offset = 0;
  if (!BitOffset(ctx, 2, &offset)) return;
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  const size_t byte = offset >> 3;
  int bit = 0;
  if (found && byte < meta.value.size()) {
    bit = (static_cast<unsigned char>(meta.value[byte]) >> (7 - (offset & 7))) & 1;
  }
  ctx.reply = Reply::Integer(bit);
}

// BITCOUNT key [start end [BYTE|BIT]]: Redis 7.0 reads the key first, so an absent key counts
// 0 whatever the other arguments.
void BitcountCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  if (!found) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  const std::string_view p = meta.value;
  const auto length = static_cast<int64_t>(p.size());
  ByteRange r;
  if (ctx.argc() == 4 || ctx.argc() == 5) {
    int64_t start = 0, end = 0;
    if (!ctx.ArgInt64(2, &start) || !ctx.ArgInt64(3, &end)) return;
    if (start < 0 && end < 0 && start > end) {
      ctx.reply = Reply::Integer(0);
      return;
    }
    bool is_bit = false;
    if (ctx.argc() == 5 && !BitOrByte(ctx, 4, &is_bit)) return;
    r = ToByteRange(start, end, length, is_bit);
  } else if (ctx.argc() == 2) {
    r.end = length - 1;
  } else {
    return ctx.ReplyError(errors::kSyntax);
  }
  if (r.start > r.end) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  const auto first = static_cast<size_t>(r.start), last = static_cast<size_t>(r.end);
  int64_t count = Popcount(p.substr(first, last - first + 1));
  if (r.first_mask != 0)
    count -= std::popcount(static_cast<unsigned char>(p[first] & r.first_mask));
  if (r.last_mask != 0) count -= std::popcount(static_cast<unsigned char>(p[last] & r.last_mask));
  ctx.reply = Reply::Integer(count);
}

// BITPOS key bit [start [end [BYTE|BIT]]]: the bit is parsed first, then the key is read.
void BitposCommand(CommandContext& ctx) {
  int64_t bit = 0;
  if (!ctx.ArgInt64(2, &bit)) return;
  if (bit != 0 && bit != 1) return ctx.ReplyError("ERR The bit argument must be 1 or 0.");
  KeyMeta meta;
  bool found = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(1), &meta, &found))) return;
  if (!found) {
    // An absent key is an infinite run of zeros.
    ctx.reply = Reply::Integer(bit ? -1 : 0);
    return;
  }
  if (meta.type != KeyType::kString) return ctx.ReplyError(errors::kWrongType);
  const std::string_view p = meta.value;
  const auto length = static_cast<int64_t>(p.size());
  bool end_given = false;
  ByteRange r;
  if (ctx.argc() >= 4 && ctx.argc() <= 6) {
    int64_t start = 0, end = 0;
    if (!ctx.ArgInt64(3, &start)) return;
    bool is_bit = false;
    if (ctx.argc() == 6 && !BitOrByte(ctx, 5, &is_bit)) return;
    if (ctx.argc() >= 5) {
      if (!ctx.ArgInt64(4, &end)) return;
      end_given = true;
    } else {
      end = length - 1;
    }
    r = ToByteRange(start, end, length, is_bit);
  } else if (ctx.argc() == 3) {
    r.end = length - 1;
  } else {
    return ctx.ReplyError(errors::kSyntax);
  }
  if (r.start > r.end) {
    ctx.reply = Reply::Integer(-1);
    return;
  }
  int64_t start = r.start, bytes = r.end - r.start + 1, pos = -1;
  const auto at = [&](int64_t i) { return static_cast<unsigned char>(p[static_cast<size_t>(i)]); };
  // The first and last bytes of a bit range have bits outside it: they are masked to the value
  // that cannot match, and searched on their own.
  auto masked = [&](unsigned char c, unsigned char mask) {
    return static_cast<char>(bit ? (c & ~mask) : (c | mask));
  };
  bool done = false;
  if (r.first_mask != 0) {
    char c = masked(at(start), r.first_mask);
    if (r.last_mask != 0 && bytes == 1) c = masked(static_cast<unsigned char>(c), r.last_mask);
    pos = Bitpos(std::string_view(&c, 1), static_cast<int>(bit));
    if (bytes == 1 || (pos != -1 && pos != 8)) {
      done = true;
    } else {
      ++start;
      --bytes;
    }
  }
  if (!done) {
    const int64_t middle = bytes - (r.last_mask != 0 ? 1 : 0);
    if (middle > 0) {
      pos = Bitpos(p.substr(static_cast<size_t>(start), static_cast<size_t>(middle)),
                   static_cast<int>(bit));
      if (bytes == middle || (pos != -1 && pos != middle << 3)) {
        done = true;
      } else {
        start += middle;
        bytes -= middle;
      }
    }
  }
  if (!done) {
    const char c = masked(at(r.end), r.last_mask);
    pos = Bitpos(std::string_view(&c, 1), static_cast<int>(bit));
  }
  // With an explicit end, the bits right of the range are not zero padding: a 0 not found in
  // the range is not found.
  if (end_given && bit == 0 && pos == bytes << 3) {
    ctx.reply = Reply::Integer(-1);
    return;
  }
  if (pos != -1) pos += start << 3;
  ctx.reply = Reply::Integer(pos);
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the keys are read before the
// options are parsed, as lcsCommand does.
void LcsCommand(CommandContext& ctx) {
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas({ctx.arg(1), ctx.arg(2)}, &metas))) return;
  for (const auto& m : metas) {
    if (m && m->type != KeyType::kString) {
      return ctx.ReplyError("ERR The specified keys must contain string values");
    }
  }
  const std::string a = metas[0] ? std::move(metas[0]->value) : std::string();
  const std::string b = metas[1] ? std::move(metas[1]->value) : std::string();
  bool get_idx = false, get_len = false, with_match_len = false;
  int64_t min_match_len = 0;
  for (size_t j = 3; j < ctx.argc(); ++j) {
    const char* opt = ctx.arg(j).c_str();
    const bool more = j + 1 < ctx.argc();
    if (!strcasecmp(opt, "idx")) {
      get_idx = true;
    } else if (!strcasecmp(opt, "len")) {
      get_len = true;
    } else if (!strcasecmp(opt, "withmatchlen")) {
      with_match_len = true;
    } else if (!strcasecmp(opt, "minmatchlen") && more) {
      if (!ctx.ArgInt64(j + 1, &min_match_len)) return;
      if (min_match_len < 0) min_match_len = 0;
      ++j;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  if (get_idx && get_len) {
    return ctx.ReplyError("ERR If you want both the length and indexes, please just use IDX.");
  }
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    return ctx.ReplyError("ERR String too long for LCS");
  }
  const auto alen = static_cast<uint32_t>(a.size()), blen = static_cast<uint32_t>(b.size());
  const uint64_t cells = static_cast<uint64_t>(alen + 1) * (blen + 1);
  if (cells * sizeof(uint32_t) > ctx.engine().proto_max_bulk_len()) {
    return ctx.ReplyError(
        "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
  }
  // dp[i][j]: the LCS length of a[0..i) and b[0..j).
  std::vector<uint32_t> dp(cells, 0);
  auto at = [&](uint32_t i, uint32_t j) -> uint32_t& {
    return dp[static_cast<size_t>(i) * (blen + 1) + j];
  };
  for (uint32_t i = 1; i <= alen; ++i) {
    for (uint32_t j = 1; j <= blen; ++j) {
      at(i, j) = a[i - 1] == b[j - 1] ? at(i - 1, j - 1) + 1 : std::max(at(i - 1, j), at(i, j - 1));
    }
  }
  const uint32_t total = at(alen, blen);
  if (get_len) {
    ctx.reply = Reply::Integer(total);
    return;
  }
  // Walk back from the end, collecting the LCS and the contiguous ranges of matches, last
  // first, exactly in the order Redis emits them.
  std::string result(total, '\0');
  std::vector<Reply> matches;
  uint32_t idx = total, i = alen, j = blen;
  uint32_t a_start = alen, a_end = 0, b_start = 0, b_end = 0;
  while (i > 0 && j > 0) {
    bool emit = false;
    if (a[i - 1] == b[j - 1]) {
      result[idx - 1] = a[i - 1];
      if (a_start == alen) {
        a_start = a_end = i - 1;
        b_start = b_end = j - 1;
      } else if (a_start == i && b_start == j) {
        --a_start;
        --b_start;
      } else {
        emit = true;
      }
      if (a_start == 0 || b_start == 0) emit = true;
      --idx;
      --i;
      --j;
    } else {
      if (at(i - 1, j) > at(i, j - 1)) {
        --i;
      } else {
        --j;
      }
      if (a_start != alen) emit = true;
    }
    if (emit) {
      const uint32_t match_len = a_end - a_start + 1;
      if (get_idx && (min_match_len == 0 || match_len >= min_match_len)) {
        std::vector<Reply> match = {
            Reply::Array({Reply::Integer(a_start), Reply::Integer(a_end)}),
            Reply::Array({Reply::Integer(b_start), Reply::Integer(b_end)}),
        };
        if (with_match_len) match.push_back(Reply::Integer(match_len));
        matches.push_back(Reply::Array(std::move(match)));
      }
      a_start = alen;
    }
  }
  if (get_idx) {
    ctx.reply = Reply::Map({Reply::Bulk("matches"), Reply::Array(std::move(matches)),
                            Reply::Bulk("len"), Reply::Integer(total)});
  } else {
    ctx.reply = Reply::Bulk(std::move(result));
  }
}

}  // namespace kvlab::engine
