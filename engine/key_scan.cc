#include "engine/key_scan.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "encodings/coding.h"
#include "engine/command_context.h"
#include "engine/glob.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using backends::IteratorOptions;
using encodings::DecodeFixed64BE;
using encodings::FieldValue;
using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::KeyTypeName;
using encodings::KvTxn;
using encodings::PrefixSuccessor;
using encodings::PutFixed64BE;
using encodings::ScoredMember;
using resp::FormatListpackScore;
using resp::Reply;

Status ScanKeys(KvTxn& txn, const std::string& from, const KeyScanFilter& filter,
                uint64_t max_examined,
                const std::function<void(const std::string&, const KeyMeta&)>& visit,
                std::string* resume) {
  const std::string prefix = txn.codec().MetaPrefix(txn.db());
  IteratorOptions options;
  options.lower_bound = prefix;
  options.upper_bound = PrefixSuccessor(prefix);
  auto it = txn.kv().NewIterator(options);
  it->Seek(from.empty() ? prefix : from);
  if (resume != nullptr) resume->clear();
  uint64_t examined = 0;
  std::string key, last;
  KeyMeta meta;
  for (; it->Valid() && examined < max_examined; it->Next(), ++examined) {
    if (resume != nullptr) last.assign(it->key());
    if (!txn.codec().DecodeMetaKey(txn.db(), it->key(), &key)) continue;
    if (filter.pattern && !GlobMatch(*filter.pattern, key)) continue;
    if (!KeyMeta::Decode(it->value(), txn.registry(), &meta).ok() || meta.ExpiredAt(txn.now_ms()))
      continue;
    if (filter.type && strcasecmp(filter.type->c_str(), KeyTypeName(meta.type)) != 0) continue;
    visit(key, meta);
  }
  KVLAB_RETURN_IF_ERROR(it->status());
  // Stopped by the budget with entries left: resume between the last examined and the next.
  if (resume != nullptr && it->Valid()) *resume = ShortestSeparator(last, it->key());
  return Status::OK();
}

std::string ShortestSeparator(std::string_view a, std::string_view b) {
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  // b's first byte past the common prefix is larger than a's (or a ends there): b's prefix
  // through that byte sorts after a and no later than b.
  return std::string(b.substr(0, common + 1));
}

bool ParseScanCursor(CommandContext& ctx, size_t arg, uint64_t* cursor) {
  const std::string& text = ctx.arg(arg);
  char* end = nullptr;
  errno = 0;
  *cursor = std::strtoul(text.c_str(), &end, 10);
  if (std::isspace(static_cast<unsigned char>(text.c_str()[0])) || *end != '\0' ||
      errno == ERANGE) {
    ctx.ReplyError("ERR invalid cursor");
    return false;
  }
  return true;
}

bool CursorPosition(CommandContext& ctx, uint64_t cursor, std::string* position) {
  position->clear();
  if (cursor == 0) return true;
  switch (ctx.engine().cursors().Lookup(cursor, position)) {
    case CursorTable::Found::kPosition:
    case CursorTable::Found::kUnknown:
      return true;
    case CursorTable::Found::kExpired:
      break;
  }
  const CursorLimits& limits = ctx.engine().cursors().limits();
  ctx.ReplyError("ERR cursor " + std::to_string(cursor) + " has expired: kvlab keeps at most " +
                 std::to_string(limits.max_cursors) + " cursors (" +
                 std::to_string(limits.max_bytes) +
                 " bytes), and other scans evicted it; start the iteration again from 0");
  return false;
}

bool IssueCursor(CommandContext& ctx, std::optional<std::string> position, std::string* cursor) {
  if (!position) {
    *cursor = "0";
    return true;
  }
  uint64_t id = 0;
  if (!ctx.Check(ctx.engine().cursors().Issue(ctx.session().id, std::move(*position), &id))) {
    return false;
  }
  *cursor = std::to_string(id);
  return true;
}

