// `kvlab conform`: the conformance harness from the command line.
//
// Starts a private redis-server (the reference), builds the subjects (the engine over each
// backend in --backends, and optionally a RESP server at --resp), runs the corpus and/or a
// random run over the matrix, writes the reports (into a fresh results/conform-<UTC time>/ by
// default; rewritten after every profile, marked incomplete until the end) and prints a
// summary. Exit status (flags/conventions.h): 0 when every reply passed or deviated as
// catalogued; 1 on any failure (or, with --require-coverage, a command the corpus never runs);
// 2 bad arguments; 3 when the run could not be made (the reference would not start, a subject
// would not open); 130 interrupted (the reports cover what ran, marked partial).
#include "conformance/conform_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "base/data_dir.h"
#include "conformance/matrix.h"
#include "conformance/progress.h"
#include "conformance/report.h"
#include "flags/common_flags.h"
#include "flags/conventions.h"
#include "flags/etcd_flags.h"
#include "redis/server_process.h"

namespace kvlab::conformance {

using backends::StoreSpec;
using engine::EngineOptions;
using flags::InRange;
using flags::InstallInterruptHandlers;
using flags::InterruptFlag;
using flags::kExitCannotRun;
using flags::kExitFailed;
using flags::kExitInterrupted;
using flags::kExitOk;
using flags::NonNegative;
using flags::UsageError;
using redis::RedisClient;
using redis::RedisEndpoint;
using redis::RedisServerOptions;
using redis::RedisServerProcess;
using resp::Reply;

namespace {

struct ConformFlags {
  std::vector<std::string> cases;
  bool random = false;
  bool corpus = false;
  std::optional<uint64_t> seed;
  size_t sequences = RandomPlan().sequences;
  size_t steps = RandomPlan().steps;
  bool soak = false;
  std::vector<std::string> backends = {"memory", "rocksdb"};
  flags::EtcdFlags etcd;  // the cluster of an etcd column (empty endpoints: private)
  // --hash-versions, --zset-versions, ...: type name -> version names (empty: every version).
  std::map<std::string, std::vector<std::string>> versions;
  bool cross = false;
  std::vector<std::string> migrate_with;
  std::vector<std::string> tier_states = {"cold", "warm", "flushed"};
  std::string serve;
  bool serve_only = false;
  bool allow_flush = false;
  std::string subject_name;  // "": from INFO server
  double serve_timeout_s = 10;
  size_t max_disconnects = MatrixPlan().max_disconnects;
  std::string out;  // "": results/conform-<UTC time>
  std::string reproducers;
  std::string deviations;  // empty: DefaultDeviationCataloguePath()
  int64_t ttl_tolerance_ms = CompareOptions().ttl_tolerance_ms;
  std::string redis_server = "redis-server";
  size_t max_shrinks = MatrixPlan().max_shrinks;
  bool require_coverage = false;
  std::string ns_prefix;
  bool md5_prefix = false;
  std::string transcript;
};

constexpr size_t kSoakSequences = 200;
constexpr size_t kSoakSteps = 2000;

std::string Join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string UtcNow(const char* format = "%Y-%m-%dT%H:%M:%SZ") {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), format, &tm);
  return buf;
}

