// `kvlab conform`: the conformance harness from the command line.
//
// Starts a private redis-server (the reference), builds the subjects (the engine over each
// backend in --backends, and optionally a RESP server at --serve), runs the corpus and/or a
// random run over the matrix, writes the reports and prints a summary. Exit status: 0 when
// every reply passed or deviated as catalogued, 1 on any failure (or, with --require-coverage,
// a command the corpus never runs), 2 when the run could not be made.
#include "conformance/conform_command.h"

#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>

#include "conformance/matrix.h"
#include "conformance/progress.h"
#include "conformance/report.h"
#include "redis/server_process.h"

namespace kvlab::conformance {

using backends::StoreSpec;
using engine::EngineOptions;
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
  std::vector<int> hash_versions;
  std::vector<int> zset_versions;
  bool cross = false;
  std::vector<std::string> tier_states = {"cold", "warm", "flushed"};
  std::string serve;
  bool serve_only = false;
  bool allow_flush = false;
  std::string out = "conform-results";
  std::string reproducers;
  std::string deviations = DefaultDeviationCataloguePath();
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

std::string JoinInts(const std::vector<int>& v) {
  std::vector<std::string> s;
  for (int x : v) s.push_back(std::to_string(x));
  return Join(s);
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The flags that shape the matrix, for replay command lines.
std::string MatrixFlags(const ConformFlags& f) {
  std::string out;
  if (f.backends != ConformFlags().backends) out += " --backends " + Join(f.backends);
  if (!f.hash_versions.empty()) out += " --hash-versions " + JoinInts(f.hash_versions);
  if (!f.zset_versions.empty()) out += " --zset-versions " + JoinInts(f.zset_versions);
  if (f.cross) out += " --cross";
  if (f.tier_states != ConformFlags().tier_states) out += " --tier-states " + Join(f.tier_states);
  if (!f.serve.empty()) out += " --serve " + f.serve + (f.serve_only ? " --serve-only" : "");
  return out;
}

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
    std::printf("FAIL %s %s %s:%d: %s\n  redis: %s\n  kvlab: %s\n", f.subject.c_str(),
                f.profile.c_str(), f.source.c_str(), f.line, f.command_line.c_str(),
                f.redis.c_str(), f.subject_reply.c_str());
    if (!f.reproducer.empty()) std::printf("  reproducer: %s\n", f.reproducer.c_str());
  }
  if (r.failures_total > kShown) {
    std::printf("... and %" PRIu64 " more failures (see the reports)\n", r.failures_total - kShown);
  }
}

