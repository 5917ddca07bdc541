// RANDOMKEY, OBJECT and MEMORY: what a key is and where it lives. Parsing, the order of checks
// and the error texts follow Redis 7.0's randomkeyCommand (db.c), objectCommand and
// memoryCommand (object.c).
//
// Where Redis reports its in-memory representation, kvlab reports the KV one:
//   OBJECT ENCODING  the kvlab encoding of the key: "kv-string", "kv-hash-v0", "kv-zset-kvrocks"
//                    (encodings::KvEncodingName);
//   MEMORY USAGE     the bytes the key occupies in the KV store (its key-meta record and every
//                    live sub-key record, keys and values), plus what the Redis tier holds for
//                    it by Redis's own MEMORY USAGE: the number an encoding study compares;
//   OBJECT REFCOUNT  1: a value is stored once;
//   OBJECT IDLETIME  an error: kvlab keeps no access time (it would cost a write per read);
//   OBJECT FREQ      Redis's own error without an LFU policy, which kvlab never has.
// docs/deviations.json lists these (type "any").
#include <strings.h>

#include <random>

#include "encodings/coding.h"
#include "encodings/registry.h"
#include "encodings/type_encoding.h"
#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/subcommands.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using backends::IteratorOptions;
using encodings::KeyFootprint;
using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::PrefixSuccessor;
using resp::Reply;

namespace {

// A probe key uniformly between a and b (a <= probe <= b, byte order): their common prefix, then
// a random 8-byte value between the next 8 bytes of each (zero-padded). Keys after long gaps in
// the key space are likelier than others, as they are in an ordered store's sampling.
std::string ProbeBetween(std::string_view a, std::string_view b, std::mt19937_64& random) {
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  auto window = [&](std::string_view s) {
    uint64_t v = 0;
    for (size_t i = 0; i < 8; ++i) {
      const size_t at = common + i;
      v = (v << 8) | (at < s.size() ? static_cast<unsigned char>(s[at]) : 0u);
    }
    return v;
  };
  const uint64_t lo = window(a), hi = window(b);
  const uint64_t pick = std::uniform_int_distribution<uint64_t>(lo, hi)(random);
  std::string probe(a.substr(0, common));
  for (int shift = 56; shift >= 0; shift -= 8) {
    probe.push_back(static_cast<char>((pick >> shift) & 0xff));
  }
  return probe;
}

// Up to kRandomWindow live keys from the iterator's position on: their names, in key order,
// stopping before `stop` (a raw key-meta key) when it is set. One step per key-meta examined.
constexpr size_t kRandomWindow = 64;
Status CollectLive(encodings::KvTxn& txn, backends::Iterator& it,
                   const std::optional<std::string>& stop, std::vector<std::string>* window) {
  KeyMeta meta;
  std::string name;
  for (; it.Valid() && window->size() < kRandomWindow; it.Next()) {
    if (stop && it.key() >= *stop) break;
    if (!txn.codec().DecodeMetaKey(txn.db(), it.key(), &name)) continue;
    if (!KeyMeta::Decode(it.value(), txn.registry(), &meta).ok()) continue;
    if (meta.ExpiredAt(txn.now_ms())) continue;
    window->push_back(std::move(name));
  }
  return it.status();
}

void ReplyFootprint(CommandContext& ctx, const KeyHandle& h) {
  KeyFootprint footprint;
  if (h.meta.type == KeyType::kString) {
    // A string is its key-meta: the value is in it.
    footprint.meta_bytes =
        ctx.txn().codec().MetaKey(ctx.txn().db(), h.key).size() + h.meta.Encode().size();
  } else if (!ctx.Check(ctx.Encoding(h.meta).Footprint(ctx.txn(), h, &footprint))) {
    return;
  }
  ctx.reply = Reply::Integer(static_cast<int64_t>(footprint.total()));
}

// Loads the key of an OBJECT or MEMORY subcommand (argument 2). Returns false when the command
// is done: an error, or a nil reply for an absent key.
bool LoadIntrospected(CommandContext& ctx, KeyHandle* h) {
  bool exists = false;
  if (!ctx.LoadAny(ctx.arg(2), h, &exists)) return false;
  if (!exists) ctx.reply = Reply::Nil();
  return exists;
}

}  // namespace

// randomkeyCommand. A KV store keeps no order statistics, so kvlab samples: it probes a random
// point between the first and the last key-meta of the database (SeekToLast needs reverse scan;
// without it, between the first key-meta and the end of the database's range), reads the next
// kRandomWindow live keys (wrapping to the start once, up to the probe), and picks one of them
// uniformly. A database of at most kRandomWindow keys is therefore sampled uniformly; in a larger
// one, keys after long gaps in the key space are likelier. Cost: up to 4 seeks and
// kRandomWindow steps, plus the expired key-metas stepped over; a database of one key-meta costs
// 2 seeks and 1 step (with reverse scan), an empty one 1 seek. The reply is nil only when no key is
// live.
void RandomkeyCommand(CommandContext& ctx) {
  encodings::KvTxn& txn = ctx.txn();
  const std::string prefix = txn.codec().MetaPrefix(txn.db());
  IteratorOptions options;
  options.lower_bound = prefix;
  options.upper_bound = PrefixSuccessor(prefix);
  auto it = txn.kv().NewIterator(options);
  it->Seek(prefix);
  if (!it->Valid()) {
    if (ctx.Check(it->status())) ctx.reply = Reply::Nil();
    return;
  }
  const std::string first(it->key());
  std::string last = *options.upper_bound;
  if (txn.capabilities().reverse_scan) {
    it->SeekToLast();
    if (!ctx.Check(it->status())) return;
    last.assign(it->key());
  }
  std::vector<std::string> window;
  // One key-meta: the iterator is on it (SeekToLast), and it is the answer if it is live.
  if (first != last) it->Seek(ProbeBetween(first, last, ctx.session().random));
  const std::optional<std::string> landing =
      it->Valid() && first != last ? std::optional<std::string>(it->key()) : std::nullopt;
  if (!ctx.Check(CollectLive(txn, *it, std::nullopt, &window))) return;
  if (first != last && window.size() < kRandomWindow && landing != first) {
    it->Seek(prefix);  // wrap once, up to where the probe landed
    if (!ctx.Check(CollectLive(txn, *it, landing, &window))) return;
  }
  if (window.empty()) {
    ctx.reply = Reply::Nil();
    return;
  }
  const size_t pick =
      std::uniform_int_distribution<size_t>(0, window.size() - 1)(ctx.session().random);
  ctx.reply = Reply::Bulk(std::move(window[pick]));
}

