#include "conformance/matrix.h"

#include <algorithm>
#include <chrono>

#include "conformance/random_commands.h"
#include "conformance/reproducer.h"
#include "engine/command_table.h"

namespace kvlab::conformance {

using engine::CommandSpec;
using engine::CommandTable;
using resp::Reply;

namespace {

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

// The requested versions, checked against what the subject runs.
Status Narrow(const std::string& type, const std::string& subject,
              const std::vector<std::string>& runs, const std::vector<std::string>& requested,
              std::vector<std::string>* out) {
  if (requested.empty()) {
    *out = runs;
    return Status::OK();
  }
  out->clear();
  for (const std::string& v : requested) {
    if (std::find(runs.begin(), runs.end(), v) == runs.end()) {
      return Status::InvalidArgument(subject + " does not run " + type + " version " + v +
                                     " (it runs: " + Join(runs) + ")");
    }
    if (std::find(out->begin(), out->end(), v) == out->end()) out->push_back(v);
  }
  return Status::OK();
}

// Each profile paired with each name of `names`: the versions of that name, of the types that
// have one and run another in the profile. Fails for a name no type of the subject has.
Status MigrationProfiles(
    const std::string& subject, const std::map<std::string, std::vector<std::string>>& runs,
    const std::vector<encodings::EncodingProfile>& profiles, const std::vector<std::string>& names,
    std::vector<std::pair<encodings::EncodingProfile, encodings::EncodingProfile>>* out) {
  for (const std::string& name : names) {
    bool known = false;
    for (const auto& [type, versions] : runs) {
      known = known || std::find(versions.begin(), versions.end(), name) != versions.end();
    }
    if (!known) {
      return Status::InvalidArgument("--migrate-with " + name + ": " + subject +
                                     " runs no version of that name");
    }
  }
  for (const encodings::EncodingProfile& p : profiles) {
    for (const std::string& name : names) {
      encodings::EncodingProfile with;
      for (const auto& [type, version] : p.versions) {
        const std::vector<std::string>& versions = runs.at(type);
        if (version != name &&
            std::find(versions.begin(), versions.end(), name) != versions.end()) {
          with.versions[type] = name;
        }
      }
      if (!with.versions.empty()) out->emplace_back(p, std::move(with));
    }
  }
  return Status::OK();
}

const encodings::EncodingRegistry& RegistryOf(const MatrixPlan& plan) {
  return plan.registry != nullptr ? *plan.registry : encodings::EncodingRegistry::Builtin();
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string FileSafe(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  }
  return s;
}

// Runs one subject in one profile: the corpus, then the random sequences.
class ProfileRunner {
 public:
  ProfileRunner(ReplyTarget& reference, Subject& serving, SubjectSession& session,
                const std::string& subject, const Profile& profile, const MatrixPlan& plan,
                ProgressSink* progress, MatrixResult* out, size_t* done, size_t total,
                std::set<std::string>* shrunk)
      : reference_(reference),
        serving_(serving),
        session_(session),
        subject_(subject),
        profile_(profile),
        plan_(plan),
        progress_(progress),
        out_(out),
        done_(done),
        total_(total),
        shrunk_(shrunk) {
    context_.compare = plan.compare;
    context_.catalogue = plan.catalogue;
    context_.profile = profile.encodings;
    context_.migrate_with = profile.migrate_with;
    context_.tier = profile.tier;
    context_.tier_control = session.tier_control();
    run_.subject = subject;
    run_.profile = profile;
  }

  // Writes every command and reply of this run to `out`.
  void Transcribe(std::ostream* out) {
    context_.observe = [out, name = subject_](const std::vector<std::string>& argv,
                                              const Reply& redis, const Reply& subject,
                                              const StepOutcome& outcome) {
      *out << "> " << DisplayCommandLine(argv) << "\n  " << DescribeShort(redis) << "\n";
      if (outcome.verdict != Verdict::kPass) {
        *out << "  " << name << ": " << DescribeShort(subject) << "  <- "
             << VerdictName(outcome.verdict)
             << (outcome.deviation_id.empty() ? "" : " " + outcome.deviation_id) << "\n";
      }
    };
  }

