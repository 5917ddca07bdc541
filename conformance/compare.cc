#include "conformance/compare.h"

#include <strings.h>

#include <algorithm>
#include <cstdlib>

namespace kvlab {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool SameOrder(const Reply& a, const Reply& b) { return a == b; }

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

Reply NormalizeNil(const Reply& r) {
  if (r.type() == Reply::Type::kNilArray) return Reply::Nil();
  if (r.type() != Reply::Type::kArray) return r;
  std::vector<Reply> e;
  for (const Reply& x : r.elements()) e.push_back(NormalizeNil(x));
  return Reply::Array(std::move(e));
}

}  // namespace

bool IsUnorderedReply(const std::string& command) {
  const std::string c = Lower(command);
  return c == "hgetall" || c == "hkeys" || c == "hvals" || c == "keys";
}

bool IsScanCommand(const std::string& command) {
  const std::string c = Lower(command);
  return c == "scan" || c == "hscan" || c == "zscan" || c == "sscan";
}

std::string CompareReplies(const std::vector<std::string>& argv, const Reply& redis_raw,
                           const Reply& kvlab_raw, const CompareOptions& options) {
  const Reply redis = NormalizeNil(redis_raw);
  const Reply kvlab = NormalizeNil(kvlab_raw);
  const std::string cmd = argv.empty() ? "" : Lower(argv[0]);
  auto explain = [&] {
    return "redis replied " + redis.Describe() + ", kvlab replied " + kvlab.Describe();
  };
  if (redis.type() != kvlab.type()) return explain();
  if (redis.type() == Reply::Type::kArray && IsUnorderedReply(cmd)) {
    return SortedElements(redis, cmd == "hgetall") == SortedElements(kvlab, cmd == "hgetall")
               ? ""
               : explain();
  }
  if (redis.type() == Reply::Type::kInteger &&
      (cmd == "ttl" || cmd == "pttl" || cmd == "expiretime" || cmd == "pexpiretime")) {
    const int64_t a = redis.integer(), b = kvlab.integer();
    if (a < 0 || b < 0) return a == b ? "" : explain();
    const int64_t tolerance =
        (cmd == "pttl" || cmd == "pexpiretime") ? options.ttl_tolerance_ms : 1;
    return std::llabs(a - b) <= tolerance ? "" : explain() + " (beyond the declared tolerance)";
  }
  return SameOrder(redis, kvlab) ? "" : explain();
}

}  // namespace kvlab