int RunConform(const ConformFlags& flags) {
  auto fail = [](const std::string& why) {
    std::fprintf(stderr, "kvlab conform: %s\n", why.c_str());
    return 2;
  };
  DeviationCatalogue catalogue;
  Status s = DeviationCatalogue::Load(flags.deviations, &catalogue);
  if (!s.ok()) return fail(s.ToString());

  MatrixPlan plan;
  plan.catalogue = &catalogue;
  plan.compare.ttl_tolerance_ms = flags.ttl_tolerance_ms;
  plan.hash_versions = flags.hash_versions;
  plan.zset_versions = flags.zset_versions;
  plan.pairing = flags.cross ? VersionPairing::kCross : VersionPairing::kLockstep;
  plan.tier_states.clear();
  for (const std::string& name : flags.tier_states) {
    TierState t;
    if (!ParseTierState(name, &t)) return fail("unknown tier state '" + name + "'");
    plan.tier_states.push_back(t);
  }
  plan.max_shrinks = flags.max_shrinks;
  plan.reproducer_dir = flags.reproducers.empty()
                            ? (std::filesystem::path(flags.out) / "reproducers").string()
                            : flags.reproducers;
  if (!flags.random || flags.corpus) {
    std::vector<std::string> paths = flags.cases;
    if (paths.empty()) paths.push_back(KVLAB_SOURCE_DIR "/conformance/cases");
    s = LoadCases(paths, &plan.corpus);
    if (!s.ok()) return fail(s.ToString());
  }
  if (flags.random) {
    RandomPlan r;
    r.fresh_seed = !flags.seed.has_value();
    r.seed = flags.seed.value_or(std::random_device{}() * uint64_t{0x100000000} +
                                 std::random_device{}());
    r.sequences =
        flags.soak && flags.sequences == RandomPlan().sequences ? kSoakSequences : flags.sequences;
    r.steps = flags.soak && flags.steps == RandomPlan().steps ? kSoakSteps : flags.steps;
    r.replay = "kvlab conform --random --seed " + std::to_string(r.seed) + " --sequences " +
               std::to_string(r.sequences) + " --steps " + std::to_string(r.steps) +
               MatrixFlags(flags);
    std::printf("random seed %" PRIu64 "%s; replay with: %s\n", r.seed,
                r.fresh_seed ? " (fresh)" : "", r.replay.c_str());
    std::fflush(stdout);
    plan.random = r;
  }
  const std::string command_line = plan.random
                                       ? plan.random->replay + (flags.corpus ? " --corpus" : "")
                                       : "kvlab conform" + MatrixFlags(flags);

  // The subjects.
  std::vector<std::unique_ptr<Subject>> owned;
  if (!flags.serve_only) {
    EngineOptions options;
    options.keys.ns_prefix = flags.ns_prefix;
    options.keys.md5_prefix = flags.md5_prefix;
    for (const std::string& column : flags.backends) {
      StoreSpec spec;
      s = ParseBackendColumn(column, &spec);
      if (!s.ok()) return fail(s.ToString());
      owned.push_back(std::make_unique<EngineSubject>(column, spec, options, EngineTierWiring()));
    }
  }
  if (!flags.serve.empty()) {
    RedisEndpoint endpoint;
    s = RedisEndpoint::Parse(flags.serve, &endpoint);
    if (!s.ok()) return fail(s.ToString());
    auto remote = std::make_unique<RemoteSubject>(endpoint);
    if (!flags.allow_flush) {
      s = remote->CheckEmpty();
      if (!s.ok()) return fail(s.ToString());
    }
    owned.push_back(std::move(remote));
  }
  if (owned.empty()) return fail("nothing to test: --serve-only needs --serve ADDR");
  std::vector<Subject*> subjects;
  for (auto& o : owned) subjects.push_back(o.get());

  // The reference.
  RedisServerOptions server_options;
  server_options.binary = flags.redis_server;
  RedisServerProcess server(server_options);
  s = server.Start();
  if (!s.ok()) return fail("cannot start the reference redis-server: " + s.ToString());
  RedisClient client(server.endpoint(), std::chrono::milliseconds(10000));
  RedisTarget reference("redis", &client);
  ReportContext context;
  context.reference =
      "redis-server " + RedisVersion(client) + " at " + server.endpoint().ToString();
  context.command_line = command_line;
  context.started = UtcNow();
  context.plan = &plan;
  context.catalogue = &catalogue;
  std::printf("reference: %s\n", context.reference.c_str());
  std::fflush(stdout);

  std::ofstream transcript;
  if (!flags.transcript.empty()) {
    transcript.open(flags.transcript, std::ios::trunc);
    if (!transcript) return fail("cannot write " + flags.transcript);
    plan.transcript = &transcript;
  }
  MatrixResult result;
  {
    StderrProgress progress;
    s = RunMatrix(reference, subjects, plan, &progress, &result);
  }
  if (!s.ok()) return fail(s.ToString());
  std::vector<std::string> written;
  s = WriteReports(flags.out, result, context, &written);
  if (!s.ok()) return fail(s.ToString());

  PrintFailures(result);
  std::printf("%s: %" PRIu64 " commands over %zu runs in %.1f s: %" PRIu64 " pass, %" PRIu64
              " deviation, %" PRIu64 " fail\n",
              result.totals.fail == 0 ? "PASS" : "FAIL", result.totals.total(), result.runs.size(),
              result.seconds, result.totals.pass, result.totals.deviation, result.totals.fail);
  for (const std::string& p : written) std::printf("wrote %s\n", p.c_str());
  if (plan.random && result.totals.fail > 0) {
    std::printf("replay the random run with: %s\n", plan.random->replay.c_str());
  }
  const std::vector<std::string> uncovered = UncoveredCommands(result, plan);
  if (!uncovered.empty()) {
    std::printf("%s: the corpus never runs: %s\n", flags.require_coverage ? "FAIL" : "note",
                Join(uncovered, " ").c_str());
  }
  if (result.totals.fail > 0) return 1;
  return flags.require_coverage && !uncovered.empty() ? 1 : 0;
}

}  // namespace

