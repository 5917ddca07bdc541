// BITOP, BITFIELD and BITFIELD_RO (Redis 7.0's bitops.c): bitwise operations between strings,
// and integers of 1 to 64 bits at any bit offset of a string. A string is its key-meta alone, so
// BITFIELD reads one key-meta and writes it back only when a value changes, the string grows or
// the key is created; BITOP reads its destination and sources in one multiget and writes (or
// deletes) the destination. Parsing, checks and errors follow bitops.c in its order.
#include <strings.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/string_value.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyMeta;
using encodings::KeyType;
using resp::Reply;

namespace {

// ---- BITOP ----

enum class BitOp { kAnd, kOr, kXor, kNot };

// The result of `op` over `sources` (a missing key is an empty string): as long as the longest
// source, the shorter ones taken as padded with zero bytes. Empty when every source is.
std::string ComputeBitop(BitOp op, const std::vector<std::string_view>& sources) {
  size_t maxlen = 0;
  for (std::string_view s : sources) maxlen = std::max(maxlen, s.size());
  if (maxlen == 0) return {};
  std::string out(maxlen, '\0');
  out.replace(0, sources[0].size(), sources[0]);
  if (op == BitOp::kNot) {
    for (char& c : out) c = static_cast<char>(~static_cast<unsigned char>(c));
    return out;
  }
  for (size_t i = 1; i < sources.size(); ++i) {
    const std::string_view s = sources[i];
    switch (op) {
      case BitOp::kAnd:
        for (size_t j = 0; j < s.size(); ++j) out[j] = static_cast<char>(out[j] & s[j]);
        std::fill(out.begin() + static_cast<std::ptrdiff_t>(s.size()), out.end(), '\0');
        break;
      case BitOp::kOr:
        for (size_t j = 0; j < s.size(); ++j) out[j] = static_cast<char>(out[j] | s[j]);
        break;
      case BitOp::kXor:
        for (size_t j = 0; j < s.size(); ++j) out[j] = static_cast<char>(out[j] ^ s[j]);
        break;
      case BitOp::kNot:
        break;
    }
  }
  return out;
}

// ---- BITFIELD ----

enum class Overflow { kWrap, kSat, kFail };
enum class FieldOp { kGet, kSet, kIncrby };

struct BitfieldOp {
  uint64_t offset = 0;
  int64_t i64 = 0;  // INCRBY's increment or SET's value
  FieldOp op = FieldOp::kGet;
  Overflow overflow = Overflow::kWrap;
  int bits = 0;
  bool sign = false;
};

// getUnsignedBitfield over `p`, the bits past its end read as 0 (GET reads past the end of a
// string as bitfieldGeneric's zero-padded copy does).
uint64_t GetUnsigned(std::string_view p, uint64_t offset, int bits) {
  uint64_t value = 0;
  for (int j = 0; j < bits; ++j, ++offset) {
    const uint64_t byte = offset >> 3;
    const int bit = 7 - static_cast<int>(offset & 7);
    const uint64_t bitval =
        byte < p.size() ? (static_cast<unsigned char>(p[static_cast<size_t>(byte)]) >> bit) & 1 : 0;
    value = (value << 1) | bitval;
  }
  return value;
}

// getSignedBitfield: the top bit of the field is the sign, propagated to the higher bits.
int64_t GetSigned(std::string_view p, uint64_t offset, int bits) {
  uint64_t value = GetUnsigned(p, offset, bits);
  if (bits < 64 && (value & (uint64_t{1} << (bits - 1)))) value |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(value);
}

// setUnsignedBitfield: the low `bits` bits of value, most significant first.
// REQUIRES: p holds the bits [offset, offset + bits).
void SetBits(std::string* p, uint64_t offset, int bits, uint64_t value) {
  for (int j = 0; j < bits; ++j, ++offset) {
    const uint64_t bitval = (value >> (bits - 1 - j)) & 1;
    const auto byte = static_cast<size_t>(offset >> 3);
    const int bit = 7 - static_cast<int>(offset & 7);
    auto byteval = static_cast<unsigned char>((*p)[byte]);
    byteval = static_cast<unsigned char>((byteval & ~(1u << bit)) | (bitval << bit));
    (*p)[byte] = static_cast<char>(byteval);
  }
}

// checkUnsignedBitfieldOverflow: 0 when value + incr fits in `bits` unsigned bits, 1 on
// overflow, -1 on underflow; then *limit is the value to store under WRAP and SAT. Computed as
// bitops.c computes it, in 64-bit two's complement, so that values out of range (SET u8 0 -1)
// wrap and saturate as on Redis.
int CheckUnsignedOverflow(uint64_t value, int64_t incr, int bits, Overflow ow, uint64_t* limit) {
  const uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
  const auto maxincr = static_cast<int64_t>(max - value);
  const auto minincr = static_cast<int64_t>(uint64_t{0} - value);
  int result = 0;
  if (value > max || (incr > 0 && incr > maxincr)) {
    result = 1;
    if (ow == Overflow::kSat) *limit = max;
  } else if (incr < 0 && incr < minincr) {
    result = -1;
    if (ow == Overflow::kSat) *limit = 0;
  }
  if (result != 0 && ow == Overflow::kWrap) {
    const uint64_t mask = bits == 64 ? 0 : ~uint64_t{0} << bits;
    *limit = (value + static_cast<uint64_t>(incr)) & ~mask;
    result = 1;  // bitops.c reports a wrap as an overflow, whichever way it went
  }
  return result;
}

// checkSignedBitfieldOverflow, likewise (its differences of limits and value computed as
// unsigned, so that a value far outside the type's range compares as on Redis).
int CheckSignedOverflow(int64_t value, int64_t incr, int bits, Overflow ow, int64_t* limit) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const auto maxincr =
      static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const auto minincr =
      static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  int result = 0;
  if (value > max || (bits != 64 && incr > maxincr) || (value >= 0 && incr > 0 && incr > maxincr)) {
    result = 1;
    if (ow == Overflow::kSat) *limit = max;
  } else if (value < min || (bits != 64 && incr < minincr) ||
             (value < 0 && incr < 0 && incr < minincr)) {
    result = -1;
    if (ow == Overflow::kSat) *limit = min;
  }
  if (result != 0 && ow == Overflow::kWrap) {
    uint64_t c = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) {
      const uint64_t mask = ~uint64_t{0} << bits;
      c = (c & (uint64_t{1} << (bits - 1))) ? (c | mask) : (c & ~mask);
    }
    *limit = static_cast<int64_t>(c);
    result = 1;
  }
  return result;
}

