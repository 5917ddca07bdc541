#include "resp/resp_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kvlab::resp {
namespace {

using Argv = std::vector<std::string>;

// Feeds `input` (in pieces of `piece` bytes) and collects every command until the parser
// needs more input or fails. *error is the protocol error, or "" when none.
std::vector<Argv> ParseAll(const std::string& input, std::string* error = nullptr, size_t piece = 0,
                           size_t max_bulk = kDefaultMaxBulkLen) {
  RequestParser parser;
  std::vector<Argv> out;
  if (error != nullptr) error->clear();
  const size_t step = piece == 0 ? std::max<size_t>(input.size(), 1) : piece;
  for (size_t at = 0; at < input.size(); at += step) {
    parser.Append(std::string_view(input).substr(at, step));
    Argv argv;
    for (;;) {
      const RequestParser::Result r = parser.Next(max_bulk, &argv);
      if (r == RequestParser::Result::kCommand) {
        out.push_back(argv);
        continue;
      }
      if (r == RequestParser::Result::kProtocolError) {
        if (error != nullptr) *error = parser.error();
        return out;
      }
      break;
    }
  }
  return out;
}

TEST(RespParser, MultibulkAndPipelining) {
  const std::string input =
      "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"
      "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n";
  const std::vector<Argv> want = {{"SET", "k", "hello"}, {"GET", "k"}, {"ECHO", ""}};
  EXPECT_EQ(ParseAll(input), want);
  // Split at every byte: the same commands.
  EXPECT_EQ(ParseAll(input, nullptr, 1), want);
  EXPECT_EQ(ParseAll(input, nullptr, 7), want);
}

TEST(RespParser, BinarySafeBulk) {
  const std::string value("a\0\r\nb", 5);
  const std::string input = "*2\r\n$4\r\nECHO\r\n$5\r\n" + value + "\r\n";
  EXPECT_EQ(ParseAll(input), (std::vector<Argv>{{"ECHO", value}}));
}

TEST(RespParser, InlineCommands) {
  EXPECT_EQ(ParseAll("PING\r\nECHO \"a b\" 'c'\nSET k \"\\x41\\n\"\r\n"),
            (std::vector<Argv>{{"PING"}, {"ECHO", "a b", "c"}, {"SET", "k", "A\n"}}));
  // Empty lines, blank lines, *0 and *-1 are no command at all.
  EXPECT_EQ(ParseAll("\r\n\n   \r\n*0\r\n*-1\r\nPING\r\n"), (std::vector<Argv>{{"PING"}}));
  // A line that does not start with '*' is inline, even when it looks like RESP.
  EXPECT_EQ(ParseAll("$3\r\nfoo\r\n"), (std::vector<Argv>{{"$3"}, {"foo"}}));
}

TEST(RespParser, RedisQuirksKept) {
  // The two bytes after a bulk are skipped unchecked.
  EXPECT_EQ(ParseAll("*1\r\n$4\r\nPINGXX*1\r\n$4\r\nPING\r\n"),
            (std::vector<Argv>{{"PING"}, {"PING"}}));
  // A length line ends at its first '\r'; the byte after it is skipped whatever it is.
  EXPECT_EQ(ParseAll("*1\rX$4\r\nPING\r\n"), (std::vector<Argv>{{"PING"}}));
  EXPECT_EQ(ParseAll("*1\r\n$3\r\r\nabc\r\n"), (std::vector<Argv>{{"\nab"}}));
  // A NUL ends the search for the line end: Redis waits for more input, and so do we.
  std::string error;
  EXPECT_TRUE(ParseAll(std::string("*1\r\n$1\0\r\n", 9), &error).empty());
  EXPECT_EQ(error, "");
  EXPECT_TRUE(ParseAll(std::string("PING\0x\r\n", 8), &error).empty());
  EXPECT_EQ(error, "");
}

TEST(RespParser, ProtocolErrorsAreRedisTexts) {
  const std::pair<std::string, std::string> cases[] = {
      {"*abc\r\n", "Protocol error: invalid multibulk length"},
      {"*3000000000\r\n", "Protocol error: invalid multibulk length"},
      {"*2147483648\r\n", "Protocol error: invalid multibulk length"},
      {"*+1\r\n", "Protocol error: invalid multibulk length"},
      {"*01\r\n", "Protocol error: invalid multibulk length"},
      {"*-0\r\n", "Protocol error: invalid multibulk length"},
      {"*\r\n", "Protocol error: invalid multibulk length"},
      {"*1\n$4\r\nPING\r\n", "Protocol error: invalid multibulk length"},
      {"*1\r\n$-1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$abc\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$ 1\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$01\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\n$600000000\r\n", "Protocol error: invalid bulk length"},
      {"*1\r\nx3\r\nfoo\r\n", "Protocol error: expected '$', got 'x'"},
      {"*1\r\n\r\n", "Protocol error: expected '$', got ' '"},
      {"PING \"abc\r\n", "Protocol error: unbalanced quotes in request"},
      {"PING \"a\"b\r\n", "Protocol error: unbalanced quotes in request"},
      {"'a'b\r\n", "Protocol error: unbalanced quotes in request"},
      {"*1\r\n" + std::string(70000, 'a'), "Protocol error: too big bulk count string"},
      {"*" + std::string(70000, '1'), "Protocol error: too big mbulk count string"},
      {std::string(70000, 'a'), "Protocol error: too big inline request"},
  };
  for (const auto& [input, want] : cases) {
    std::string error;
    ParseAll(input, &error);
    EXPECT_EQ(error, want) << input.substr(0, 40);
    ParseAll(input, &error, 3);
    EXPECT_EQ(error, want) << "in 3-byte pieces: " << input.substr(0, 40);
  }
}

TEST(RespParser, CommandsBeforeAnErrorAreParsed) {
  std::string error;
  EXPECT_EQ(ParseAll("*1\r\n$4\r\nPING\r\n*1\r\n$3\r\nFOO\r\n*x\r\nPING\r\n", &error),
            (std::vector<Argv>{{"PING"}, {"FOO"}}));
  EXPECT_EQ(error, "Protocol error: invalid multibulk length");
}

TEST(RespParser, InlineLimitIsExact) {
  std::string error;
  // Exactly PROTO_INLINE_MAX_SIZE bytes without a newline: still waiting; one more: an error.
  EXPECT_TRUE(ParseAll(std::string(kProtoInlineMaxSize, 'a'), &error).empty());
  EXPECT_EQ(error, "");
  ParseAll(std::string(kProtoInlineMaxSize + 1, 'a'), &error);
  EXPECT_EQ(error, "Protocol error: too big inline request");
  // A long line that arrives whole, newline included, is a command.
  EXPECT_EQ(ParseAll("ECHO " + std::string(100000, 'x') + "\r\n").size(), 1u);
}

TEST(RespParser, BulkLimitIsReadOnEveryCall) {
  std::string error;
  EXPECT_EQ(ParseAll("*1\r\n$10\r\n0123456789\r\n", &error, 0, 10).size(), 1u);
  ParseAll("*1\r\n$11\r\n", &error, 0, 10);
  EXPECT_EQ(error, "Protocol error: invalid bulk length");
}

TEST(RespParser, HugeCountAllocatesNothingUpFront) {
  RequestParser parser;
  parser.Append("*2147483647\r\n");
  Argv argv;
  EXPECT_EQ(parser.Next(kDefaultMaxBulkLen, &argv), RequestParser::Result::kNeedMore);
  EXPECT_EQ(parser.pending_bytes(), 0u);
  // Arguments that do arrive are counted against the query buffer limit.
  for (int i = 0; i < 1000; ++i) parser.Append("$1\r\na\r\n");
  EXPECT_EQ(parser.Next(kDefaultMaxBulkLen, &argv), RequestParser::Result::kNeedMore);
  EXPECT_EQ(parser.pending_bytes(), 1000 * (sizeof(std::string) + 1));
}

TEST(RespParser, BigArgumentBufferFollowsArrivalAndIsReleased) {
  RequestParser parser;
  parser.Append("*2\r\n$4\r\nECHO\r\n$100000000\r\n");
  Argv argv;
  EXPECT_EQ(parser.Next(kDefaultMaxBulkLen, &argv), RequestParser::Result::kNeedMore);
  size_t room = 0;
  parser.ReceiveBuffer(&room);
  // Announced 100 MB; the buffer only grows with what arrives.
  EXPECT_LT(room, 1u << 20);
  const std::string value(100000000, 'v');
  parser.Append(value);
  parser.Append("\r\n");
  ASSERT_EQ(parser.Next(kDefaultMaxBulkLen, &argv), RequestParser::Result::kCommand);
  EXPECT_EQ(argv[1].size(), value.size());
  EXPECT_EQ(parser.Next(kDefaultMaxBulkLen, &argv), RequestParser::Result::kNeedMore);
  EXPECT_EQ(parser.buffered() + parser.free_space(), 0u);  // released
}

}  // namespace
}  // namespace kvlab::resp
