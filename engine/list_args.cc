#include "engine/list_args.h"

#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::ListEnd;
using resp::Reply;

bool ParsePositive(CommandContext& ctx, size_t i, const char* message, int64_t* out) {
  if (!resp::ParseInt64(ctx.arg(i), out) || *out < 0) {
    ctx.ReplyError(message != nullptr ? message : errors::kOutOfRangePositive);
    return false;
  }
  return true;
}

bool ParseAtLeastOne(CommandContext& ctx, size_t i, const char* message, int64_t* out) {
  if (!resp::ParseInt64(ctx.arg(i), out) || *out < 1) {
    ctx.ReplyError(message);
    return false;
  }
  return true;
}

bool ParseMultiPop(CommandContext& ctx, size_t numkeys_at,
                   const std::function<bool(size_t)>& parse_where, std::vector<std::string>* keys,
                   int64_t* count) {
  int64_t numkeys = 0;
  if (!ParseAtLeastOne(ctx, numkeys_at, "ERR numkeys should be greater than 0", &numkeys)) {
    return false;
  }
  const size_t where_at = numkeys_at + static_cast<size_t>(numkeys) + 1;
  if (numkeys > static_cast<int64_t>(ctx.argc()) || where_at >= ctx.argc()) {
    ctx.ReplyError(errors::kSyntax);
    return false;
  }
  if (!parse_where(where_at)) return false;
  *count = -1;
  for (size_t j = where_at + 1; j < ctx.argc(); ++j) {
    if (*count == -1 && EqualsIgnoreCase(ctx.arg(j), "COUNT") && j + 1 < ctx.argc()) {
      if (!ParseAtLeastOne(ctx, ++j, "ERR count should be greater than 0", count)) return false;
    } else {
      ctx.ReplyError(errors::kSyntax);
      return false;
    }
  }
  if (*count == -1) *count = 1;
  keys->assign(ctx.argv().begin() + static_cast<ptrdiff_t>(numkeys_at) + 1,
               ctx.argv().begin() + static_cast<ptrdiff_t>(where_at));
  return true;
}

bool ParseListEnd(CommandContext& ctx, size_t i, ListEnd* end) {
  if (EqualsIgnoreCase(ctx.arg(i), "left")) {
    *end = ListEnd::kLeft;
  } else if (EqualsIgnoreCase(ctx.arg(i), "right")) {
    *end = ListEnd::kRight;
  } else {
    ctx.ReplyError(errors::kSyntax);
    return false;
  }
  return true;
}

bool NormalizeRange(uint64_t n, int64_t start, int64_t stop, uint64_t* first, uint64_t* last) {
  const auto len = static_cast<int64_t>(n);
  if (start < 0) start += len;
  if (stop < 0) stop += len;
  if (start < 0) start = 0;
  if (start > stop || start >= len) return false;
  if (stop >= len) stop = len - 1;
  *first = static_cast<uint64_t>(start);
  *last = static_cast<uint64_t>(stop);
  return true;
}

bool NormalizeIndex(uint64_t n, int64_t index, uint64_t* position) {
  const auto len = static_cast<int64_t>(n);
  if (index < 0) index += len;
  if (index < 0 || index >= len) return false;
  *position = static_cast<uint64_t>(index);
  return true;
}

Reply BulkArray(std::vector<std::string>&& elements) {
  std::vector<Reply> out;
  out.reserve(elements.size());
  for (std::string& e : elements) out.push_back(Reply::Bulk(std::move(e)));
  return Reply::Array(std::move(out));
}

}  // namespace kvlab::engine