// getBitfieldTypeFromArgument: i1..i64 or u1..u63.
bool BitfieldType(CommandContext& ctx, size_t arg, bool* sign, int* bits) {
  const std::string& p = ctx.arg(arg);
  int64_t n = 0;
  bool ok = !p.empty() && (p[0] == 'i' || p[0] == 'u');
  if (ok) {
    *sign = p[0] == 'i';
    // bitops.c reads the digits with strlen: a NUL ends them.
    const std::string_view digits(p.c_str() + 1);
    ok = resp::ParseInt64(digits, &n) && n >= 1 && n <= (*sign ? 64 : 63);
  }
  if (!ok) {
    ctx.ReplyError(
        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
        "but i64 is.");
    return false;
  }
  *bits = static_cast<int>(n);
  return true;
}

// Parses BITFIELD's subcommands from argument 2 on into *ops. *readonly stays true when they
// are all GETs; *highest is the last bit a SET or INCRBY writes. Replies the error and returns
// false on a bad one, as bitfieldGeneric's loop does, in its order.
bool ParseBitfieldOps(CommandContext& ctx, std::vector<BitfieldOp>* ops, bool* readonly,
                      uint64_t* highest) {
  Overflow overflow = Overflow::kWrap;
  for (size_t j = 2; j < ctx.argc(); ++j) {
    const size_t remaining = ctx.argc() - j - 1;
    const char* sub = ctx.arg(j).c_str();
    BitfieldOp op;
    if (!strcasecmp(sub, "get") && remaining >= 2) {
      op.op = FieldOp::kGet;
    } else if (!strcasecmp(sub, "set") && remaining >= 3) {
      op.op = FieldOp::kSet;
    } else if (!strcasecmp(sub, "incrby") && remaining >= 3) {
      op.op = FieldOp::kIncrby;
    } else if (!strcasecmp(sub, "overflow") && remaining >= 1) {
      const char* type = ctx.arg(++j).c_str();
      if (!strcasecmp(type, "wrap")) {
        overflow = Overflow::kWrap;
      } else if (!strcasecmp(type, "sat")) {
        overflow = Overflow::kSat;
      } else if (!strcasecmp(type, "fail")) {
        overflow = Overflow::kFail;
      } else {
        ctx.ReplyError("ERR Invalid OVERFLOW type specified");
        return false;
      }
      continue;
    } else {
      ctx.ReplyError(errors::kSyntax);
      return false;
    }
    if (!BitfieldType(ctx, j + 1, &op.sign, &op.bits)) return false;
    if (!BitOffsetArg(ctx, j + 2, op.bits, &op.offset)) return false;
    if (op.op != FieldOp::kGet) {
      *readonly = false;
      *highest = std::max(*highest, op.offset + static_cast<uint64_t>(op.bits) - 1);
      if (!ctx.ArgInt64(j + 3, &op.i64)) return false;
    }
    op.overflow = overflow;
    ops->push_back(op);
    j += op.op == FieldOp::kGet ? 2 : 3;
  }
  return true;
}