void AddConformCommand(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ConformFlags>();
  CLI::App* cmd = app.add_subcommand(
      "conform",
      "Run the same command streams against a private real redis-server and kvlab, for every "
      "encoding version and backend, and report pass / deviation / fail per command");
  cmd->add_option("--cases", flags->cases,
                  "Case files or directories (default: the source tree's conformance/cases)");
  cmd->add_flag("--random", flags->random,
                "Run seeded random command sequences (without --corpus: only those)");
  cmd->add_flag("--corpus", flags->corpus, "With --random, run the curated corpus as well");
  cmd->add_option("--seed", flags->seed, "Seed of the random run (default: fresh, printed)");
  cmd->add_option("--sequences", flags->sequences, "Random sequences per run")
      ->check(CLI::Range(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  cmd->add_option("--steps", flags->steps, "Commands per random sequence")
      ->check(CLI::Range(size_t{1}, size_t{1000000}))
      ->capture_default_str();
  cmd->add_flag("--soak", flags->soak,
                "A long random run: " + std::to_string(kSoakSequences) + " sequences of " +
                    std::to_string(kSoakSteps) + " commands (unless given)");
  cmd->add_option("--backends", flags->backends,
                  "Backends to run the engine on; NAME or NAME:noreverse (no reverse scan)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--hash-versions", flags->hash_versions,
                  "Hash encode-versions (default: every version the engine runs)")
      ->delimiter(',');
  cmd->add_option("--zset-versions", flags->zset_versions,
                  "Zset encode-versions (default: every version the engine runs)")
      ->delimiter(',');
  cmd->add_flag("--cross", flags->cross,
                "Pair every hash version with every zset version (default: lockstep)");
  cmd->add_option("--tier-states", flags->tier_states,
                  "Redis-tier states for the tier versions: cold, warm, flushed")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--serve", flags->serve,
                  "Also test a RESP server (e.g. `kvlab serve`) at host:port or unix:///path, "
                  "end to end; it is FLUSHALLed before every case");
  cmd->add_flag("--serve-only", flags->serve_only, "Test only the --serve server");
  cmd->add_flag("--allow-flush", flags->allow_flush,
                "Let conform FLUSHALL a --serve server that holds keys");
  cmd->add_option("--out", flags->out, "Directory for conform.json, matrix.md and summary.md")
      ->capture_default_str();
  cmd->add_option("--reproducers", flags->reproducers,
                  "Directory for shrunk random failures (default: OUT/reproducers)");
  cmd->add_option("--deviations", flags->deviations, "The deviations catalogue")
      ->capture_default_str();
  cmd->add_option("--ttl-tolerance-ms", flags->ttl_tolerance_ms,
                  "Declared tolerance of PTTL and PEXPIRETIME replies")
      ->check(CLI::Range(int64_t{0}, int64_t{60000}))
      ->capture_default_str();
  cmd->add_option("--redis-server", flags->redis_server, "The reference redis-server binary")
      ->capture_default_str();
  cmd->add_option("--max-shrinks", flags->max_shrinks,
                  "Random failures to shrink into reproducers per run")
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
  cmd->callback([flags, exit_code] { *exit_code = RunConform(*flags); });
}

}  // namespace kvlab::conformance
