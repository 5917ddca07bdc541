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