// Runs a SET or INCRBY on *value: its reply (the new value for INCRBY, the old one for SET;
// nil when OVERFLOW FAIL refuses it). *changed is set when the field's bits change.
Reply RunWrite(const BitfieldOp& op, std::string* value, bool* changed) {
  bool fail = false;
  uint64_t stored = 0, old_bits = 0;
  int64_t reply = 0;
  if (op.sign) {
    const int64_t oldval = GetSigned(*value, op.offset, op.bits);
    int64_t newval = 0, wrapped = 0;
    int overflow = 0;
    if (op.op == FieldOp::kIncrby) {
      overflow = CheckSignedOverflow(oldval, op.i64, op.bits, op.overflow, &wrapped);
      newval =
          overflow
              ? wrapped
              : static_cast<int64_t>(static_cast<uint64_t>(oldval) + static_cast<uint64_t>(op.i64));
      reply = newval;
    } else {
      newval = op.i64;
      overflow = CheckSignedOverflow(newval, 0, op.bits, op.overflow, &wrapped);
      if (overflow) newval = wrapped;
      reply = oldval;
    }
    fail = overflow != 0 && op.overflow == Overflow::kFail;
    stored = static_cast<uint64_t>(newval);
    old_bits = static_cast<uint64_t>(oldval);
  } else {
    const uint64_t oldval = GetUnsigned(*value, op.offset, op.bits);
    uint64_t newval = 0, wrapped = 0;
    int overflow = 0;
    if (op.op == FieldOp::kIncrby) {
      newval = oldval + static_cast<uint64_t>(op.i64);
      overflow = CheckUnsignedOverflow(oldval, op.i64, op.bits, op.overflow, &wrapped);
      if (overflow) newval = wrapped;
      reply = static_cast<int64_t>(newval);
    } else {
      newval = static_cast<uint64_t>(op.i64);
      overflow = CheckUnsignedOverflow(newval, 0, op.bits, op.overflow, &wrapped);
      if (overflow) newval = wrapped;
      reply = static_cast<int64_t>(oldval);
    }
    fail = overflow != 0 && op.overflow == Overflow::kFail;
    stored = newval;
    old_bits = oldval;
  }
  if (fail) return Reply::Nil();
  // Only the field's low `bits` bits are stored: compare those.
  const uint64_t mask = op.bits == 64 ? UINT64_MAX : (uint64_t{1} << op.bits) - 1;
  if ((stored & mask) != (old_bits & mask)) *changed = true;
  SetBits(value, op.offset, op.bits, stored);
  return Reply::Integer(reply);
}