void ObjectCommand(CommandContext& ctx) {
  const std::string& sub = ctx.arg(1);
  const bool help = strcasecmp(sub.c_str(), "help") == 0;
  const bool keyed =
      strcasecmp(sub.c_str(), "encoding") == 0 || strcasecmp(sub.c_str(), "freq") == 0 ||
      strcasecmp(sub.c_str(), "idletime") == 0 || strcasecmp(sub.c_str(), "refcount") == 0;
  if (!help && !keyed) return ReplyUnknownSubcommand(ctx);
  std::string full = "object|" + sub;
  for (char& c : full) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ctx.argc() != (help ? 2u : 3u)) return ReplySubcommandArity(ctx, full);
  if (help) {
    return ReplyHelp(
        ctx, {"ENCODING <key>",
              "    Return the kind of internal representation used in order to store the value",
              "    associated with a <key>.", "FREQ <key>",
              "    Return the access frequency index of the <key>. The returned integer is",
              "    proportional to the logarithm of the recent access frequency of the key.",
              "IDLETIME <key>",
              "    Return the idle time of the <key>, that is the approximated number of",
              "    seconds elapsed since the last access to the key.", "REFCOUNT <key>",
              "    Return the number of references of the value associated with the specified",
              "    <key>."});
  }
  KeyHandle h;
  if (!LoadIntrospected(ctx, &h)) return;
  if (full == "object|encoding") {
    if (h.meta.type == KeyType::kString) {
      ctx.reply = Reply::Bulk(encodings::KvEncodingName("string", ""));
      return;
    }
    const encodings::EncodingRegistry& registry = ctx.engine().registry();
    const encodings::EncodingSpec* row = registry.Find(h.meta.type, h.meta.encode_version);
    ctx.reply =
        Reply::Bulk(encodings::KvEncodingName(registry.FindType(h.meta.type)->name, row->name));
  } else if (full == "object|refcount") {
    ctx.reply = Reply::Integer(1);
  } else if (full == "object|freq") {
    ctx.ReplyError(
        "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note "
        "that when switching between policies at runtime LRU and LFU data will take some time "
        "to adjust.");
  } else {
    ctx.ReplyError(
        "ERR kvlab keeps no access time for keys (it would cost a KV write per read), so OBJECT "
        "IDLETIME has nothing to report");
  }
}

void MemoryCommand(CommandContext& ctx) {
  const std::string& sub = ctx.arg(1);
  if (strcasecmp(sub.c_str(), "help") == 0) {
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "memory|help");
    return ReplyHelp(ctx,
                     {"DOCTOR", "    Return memory problems reports.", "MALLOC-STATS",
                      "    Return internal statistics report from the memory allocator.", "PURGE",
                      "    Attempt to purge dirty pages for reclamation by the allocator.", "STATS",
                      "    Return information about the memory usage of the server.",
                      "USAGE <key> [SAMPLES <count>]",
                      "    Return memory in bytes used by <key> and its value. Nested values are",
                      "    sampled up to <count> times (default: 5, 0 means sample all)."});
  }
  if (strcasecmp(sub.c_str(), "usage") == 0) {
    if (ctx.argc() < 3) return ReplySubcommandArity(ctx, "memory|usage");
    // SAMPLES is validated as Redis does; kvlab always counts every record.
    for (size_t j = 3; j < ctx.argc(); ++j) {
      if (strcasecmp(ctx.arg(j).c_str(), "samples") == 0 && j + 1 < ctx.argc()) {
        int64_t samples = 0;
        if (!ctx.ArgInt64(j + 1, &samples)) return;
        if (samples < 0) return ctx.ReplyError(errors::kSyntax);
        ++j;
      } else {
        return ctx.ReplyError(errors::kSyntax);
      }
    }
    KeyHandle h;
    if (!LoadIntrospected(ctx, &h)) return;
    return ReplyFootprint(ctx, h);
  }
  for (const char* known : {"doctor", "malloc-stats", "purge", "stats"}) {
    if (strcasecmp(sub.c_str(), known) != 0) continue;
    if (ctx.argc() != 2) return ReplySubcommandArity(ctx, "memory|" + std::string(known));
    const std::string_view name = known;
    // Redis's replies when its allocator has nothing to purge and no statistics (libc malloc).
    if (name == "purge") return void(ctx.reply = Reply::Ok());
    if (name == "malloc-stats") {
      return void(ctx.reply = Reply::Bulk("Stats not supported for the current allocator"));
    }
    return ctx.ReplyError("ERR kvlab does not support MEMORY " + std::string(known) +
                          ": it reports a Redis process's allocator; MEMORY USAGE reports a "
                          "key's bytes in the KV store");
  }
  ReplyUnknownSubcommand(ctx);
}

}  // namespace kvlab::engine
