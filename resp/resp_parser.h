// RequestParser: splits one connection's input into commands, byte for byte as Redis 7.0 does
// (networking.c: processInputBuffer, processMultibulkBuffer, processInlineBuffer).
//
// A request that starts with '*' is a multibulk ("*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"); anything
// else is an inline command line, split by SplitArgs (Redis's sdssplitargs) as telnet and
// redis-cli send it. Redis's quirks are kept, because clients see them:
// - length lines are found by the first '\r' (the byte after it is skipped, whatever it is),
//   and the search stops at a NUL byte, as strchr does on Redis's query buffer;
// - the two bytes after a bulk argument are skipped unchecked;
// - "*0", "*-1" and empty inline lines are no command and get no reply;
// - a multibulk count must be <= INT_MAX, a bulk length in [0, max_bulk_len]; neither may have
//   a '+' or a leading zero (string2ll).
// A multibulk count only reserves room for min(count, 1024) arguments: a header that claims
// billions of arguments allocates nothing until they arrive.
//
// On a protocol error, error() is Redis's text ("Protocol error: invalid bulk length"); the
// connection replies "-ERR <text>" and closes, as Redis does. The parser is then spent.
//
// Not thread-safe: one parser per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kvlab::resp {

// PROTO_INLINE_MAX_SIZE: the longest inline line, and the longest unterminated length line.
inline constexpr size_t kProtoInlineMaxSize = 64 * 1024;
// PROTO_IOBUF_LEN: how much a connection reads at a time.
inline constexpr size_t kProtoIoBufLen = 16 * 1024;
// proto-max-bulk-len's default.
inline constexpr size_t kDefaultMaxBulkLen = 512ull * 1024 * 1024;

class RequestParser {
 public:
  enum class Result {
    kCommand,        // *argv holds the next command
    kNeedMore,       // no complete command is buffered
    kProtocolError,  // error() says what; the connection must close
  };

  RequestParser() = default;
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Room to receive into: *size >= kProtoIoBufLen writable bytes at the end of the buffer
  // (more while a big bulk argument is arriving). Call Received with what was written.
  char* ReceiveBuffer(size_t* size);
  void Received(size_t n);
  // ReceiveBuffer + copy + Received, for tests and the fuzzer.
  void Append(std::string_view bytes);

  // Parses the next command into *argv (replacing its contents). max_bulk_len is
  // proto-max-bulk-len; it is read on every call so that CONFIG SET takes effect at once.
  Result Next(size_t max_bulk_len, std::vector<std::string>* argv);

  const std::string& error() const { return error_; }

  // Input received and not yet parsed (CLIENT LIST's qbuf).
  size_t buffered() const { return end_ - pos_; }
  // Free room at the end of the buffer (qbuf-free).
  size_t free_space() const { return capacity_ - end_; }
  // What client-query-buffer-limit bounds: the unparsed input, plus the arguments already
  // parsed of a command that has not fully arrived (with their per-argument overhead), so that
  // a multibulk of endless small arguments cannot grow memory without bound either.
  size_t pending_bytes() const { return buffered() + partial_args_bytes_; }
  // What the parser holds in memory: its buffer and the arguments of a partial command.
  size_t memory() const { return capacity_ + partial_args_bytes_; }

 private:
  enum class Kind { kUnknown, kInline, kMultibulk };
  // Each returns false on a protocol error; *complete says whether a command (possibly with no
  // arguments) was parsed.
  bool ParseInline(bool* complete);
  bool ParseMultibulk(size_t max_bulk_len, bool* complete);
  bool Fail(std::string text);
  void Reserve(size_t free_bytes);

  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;
  size_t pos_ = 0;  // first unparsed byte (Redis's qb_pos)
  size_t end_ = 0;  // end of received bytes

  Kind kind_ = Kind::kUnknown;
  int64_t multibulk_left_ = 0;  // arguments still to come (multibulklen)
  int64_t bulk_len_ = -1;       // length of the argument being received, -1 before its header
  std::vector<std::string> args_;
  size_t partial_args_bytes_ = 0;
  std::string error_;
};

}  // namespace kvlab::resp