  ProfileRun Run() {
    const auto start = std::chrono::steady_clock::now();
    for (const CaseFile& c : plan_.corpus) {
      if (Stopped()) break;
      if (Skip(c)) {
        Tick(c.name);
        continue;
      }
      if (context_.observe) *plan_.transcript << "\n# " << c.name << "\n";
      CaseOutcome outcome = RunCase(c, reference_, session_.target(), context_);
      for (const StepOutcome& s : outcome.steps) out_->corpus_commands.insert(s.command);
      Record(outcome, "");
      Tick(c.name);
      Recover(outcome);
    }
    if (plan_.random) {
      for (size_t i = 0; i < plan_.random->sequences && !Stopped(); ++i) {
        const CaseFile sequence = RandomSequence(plan_.random->seed, i, plan_.random->steps);
        CaseOutcome outcome = RunCase(sequence, reference_, session_.target(), context_);
        // A lost connection is not shrunk: shrinking replays against a server that just failed.
        Record(outcome, outcome.transport_failure.empty() ? MaybeShrink(sequence, outcome, i) : "");
        Tick(sequence.name);
        Recover(outcome);
      }
    }
    run_.seconds = SecondsSince(start);
    return run_;
  }

 private:
  bool Stopped() const {
    return (plan_.stop != nullptr && *plan_.stop != 0) || out_->stopped.count(subject_) > 0;
  }

  // Whether the subject serves every Redis command of the case; if not, the case is skipped on
  // it and counted, once per subject.
  bool Skip(const CaseFile& c) {
    std::vector<std::string> unserved;
    uint64_t steps = 0;
    for (const CaseStep& step : c.steps) {
      if (step.argv.empty()) continue;
      ++steps;
      const std::string command = LowerCommand(step.argv[0]);
      if (!serving_.Serves(command)) unserved.push_back(command);
    }
    if (unserved.empty()) return false;
    SkippedCases& skipped = out_->skipped[subject_];
    if (skipped.cases.insert(c.name).second) {
      for (const std::string& command : unserved) ++skipped.commands[command];
      skipped.steps += steps;
    }
    return true;
  }

  // After a case that lost the subject's connection: records it, and waits for the server to
  // answer again; stops the subject when it does not, or has been lost too often.
  void Recover(const CaseOutcome& outcome) {
    if (outcome.transport_failure.empty()) return;
    const StepOutcome& at = outcome.steps.back();
    DisconnectRecord d;
    d.subject = subject_;
    d.profile = profile_.Label();
    d.source = outcome.name;
    d.line = at.line;
    d.what = outcome.transport_failure;
    d.not_run = outcome.not_run;
    out_->disconnects.push_back(d);
    out_->not_run_after_disconnect += outcome.not_run;
    const size_t lost = static_cast<size_t>(
        std::count_if(out_->disconnects.begin(), out_->disconnects.end(),
                      [this](const DisconnectRecord& r) { return r.subject == subject_; }));
    Message("conform: " + subject_ + ": " + d.what + " (" + d.source + ":" +
            std::to_string(d.line) + "); " + std::to_string(d.not_run) +
            " later commands of the case not run");
    std::string stop;
    if (lost > plan_.max_disconnects) {
      stop = "the connection was lost " + std::to_string(lost) + " times (more than " +
             std::to_string(plan_.max_disconnects) + "), the last time: " + d.what;
    } else if (Status s = session_.Reconnect(); !s.ok()) {
      stop = d.what + ", and " + s.message();
    }
    if (stop.empty()) return;
    out_->stopped[subject_] = stop;
    Message("conform: stopped testing " + subject_ + ": " + stop);
  }

  void Message(const std::string& line) {
    if (progress_ != nullptr) progress_->Message(line);
  }

  void Tick(const std::string& what) {
    ++*done_;
    out_->units_done = *done_;
    if (progress_ != nullptr) {
      progress_->Update(*done_, total_, subject_ + " " + profile_.Label() + " " + what,
                        out_->failures_total);
    }
  }