// bitfieldGeneric: BITFIELD, or BITFIELD_RO with `ro_command` (GET only).
void Bitfield(CommandContext& ctx, bool ro_command) {
  std::vector<BitfieldOp> ops;
  bool readonly = true;
  uint64_t highest = 0;
  if (!ParseBitfieldOps(ctx, &ops, &readonly, &highest)) return;
  if (!readonly && ro_command) {
    return ctx.ReplyError("ERR BITFIELD_RO only supports the GET subcommand");
  }
  KeyMeta meta;
  bool found = false;
  if (!LoadString(ctx, ctx.arg(1), &meta, &found)) return;
  std::string value = found ? std::move(meta.value) : std::string();
  // lookupStringForBitCommand: a write creates the key, or pads it with zero bytes up to the
  // farthest bit written, before any subcommand runs (and keeps it so even when OVERFLOW FAIL
  // then refuses every write).
  bool write = false;
  if (!readonly) {
    const auto needed = static_cast<size_t>((highest >> 3) + 1);
    if (!found || value.size() < needed) {
      write = true;
      if (value.size() < needed) value.resize(needed, '\0');
    }
  }
  std::vector<Reply> replies;
  replies.reserve(ops.size());
  for (const BitfieldOp& op : ops) {
    if (op.op == FieldOp::kGet) {
      replies.push_back(
          Reply::Integer(op.sign ? GetSigned(value, op.offset, op.bits)
                                 : static_cast<int64_t>(GetUnsigned(value, op.offset, op.bits))));
    } else {
      replies.push_back(RunWrite(op, &value, &write));
    }
  }
  if (write) StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
  ctx.reply = Reply::Array(std::move(replies));
}

}  // namespace

// BITOP op destkey key [key ...]: the operation and NOT's single source are checked before any
// key is read; the destination, of any type, is replaced by the result (without TTL), or
// deleted when the result is empty. Replies the result's length.
void BitopCommand(CommandContext& ctx) {
  const char* name = ctx.arg(1).c_str();
  BitOp op;
  if (!strcasecmp(name, "and")) {
    op = BitOp::kAnd;
  } else if (!strcasecmp(name, "or")) {
    op = BitOp::kOr;
  } else if (!strcasecmp(name, "xor")) {
    op = BitOp::kXor;
  } else if (!strcasecmp(name, "not")) {
    op = BitOp::kNot;
  } else {
    return ctx.ReplyError(errors::kSyntax);
  }
  if (op == BitOp::kNot && ctx.argc() != 4) {
    return ctx.ReplyError("ERR BITOP NOT must be called with a single source key.");
  }
  // One multiget: the destination (to replace it), then the sources.
  std::vector<std::string_view> keys;
  for (size_t i = 2; i < ctx.argc(); ++i) keys.push_back(ctx.arg(i));
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return;
  std::vector<std::string_view> sources;
  for (size_t i = 1; i < metas.size(); ++i) {
    if (metas[i] && metas[i]->type != KeyType::kString) {
      return ctx.ReplyError(errors::kWrongType);
    }
    sources.emplace_back(metas[i] ? std::string_view(metas[i]->value) : std::string_view());
  }
  std::string result = ComputeBitop(op, sources);
  const auto length = static_cast<int64_t>(result.size());
  const std::optional<KeyMeta> dst = metas[0];
  bool existed = false;
  if (!ctx.PrepareOverwrite(ctx.arg(2), &existed, &dst)) return;
  if (!result.empty()) {
    KeyMeta meta = ctx.txn().NewMeta(KeyType::kString, 0);
    meta.value = std::move(result);
    ctx.txn().PutMeta(ctx.arg(2), meta);
  } else if (existed) {
    ctx.txn().DeleteMeta(ctx.arg(2));
  }
  ctx.reply = Reply::Integer(length);
}

void BitfieldCommand(CommandContext& ctx) { Bitfield(ctx, false); }
void BitfieldRoCommand(CommandContext& ctx) { Bitfield(ctx, true); }

}  // namespace kvlab::engine
