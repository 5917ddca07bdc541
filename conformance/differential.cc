#include "conformance/differential.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

namespace kvlab {
namespace {

// Runs a SCAN-family command from cursor 0 until the cursor comes back to 0. Returns the set of
// elements seen (field-value pairs for HSCAN and ZSCAN), or an error reply.
Reply ScanAll(ReplyTarget& target, std::vector<std::string> argv) {
  const bool is_keyspace = argv[0].size() == 4;  // SCAN: the cursor is argument 1
  const size_t cursor_arg = is_keyspace ? 1 : 2;
  const bool pairs = !is_keyspace && std::tolower(static_cast<unsigned char>(argv[0][0])) != 's';
  if (argv.size() <= cursor_arg) return target.Execute(argv);
  argv[cursor_arg] = "0";
  std::set<std::string> seen;
  for (int round = 0; round < 100000; ++round) {
    Reply r = target.Execute(argv);
    if (r.type() != Reply::Type::kArray || r.elements().size() != 2 ||
        r.elements()[1].type() != Reply::Type::kArray) {
      return r;  // an error, compared as such
    }
    const auto& items = r.elements()[1].elements();
    for (size_t i = 0; i < items.size(); i += pairs ? 2 : 1) {
      std::string item = items[i].ToResp();
      if (pairs && i + 1 < items.size()) item += items[i + 1].ToResp();
      seen.insert(item);
    }
    const std::string& next = r.elements()[0].str();
    if (next == "0") break;
    argv[cursor_arg] = next;
  }
  std::vector<Reply> out;
  for (const std::string& s : seen) out.push_back(Reply::Bulk(s));
  return Reply::Array(std::move(out));
}

}  // namespace

Reply RedisTarget::Execute(const std::vector<std::string>& argv) {
  Reply reply;
  Status s = client_->Command(argv, &reply);
  if (!s.ok()) return Reply::Error("TRANSPORT " + s.ToString());
  return reply;
}

CaseOutcome RunCase(const CaseFile& c, ReplyTarget& reference, ReplyTarget& subject,
                    const CompareOptions& options) {
  CaseOutcome out;
  out.name = c.name;
  for (ReplyTarget* t : {&reference, &subject}) {
    t->Execute({"FLUSHALL"});
    t->Execute({"SELECT", "0"});
  }
  for (const CaseStep& step : c.steps) {
    if (step.argv.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(step.sleep_ms));
      continue;
    }
    ++out.commands;
    const bool scan = IsScanCommand(step.argv[0]);
    const Reply expected = scan ? ScanAll(reference, step.argv) : reference.Execute(step.argv);
    const Reply actual = scan ? ScanAll(subject, step.argv) : subject.Execute(step.argv);
    std::string why = CompareReplies(step.argv, expected, actual, options);
    if (!why.empty()) {
      out.mismatches.push_back({c.name, step.line, step.argv, std::move(why), expected, actual});
    }
  }
  return out;
}

}  // namespace kvlab