  void Record(const CaseOutcome& outcome, const std::string& reproducer) {
    for (const StepOutcome& s : outcome.steps) {
      run_.totals.Add(s);
      out_->totals.Add(s);
      out_->cells[{subject_, VersionLabel(s.command, profile_), s.command}].Add(s);
      if (s.verdict != Verdict::kFail) continue;
      ++out_->failures_total;
      if (out_->failures.size() >= MatrixResult::kMaxRecordedFailures) continue;
      FailureRecord f;
      f.subject = subject_;
      f.profile = profile_.Label();
      f.source = outcome.name;
      f.line = s.line;
      f.command_line = DisplayCommandLine(s.argv);
      f.explanation = s.explanation;
      f.redis = DescribeShort(s.redis);
      f.subject_reply = DescribeShort(s.subject);
      f.reproducer = &s == outcome.first_failure() ? reproducer : "";
      out_->failures.push_back(std::move(f));
    }
  }

  // Shrinks the first failure of a random sequence into a case file; returns its path or "".
  std::string MaybeShrink(const CaseFile& sequence, const CaseOutcome& outcome, size_t index) {
    const StepOutcome* failure = outcome.first_failure();
    if (failure == nullptr || plan_.reproducer_dir.empty()) return "";
    // Failures on the same command, in other sequences or elsewhere in the matrix, are most
    // likely the same bug: shrink one per command.
    const std::string key = failure->command;
    if (shrunk_->size() >= plan_.max_shrinks || !shrunk_->insert(key).second) return "";
    if (progress_ != nullptr) {
      progress_->Message("conform: shrinking " + sequence.name + " (" + subject_ + " " +
                         profile_.Label() + ", fails on " + failure->command + ")");
    }
    size_t tests = 0;
    const CaseFile shrunk = ShrinkFailingCase(sequence, *failure, reference_, session_.target(),
                                              context_, plan_.max_shrink_tests, &tests);
    const RandomPlan& r = *plan_.random;
    ReproducerHeader header;
    header.subject = subject_;
    header.profile = profile_.Label();
    header.replay = RandomReplayCommand(r);
    header.origin = "seed " + std::to_string(r.seed) + ", sequence " + std::to_string(index) +
                    " of " + std::to_string(r.sequences) + ", " + std::to_string(r.steps) +
                    " steps; shrunk to " + std::to_string(shrunk.steps.size()) + " in " +
                    std::to_string(tests) + " replays";
    const std::string name = "random-" + std::to_string(r.seed) + "-" + std::to_string(index) +
                             "-" + FileSafe(failure->command);
    // The header shows the replies of the shrunk case itself.
    const std::optional<StepOutcome> shrunk_failure =
        ReplayFailure(shrunk, failure->command, reference_, session_.target(), context_);
    std::string path;
    bool reproduces = false;
    Status s = WriteVerifiedReproducer(
        plan_.reproducer_dir, name,
        ReproducerText(shrunk, shrunk_failure ? *shrunk_failure : *failure, header),
        failure->command, reference_, session_.target(), context_, &path, &reproduces);
    if (!s.ok()) {
      if (progress_ != nullptr) progress_->Message("conform: " + s.message());
      return "";
    }
    if (!reproduces) path += " (did not fail when replayed: timing-dependent?)";
    if (progress_ != nullptr) progress_->Message("conform: reproducer " + path);
    out_->reproducers.push_back(path);
    return path;
  }

