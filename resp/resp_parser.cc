#include "resp/resp_parser.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "resp/redis_numbers.h"
#include "resp/split_args.h"

namespace kvlab::resp {
namespace {

// strchr on Redis's query buffer: the first `c` in [p, end), but the search ends at a NUL byte.
const char* FindBeforeNul(const char* p, const char* end, char c) {
  for (; p < end; ++p) {
    if (*p == c) return p;
    if (*p == '\0') return nullptr;
  }
  return nullptr;
}

// A buffer this large is released once it has been drained, so that one big request does not
// pin its memory for the life of an idle connection.
constexpr size_t kKeepCapacity = 4 * kProtoIoBufLen;

}  // namespace

void RequestParser::Reserve(size_t free_bytes) {
  if (capacity_ - end_ >= free_bytes) return;
  const size_t live = end_ - pos_;
  if (pos_ > 0 && capacity_ - live >= free_bytes) {
    std::memmove(buf_.get(), buf_.get() + pos_, live);
  } else {
    const size_t capacity = std::max(capacity_ * 2, live + free_bytes);
    std::unique_ptr<char[]> bigger(new char[capacity]);
    if (live > 0) std::memcpy(bigger.get(), buf_.get() + pos_, live);
    buf_ = std::move(bigger);
    capacity_ = capacity;
  }
  pos_ = 0;
  end_ = live;
}

char* RequestParser::ReceiveBuffer(size_t* size) {
  size_t want = kProtoIoBufLen;
  if (bulk_len_ >= 0) {
    // A big argument is arriving: read it in pieces as large as the buffer already is, so that
    // the buffer grows with what has arrived (at most doubling), not with what was announced.
    const size_t needed = static_cast<size_t>(bulk_len_) + 2;
    const size_t missing = needed > buffered() ? needed - buffered() : 0;
    want = std::max(want, std::min(missing, std::max(capacity_, kProtoIoBufLen)));
  }
  Reserve(want);
  *size = capacity_ - end_;
  return buf_.get() + end_;
}

void RequestParser::Received(size_t n) { end_ += n; }

void RequestParser::Append(std::string_view bytes) {
  while (!bytes.empty()) {
    size_t room = 0;
    char* dst = ReceiveBuffer(&room);
    const size_t n = std::min(room, bytes.size());
    std::memcpy(dst, bytes.data(), n);
    Received(n);
    bytes.remove_prefix(n);
  }
}

bool RequestParser::Fail(std::string text) {
  error_ = std::move(text);
  return false;
}

RequestParser::Result RequestParser::Next(size_t max_bulk_len, std::vector<std::string>* argv) {
  while (pos_ < end_) {
    if (kind_ == Kind::kUnknown) kind_ = buf_[pos_] == '*' ? Kind::kMultibulk : Kind::kInline;
    bool complete = false;
    const bool ok =
        kind_ == Kind::kInline ? ParseInline(&complete) : ParseMultibulk(max_bulk_len, &complete);
    if (!ok) return Result::kProtocolError;
    if (!complete) return Result::kNeedMore;
    kind_ = Kind::kUnknown;
    partial_args_bytes_ = 0;
    if (args_.empty()) continue;  // an empty line, "*0" or "*-1": nothing to run
    argv->swap(args_);
    args_.clear();  // keeps the capacity of the caller's previous argv for the next command
    return Result::kCommand;
  }
  pos_ = end_ = 0;
  if (capacity_ > kKeepCapacity) {
    buf_.reset();
    capacity_ = 0;
  }
  return Result::kNeedMore;
}

bool RequestParser::ParseInline(bool* complete) {
  const char* start = buf_.get() + pos_;
  const char* newline = FindBeforeNul(start, buf_.get() + end_, '\n');
  if (newline == nullptr) {
    if (buffered() > kProtoInlineMaxSize) return Fail("Protocol error: too big inline request");
    return true;
  }
  size_t linefeed_chars = 1;
  if (newline != start && newline[-1] == '\r') {
    --newline;
    ++linefeed_chars;
  }
  const size_t length = static_cast<size_t>(newline - start);
  if (!SplitArgs(std::string_view(start, length), &args_)) {
    return Fail("Protocol error: unbalanced quotes in request");
  }
  pos_ += length + linefeed_chars;
  *complete = true;
  return true;
}

bool RequestParser::ParseMultibulk(size_t max_bulk_len, bool* complete) {
  if (multibulk_left_ == 0) {
    const char* start = buf_.get() + pos_;
    const char* newline = FindBeforeNul(start, buf_.get() + end_, '\r');
    if (newline == nullptr) {
      if (buffered() > kProtoInlineMaxSize) {
        return Fail("Protocol error: too big mbulk count string");
      }
      return true;
    }
    // The '\r' must not be the last byte received: the line ends two bytes later.
    if (newline - start > static_cast<ptrdiff_t>(buffered()) - 2) return true;
    int64_t count = 0;
    if (!ParseInt64(std::string_view(start + 1, newline - (start + 1)), &count) ||
        count > INT_MAX) {
      return Fail("Protocol error: invalid multibulk length");
    }
    pos_ = static_cast<size_t>(newline - buf_.get()) + 2;
    if (count <= 0) {
      *complete = true;  // no command
      return true;
    }
    multibulk_left_ = count;
    args_.clear();
    args_.reserve(static_cast<size_t>(std::min<int64_t>(count, 1024)));
  }

  while (multibulk_left_ > 0) {
    if (bulk_len_ == -1) {
      const char* start = buf_.get() + pos_;
      const char* newline = FindBeforeNul(start, buf_.get() + end_, '\r');
      if (newline == nullptr) {
        if (buffered() > kProtoInlineMaxSize) {
          return Fail("Protocol error: too big bulk count string");
        }
        return true;
      }
      if (newline - start > static_cast<ptrdiff_t>(buffered()) - 2) return true;
      if (*start != '$') {
        // addReplyErrorFormat turns CR and LF into spaces.
        const char got = (*start == '\r' || *start == '\n') ? ' ' : *start;
        return Fail(std::string("Protocol error: expected '$', got '") + got + "'");
      }
      int64_t length = 0;
      if (!ParseInt64(std::string_view(start + 1, newline - (start + 1)), &length) || length < 0 ||
          static_cast<uint64_t>(length) > max_bulk_len) {
        return Fail("Protocol error: invalid bulk length");
      }
      pos_ = static_cast<size_t>(newline - buf_.get()) + 2;
      bulk_len_ = length;
    }
    const size_t needed = static_cast<size_t>(bulk_len_) + 2;
    if (buffered() < needed) return true;
    args_.emplace_back(buf_.get() + pos_, static_cast<size_t>(bulk_len_));
    partial_args_bytes_ += sizeof(std::string) + static_cast<size_t>(bulk_len_);
    pos_ += needed;  // the trailing CRLF is skipped unchecked, as Redis does
    bulk_len_ = -1;
    --multibulk_left_;
  }
  *complete = true;
  return true;
}

}  // namespace kvlab::resp
