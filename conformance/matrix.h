// The conformance matrix: command streams × subjects (backends, or a remote server) × profiles
// (encode-versions, and for Redis-tier versions a tier state), every reply judged against a
// real redis-server.
//
// Profiles. The versions come from the subject (for the engine: every version of its registry
// it can run), optionally narrowed by the plan. The versions of the types are paired:
//   lockstep  one profile per version name (the longest type's, in order, then the rest):
//             each type runs its version of that name, or, lacking one, the version it ran in
//             the previous profile. Every version of each type runs, each family's versions
//             run together (hardb zardb lardb sardb), and the matrix grows with the number of
//             names, not the product;
//   cross     every combination of versions.
// A profile whose versions use the Redis tier runs once per tier state of the plan.
//
// Migration (`migrate_with`): each profile runs instead once per version name of the list, as
// a migration profile: migration on write on, and the subject's versions switching before every
// command between that name's (for each type that has it and runs another in the profile) and
// the profile's (RunContext::migrate_with). A profile that already runs the name, for every
// type that has it, is left out.
//
// Streams. The curated corpus runs case by case. A random run generates `sequences` sequences
// of `steps` commands from one seed; every profile of every subject sees the same sequences.
// A random sequence that fails is shrunk to a minimal reproducer and written as a case file
// (reproducer.h): one per failing command and at most max_shrinks per run, because shrinking
// replays the sequence many times against the real Redis.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "conformance/case_file.h"
#include "conformance/compare.h"
#include "conformance/deviations.h"
#include "conformance/differential.h"
#include "conformance/subjects.h"