  ReplyTarget& reference_;
  Subject& serving_;
  SubjectSession& session_;
  const std::string& subject_;
  const Profile& profile_;
  const MatrixPlan& plan_;
  ProgressSink* progress_;
  MatrixResult* out_;
  size_t* done_;
  const size_t total_;
  std::set<std::string>* shrunk_;
  RunContext context_;
  ProfileRun run_;
};

}  // namespace

std::string RandomReplayCommand(const RandomPlan& r) {
  if (!r.replay.empty()) return r.replay;
  const RandomPlan defaults;
  std::string cmd = "kvlab conform --random --seed " + std::to_string(r.seed);
  if (r.sequences != defaults.sequences) cmd += " --sequences " + std::to_string(r.sequences);
  if (r.steps != defaults.steps) cmd += " --steps " + std::to_string(r.steps);
  return cmd;
}

void Tally::Add(const StepOutcome& s) {
  switch (s.verdict) {
    case Verdict::kPass:
      ++pass;
      break;
    case Verdict::kDeviation:
      ++deviation;
      ++deviation_ids[s.deviation_id];
      break;
    case Verdict::kFail:
      ++fail;
      break;
  }
}

void Tally::Add(const Tally& t) {
  pass += t.pass;
  deviation += t.deviation;
  fail += t.fail;
  for (const auto& [id, n] : t.deviation_ids) deviation_ids[id] += n;
}

std::string CommandGroup(const std::string& command) {
  const CommandSpec* spec = CommandTable::Get().Find(command);
  if (spec == nullptr) return "other";
  const encodings::TypeSpec* type =
      encodings::EncodingRegistry::Builtin().FindTypeByGroup(spec->group);
  return type != nullptr ? std::string(type->name) : "other";
}

std::string VersionLabel(const std::string& command, const Profile& profile) {
  return GroupVersionLabel(CommandGroup(command), profile);
}

std::string GroupVersionLabel(const std::string& group, const Profile& profile) {
  const std::optional<std::string> version = profile.encodings.VersionOf(group);
  if (!version) return profile.Label();
  std::string label = group + " v" + *version;
  if (const std::optional<std::string> with = profile.migrate_with.VersionOf(group)) {
    label += " <-> " + *with;
  }
  if (profile.tier != TierState::kNone) label += " " + std::string(TierStateName(profile.tier));
  return label;
}

Status PlanProfiles(Subject& subject, const MatrixPlan& plan, std::vector<Profile>* out) {
  out->clear();
  const encodings::EncodingRegistry& registry = RegistryOf(plan);
  const std::map<std::string, std::vector<std::string>> runs = subject.Versions();
  if (runs.empty()) {
    // A server that cannot be told its versions runs as configured, once, whatever versions
    // the plan asks of the subjects that can.
    out->push_back(Profile{});
    return Status::OK();
  }
  // The versions of each type to run, in the registry's type order.
  std::vector<std::pair<std::string, std::vector<std::string>>> types;
  for (const encodings::TypeSpec& type : registry.types()) {
    const std::string name(type.name);
    auto run = runs.find(name);
    if (run == runs.end() || run->second.empty()) continue;
    auto requested = plan.versions.find(name);
    std::vector<std::string> versions;
    KVLAB_RETURN_IF_ERROR(
        Narrow(name, subject.name(), run->second,
               requested == plan.versions.end() ? std::vector<std::string>{} : requested->second,
               &versions));
    types.emplace_back(name, std::move(versions));
  }
  for (const auto& [type, versions] : plan.versions) {
    if (runs.find(type) == runs.end()) {
      return Status::InvalidArgument(subject.name() + " runs no " + type + " versions");
    }
  }
  std::vector<encodings::EncodingProfile> profiles;
  if (plan.pairing == VersionPairing::kCross) {
    profiles.emplace_back();
    for (const auto& [type, versions] : types) {
      std::vector<encodings::EncodingProfile> next;
      for (const encodings::EncodingProfile& p : profiles) {
        for (const std::string& v : versions) {
          encodings::EncodingProfile q = p;
          q.versions[type] = v;
          next.push_back(std::move(q));
        }
      }
      profiles = std::move(next);
    }
  } else {
    // One profile per version name: the longest type's names in order, then any name only
    // other types have. A type runs the version of the profile's name, or, lacking it, the one
    // it ran in the previous profile (its first at the start), so that each family's versions
    // run together (hardb zardb lardb sardb) although lists have no v2 or v3.
    const std::vector<std::string>* longest = nullptr;
    for (const auto& [type, versions] : types) {
      if (longest == nullptr || versions.size() > longest->size()) longest = &versions;
    }
    std::vector<std::string> names;
    if (longest != nullptr) names = *longest;
    for (const auto& [type, versions] : types) {
      for (const std::string& v : versions) {
        if (std::find(names.begin(), names.end(), v) == names.end()) names.push_back(v);
      }
    }
    for (const std::string& name : names) {
      encodings::EncodingProfile p;
      for (const auto& [type, versions] : types) {
        if (std::find(versions.begin(), versions.end(), name) != versions.end()) {
          p.versions[type] = name;
        } else if (profiles.empty()) {
          p.versions[type] = versions.front();
        } else {
          p.versions[type] = profiles.back().versions[type];
        }
      }
      profiles.push_back(std::move(p));
    }
  }
  // (versions, versions they alternate with): the profiles, or their migration profiles.
  std::vector<std::pair<encodings::EncodingProfile, encodings::EncodingProfile>> planned;
  if (plan.migrate_with.empty()) {
    for (encodings::EncodingProfile& p : profiles)
      planned.emplace_back(std::move(p), encodings::EncodingProfile{});
  } else {
    KVLAB_RETURN_IF_ERROR(
        MigrationProfiles(subject.name(), runs, profiles, plan.migrate_with, &planned));
  }
  for (auto& [p, with] : planned) {
    if ((!subject.UsesTier(p) && !subject.UsesTier(with)) || plan.tier_states.empty()) {
      out->push_back(MakeProfile(registry, std::move(p), TierState::kNone, std::move(with)));
      continue;
    }
    for (TierState t : plan.tier_states) out->push_back(MakeProfile(registry, p, t, with));
  }
  return Status::OK();
}

Status RunMatrix(ReplyTarget& reference, const std::vector<Subject*>& subjects,
                 const MatrixPlan& plan, ProgressSink* progress, MatrixResult* out) {
  *out = MatrixResult();
  const auto start = std::chrono::steady_clock::now();
  out->corpus_cases = plan.corpus.size();
  std::vector<std::vector<Profile>> profiles(subjects.size());
  size_t total = 0;
  const size_t units_per_profile = plan.corpus.size() + (plan.random ? plan.random->sequences : 0);
  for (size_t i = 0; i < subjects.size(); ++i) {
    KVLAB_RETURN_IF_ERROR(PlanProfiles(*subjects[i], plan, &profiles[i]));
    total += profiles[i].size() * units_per_profile;
    out->subjects.push_back(subjects[i]->name());
  }
  out->units_planned = total;
  size_t done = 0;
  std::set<std::string> shrunk;
  auto stopped = [&] { return plan.stop != nullptr && *plan.stop != 0; };
  for (size_t i = 0; i < subjects.size(); ++i) {
    const std::string name = subjects[i]->name();
    for (const Profile& profile : profiles[i]) {
      if (stopped() || out->stopped.count(name) > 0) break;
      std::unique_ptr<SubjectSession> session;
      Status s = subjects[i]->Open(profile, &session);
      if (!s.ok()) {
        return Status::Unavailable(name + " " + profile.Label() + ": " + s.ToString());
      }
      ProfileRunner runner(reference, *subjects[i], *session, name, profile, plan, progress, out,
                           &done, total, &shrunk);
      if (plan.transcript != nullptr && out->runs.empty()) runner.Transcribe(plan.transcript);
      ProfileRun run = runner.Run();
      if (progress != nullptr) {
        progress->Message("conform: " + name + " " + profile.Label() + ": " +
                          std::to_string(run.totals.total()) + " commands, " +
                          std::to_string(run.totals.pass) + " pass, " +
                          std::to_string(run.totals.deviation) + " deviation, " +
                          std::to_string(run.totals.fail) + " fail");
      }
      out->runs.push_back(std::move(run));
      if (progress != nullptr) progress->ProfileDone(*out);
    }
  }
  if (stopped()) {
    out->partial = true;
    out->partial_reason = "interrupted by a signal (Ctrl-C) after " + std::to_string(done) +
                          " of " + std::to_string(total) + " cases and sequences";
  }
  out->seconds = SecondsSince(start);
  return Status::OK();
}

}  // namespace kvlab::conformance
