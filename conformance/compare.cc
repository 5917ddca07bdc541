#include "conformance/compare.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace kvlab::conformance {

using resp::Reply;

namespace {

// The elements of an array reply, sorted (pairs kept together when `pairs`).
std::vector<std::string> SortedElements(const Reply& r, bool pairs) {
  std::vector<std::string> out;
  const auto& e = r.elements();
  for (size_t i = 0; i < e.size(); i += pairs ? 2 : 1) {
    std::string item = e[i].ToResp();
    if (pairs && i + 1 < e.size()) item += e[i + 1].ToResp();
    out.push_back(std::move(item));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The RESP2 view of a reply (maps and sets as arrays, doubles as bulk strings), with the two
// nils as one.
Reply NormalizeNil(const Reply& resp2) {
  const Reply r = resp2.AsResp2();
  if (r.type() == Reply::Type::kNilArray) return Reply::Nil();
  if (r.type() != Reply::Type::kArray) return r;
  std::vector<Reply> e;
  for (const Reply& x : r.elements()) e.push_back(NormalizeNil(x));
  return Reply::Array(std::move(e));
}

bool ParseInt(const std::string& s, int64_t* out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// TIME replies [seconds, microseconds] as two bulk strings.
bool TimeShape(const Reply& r, int64_t* seconds) {
  int64_t micros = 0;
  return r.type() == Reply::Type::kArray && r.elements().size() == 2 &&
         r.elements()[0].type() == Reply::Type::kBulk &&
         r.elements()[1].type() == Reply::Type::kBulk && ParseInt(r.elements()[0].str(), seconds) &&
         ParseInt(r.elements()[1].str(), &micros) && micros >= 0 && micros < 1000000;
}

}  // namespace

std::string LowerCommand(const std::string& name) {
  std::string s = name;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsUnorderedReply(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string c = LowerCommand(argv[0]);
  if (c == "config") return argv.size() > 1 && LowerCommand(argv[1]) == "get";
  return c == "hgetall" || c == "hkeys" || c == "hvals" || c == "keys" || c == "smembers" ||
         c == "sinter" || c == "sunion" || c == "sdiff";
}

bool IsRandomReply(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  const std::string c = LowerCommand(argv[0]);
  return c == "srandmember" || c == "spop" || c == "randomkey" || c == "zrandmember" ||
         c == "hrandfield";
}

bool IsMemoryUsage(const std::vector<std::string>& argv) {
  return argv.size() >= 3 && LowerCommand(argv[0]) == "memory" && LowerCommand(argv[1]) == "usage";
}

bool IsScanCommand(const std::string& command) {
  const std::string c = LowerCommand(command);
  return c == "scan" || c == "hscan" || c == "zscan" || c == "sscan";
}

std::string DescribeShort(const Reply& reply, size_t max_chars) {
  // Describe quotes bulk strings with escapes but prints status and error text raw: escape
  // what is left, so that a NUL or CR in an error shows.
  std::string text;
  for (unsigned char c : reply.Describe()) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      text += buf;
    } else {
      text += static_cast<char>(c);
    }
  }
  if (text.size() <= max_chars) return text;
  const size_t full = text.size();
  text.resize(max_chars);
  return text + "...(" + std::to_string(full) + " chars)";
}

std::string CompareReplies(const std::vector<std::string>& argv, const Reply& redis_raw,
                           const Reply& subject_raw, const CompareOptions& options) {
  const Reply redis = NormalizeNil(redis_raw);
  const Reply subject = NormalizeNil(subject_raw);
  const std::string cmd = argv.empty() ? "" : LowerCommand(argv[0]);
  auto explain = [&] {
    return "redis replied " + DescribeShort(redis) + ", kvlab replied " + DescribeShort(subject);
  };
  if (cmd == "time" && redis.type() == Reply::Type::kArray) {
    int64_t a = 0, b = 0;
    if (!TimeShape(redis, &a) || !TimeShape(subject, &b)) return explain();
    return std::llabs(a - b) <= options.time_tolerance_s
               ? ""
               : explain() + " (beyond the declared tolerance)";
  }
  if (redis.type() != subject.type()) return explain();
  if (redis.type() == Reply::Type::kArray && IsUnorderedReply(argv)) {
    const bool pairs = cmd == "hgetall" || cmd == "config";
    return SortedElements(redis, pairs) == SortedElements(subject, pairs) ? "" : explain();
  }
  if (redis.type() == Reply::Type::kInteger &&
      (cmd == "ttl" || cmd == "pttl" || cmd == "expiretime" || cmd == "pexpiretime")) {
    const int64_t a = redis.integer(), b = subject.integer();
    if (a < 0 || b < 0) return a == b ? "" : explain();
    const int64_t tolerance = (cmd == "pttl" || cmd == "pexpiretime") ? options.ttl_tolerance_ms
                                                                      : options.ttl_tolerance_s;
    return std::llabs(a - b) <= tolerance ? "" : explain() + " (beyond the declared tolerance)";
  }
  return redis == subject ? "" : explain();
}

}  // namespace kvlab::conformance
