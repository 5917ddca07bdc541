#include "conformance/differential.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

#include "engine/command_table.h"

namespace kvlab::conformance {

using engine::CommandSpec;
using engine::CommandTable;
using engine::kCmdReadonly;
using resp::Reply;

namespace {

// Runs a SCAN-family command from cursor 0 until the cursor comes back to 0. Returns what it
// saw, without duplicates and sorted: keys (SCAN), or field-value / member-score pairs kept
// together (HSCAN, ZSCAN), as one flat array; or the error reply.
Reply ScanAll(ReplyTarget& target, std::vector<std::string> argv) {
  const bool is_keyspace = argv[0].size() == 4;  // SCAN: the cursor is argument 1
  const size_t cursor_arg = is_keyspace ? 1 : 2;
  const bool pairs = !is_keyspace && std::tolower(static_cast<unsigned char>(argv[0][0])) != 's';
  if (argv.size() <= cursor_arg) return target.Execute(argv);
  // The stream's own cursor is only checked for validity: run it once as given, and start over
  // from 0 if it is accepted, so that both sides iterate the whole collection.
  auto is_page = [](const Reply& r) {
    return r.type() == Reply::Type::kArray && r.elements().size() == 2 &&
           r.elements()[0].type() == Reply::Type::kBulk &&
           r.elements()[1].type() == Reply::Type::kArray;
  };
  if (argv[cursor_arg] != "0") {
    // Its items depend on the server's cursor encoding, so only its shape is compared.
    Reply first = target.Execute(argv);
    if (!is_page(first)) return first;
    argv[cursor_arg] = "0";
  }
  // Sorted by the RESP text of the item (or pair), which is unique per item.
  std::map<std::string, std::vector<Reply>> seen;
  for (int round = 0; round < 100000; ++round) {
    Reply r = target.Execute(argv);
    if (!is_page(r)) return r;  // an error (or a malformed page), compared as such
    const auto& items = r.elements()[1].elements();
    for (size_t i = 0; i < items.size(); i += pairs ? 2 : 1) {
      std::vector<Reply> item = {items[i]};
      if (pairs && i + 1 < items.size()) item.push_back(items[i + 1]);
      std::string sort_key;
      for (const Reply& x : item) sort_key += x.ToResp();
      seen.emplace(std::move(sort_key), std::move(item));
    }
    const std::string& next = r.elements()[0].str();
    if (next == "0") break;
    argv[cursor_arg] = next;
  }
  std::vector<Reply> out;
  for (auto& [key, item] : seen) {
    for (Reply& x : item) out.push_back(std::move(x));
  }
  return Reply::Array(std::move(out));
}

Reply Run(ReplyTarget& target, const std::vector<std::string>& argv) {
  return IsScanCommand(argv[0]) ? ScanAll(target, argv) : target.Execute(argv);
}

// Redis counts a key in DBSIZE until its expiry is noticed: on access, or by the active expiry
// cycle up to ~100 ms later (SET ... PXAT in the past leaves such a key). A whole SCAN notices
// every expired key of the database, so DBSIZE then counts exactly the live keys, as kvlab
// does. This changes nothing a client can see. MEMORY USAGE likewise reports an expired key
// until its expiry is noticed (IsMemoryUsage): an EXISTS of the key first notices it.
Reply RunOnReference(ReplyTarget& reference, const std::vector<std::string>& argv) {
  if (LowerCommand(argv[0]) == "dbsize") ScanAll(reference, {"SCAN", "0", "COUNT", "1000"});
  if (IsMemoryUsage(argv)) reference.Execute({"EXISTS", argv[2]});
  return Run(reference, argv);
}

// `base` with the versions `over` names replacing its own.
encodings::EncodingProfile Overlay(encodings::EncodingProfile base,
                                   const encodings::EncodingProfile& over) {
  for (const auto& [type, version] : over.versions) base.versions[type] = version;
  return base;
}

// A migration run's switch before a command: sets the subject's versions of the types `step`
// names (CONFIG SET on the subject only; its reply is not judged, but a refusal fails the step).
Status ConfigureVersions(ReplyTarget& subject, const encodings::EncodingProfile& step) {
  std::vector<std::string> argv = {"CONFIG", "SET"};
  for (const auto& [type, version] : step.versions) {
    if (!version) continue;
    argv.push_back("kv." + type + ".key.meta.version");
    argv.push_back(*version);
  }
  const Reply r = subject.Execute(argv);
  if (r.type() == Reply::Type::kStatus && r.str() == "OK") return Status::OK();
  return Status::Unavailable("the subject refused " + DisplayCommandLine(argv) + ": " +
                             DescribeShort(r));
}

// Judges one reply of the subject against Redis's.
void Judge(const RunContext& context, const std::vector<std::string>& argv, const Reply& redis,
           const Reply& subject, StepOutcome* out) {
  std::string why = CompareReplies(argv, redis, subject, context.compare);
  if (why.empty()) return;
  std::string id;
  if (context.catalogue != nullptr && !context.profile.versions.empty()) {
    id = context.catalogue->Explain(argv, context.profile, redis, subject);
    // A read, EXEC and SWAPDB migrate no key: their replies depend on the versions the keys are
    // already in (SWAPDB moves whole databases, refused over zset v3 keys), so either family's
    // deviations explain them.
    if (id.empty() && !context.migrate_with.versions.empty() &&
        (IsReadOnlyCommand(argv[0]) || LowerCommand(argv[0]) == "exec" ||
         LowerCommand(argv[0]) == "swapdb")) {
      id = context.catalogue->Explain(argv, Overlay(context.profile, context.migrate_with), redis,
                                      subject);
    }
  }
  // A failure outranks a deviation seen earlier in the same step (warm runs judge twice).
  if (out->verdict == Verdict::kFail) return;
  out->verdict = id.empty() ? Verdict::kFail : Verdict::kDeviation;
  out->deviation_id = id;
  out->argv = argv;
  out->explanation = std::move(why);
  out->redis = redis;
  out->subject = subject;
}

// The items a random reply names (one bulk, or an array of bulks; RESP3's [element, value]
// pairs are flattened). False for another shape.
bool ChosenItems(const Reply& r, std::vector<std::string>* out) {
  out->clear();
  if (r.type() == Reply::Type::kBulk) {
    out->push_back(r.str());
    return true;
  }
  if (r.type() != Reply::Type::kArray) return false;
  for (const Reply& e : r.elements()) {
    if (e.type() == Reply::Type::kArray) {
      for (const Reply& x : e.elements()) {
        if (x.type() != Reply::Type::kBulk) return false;
        out->push_back(x.str());
      }
    } else if (e.type() == Reply::Type::kBulk) {
      out->push_back(e.str());
    } else {
      return false;
    }
  }
  return true;
}

// Whether a value the subject paired with an element is the one the reference holds. Scores
// are compared as printed, except that a zero matches a zero of either sign: kvlab stores -0 as
// 0 (the zset-negative-zero-score deviation).
bool SameValue(bool zset, const std::string& held, const std::string& given) {
  if (held == given) return true;
  if (!zset) return false;
  auto zero = [](const std::string& s) { return s == "0" || s == "-0"; };
  return zero(held) && zero(given);
}

// Judges a random choice (SRANDMEMBER, SPOP, ZRANDMEMBER, HRANDFIELD, RANDOMKEY): the subject's
// reply must be one Redis could have given from the same state (RANDOMKEY: any live key).
// Redis's own reply fixes the shape and the count (min(count, size) for a positive count,
// |count| for a negative one); the subject's
// elements must be distinct where Redis's must be (SPOP, a positive count), each one must be an
// element of the key before the command, and with WITHSCORES or WITHVALUES each must come with
// the score or value the key holds for it. For SPOP the reference then pops what the subject
// popped (Redis's choices go back, the subject's come out), so both hold the same set again.
void JudgeRandom(const RunContext& context, ReplyTarget& reference,
                 const std::vector<std::string>& argv, const Reply& redis_raw,
                 const Reply& subject_raw, StepOutcome* out) {
  const Reply redis = redis_raw.AsResp2(), subject = subject_raw.AsResp2();
  if (LowerCommand(argv[0]) == "randomkey") {
    // Any live key: nil on both sides when the database is empty, else a key that exists.
    bool valid = argv.size() == 1 && redis.type() == Reply::Type::kBulk &&
                 subject.type() == Reply::Type::kBulk;
    if (valid) valid = reference.Execute({"EXISTS", subject.str()}) == Reply::Integer(1);
    Judge(context, argv, redis_raw, valid ? redis_raw : subject_raw, out);
    if (!valid && out->verdict == Verdict::kFail) out->explanation += " (not a live key)";
    return;
  }
  std::vector<std::string> by_redis, by_subject;
  if (argv.size() < 2 || redis.type() != subject.type() || !ChosenItems(redis, &by_redis) ||
      !ChosenItems(subject, &by_subject) || by_redis.size() != by_subject.size()) {
    return Judge(context, argv, redis_raw, subject_raw, out);  // compared as they are
  }
  const std::string command = LowerCommand(argv[0]);
  const bool pop = command == "spop";
  const bool zset = command == "zrandmember", hash = command == "hrandfield";
  const bool distinct = pop || argv.size() < 3 || argv[2].empty() || argv[2][0] != '-';
  // WITHSCORES / WITHVALUES: Redis replied (so the option was valid) element-value pairs.
  const size_t step = (zset || hash) && argv.size() == 4 ? 2 : 1;
  std::vector<std::string> elements;
  for (size_t i = 0; i < by_subject.size(); i += step) elements.push_back(by_subject[i]);
  std::vector<std::string> sorted = elements;
  std::sort(sorted.begin(), sorted.end());
  bool valid = by_subject.size() % step == 0 &&
               (!distinct || std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  const std::string& key = argv[1];
  if (pop && !by_redis.empty()) {
    std::vector<std::string> sadd = {"SADD", key};
    sadd.insert(sadd.end(), by_redis.begin(), by_redis.end());
    reference.Execute(sadd);
  }
  if (valid && !elements.empty()) {
    // SMISMEMBER answers 1 per member; ZMSCORE and HMGET the score or value, nil for none.
    std::vector<std::string> probe = {zset ? "ZMSCORE" : hash ? "HMGET" : "SMISMEMBER", key};
    probe.insert(probe.end(), elements.begin(), elements.end());
    const Reply found = reference.Execute(probe).AsResp2();
    valid = found.type() == Reply::Type::kArray && found.elements().size() == elements.size();
    for (size_t i = 0; valid && i < elements.size(); ++i) {
      const Reply& f = found.elements()[i];
      if (!zset && !hash) {
        valid = f.type() == Reply::Type::kInteger && f.integer() == 1;
      } else {
        valid = f.type() == Reply::Type::kBulk &&
                (step == 1 || SameValue(zset, f.str(), by_subject[i * step + 1]));
      }
    }
  }
  if (pop && !by_subject.empty()) {
    // After a failure too: keep the two states as close as the subject's reply allows.
    std::vector<std::string> srem = {"SREM", key};
    srem.insert(srem.end(), by_subject.begin(), by_subject.end());
    reference.Execute(srem);
  }
  Judge(context, argv, redis_raw, valid ? redis_raw : subject_raw, out);
  if (!valid && out->verdict == Verdict::kFail) {
    out->explanation +=
        " (not a choice Redis could make: elements must be distinct where Redis's are, each "
        "one an element of the key, with the score or value the key holds for it)";
  }
}

// A step that could not be run as planned fails, saying why.
void StepFailure(const std::vector<std::string>& argv, std::string why, StepOutcome* out) {
  out->verdict = Verdict::kFail;
  out->argv = argv;
  out->explanation = std::move(why);
}

// Appends a judged step to `out`. When the subject's connection was lost during it, the step
// fails saying so; returns true then (the case stops there).
bool Record(ReplyTarget& subject, StepOutcome outcome, const std::vector<std::string>& argv,
            CaseOutcome* out) {
  std::string lost = subject.TakeTransportFailure();
  if (!lost.empty()) {
    StepFailure(argv, lost, &outcome);
    outcome.deviation_id.clear();
    outcome.transport = true;
    out->transport_failure = std::move(lost);
  }
  out->steps.push_back(std::move(outcome));
  return !out->transport_failure.empty();
}

// Switches a migration run's versions (RunContext::migrate_with) before a command.
class VersionSwitch {
 public:
  explicit VersionSwitch(const RunContext& context) : step_(context) {
    alternate_part_ = context.migrate_with;
    for (const auto& [type, version] : alternate_part_.versions) {
      primary_part_.versions[type] = context.profile.VersionOf(type);
    }
    primary_ = context.profile;
    alternate_ = Overlay(context.profile, context.migrate_with);
  }
  bool migrating() const { return !alternate_part_.versions.empty(); }
  // The context to judge the next command with: the versions configured for it, and the other
  // family's as its migrate_with.
  const RunContext& context() const { return step_; }
  // Configures the subject for the next command: the alternate versions first, then by turns.
  Status Next(ReplyTarget& subject) {
    if (!migrating()) return Status::OK();
    const bool alternate = steps_++ % 2 == 0;
    step_.profile = alternate ? alternate_ : primary_;
    step_.migrate_with = alternate ? primary_ : alternate_;
    return ConfigureVersions(subject, alternate ? alternate_part_ : primary_part_);
  }

 private:
  RunContext step_;
  // The versions of the alternating types, and every type's, in each family.
  encodings::EncodingProfile primary_part_, alternate_part_, primary_, alternate_;
  size_t steps_ = 0;
};

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kDeviation:
      return "deviation";
    case Verdict::kFail:
      return "fail";
  }
  return "?";
}

size_t CaseOutcome::count(Verdict v) const {
  return static_cast<size_t>(std::count_if(steps.begin(), steps.end(),
                                           [v](const StepOutcome& s) { return s.verdict == v; }));
}

const StepOutcome* CaseOutcome::first_failure() const {
  for (const StepOutcome& s : steps) {
    if (s.verdict == Verdict::kFail) return &s;
  }
  return nullptr;
}

Reply RedisTarget::Execute(const std::vector<std::string>& argv) {
  Reply reply;
  Status s = client_->Command(argv, &reply);
  if (!s.ok()) {
    const std::string what = DescribeTransportFailure(argv, s, timeout_);
    if (lost_.empty()) lost_ = what;
    return Reply::Error("TRANSPORT " + what);
  }
  return reply;
}

std::string DescribeTransportFailure(const std::vector<std::string>& argv, const Status& status,
                                     std::chrono::milliseconds timeout) {
  const std::string command = argv.empty() ? std::string("(nothing)") : DisplayCommandLine(argv);
  const std::string why = status.ToString();
  // hiredis's texts: a read that timed out fails with EAGAIN's text; a peer that closed or
  // reset the connection, with "Server closed the connection" or ECONNRESET's/EPIPE's.
  if (why.find("Resource temporarily unavailable") != std::string::npos ||
      why.find("timed out") != std::string::npos) {
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%g", static_cast<double>(timeout.count()) / 1000);
    return "the server did not answer " + command + " within " + seconds + " s";
  }
  if (why.find("closed the connection") != std::string::npos ||
      why.find("reset by peer") != std::string::npos ||
      why.find("Broken pipe") != std::string::npos) {
    return "the server closed the connection on " + command;
  }
  if (why.find("Protocol error") != std::string::npos) {
    return "the server's reply to " + command + " is not RESP (" + why + ")";
  }
  return "the server could not be reached for " + command + " (" + why + ")";
}

bool IsReadOnlyCommand(const std::string& command) {
  const CommandSpec* spec = CommandTable::Get().Find(command);
  return spec != nullptr && (spec->flags & kCmdReadonly) != 0;
}

CaseOutcome RunCase(const CaseFile& c, ReplyTarget& reference, ReplyTarget& subject,
                    const RunContext& run_context) {
  // `context` is the step's: a migration run switches its versions before every command.
  VersionSwitch versions(run_context);
  const RunContext& context = versions.context();
  CaseOutcome out;
  out.name = c.name;
  for (ReplyTarget* t : {&reference, &subject}) {
    // A case may end inside MULTI, or with keys watched: the next one starts outside both.
    t->Execute({"DISCARD"});
    t->Execute({"UNWATCH"});
    t->Execute({"FLUSHALL"});
    t->Execute({"SELECT", "0"});
  }
  // Commands of the case from position `i` on that were not run.
  auto not_run = [&c](size_t i) {
    return static_cast<size_t>(std::count_if(c.steps.begin() + static_cast<ptrdiff_t>(i),
                                             c.steps.end(),
                                             [](const CaseStep& s) { return !s.argv.empty(); }));
  };
  if (std::string lost = subject.TakeTransportFailure(); !lost.empty()) {
    // The case could not even be prepared: it fails once, at its first line, saying so.
    StepOutcome outcome;
    outcome.line = c.steps.empty() ? 0 : c.steps.front().line;
    outcome.command = "flushall";
    StepFailure({"FLUSHALL"}, "preparing the case: " + lost, &outcome);
    outcome.transport = true;
    out.steps.push_back(std::move(outcome));
    out.transport_failure = std::move(lost);
    out.not_run = not_run(0);
    return out;
  }
  // Between MULTI and EXEC commands are only queued: they are sent as they are (no whole SCAN,
  // no warming run, no DBSIZE preparation), and EXEC's reply is judged element by element, each
  // as the reply of its queued command (its comparison rules and deviations).
  bool in_multi = false;
  std::vector<std::vector<std::string>> queued;
  Status tier_status;
  if (context.tier == TierState::kCold) tier_status = context.tier_control->FlushCache();
  for (size_t index = 0; index < c.steps.size(); ++index) {
    const CaseStep& step = c.steps[index];
    // Records the step; when the subject's connection was lost in it, the case stops.
    auto record = [&](StepOutcome&& outcome) {
      if (!Record(subject, std::move(outcome), step.argv, &out)) return false;
      out.not_run = not_run(index + 1);
      return true;
    };
    if (step.argv.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(step.sleep_ms));
      continue;
    }
    StepOutcome outcome;
    outcome.line = step.line;
    outcome.command = LowerCommand(step.argv[0]);
    if (context.tier == TierState::kFlushed) tier_status = context.tier_control->FlushCache();
    if (!tier_status.ok()) {
      StepFailure(step.argv, "the Redis tier could not be flushed: " + tier_status.ToString(),
                  &outcome);
      tier_status = Status::OK();
      if (record(std::move(outcome))) break;
      continue;
    }
    const std::string& command = outcome.command;
    if (in_multi && command != "exec" && command != "discard" && command != "multi" &&
        command != "watch" && command != "quit" && command != "reset") {
      const Reply expected = reference.Execute(step.argv);
      const Reply actual = subject.Execute(step.argv);
      Judge(context, step.argv, expected, actual, &outcome);
      if (expected.type() == Reply::Type::kStatus) queued.push_back(step.argv);
      if (context.observe) context.observe(step.argv, expected, actual, outcome);
      if (record(std::move(outcome))) break;
      continue;
    }
    if (in_multi && (command == "exec" || command == "discard")) {
      const Reply expected = reference.Execute(step.argv);
      const Reply actual = subject.Execute(step.argv);
      const bool elementwise = command == "exec" && expected.type() == Reply::Type::kArray &&
                               actual.type() == Reply::Type::kArray &&
                               expected.elements().size() == queued.size() &&
                               actual.elements().size() == queued.size();
      if (elementwise) {
        for (size_t i = 0; i < queued.size(); ++i) {
          Judge(context, queued[i], expected.elements()[i], actual.elements()[i], &outcome);
        }
      } else {
        Judge(context, step.argv, expected, actual, &outcome);
      }
      // A spurious abort (a catalogued deviation: a blind delete counted as a modification of
      // a watched key) leaves the subject without the transaction's writes, and every later
      // reply would differ for it. Retry it there, as a client's WATCH loop would, and judge the
      // retry's replies as EXEC's.
      if (command == "exec" && outcome.verdict == Verdict::kDeviation &&
          expected.type() == Reply::Type::kArray && actual.type() == Reply::Type::kNilArray) {
        subject.Execute({"MULTI"});
        for (const std::vector<std::string>& argv : queued) subject.Execute(argv);
        const Reply retried = subject.Execute({"EXEC"});
        if (retried.type() == Reply::Type::kArray && retried.elements().size() == queued.size() &&
            expected.elements().size() == queued.size()) {
          for (size_t i = 0; i < queued.size(); ++i) {
            Judge(context, queued[i], expected.elements()[i], retried.elements()[i], &outcome);
          }
        } else {
          Judge(context, step.argv, expected, retried, &outcome);
        }
      }
      // EXEC and DISCARD end the transaction, unless rejected for their arity (DISCARD x).
      if (step.argv.size() == 1 || command == "exec") {
        in_multi = false;
        queued.clear();
      }
      if (context.observe) context.observe(step.argv, expected, actual, outcome);
      if (record(std::move(outcome))) break;
      continue;
    }
    // MULTI or WATCH inside a transaction is sent as it is; a CONFIG SET there would be queued.
    if (Status s = in_multi ? Status::OK() : versions.Next(subject); !s.ok()) {
      StepFailure(step.argv, s.ToString(), &outcome);
      if (record(std::move(outcome))) break;
      continue;
    }
    const Reply expected = RunOnReference(reference, step.argv);
    if (command == "multi" && expected.type() == Reply::Type::kStatus) {
      in_multi = true;
      queued.clear();
    }
    // RESET is not queued: it ends the transaction (and selects database 0) at once.
    if (command == "reset" && expected.type() == Reply::Type::kStatus) {
      in_multi = false;
      queued.clear();
    }
    const bool random = IsRandomReply(step.argv);
    if (context.tier == TierState::kWarm && IsReadOnlyCommand(step.argv[0]) && command != "watch") {
      const Reply warming = Run(subject, step.argv);  // fills the cache
      if (random) {
        JudgeRandom(context, reference, step.argv, expected, warming, &outcome);
      } else {
        Judge(context, step.argv, expected, warming, &outcome);
      }
    }
    const Reply actual = Run(subject, step.argv);
    if (random) {
      JudgeRandom(context, reference, step.argv, expected, actual, &outcome);
    } else {
      Judge(context, step.argv, expected, actual, &outcome);
    }
    if (context.observe) context.observe(step.argv, expected, actual, outcome);
    if (record(std::move(outcome))) break;
  }
  return out;
}

}  // namespace kvlab::conformance