namespace kvlab::conformance {

enum class VersionPairing { kLockstep, kCross };

struct RandomPlan {
  uint64_t seed = 0;
  size_t sequences = 4;
  size_t steps = 250;
  bool fresh_seed = false;  // the seed was drawn for this run (reported, so it can be replayed)
  std::string replay;       // the command line that replays the run, for reproducers and reports
};

// The command line that replays a random run: r.replay, or one built from the seed and sizes.
std::string RandomReplayCommand(const RandomPlan& r);

struct MatrixPlan {
  // The versions to run, by type name -> version names; a type not listed runs every version
  // the subject runs.
  std::map<std::string, std::vector<std::string>> versions;
  // The registry whose types label the profiles (nullptr: kvlab's, Builtin()).
  const encodings::EncodingRegistry* registry = nullptr;
  VersionPairing pairing = VersionPairing::kLockstep;
  // Not empty: run the migration profiles with these version names instead (see the top).
  std::vector<std::string> migrate_with;
  std::vector<TierState> tier_states = AllTierStates();
  std::vector<CaseFile> corpus;
  std::optional<RandomPlan> random;
  size_t max_shrinks = 3;
  size_t max_shrink_tests = 300;
  std::string reproducer_dir;  // "": shrunk reproducers are not written
  CompareOptions compare;
  const DeviationCatalogue* catalogue = nullptr;  // nullptr: no deviation is allowed
  // Optional: every command of the first subject's first profile, with Redis's reply (and
  // kvlab's where it differs), for people writing cases.
  std::ostream* transcript = nullptr;
  // Non-zero: stop after the case or sequence running (set by a SIGINT handler). May be null.
  const volatile std::sig_atomic_t* stop = nullptr;
  // A subject whose connection is lost more often than this (it closed the connection, did
  // not answer in time) is not run any further: a server that keeps dying gets a clear stop.
  size_t max_disconnects = 100;
};

// The profiles `subject` runs under `plan`. Fails when the plan asks for a version the subject
// does not run; a subject that takes no versions (a plain RESP server) runs once, as
// configured, whatever the plan asks.
Status PlanProfiles(Subject& subject, const MatrixPlan& plan, std::vector<Profile>* out);

// The registry type whose commands the command is ("hash", "zset"), from the command table's
// group, or "other".
std::string CommandGroup(const std::string& command);
// The matrix column of a command run in a profile: "hash v1" for hash commands, "zset v0" for
// zset commands, the profile's label ("h1 z0") for the others; with the version it alternates
// with in a migration profile ("hash v1 <-> ardb") and the tier state appended.
std::string VersionLabel(const std::string& command, const Profile& profile);
// The same for a whole group (a type name or "other").
std::string GroupVersionLabel(const std::string& group, const Profile& profile);

struct Tally {
  uint64_t pass = 0;
  uint64_t deviation = 0;
  uint64_t fail = 0;
  std::map<std::string, uint64_t> deviation_ids;
  void Add(const StepOutcome& s);
  void Add(const Tally& t);
  uint64_t total() const { return pass + deviation + fail; }
};

struct FailureRecord {
  std::string subject;
  std::string profile;
  std::string source;  // the case name ("zset_range", "random-42-3")
  int line = 0;
  std::string command_line;  // for display (long arguments cut)
  std::string explanation;
  std::string redis;  // Describe, cut
  std::string subject_reply;
  std::string reproducer;  // path of the shrunk case file, for random failures
};

// A lost connection of a subject: the command it happened on (the failing step), and the
// commands of the case that were not run after it.
struct DisconnectRecord {
  std::string subject;
  std::string profile;
  std::string source;
  int line = 0;
  std::string what;  // "the server closed the connection on XADD s 1-1 f v"
  size_t not_run = 0;
};

// The cases a subject skipped because it does not serve a Redis 7.0 command they use
// (Subject::Serves), counted once per subject whatever the number of profiles.
struct SkippedCases {
  std::set<std::string> cases;
  // Unserved command -> the commands of the skipped cases that are that command.
  std::map<std::string, uint64_t> commands;
  uint64_t steps = 0;  // every command of the skipped cases, served or not
};

struct ProfileRun {
  std::string subject;
  Profile profile;
  Tally totals;
  double seconds = 0;
};

struct MatrixResult {
  std::vector<std::string> subjects;
  std::vector<ProfileRun> runs;
  // (subject, version label, command) -> tally.
  std::map<std::tuple<std::string, std::string, std::string>, Tally> cells;
  Tally totals;
  std::vector<FailureRecord> failures;  // the first kMaxRecordedFailures
  uint64_t failures_total = 0;
  std::vector<std::string> reproducers;
  std::vector<DisconnectRecord> disconnects;
  uint64_t not_run_after_disconnect = 0;  // commands not run because the connection was lost
  // Subjects no longer run, and why (MatrixPlan::max_disconnects, or the server did not come
  // back): the verdict fails.
  std::map<std::string, std::string> stopped;
  std::map<std::string, SkippedCases> skipped;  // by subject
  std::set<std::string> corpus_commands;        // commands (lower case) the corpus ran
  size_t corpus_cases = 0;
  double seconds = 0;
  // Stopped early (MatrixPlan::stop): the tallies cover units_done of units_planned cases and
  // random sequences.
  bool partial = false;
  std::string partial_reason;
  size_t units_planned = 0;
  size_t units_done = 0;
  static constexpr size_t kMaxRecordedFailures = 500;
};

// Where progress goes. Units are cases and random sequences on one subject and profile.
class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void Update(size_t done, size_t total, const std::string& what, uint64_t failures) = 0;
  // A line that always shows (a profile finished, a reproducer written).
  virtual void Message(const std::string& line) = 0;
  // A profile's run is done and recorded in `so_far` (to write results as they come).
  virtual void ProfileDone(const MatrixResult& so_far) { (void)so_far; }
};

// Runs the plan on every subject. `reference` is the real redis-server. Returns an error only
// when the run could not be made (a subject would not open); failures of the subject are in
// `out`.
Status RunMatrix(ReplyTarget& reference, const std::vector<Subject*>& subjects,
                 const MatrixPlan& plan, ProgressSink* progress, MatrixResult* out);

}  // namespace kvlab::conformance
