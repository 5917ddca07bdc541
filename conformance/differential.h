// Running one command stream against two targets and judging every reply.
//
// A target is anything that answers Redis commands: a real redis-server (through hiredis), the
// engine in-process, or `kvlab serve` (or any RESP server) end to end. The reference is always
// a real Redis. Every reply of the subject is judged:
//   pass       it equals Redis's (compare.h);
//   deviation  it differs, and the deviations catalogue explains it exactly for the command
//              and the encode-versions in use;
//   fail       anything else.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "conformance/case_file.h"
#include "conformance/compare.h"
#include "conformance/deviations.h"
#include "conformance/redis_tier_hook.h"
#include "encodings/registry.h"
#include "engine/engine.h"
#include "redis/client.h"
#include "resp/reply.h"

namespace kvlab::conformance {

class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  virtual std::string name() const = 0;
  virtual resp::Reply Execute(const std::vector<std::string>& argv) = 0;
  // The first transport failure since the last call, in words that name the command it
  // happened on ("the server closed the connection on XADD s 1-1 f v", "the server did not
  // answer GET k within 10 s"), and clears it; "" when there was none. An in-process target
  // has none.
  virtual std::string TakeTransportFailure() { return {}; }
};

// The engine, in-process, through one session. Its replies are what a RESP2 client decodes
// (maps as arrays, doubles as bulk strings), as the reference's are.
class EngineReplyTarget final : public ReplyTarget {
 public:
  explicit EngineReplyTarget(engine::Engine* engine) : engine_(engine) {}
  std::string name() const override { return "kvlab"; }
  resp::Reply Execute(const std::vector<std::string>& argv) override {
    return engine_->Execute(session_, argv).AsResp2();
  }

 private:
  engine::Engine* engine_;
  engine::Session session_;
};

// A redis-server (or `kvlab serve`, or any RESP server) over one connection. A transport
// failure becomes an error reply that names it, so that it shows as a mismatch rather than
// passing silently, and is kept for TakeTransportFailure. The client reconnects on the next
// command.
class RedisTarget final : public ReplyTarget {
 public:
  // `timeout`: the client's, for the words of a failure ("did not answer within 10 s").
  RedisTarget(std::string name, redis::RedisClient* client,
              std::chrono::milliseconds timeout = std::chrono::milliseconds(2000))
      : name_(std::move(name)), client_(client), timeout_(timeout) {}
  std::string name() const override { return name_; }
  resp::Reply Execute(const std::vector<std::string>& argv) override;
  std::string TakeTransportFailure() override { return std::exchange(lost_, {}); }

 private:
  std::string name_;
  redis::RedisClient* client_;
  std::chrono::milliseconds timeout_;
  std::string lost_;
};

// What a transport failure of `argv` was, in words: the server closed the connection, did not
// answer within the client's timeout, or could not be reached.
std::string DescribeTransportFailure(const std::vector<std::string>& argv, const Status& status,
                                     std::chrono::milliseconds timeout);

enum class Verdict { kPass, kDeviation, kFail };
std::string_view VerdictName(Verdict v);  // "pass", "deviation", "fail"

// The judgement of one command of a stream.
struct StepOutcome {
  int line = 0;         // line in the case file, or 1-based position in a random sequence
  std::string command;  // lower case
  Verdict verdict = Verdict::kPass;
  std::string deviation_id;  // the catalogue entry, for kDeviation
  // Only for kDeviation and kFail:
  std::vector<std::string> argv;
  std::string explanation;
  resp::Reply redis;
  resp::Reply subject;
  // The subject's connection was lost during this step (explanation says how); the case
  // stopped here.
  bool transport = false;
};

struct CaseOutcome {
  std::string name;
  std::vector<StepOutcome> steps;  // one per command, in order (not for @sleep)
  // The subject's connection was lost (the last step says on which command, or the case's
  // preparation did): the commands after it were not run, and are not judged.
  std::string transport_failure;
  size_t not_run = 0;
  size_t count(Verdict v) const;
  // The first failing step, or nullptr.
  const StepOutcome* first_failure() const;
};

// How a stream is judged and which tier state it runs in.
struct RunContext {
  CompareOptions compare;
  // nullptr: no deviation is allowed; every mismatch fails.
  const DeviationCatalogue* catalogue = nullptr;
  // The encode-versions the subject gives new keys; empty when unknown (e.g. a plain RESP
  // server), in which case no catalogue entry applies.
  encodings::EncodingProfile profile;
  // A migration run (Profile::migrate_with): the versions, by type, that the subject's
  // configured ones alternate with, for the types whose version differs from `profile`'s. The
  // subject must have migration on write on. Before every command outside MULTI, RunCase sets
  // the subject's versions (CONFIG SET kv.<type>.key.meta.version, on the subject only, not
  // judged), these first, `profile`'s next, and so on; so keys are created in one family and
  // then read and written under the other, and every write to a key last written under the
  // other family migrates it. A reply then deviates as catalogued when the entry is listed by
  // the versions configured for the command, or, for a read-only command (which reads a key in
  // whichever family last wrote it) and EXEC (whose watched write may have run under the
  // other), by the other family's.
  encodings::EncodingProfile migrate_with;
  TierState tier = TierState::kNone;
  // REQUIRED when tier != kNone.
  RedisTierControl* tier_control = nullptr;
  // Optional: sees every command with both replies and the verdict (transcripts).
  std::function<void(const std::vector<std::string>& argv, const resp::Reply& redis,
                     const resp::Reply& subject, const StepOutcome& outcome)>
      observe;
};

// Whether Redis's command table marks a command read-only (kvlab's table is Redis's).
bool IsReadOnlyCommand(const std::string& command);

// Runs a case on a fresh keyspace (FLUSHALL and SELECT 0 on both sides first) and judges every
// reply; with context.migrate_with, switching the subject's versions before every command.
// SCAN-family commands are run as whole iterations on each side and compared as sets; random
// choices (SRANDMEMBER, SPOP, ZRANDMEMBER, HRANDFIELD) are checked against the reference's key, and
// SPOP's pops are then made the same on the reference (compare.h). Errors of the tier control are
// reported as failures of the step they happened at. When the subject's connection is lost (its
// TakeTransportFailure), the step it was lost at fails, saying so, and the case stops there: the
// state the later commands would see is unknown, so they are counted in not_run and not judged.
CaseOutcome RunCase(const CaseFile& c, ReplyTarget& reference, ReplyTarget& subject,
                    const RunContext& context);

}  // namespace kvlab::conformance