void KeyspaceScanCommand(CommandContext& ctx) {
  uint64_t cursor = 0;
  if (!ParseScanCursor(ctx, 1, &cursor)) return;
  KeyScanFilter filter;
  int64_t count = 10;
  for (size_t i = 2; i < ctx.argc();) {
    const size_t left = ctx.argc() - i;
    const char* opt = ctx.arg(i).c_str();
    if (!strcasecmp(opt, "count") && left >= 2) {
      if (!ctx.ArgInt64(i + 1, &count)) return;
      if (count < 1) return ctx.ReplyError(errors::kSyntax);
      i += 2;
    } else if (!strcasecmp(opt, "match") && left >= 2) {
      if (ctx.arg(i + 1) != "*") filter.pattern = ctx.arg(i + 1);
      i += 2;
    } else if (!strcasecmp(opt, "type") && left >= 2) {
      filter.type = ctx.arg(i + 1);
      i += 2;
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  std::string from;
  if (!CursorPosition(ctx, cursor, &from)) return;
  std::vector<Reply> keys;
  std::string resume;
  if (!ctx.Check(ScanKeys(
          ctx.txn(), from, filter, static_cast<uint64_t>(count),
          [&](const std::string& key, const KeyMeta&) { keys.push_back(Reply::Bulk(key)); },
          &resume))) {
    return;
  }
  std::string next;
  if (!IssueCursor(ctx, resume.empty() ? std::nullopt : std::optional(std::move(resume)), &next)) {
    return;
  }
  std::vector<Reply> out;
  out.push_back(Reply::Bulk(std::move(next)));
  out.push_back(Reply::Array(std::move(keys)));
  ctx.reply = Reply::Array(std::move(out));
}

}  // namespace kvlab::engine

namespace kvlab::engine {
namespace {

// Options of HSCAN, ZSCAN and SSCAN (scanGenericCommand with an object: no TYPE).
bool ParseCollectionScanOptions(CommandContext& ctx, std::optional<std::string>* pattern,
                                int64_t* count) {
  *count = 10;
  for (size_t i = 3; i < ctx.argc();) {
    const size_t left = ctx.argc() - i;
    const char* opt = ctx.arg(i).c_str();
    if (!strcasecmp(opt, "count") && left >= 2) {
      if (!ctx.ArgInt64(i + 1, count)) return false;
      if (*count < 1) {
        ctx.ReplyError(errors::kSyntax);
        return false;
      }
      i += 2;
    } else if (!strcasecmp(opt, "match") && left >= 2) {
      if (ctx.arg(i + 1) != "*") *pattern = ctx.arg(i + 1);
      i += 2;
    } else {
      ctx.ReplyError(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// A collection cursor remembers the key-version it was issued for, so that a cursor of a
// deleted and re-created key starts over instead of resuming in another incarnation. Returns
// false after replying an error (an expired cursor).
bool ResumeAfter(CommandContext& ctx, uint64_t cursor, const KeyMeta& meta,
                 std::optional<std::string>* after) {
  after->reset();
  std::string pos;
  if (!CursorPosition(ctx, cursor, &pos)) return false;
  if (pos.size() >= 8 && DecodeFixed64BE(pos.data()) == meta.key_version) *after = pos.substr(8);
  return true;
}

bool ScanReply(CommandContext& ctx, const KeyMeta& meta, const std::optional<std::string>& next,
               std::vector<Reply> items) {
  std::optional<std::string> pos;
  if (next) {
    pos.emplace();
    PutFixed64BE(&*pos, meta.key_version);
    *pos += *next;
  }
  std::string cursor;
  if (!IssueCursor(ctx, std::move(pos), &cursor)) return false;
  ctx.reply = Reply::Array({Reply::Bulk(std::move(cursor)), Reply::Array(std::move(items))});
  return true;
}

// The start of HSCAN and ZSCAN: cursor, key, type, options, in Redis's order of checks.
bool BeginCollectionScan(CommandContext& ctx, KeyType type, KeyHandle* h, uint64_t* cursor,
                         std::optional<std::string>* pattern, int64_t* count) {
  if (!ParseScanCursor(ctx, 2, cursor)) return false;
  bool exists = false;
  if (!ctx.Load(ctx.arg(1), type, h, &exists)) return false;
  if (!exists) {
    ctx.reply = Reply::Array({Reply::Bulk("0"), Reply::Array()});
    return false;
  }
  return ParseCollectionScanOptions(ctx, pattern, count);
}

}  // namespace

void HscanCommand(CommandContext& ctx) {
  KeyHandle h;
  uint64_t cursor = 0;
  std::optional<std::string> pattern;
  int64_t count = 0;
  if (!BeginCollectionScan(ctx, KeyType::kHash, &h, &cursor, &pattern, &count)) return;
  std::optional<std::string> after;
  if (!ResumeAfter(ctx, cursor, h.meta, &after)) return;
  std::vector<FieldValue> fields;
  std::optional<std::string> next;
  if (!ctx.Check(ctx.Hash(h.meta).Scan(ctx.txn(), h, after, static_cast<uint64_t>(count), &fields,
                                       &next))) {
    return;
  }
  std::vector<Reply> items;
  for (auto& [field, value] : fields) {
    if (pattern && !GlobMatch(*pattern, field)) continue;
    items.push_back(Reply::Bulk(std::move(field)));
    items.push_back(Reply::Bulk(std::move(value)));
  }
  ScanReply(ctx, h.meta, next, std::move(items));
}

void ZscanCommand(CommandContext& ctx) {
  KeyHandle h;
  uint64_t cursor = 0;
  std::optional<std::string> pattern;
  int64_t count = 0;
  if (!BeginCollectionScan(ctx, KeyType::kZset, &h, &cursor, &pattern, &count)) return;
  std::optional<std::string> after;
  if (!ResumeAfter(ctx, cursor, h.meta, &after)) return;
  std::vector<ScoredMember> members;
  std::optional<std::string> next;
  if (!ctx.Check(ctx.Zset(h.meta).Scan(ctx.txn(), h, after, static_cast<uint64_t>(count), &members,
                                       &next))) {
    return;
  }
  std::vector<Reply> items;
  for (auto& m : members) {
    if (pattern && !GlobMatch(*pattern, m.member)) continue;
    items.push_back(Reply::Bulk(std::move(m.member)));
    // As Redis answers for a zset of up to 128 members (listpack-encoded, the common case).
    items.push_back(Reply::Bulk(FormatListpackScore(m.score)));
  }
  ScanReply(ctx, h.meta, next, std::move(items));
}

void SscanCommand(CommandContext& ctx) {
  KeyHandle h;
  uint64_t cursor = 0;
  std::optional<std::string> pattern;
  int64_t count = 0;
  if (!BeginCollectionScan(ctx, KeyType::kSet, &h, &cursor, &pattern, &count)) return;
  std::optional<std::string> after;
  if (!ResumeAfter(ctx, cursor, h.meta, &after)) return;
  std::vector<std::string> members;
  std::optional<std::string> next;
  if (!ctx.Check(ctx.Set(h.meta).Scan(ctx.txn(), h, after, static_cast<uint64_t>(count), &members,
                                      &next))) {
    return;
  }
  std::vector<Reply> items;
  for (auto& m : members) {
    if (pattern && !GlobMatch(*pattern, m)) continue;
    items.push_back(Reply::Bulk(std::move(m)));
  }
  ScanReply(ctx, h.meta, next, std::move(items));
}

}  // namespace kvlab::engine