// An argument as a shell reads it back: quoted when it holds anything but plain characters.
std::string ShellWord(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./:=,@+") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The flags that shape the run, for replay command lines: everything a replay needs to see
// what this run saw (the matrix, the catalogue, the tolerances, the engine's options, and
// leave to flush a --resp server).
std::string MatrixFlags(const ConformFlags& f) {
  const ConformFlags d;
  std::string out;
  if (f.backends != d.backends) out += " --backends " + Join(f.backends);
  for (const std::string& arg : f.etcd.Arguments()) out += " " + ShellWord(arg);
  for (const auto& [type, versions] : f.versions) {
    if (!versions.empty()) out += " --" + type + "-versions " + Join(versions);
  }
  if (f.cross) out += " --cross";
  if (!f.migrate_with.empty()) out += " --migrate-with " + Join(f.migrate_with);
  if (f.tier_states != d.tier_states) out += " --tier-states " + Join(f.tier_states);
  if (!f.serve.empty()) {
    out += " --resp " + ShellWord(f.serve) + (f.serve_only ? " --resp-only" : "");
    if (f.allow_flush) out += " --allow-flush";
    if (!f.subject_name.empty()) out += " --subject-name " + ShellWord(f.subject_name);
    if (f.serve_timeout_s != d.serve_timeout_s) {
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%g", f.serve_timeout_s);
      out += std::string(" --resp-timeout ") + seconds;
    }
  }
  if (f.max_disconnects != d.max_disconnects) {
    out += " --max-disconnects " + std::to_string(f.max_disconnects);
  }
  if (f.deviations != d.deviations) out += " --deviations " + ShellWord(f.deviations);
  if (f.ttl_tolerance_ms != d.ttl_tolerance_ms) {
    out += " --ttl-tolerance-ms " + std::to_string(f.ttl_tolerance_ms);
  }
  if (f.redis_server != d.redis_server) out += " --redis-server " + ShellWord(f.redis_server);
  if (!f.ns_prefix.empty()) out += " --namespace-prefix " + ShellWord(f.ns_prefix);
  if (f.md5_prefix) out += " --md5-prefix";
  return out;
}

// The program as it was invoked (build/kvlab, or kvlab on the PATH), for replay lines.
std::string ProgramName() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string argv0;
  std::getline(in, argv0, '\0');
  return argv0.empty() ? "kvlab" : ShellWord(argv0);
}

// Flags that only mean something with another: rejected rather than ignored.
void CheckConflicts(const CLI::App& cmd, const ConformFlags& f) {
  auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
  for (const char* flag : {"--seed", "--sequences", "--steps", "--soak", "--corpus",
                           "--max-shrinks", "--reproducers"}) {
    if (given(flag) && !f.random) {
      throw UsageError(std::string(flag) + " needs --random (the curated corpus is not random)");
    }
  }
  for (const char* flag : {"--resp-only", "--allow-flush", "--subject-name", "--resp-timeout"}) {
    if (given(flag) && f.serve.empty()) throw UsageError(std::string(flag) + " needs --resp ADDR");
  }
  if (given("--cases") && f.random && !f.corpus) {
    throw UsageError("--cases with --random needs --corpus (without it only random sequences run)");
  }
  if (f.serve_only && given("--backends")) {
    throw UsageError("--resp-only tests only the --resp server: --backends does not apply");
  }
}

// A ProgressSink that also rewrites the reports after every profile, marked incomplete, so that
// what a run has found survives a kill and never passes for a finished run.
class ReportingProgress final : public ProgressSink {
 public:
  ReportingProgress(ProgressSink* inner, std::string dir, ReportContext context)
      : inner_(inner), dir_(std::move(dir)), context_(std::move(context)) {
    context_.complete = false;
  }
  void Update(size_t done, size_t total, const std::string& what, uint64_t failures) override {
    inner_->Update(done, total, what, failures);
  }
  void Message(const std::string& line) override { inner_->Message(line); }
  void ProfileDone(const MatrixResult& so_far) override {
    std::vector<std::string> written;
    Status s = WriteReports(dir_, so_far, context_, &written);
    if (!s.ok() && !warned_) {
      warned_ = true;
      inner_->Message("conform: " + s.message());
    }
  }

 private:
  ProgressSink* inner_;
  const std::string dir_;
  ReportContext context_;
  bool warned_ = false;
};

std::string RedisVersion(RedisClient& client) {
  Reply info;
  if (!client.Command({"INFO", "server"}, &info).ok() || info.type() != Reply::Type::kBulk) {
    return "?";
  }
  const std::string key = "redis_version:";
  const size_t at = info.str().find(key);
  if (at == std::string::npos) return "?";
  const size_t end = info.str().find_first_of("\r\n", at);
  return info.str().substr(at + key.size(), end - at - key.size());
}

Status LoadCases(const std::vector<std::string>& paths, std::vector<CaseFile>* out) {
  out->clear();
  for (const std::string& p : paths) {
    if (std::filesystem::is_directory(p)) {
      std::vector<CaseFile> dir;
      KVLAB_RETURN_IF_ERROR(LoadCaseDirectory(p, &dir));
      if (dir.empty()) return Status::InvalidArgument("no *.txt case files in " + p);
      for (CaseFile& c : dir) out->push_back(std::move(c));
    } else {
      CaseFile c;
      KVLAB_RETURN_IF_ERROR(LoadCaseFile(p, &c));
      out->push_back(std::move(c));
    }
  }
  return Status::OK();
}

