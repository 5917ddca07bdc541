// The HyperLogLog commands, PFADD, PFCOUNT, PFMERGE, PFDEBUG and PFSELFTEST, as Redis 7.0.15's
// hyperloglog.c runs them, over engine/hyperloglog.h. An HLL is a string value (a key-meta with
// the HLL's bytes, as every string), so each command reads its keys' metas and writes back the
// ones it changes: PFADD and PFMERGE their key, PFCOUNT of one key the cardinality it computed
// into the header's cache, PFDEBUG GETREG and TODENSE the dense form.
#include "engine/hll_commands.h"

#include <strings.h>

#include <atomic>
#include <climits>
#include <random>

#include "base/memory_value.h"
#include "engine/command_context.h"
#include "engine/hyperloglog.h"
#include "engine/string_value.h"

namespace kvlab::engine {

using encodings::KeyMeta;
using encodings::KeyType;
using resp::Reply;

namespace {

constexpr const char* kSparseMaxBytesParam = "hll-sparse-max-bytes";

// hll-sparse-max-bytes, as CONFIG SET set it (AddHllParams). Read once per command, so that a
// CONFIG SET from another client does not change it in the middle of one.
uint64_t SparseMaxBytes(CommandContext& ctx) { return ctx.engine().hll_sparse_max_bytes(); }

// isHLLObjectOrReply after a read: false, with the reply set, for a key of another type or a
// string that is not an HLL.
bool CheckHll(CommandContext& ctx, const KeyMeta& meta) {
  if (meta.type != KeyType::kString) {
    ctx.ReplyError(errors::kWrongType);
    return false;
  }
  if (!hll::IsValid(meta.value)) {
    ctx.ReplyError(hll::kNotHllError);
    return false;
  }
  return true;
}

// Reads an HLL key: false after the reply on a wrong type or a storage error.
bool LoadHll(CommandContext& ctx, std::string_view key, KeyMeta* meta, bool* found) {
  if (!ctx.Check(ctx.txn().GetMeta(key, meta, found))) return false;
  return !*found || CheckHll(ctx, *meta);
}

// The union of the HLLs at argv[first..]: absent keys count as empty HLLs, as in Redis. The
// keys are read with one multiget. *any_dense says whether one of them is dense (PFMERGE then
// writes a dense result); *metas keeps what was read.
bool UnionOf(CommandContext& ctx, size_t first, hll::RawRegisters* max, bool* any_dense,
             std::vector<std::optional<KeyMeta>>* metas) {
  std::vector<std::string_view> keys(ctx.argv().begin() + static_cast<ptrdiff_t>(first),
                                     ctx.argv().end());
  if (!ctx.Check(ctx.txn().GetMetas(keys, metas))) return false;
  max->fill(0);
  *any_dense = false;
  for (const std::optional<KeyMeta>& meta : *metas) {
    if (!meta) continue;
    if (!CheckHll(ctx, *meta)) return false;
    if (hll::EncodingOf(meta->value) == hll::kDense) *any_dense = true;
    if (!hll::Merge(max, meta->value)) {
      ctx.ReplyError(hll::kInvalidObjectError);
      return false;
    }
  }
  return true;
}

}  // namespace

// pfaddCommand: 1 when the key was created or a register changed. On a corrupted sparse HLL an
// element gets INVALIDOBJ; Redis changes its value in place element by element, so the registers
// the elements before that one raised stay raised (each sparse change also marked the cached
// cardinality stale, as hllSparseSet does), and the key is not signalled to WATCH: that value is
// stored with the error.
void PfaddCommand(CommandContext& ctx) {
  KeyMeta meta;
  bool found = false;
  if (!LoadHll(ctx, ctx.arg(1), &meta, &found)) return;
  std::string value = found ? std::move(meta.value) : hll::NewSparse();
  int updated = found ? 0 : 1;
  const uint64_t max_bytes = SparseMaxBytes(ctx);
  for (size_t j = 2; j < ctx.argc(); ++j) {
    const int r = hll::Add(&value, ctx.arg(j), max_bytes);
    if (r < 0) {
      // A failed Add changed nothing, and an Add that changed the value returned 1 (a
      // promotion to dense always sets the register it was for): `updated` says whether the
      // elements before this one changed it. A new key is a valid HLL, so `found` holds here.
      if (updated) {
        StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
        ctx.KeepWritesOnError();
      }
      return ctx.ReplyError(hll::kInvalidObjectError);
    }
    updated += r;
  }
  if (updated) {
    hll::InvalidateCache(&value);
    StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
  }
  ctx.reply = Reply::Integer(updated ? 1 : 0);
}

// pfcountCommand. Of several keys: the cardinality of their union, nothing written. Of one: the
// cached cardinality when it is valid, else the estimate, stored into the cache (a write, as in
// Redis, where it is propagated and touches WATCH; the key spec's "RW", key_access.h).
void PfcountCommand(CommandContext& ctx) {
  if (ctx.argc() > 2) {
    hll::RawRegisters max;
    bool any_dense = false;
    std::vector<std::optional<KeyMeta>> metas;
    if (!UnionOf(ctx, 1, &max, &any_dense, &metas)) return;
    ctx.reply = Reply::Integer(static_cast<int64_t>(hll::CountRaw(max)));
    return;
  }
  KeyMeta meta;
  bool found = false;
  if (!LoadHll(ctx, ctx.arg(1), &meta, &found)) return;
  if (!found) {
    ctx.reply = Reply::Integer(0);
    return;
  }
  uint64_t card = 0;
  if (!hll::CachedCardinality(meta.value, &card)) {
    if (!hll::Count(meta.value, &card)) return ctx.ReplyError(hll::kInvalidObjectError);
    std::string value = std::move(meta.value);
    hll::SetCachedCardinality(&value, card);
    StoreString(ctx, ctx.arg(1), &meta, true, std::move(value));
  }
  ctx.reply = Reply::Integer(static_cast<int64_t>(card));
}

// pfmergeCommand: the destination is also a source. It becomes dense when a source is dense;
// otherwise the union's registers are set into it one by one (sparse while it fits). Always
// written, as Redis always propagates it.
void PfmergeCommand(CommandContext& ctx) {
  hll::RawRegisters max;
  bool use_dense = false;
  std::vector<std::optional<KeyMeta>> metas;
  if (!UnionOf(ctx, 1, &max, &use_dense, &metas)) return;
  const bool found = metas[0].has_value();
  KeyMeta meta = found ? std::move(*metas[0]) : KeyMeta();
  std::string value = found ? std::move(meta.value) : hll::NewSparse();
  if (use_dense && !hll::SparseToDense(&value)) return ctx.ReplyError(hll::kInvalidObjectError);
  const uint64_t max_bytes = SparseMaxBytes(ctx);
  for (int j = 0; j < hll::kRegisters; ++j) {
    if (max[j] == 0) continue;
    // Validated as a source, so the destination's opcodes are sound (Redis ignores the result).
    (void)hll::SetRegister(&value, j, max[j], max_bytes);
  }
  hll::InvalidateCache(&value);
  StoreString(ctx, ctx.arg(1), &meta, found, std::move(value));
  ctx.reply = Reply::Ok();
}

// pfdebugCommand: PFDEBUG GETREG|DECODE|ENCODING|TODENSE key. The key is read first, so an
// absent key or a non-HLL is reported before an unknown subcommand.
void PfdebugCommand(CommandContext& ctx) {
  const std::string& cmd = ctx.arg(1);
  KeyMeta meta;
  bool found = false;
  if (!ctx.Check(ctx.txn().GetMeta(ctx.arg(2), &meta, &found))) return;
  if (!found) return ctx.ReplyError("ERR The specified key does not exist");
  if (!CheckHll(ctx, meta)) return;
  std::string& value = meta.value;
  const bool sparse = hll::EncodingOf(value) == hll::kSparse;
  if (!strcasecmp(cmd.c_str(), "getreg") || !strcasecmp(cmd.c_str(), "todense")) {
    // Both convert a sparse HLL to dense, and keep it so.
    if (sparse) {
      if (!hll::SparseToDense(&value)) return ctx.ReplyError(hll::kInvalidObjectError);
      std::string dense = value;
      StoreString(ctx, ctx.arg(2), &meta, true, std::move(dense));
    }
    if (!strcasecmp(cmd.c_str(), "todense")) {
      ctx.reply = Reply::Integer(sparse ? 1 : 0);
      return;
    }
    std::vector<Reply> registers;
    registers.reserve(hll::kRegisters);
    for (int j = 0; j < hll::kRegisters; ++j) {
      registers.push_back(Reply::Integer(hll::DenseRegister(value, j)));
    }
    ctx.reply = Reply::Array(std::move(registers));
  } else if (!strcasecmp(cmd.c_str(), "decode")) {
    if (!sparse) return ctx.ReplyError("ERR HLL encoding is not sparse");
    ctx.reply = Reply::Bulk(hll::DecodeSparse(value));
  } else if (!strcasecmp(cmd.c_str(), "encoding")) {
    ctx.reply = Reply::Status(sparse ? "sparse" : "dense");
  } else {
    ctx.ReplyError("ERR Unknown PFDEBUG subcommand '" + std::string(errors::ClientText(cmd)) + "'");
  }
}

// pfselftestCommand: Redis's self test of the registers and of the estimate, with its 10 million
// elements (a few seconds).
void PfselftestCommand(CommandContext& ctx) {
  std::random_device seed;
  const std::string error =
      hll::SelfTest(SparseMaxBytes(ctx), 10'000'000, (uint64_t{seed()} << 32) | seed());
  if (error.empty()) {
    ctx.reply = Reply::Ok();
  } else {
    ctx.ReplyError(error);
  }
}

void AddHllParams(EngineConfig* config, std::atomic<uint64_t>* value) {
  EngineConfig::Param p;
  p.name = kSparseMaxBytesParam;
  p.get = [value] { return std::to_string(value->load()); };
  p.validate = MemoryValidator(0, LONG_MAX);
  p.apply = [value](std::string_view v) {
    uint64_t bytes = 0;
    ParseMemoryValue(v, &bytes);
    value->store(bytes);
  };
  config->Add(std::move(p));
}

}  // namespace kvlab::engine