void PrintFailures(const MatrixResult& r) {
  constexpr size_t kShown = 10;
  for (size_t i = 0; i < r.failures.size() && i < kShown; ++i) {
    const FailureRecord& f = r.failures[i];
    std::printf("FAIL %s %s %s:%d: %s\n  redis: %s\n  %s: %s\n", f.subject.c_str(),
                f.profile.c_str(), f.source.c_str(), f.line, f.command_line.c_str(),
                f.redis.c_str(), f.subject.c_str(), f.subject_reply.c_str());
    if (!f.reproducer.empty()) std::printf("  reproducer: %s\n", f.reproducer.c_str());
  }
  if (r.failures_total > kShown) {
    std::printf("... and %" PRIu64 " more failures (see the reports)\n", r.failures_total - kShown);
  }
}

// --out: a directory conform can create and write in, checked before anything runs.
void CheckOutDir(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    throw UsageError("--out " + dir + ": not a directory");
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError("--out " + dir + ": cannot create it: " + ec.message());
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("--out " + dir + ": cannot write there: " + std::strerror(errno));
  }
}

int RunConform(const CLI::App& cmd, ConformFlags flags) {
  CheckConflicts(cmd, flags);
  auto cannot_run = [](const std::string& why) {
    std::fprintf(stderr, "kvlab conform: %s\n", why.c_str());
    return kExitCannotRun;
  };
  if (flags.out.empty()) flags.out = "results/conform-" + UtcNow("%Y%m%dT%H%M%SZ");
  DeviationCatalogue catalogue;
  Status s = DeviationCatalogue::Load(
      flags.deviations.empty() ? DefaultDeviationCataloguePath() : flags.deviations,
      encodings::EncodingRegistry::Builtin(), &catalogue);
  if (!s.ok()) throw UsageError("--deviations: " + s.message());

  MatrixPlan plan;
  plan.catalogue = &catalogue;
  plan.compare.ttl_tolerance_ms = flags.ttl_tolerance_ms;
  for (const auto& [type, versions] : flags.versions) {
    if (!versions.empty()) plan.versions[type] = versions;
  }
  plan.pairing = flags.cross ? VersionPairing::kCross : VersionPairing::kLockstep;
  plan.migrate_with = flags.migrate_with;
  std::vector<std::string> version_names;
  for (const encodings::EncodingSpec& row : encodings::EncodingRegistry::Builtin().rows()) {
    const std::string name(row.name);
    if (std::find(version_names.begin(), version_names.end(), name) == version_names.end()) {
      version_names.push_back(name);
    }
  }
  for (const std::string& name : flags.migrate_with) {
    if (std::find(version_names.begin(), version_names.end(), name) == version_names.end()) {
      throw UsageError("--migrate-with " + name + ": no type has a version of that name (known: " +
                       Join(version_names, ", ") + ")");
    }
  }
  plan.tier_states.clear();
  for (const std::string& name : flags.tier_states) {
    TierState t;
    if (!ParseTierState(name, &t)) throw UsageError("unknown tier state '" + name + "'");
    plan.tier_states.push_back(t);
  }
  plan.max_shrinks = flags.max_shrinks;
  plan.max_disconnects = flags.max_disconnects;
  plan.reproducer_dir = flags.reproducers.empty()
                            ? (std::filesystem::path(flags.out) / "reproducers").string()
                            : flags.reproducers;
  if (!flags.random || flags.corpus) {
    std::vector<std::string> paths = flags.cases;
    if (paths.empty()) {
      std::string cases;
      s = FindDataFile("conformance/cases", &cases);
      if (!s.ok()) return cannot_run(s.message());
      paths.push_back(cases);
    }
    s = LoadCases(paths, &plan.corpus);
    if (!s.ok()) throw UsageError(s.message());
  }
  const std::string program = ProgramName();
  std::string cases;
  for (const std::string& c : flags.cases) cases += " --cases " + ShellWord(c);
  if (flags.random) {
    RandomPlan r;
    r.fresh_seed = !flags.seed.has_value();
    r.seed = flags.seed.value_or(std::random_device{}() * uint64_t{0x100000000} +
                                 std::random_device{}());
    r.sequences =
        flags.soak && flags.sequences == RandomPlan().sequences ? kSoakSequences : flags.sequences;
    r.steps = flags.soak && flags.steps == RandomPlan().steps ? kSoakSteps : flags.steps;
    r.replay = program + " conform --random --seed " + std::to_string(r.seed) + " --sequences " +
               std::to_string(r.sequences) + " --steps " + std::to_string(r.steps) +
               MatrixFlags(flags);
    plan.random = r;
  }
  const std::string command_line =
      plan.random ? plan.random->replay + (flags.corpus ? " --corpus" + cases : "")
                  : program + " conform" + cases + MatrixFlags(flags);

  // The subjects.
  std::vector<std::unique_ptr<Subject>> owned;
  if (!flags.serve_only) {
    EngineOptions options;
    // Conformance judges replies, not latency. On a loaded machine a private redis-server can
    // stall past the 500 ms that serving uses; a store (zset v3) timeout would then be
    // reported as a reply difference that says nothing about the encoding.
    options.tier_options.timeout = std::chrono::seconds(5);
    options.keys.ns_prefix = flags.ns_prefix;
    options.keys.md5_prefix = flags.md5_prefix;
    for (const std::string& column : flags.backends) {
      StoreSpec spec;
      s = ParseBackendColumn(column, &spec);
      if (!s.ok()) throw UsageError("--backends: " + s.message());
      spec.etcd = flags.etcd.ToOptions();
      owned.push_back(std::make_unique<EngineSubject>(
          column, spec, options, EngineTierWiring(encodings::EncodingRegistry::Builtin())));
    }
  }
  if (!flags.serve.empty()) {
    RedisEndpoint endpoint;
    s = RedisEndpoint::Parse(flags.serve, &endpoint);
    if (!s.ok()) throw UsageError("--resp: " + s.message());
    RemoteSubjectOptions remote_options;
    remote_options.name = flags.subject_name;
    remote_options.timeout =
        std::chrono::milliseconds(static_cast<int64_t>(flags.serve_timeout_s * 1000));
    remote_options.reconnect_wait =
        std::max(remote_options.timeout, std::chrono::milliseconds(10000));
    auto remote = std::make_unique<RemoteSubject>(endpoint, remote_options);
    if (!flags.allow_flush) {
      s = remote->CheckEmpty();
      if (s.IsInvalidArgument()) throw UsageError("--resp: " + s.message());
      if (!s.ok()) return cannot_run("--resp " + flags.serve + ": " + s.message());
    }
    owned.push_back(std::move(remote));
  }
  if (owned.empty()) throw UsageError("nothing to test: --resp-only needs --resp ADDR");
  std::vector<Subject*> subjects;
  for (auto& o : owned) subjects.push_back(o.get());
  CheckOutDir(flags.out);

  // The reference.
  RedisServerOptions server_options;
  server_options.binary = flags.redis_server;
  RedisServerProcess server(server_options);
  s = server.Start();
  if (!s.ok()) return cannot_run("cannot start the reference redis-server: " + s.message());
  RedisClient client(server.endpoint(), std::chrono::milliseconds(10000));
  RedisTarget reference("redis", &client, std::chrono::milliseconds(10000));
  ReportContext context;
  context.reference =
      "redis-server " + RedisVersion(client) + " at " + server.endpoint().ToString();
  context.command_line = command_line;
  context.started = UtcNow();
  context.plan = &plan;
  context.catalogue = &catalogue;
  if (plan.random) {
    std::printf("random seed %" PRIu64 "%s; replay with: %s\n", plan.random->seed,
                plan.random->fresh_seed ? " (fresh)" : "", plan.random->replay.c_str());
  }
  std::printf("reference: %s\n", context.reference.c_str());
  std::fflush(stdout);

  std::ofstream transcript;
  if (!flags.transcript.empty()) {
    transcript.open(flags.transcript, std::ios::trunc);
    if (!transcript) {
      throw UsageError("--transcript " + flags.transcript +
                       ": cannot write it: " + std::strerror(errno));
    }
    plan.transcript = &transcript;
  }
  InstallInterruptHandlers();
  plan.stop = InterruptFlag();
  MatrixResult result;
  {
    StderrProgress stderr_progress;
    ReportingProgress progress(&stderr_progress, flags.out, context);
    // The reports say "incomplete" from the start: stale reports of an earlier run in the same
    // directory never pass for this one's.
    progress.ProfileDone(result);
    s = RunMatrix(reference, subjects, plan, &progress, &result);
  }
  if (!s.ok()) return cannot_run(s.message());
  std::vector<std::string> written;
  s = WriteReports(flags.out, result, context, &written);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab conform: %s\n", s.message().c_str());
    return kExitFailed;
  }

  PrintFailures(result);
  for (const DisconnectRecord& d : result.disconnects) {
    std::printf("LOST %s %s %s:%d: %s; %zu later commands of the case not run\n", d.subject.c_str(),
                d.profile.c_str(), d.source.c_str(), d.line, d.what.c_str(), d.not_run);
  }
  for (const auto& [subject, why] : result.stopped) {
    std::printf("STOPPED testing %s: %s\n", subject.c_str(), why.c_str());
  }
  for (const auto& [subject, skipped] : result.skipped) {
    std::string commands;
    for (const auto& [command, n] : skipped.commands) {
      commands += " " + command + " (" + std::to_string(n) + ")";
    }
    std::printf("skipped on %s: %zu case files (%" PRIu64
                " commands) that use commands it does not serve:%s\n",
                subject.c_str(), skipped.cases.size(), skipped.steps, commands.c_str());
  }
  for (const std::string& subject : result.subjects) {
    std::printf("\ncompatibility of %s by command group (differential against %s):\n%s",
                subject.c_str(), context.reference.c_str(),
                CompatibilityMarkdown(CompatibilityTable(result, subject)).c_str());
  }
  std::printf("\n");
  std::printf("%s%s: %" PRIu64 " commands over %zu runs in %.1f s: %" PRIu64 " pass, %" PRIu64
              " deviation, %" PRIu64 " fail\n",
              result.totals.fail == 0 ? "PASS" : "FAIL", result.partial ? " (partial)" : "",
              result.totals.total(), result.runs.size(), result.seconds, result.totals.pass,
              result.totals.deviation, result.totals.fail);
  if (result.partial) std::printf("partial: %s\n", result.partial_reason.c_str());
  for (const std::string& p : written) std::printf("wrote %s\n", p.c_str());
  if (plan.random && result.totals.fail > 0) {
    std::printf("replay the random run with: %s\n", plan.random->replay.c_str());
  }
  const std::vector<std::string> uncovered = UncoveredCommands(result, plan);
  if (!uncovered.empty() && !result.partial) {
    std::printf("%s: the corpus never runs: %s\n", flags.require_coverage ? "FAIL" : "note",
                Join(uncovered, " ").c_str());
  }
  if (result.partial) return kExitInterrupted;
  if (result.totals.fail > 0) return kExitFailed;
  return flags.require_coverage && !uncovered.empty() ? kExitFailed : kExitOk;
}

}  // namespace

void AddConformCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ConformFlags>();
  CLI::App* cmd = app.add_subcommand(
      "conform",
      "Run the same command streams against a private real redis-server and kvlab, for every "
      "encoding version and backend, and report pass / deviation / fail per command");
  cmd->add_option("--cases", flags->cases,
                  "Case files or directories (default: " + DataFileHelp("conformance/cases") +
                      ", kvlab's corpus)");
  cmd->add_flag("--random", flags->random,
                "Run seeded random command sequences (without --corpus: only those)");
  cmd->add_flag("--corpus", flags->corpus, "With --random, run the curated corpus as well");
  cmd->add_option("--seed", flags->seed, "Seed of the random run (default: fresh, printed)")
      ->check(NonNegative());
  cmd->add_option("--sequences", flags->sequences, "Random sequences per run")
      ->check(InRange(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  cmd->add_option("--steps", flags->steps, "Commands per random sequence")
      ->check(InRange(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  cmd->add_flag("--soak", flags->soak,
                "A long random run: " + std::to_string(kSoakSequences) + " sequences of " +
                    std::to_string(kSoakSteps) + " commands (unless given)");
  cmd->add_option("--backends", flags->backends,
                  "Backends to run the engine on; NAME or NAME:noreverse (no reverse scan)")
      ->delimiter(',')
      ->capture_default_str();
  flags->etcd.AddTo(cmd);
  // One --<type>-versions per type of the registry.
  for (const encodings::TypeSpec& type : encodings::EncodingRegistry::Builtin().types()) {
    std::string known;
    for (const auto* row : encodings::EncodingRegistry::Builtin().VersionsOf(type.type)) {
      known += (known.empty() ? "" : ", ") + std::string(row->name);
    }
    cmd->add_option("--" + std::string(type.name) + "-versions",
                    flags->versions[std::string(type.name)],
                    "The " + std::string(type.name) + " encode-versions to run, by name (" + known +
                        "; default: every version the engine runs)")
        ->delimiter(',');
  }
  cmd->add_flag("--cross", flags->cross,
                "Run every combination of the types' versions (default: lockstep)");
  cmd->add_option("--migrate-with", flags->migrate_with,
                  "Run each profile instead as migration runs, one per version name given "
                  "(e.g. ardb): migration on write on, the versions switching between that "
                  "name's and the profile's before every command, so keys created in one family "
                  "are read and written under the other")
      ->delimiter(',');
  cmd->add_option("--tier-states", flags->tier_states,
                  "Redis-tier states for the tier versions: cold, warm, flushed")
      ->delimiter(',')
      ->capture_default_str();
  // --resp, as kvlab bench names the same address; --serve, --serve-only and --serve-timeout,
  // conform's names before, still work.
  cmd->add_option("--resp,--serve", flags->serve,
                  "Also test a RESP server (e.g. `kvlab serve`) at host:port or unix:///path, "
                  "end to end; it is FLUSHALLed before every case");
  cmd->add_flag("--resp-only,--serve-only", flags->serve_only, "Test only the --resp server");
  cmd->add_flag("--allow-flush", flags->allow_flush,
                "Let conform FLUSHALL a --resp server that holds keys");
  cmd->add_option("--subject-name", flags->subject_name,
                  "The --resp server's name in reports (default: what INFO server says it is, "
                  "with its address)");
  cmd->add_option("--resp-timeout,--serve-timeout", flags->serve_timeout_s,
                  "Seconds a --resp server may take to reply; a command it does not answer in "
                  "time is reported as such, and the case stops there")
      ->check(InRange(0.1, 600.0))
      ->capture_default_str();
  cmd->add_option("--max-disconnects", flags->max_disconnects,
                  "Stop testing a server after it closed the connection (or did not answer) "
                  "more often than this")
      ->check(InRange(size_t{0}, size_t{100000}))
      ->capture_default_str();
  cmd->add_option("--out", flags->out,
                  "Directory for conform.json, matrix.md and summary.md (default: a new "
                  "results/conform-<UTC time>)");
  cmd->add_option("--reproducers", flags->reproducers,
                  "Directory for shrunk random failures (default: OUT/reproducers)");
  cmd->add_option(
      "--deviations", flags->deviations,
      "The deviations catalogue (default: " + DataFileHelp("docs/deviations.json") + ")");
  cmd->add_option("--ttl-tolerance-ms", flags->ttl_tolerance_ms,
                  "Declared tolerance of PTTL and PEXPIRETIME replies")
      ->check(InRange(int64_t{0}, int64_t{60000}))
      ->capture_default_str();
  cmd->add_option("--redis-server", flags->redis_server, "The reference redis-server binary")
      ->capture_default_str();
  cmd->add_option("--max-shrinks", flags->max_shrinks,
                  "Random failures to shrink into reproducers per run")
      ->check(NonNegative())
      ->capture_default_str();
  cmd->add_flag("--require-coverage", flags->require_coverage,
                "Fail unless the corpus runs every command of the engine's table");
  cmd->add_option("--namespace-prefix", flags->ns_prefix,
                  "Engine: bytes before the database number in every record's namespace");
  cmd->add_flag("--md5-prefix", flags->md5_prefix,
                "Engine: put md5(key)[0..8] before the key in every record");
  cmd->add_option("--transcript", flags->transcript,
                  "Write every command of the first run with Redis's reply (and kvlab's where it "
                  "differs) to this file, for checking what a case tests");
  cmd->callback([cmd, flags, exit_code] { *exit_code = RunConform(*cmd, *flags); });
}

}  // namespace kvlab::conformance
