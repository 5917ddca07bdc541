#include "workloads/bench_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "flags/common_flags.h"
#include "flags/conventions.h"
#include "workloads/bench_info_commands.h"
#include "workloads/bench_progress.h"
#include "workloads/build_info.h"
#include "workloads/catalogue.h"
#include "workloads/data_size.h"
#include "workloads/matrix.h"
#include "workloads/report.h"
#include "workloads/result.h"
#include "workloads/slow_command.h"
#include "workloads/sweep.h"

namespace kvlab::workloads {

using backends::EmbeddedBackendNames;
using flags::EngineFlags;
using flags::InRange;
using flags::InstallInterruptHandlers;
using flags::InterruptFlag;
using flags::kExitCannotRun;
using flags::kExitFailed;
using flags::kExitInterrupted;
using flags::kExitOk;
using flags::NonNegative;
using flags::Positive;
using flags::StoreFlags;
using flags::UsageError;
using redis::RedisClient;
using redis::RedisEndpoint;
using redis::RequireEmptyServer;

namespace {

namespace fs = std::filesystem;

bool Interrupted() { return *InterruptFlag() != 0; }

struct BenchFlags {
  StoreFlags store;
  EngineFlags engine;
  std::vector<std::string> backends;
  // --hash-versions, --zset-versions, ...: type name -> version names (empty: every version).
  std::map<std::string, std::vector<std::string>> versions;
  int repetitions = 0;         // 0: the subcommand's default
  std::string migration_from;  // --migration-from hash=ardb,...
  std::string results_dir = "results";
  std::string physical = "auto";
  bool allow_invalid_timing = false;
  std::string test_slow_command;  // hidden: see workloads/slow_command.h
  bool no_report = false;
  bool no_plots = false;
  std::string resp;
  bool resp_only = false;
  bool allow_flush = false;
  bool gc_at_end = true;  // --gc-at-end / --no-gc-at-end
  std::string reclaim;    // --reclaim none,scan,compaction
  uint64_t reclaim_interval_ms = 500;
  uint64_t reclaim_sample_ms = 100;
  WorkloadOverrides overrides;
  // Open loop and the RESP client's shape (workloads/open_loop.h): --rate, --pipeline, --clients.
  double rate = 0;
  uint32_t pipeline = 1;
  int clients = 0;
  // run
  std::vector<std::string> workloads;
  // sweep
  std::string sweep_kind;
  std::vector<std::string> sweep_types = {"hash", "zset", "list", "set"};
  uint64_t max_size = 100000;
  std::vector<uint64_t> sizes;
  uint64_t calls = 200;
  double probe_budget_s = 2;
  double series_budget_s = 120;
  std::vector<uint64_t> rtts = {0, 100, 1000};
  uint64_t rtt_size = 1000;
  // The (sub)commands that carry the matrix flags: `bench` itself (the main job), run, sweep.
  std::vector<CLI::App*> apps;

  // Whether `flag` was given on any of them.
  bool Given(const std::string& flag) const {
    for (const CLI::App* app : apps) {
      const CLI::Option* o = app->get_option_no_throw(flag);
      if (o != nullptr && o->count() > 0) return true;
    }
    return false;
  }
};

constexpr int kSweepRepetitions = 3;

// The process's own argv, for the result's context (/proc/self/cmdline: NUL-separated).
std::vector<std::string> OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

// The flags that conflict: rejected rather than resolved silently.
void CheckConflicts(const BenchFlags& f) {
  std::vector<std::pair<std::string, std::string>> kOneOrTheOther = {{"--backend", "--backends"}};
  for (const encodings::TypeSpec& type : encodings::EncodingRegistry::Builtin().types()) {
    const std::string name(type.name);
    kOneOrTheOther.emplace_back("--" + name + "-encoding", "--" + name + "-versions");
  }
  for (const auto& [one, list] : kOneOrTheOther) {
    if (f.Given(one) && f.Given(list)) {
      throw UsageError(one + " and " + list + " were both given: " + one + " picks one, " + list +
                       " lists several; give one of them");
    }
  }
  if (f.resp_only && f.resp.empty()) throw UsageError("--resp-only needs --resp ADDRESS");
  if (f.allow_flush && f.resp.empty()) throw UsageError("--allow-flush needs --resp ADDRESS");
  if (!f.reclaim.empty() && f.store.compaction_filter) {
    throw UsageError(
        "--reclaim and --compaction-filter were both given: with --reclaim each cell's "
        "mechanism decides (the compaction cells get the filter, the others none)");
  }
  if (!f.reclaim.empty() && f.engine.ttl_index) {
    throw UsageError(
        "--reclaim and --ttl-index were both given: with --reclaim each cell's mechanism "
        "decides (the ttl-index cells keep the index, the others none)");
  }
  for (const char* flag : {"--reclaim-interval-ms", "--reclaim-sample-ms"}) {
    if (f.reclaim.empty() && f.Given(flag)) {
      throw UsageError(std::string(flag) + " needs --reclaim");
    }
  }
  if (!f.reclaim.empty() && !f.migration_from.empty()) {
    throw UsageError("--reclaim and --migration-from were both given; give one of them");
  }
  if (f.Given("--clients") && f.Given("--threads")) {
    throw UsageError(
        "--clients and --threads were both given: --clients sets the RESP clients (a thread and "
        "a connection each), --threads the same in-process; give one of them");
  }
  if (f.Given("--clients") && f.resp.empty()) {
    throw UsageError(
        "--clients applies to --resp targets (kvlab serve, redis-server); in-process, --threads "
        "sets the sessions");
  }
  if (f.Given("--pipeline") && (f.resp.empty() || !f.resp_only)) {
    throw UsageError(
        "--pipeline applies to RESP targets only (the in-process engine has no pipeline): give "
        "it with --resp ADDRESS --resp-only");
  }
}

// --results: a directory kvlab can create and write in, checked before the first cell.
void CheckResultsDir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    throw UsageError("--results " + dir + ": not a directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("--results " + dir + ": cannot create it: " + ec.message());
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("--results " + dir + ": cannot write there: " + std::strerror(errno));
  }
}

// Builds the matrix options from the flags, or throws UsageError saying what is wrong.
MatrixOptions MakeMatrixOptions(const BenchFlags& f) {
  CheckConflicts(f);
  MatrixOptions m;
  m.backends = f.backends.empty() ? EmbeddedBackendNames() : f.backends;
  if (f.Given("--backend")) m.backends = {f.store.backend};
  for (const auto& b : m.backends) {
    backends::StoreSpec ignored;
    if (Status s = backends::ParseBackendColumn(b, {}, &ignored); !s.ok()) {
      throw UsageError(s.message());
    }
  }
  // The matrix's versions of each type: --<type>-versions, narrowed to one by --encoding or
  // --<type>-encoding, else every version the engine runs.
  const std::map<std::string, std::vector<std::string>> available =
      AvailableVersions(f.engine.ToOptions());
  m.versions.clear();
  for (const auto& [type, versions] : available) {
    auto listed = f.versions.find(type);
    m.versions[type] =
        listed != f.versions.end() && !listed->second.empty() ? listed->second : versions;
  }
  for (const auto& [type, version] : f.engine.Versions().versions) m.versions[type] = {*version};
  for (const auto& [type, versions] : m.versions) {
    const std::vector<std::string>& runs = available.at(type);
    for (const std::string& v : versions) {
      if (std::find(runs.begin(), runs.end(), v) == runs.end()) {
        throw UsageError(type + " encoding v" + v + " is not available (this engine runs " +
                         Join(runs) + ")");
      }
    }
  }
  m.store = f.store.ToSpec();
  m.compaction_filter = f.store.compaction_filter;
  m.compaction_grace_ms = f.store.compaction_grace_ms;
  m.engine = f.engine.ToOptions();
  m.config_file = f.engine.config_file;
  m.repetitions = std::max(1, f.repetitions);
  m.allow_degraded = f.engine.allow_degraded;
  m.gc_at_end = f.gc_at_end;
  if (!f.reclaim.empty()) {
    if (Status s = ParseReclaimList(f.reclaim, &m.reclaim); !s.ok()) throw UsageError(s.message());
    m.reclaim_options.interval = std::chrono::milliseconds(f.reclaim_interval_ms);
    m.reclaim_options.sample_interval = std::chrono::milliseconds(f.reclaim_sample_ms);
  }
  // Validated while parsing (AddMatrixFlags).
  encodings::ParseEncodingList(RegistryOf(m.engine), f.migration_from, &m.migration_from)
      .IgnoreError();
  Status s = ParsePhysicalMode(f.physical, &m.physical);
  if (!s.ok()) throw UsageError(s.message());
  if (!f.resp.empty()) {
    RedisEndpoint endpoint;
    s = RedisEndpoint::Parse(f.resp, &endpoint);
    if (!s.ok()) throw UsageError("--resp: " + s.message());
    m.resp = endpoint;
  }
  m.in_process = !f.resp_only;
  if (!f.test_slow_command.empty()) {
    SlowCommand slow;
    if (Status t = ParseSlowCommand(f.test_slow_command, &slow); !t.ok()) {
      throw UsageError(t.message());
    }
    m.connection_decorator = [slow](std::unique_ptr<TargetConnection> inner) {
      return NewSlowCommandConnection(std::move(inner), slow);
    };
  }
  m.open_loop.rate_per_s = f.rate;
  m.open_loop.pipeline = f.pipeline;
  m.stop = InterruptFlag();
  flags::CheckFreshStoreParent(m.in_process ? f.store.dir : "", "bench");
  CheckResultsDir(f.results_dir);
  return m;
}

// Every cell over RESP starts with FLUSHALL: refuse a server that holds data, unless told.
// Returns false (after saying why) when the run cannot start.
bool CheckRespTarget(const MatrixOptions& m, const BenchFlags& f) {
  if (!m.resp) return true;
  RedisClient client(*m.resp);
  Status s = client.Connect();
  if (s.ok() && !f.allow_flush) {
    s = RequireEmptyServer(client, "bench runs FLUSHALL on it before every cell");
    if (!s.ok()) throw UsageError("--resp: " + s.message());
  }
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab bench: --resp %s: %s\n", f.resp.c_str(), s.message().c_str());
    return false;
  }
  return true;
}

RunSettings SettingsOf(const MatrixOptions& m, const BenchFlags& f,
                       const std::vector<std::string>& command_line) {
  RunSettings s;
  s.command_line = command_line;
  s.backends = m.backends;
  s.versions = m.versions;
  s.store = m.store;
  s.engine = m.engine;
  s.repetitions = m.repetitions;
  s.physical = f.physical;
  s.resp = m.resp ? m.resp->ToString() : "";
  s.in_process = m.in_process;
  s.allow_degraded = m.allow_degraded;
  s.gc_at_end = m.gc_at_end;
  s.reclaim = m.reclaim;
  s.reclaim_options = m.reclaim_options;
  s.compaction_grace_ms = m.compaction_grace_ms;
  s.open_loop = m.open_loop;
  return s;
}

// Refuses a build whose times mean nothing, unless told to go on (then the result says so).
bool CheckTiming(const BenchFlags& f) {
  std::string reason;
  if (TimingValid(&reason)) return true;
  if (f.allow_invalid_timing) {
    std::fprintf(stderr, "kvlab bench: warning: %s; the result is marked timing_valid=false\n",
                 reason.c_str());
    return true;
  }
  std::fprintf(stderr,
               "kvlab bench: refusing to time a %s.\nBuild with -DCMAKE_BUILD_TYPE=RelWithDebInfo "
               "(scripts/run does), or pass --allow-invalid-timing to measure KV counts only.\n",
               reason.c_str());
  return false;
}

// The result file, written as the run goes. A write that fails is reported once, with the OS
// error, and fails the run.
class ResultWriter {
 public:
  ResultWriter(BenchResult* result, ProgressPrinter* progress)
      : result_(result), progress_(progress) {}
  void Write() {
    Status s = result_->Write();
    if (s.ok() || !error_.ok()) return;
    error_ = s;
    progress_->Note(s.message());
  }
  bool ok() const { return error_.ok(); }

 private:
  BenchResult* result_;
  ProgressPrinter* progress_;
  Status error_;
};

// What a finished cell says on its progress line.
std::string CellOutcome(const CellResult& r) {
  if (!r.run.error.empty()) return "FAILED: " + r.run.error;
  double seconds = 0, throughput = 0;
  for (const PhaseResult& p : r.run.phases) {
    seconds += p.wall_seconds;
    if (!p.is_load && throughput == 0) {
      throughput = p.wall_seconds > 0 ? static_cast<double>(p.operations) / p.wall_seconds : 0;
    }
  }
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%.1f s, %.0f ops/s", seconds, throughput);
  std::string out = buf;
  if (const std::string open = OpenLoopOutcome(r.run); !open.empty()) out += "; " + open;
  if (r.run.partial) out += " (interrupted)";
  if (!r.degraded.empty()) out += "; DEGRADED: " + r.degraded;
  return out;
}

// The reclaim axis's mechanisms that do not apply to some backends: said once, in the result's
// notes and on stderr.
void AddReclaimNotes(const MatrixOptions& m, BenchResult* result, ProgressPrinter* progress) {
  for (const std::string& note : ReclaimSkipNotes(m)) {
    result->AddNote(note);
    progress->Note(note);
  }
}

// Says up front what each workload loads (a --records that means 10 million members shows
// before it runs) and, for open loop or a pipeline, the load model and which latency is reported.
void SayWhatRuns(const std::vector<Workload>& workloads, const MatrixOptions& m,
                 ProgressPrinter* progress) {
  for (const Workload& w : workloads) {
    progress->Note(DescribeDataSize(w));
    if (const std::string model = DescribeLoadModel(m.open_loop, std::max(1, w.threads));
        !model.empty()) {
      progress->Note(w.name + ": " + model);
    }
  }
}

// Runs one workload over the matrix, adding its cells to the result as they finish.
bool RunWorkloadMatrix(const Workload& w, const MatrixOptions& base, BenchResult* result,
                       ResultWriter* writer, ProgressPrinter* progress) {
  MatrixOptions m = base;
  const size_t index = result->AddWorkload(w);
  bool ok = true;
  m.on_cell = [&](const Cell& c, size_t, size_t) {
    progress->Begin(w.name + " " + c.Label() +
                    (m.repetitions > 1 ? " rep " + std::to_string(c.repetition + 1) : ""));
  };
  m.progress = [&](const Cell&, const Progress& p) { progress->Update(p); };
  m.on_cell_done = [&](const CellResult& r) {
    result->AddCell(index, r);
    progress->End(CellOutcome(r));
    if (!r.run.error.empty()) ok = false;
    writer->Write();
  };
  std::vector<CellResult> cells;
  RunMatrix(w, m, &cells);
  return ok;
}

// Writes the final result and the report, and prints where they are. Returns the exit status.
int Finish(BenchResult* result, const BenchFlags& f, bool ok, ResultWriter* writer,
           ProgressPrinter* progress) {
  progress->Finish();
  if (Interrupted()) result->MarkPartial("interrupted by a signal (Ctrl-C)");
  result->MarkComplete();
  writer->Write();
  if (!writer->ok()) return kExitFailed;
  std::printf("%s", SummaryTable(result->document()).c_str());
  std::printf("result: %s%s\n", result->path().c_str(), result->partial() ? " (partial)" : "");
  if (!f.no_report) {
    std::string report, note;
    Status s = WriteReport(result->path(), !f.no_plots, &report, &note);
    if (s.ok()) {
      std::printf("report: %s\n", report.c_str());
      if (!note.empty()) std::fprintf(stderr, "kvlab bench: %s\n", note.c_str());
    } else {
      std::fprintf(stderr, "kvlab bench: report: %s\n", s.message().c_str());
    }
  }
  if (Interrupted()) return kExitInterrupted;
  return ok ? kExitOk : kExitFailed;
}

// Says at the start when the machine is busy: its times will be noisy.
void WarnIfLoaded(BenchResult* result) {
  const std::string warning = LoadWarning(GetHostInfo());
  if (warning.empty()) return;
  std::fprintf(stderr, "kvlab bench: warning: %s\n", warning.c_str());
  result->AddWarning(warning);
}

void AddSweepToResult(const std::string& kind, const SweepOptions& sweep, const MatrixOptions& m,
                      BenchResult* result, ResultWriter* writer, ProgressPrinter* progress,
                      bool* ok) {
  SweepResult sr;
  SweepProgress sp;
  sp.begin = [&](const std::string& label) { progress->Begin("sweep " + label); };
  sp.end = [&](const SweepPoint& p) {
    std::string outcome = p.run.error.empty() ? "done" : "FAILED: " + p.run.error;
    if (!p.degraded.empty()) outcome += "; DEGRADED: " + p.degraded;
    progress->End(outcome);
  };
  sp.skipped = [&](size_t n) { progress->Skip(n); };
  if (kind == "rtt") {
    RunRttSweep(sweep, m, sp, &sr);
  } else {
    RunSizeSweep(sweep, m, sp, &sr);
  }
  for (const auto& n : sr.notes) {
    progress->Note(n);
    if (n.find("skipped") == std::string::npos) *ok = false;
  }
  result->AddSweep(sr);
  writer->Write();
}

int MainJob(BenchFlags& f, const std::vector<std::string>& command_line) {
  const DefaultSuite suite = MainJobSuite();
  if (f.repetitions == 0) f.repetitions = suite.repetitions;
  if (f.clients > 0) f.overrides.threads = f.clients;
  std::vector<Workload> workloads;
  for (const SuiteEntry& entry : suite.workloads) {
    Workload w;
    Status s = BuiltinWorkload(entry.workload, &w);
    if (s.ok()) s = ApplyOverrides(entry.overrides, &w);
    if (s.ok()) s = ApplyOverrides(f.overrides, &w);
    if (!s.ok()) throw UsageError(entry.workload + ": " + s.message());
    workloads.push_back(std::move(w));
  }
  const MatrixOptions m = MakeMatrixOptions(f);
  if (!CheckTiming(f)) return kExitCannotRun;
  if (!CheckRespTarget(m, f)) return kExitCannotRun;
  SweepOptions sweep;
  sweep.sizes = DecadeSizes(suite.sweep_max_size);
  sweep.calls = suite.sweep_calls;
  sweep.probe_budget_s = suite.sweep_probe_budget_s;
  sweep.series_budget_s = suite.sweep_series_budget_s;
  sweep.repetitions = m.repetitions;
  InstallInterruptHandlers();
  BenchResult result(SettingsOf(m, f, command_line), f.results_dir, "main");
  ProgressPrinter progress;
  ResultWriter writer(&result, &progress);
  WarnIfLoaded(&result);
  AddReclaimNotes(m, &result, &progress);
  writer.Write();
  for (const Workload& w : workloads) progress.Plan(CountCells(w, m));
  if (m.in_process) progress.Plan(CountSweepPoints("size", sweep, m));
  SayWhatRuns(workloads, m, &progress);
  bool ok = true;
  for (const Workload& w : workloads) {
    if (Interrupted()) break;
    ok = RunWorkloadMatrix(w, m, &result, &writer, &progress) && ok;
  }
  if (!Interrupted() && m.in_process) {
    AddSweepToResult("size", sweep, m, &result, &writer, &progress, &ok);
  }
  return Finish(&result, f, ok, &writer, &progress);
}

int RunCommand(BenchFlags& f, const std::vector<std::string>& command_line) {
  if (f.clients > 0) f.overrides.threads = f.clients;
  std::vector<Workload> workloads;
  for (const std::string& name : f.workloads) {
    Workload w;
    Status s = ResolveWorkload(name, &w);
    if (s.ok()) s = ApplyOverrides(f.overrides, &w);
    if (!s.ok()) throw UsageError(s.message());
    if (f.overrides.value_bytes && !UsesValues(w)) {
      throw UsageError("--data-size: workload " + w.name +
                       " writes no values ({value}, or a hash's field values): there is nothing "
                       "for it to size");
    }
    workloads.push_back(std::move(w));
  }
  const MatrixOptions m = MakeMatrixOptions(f);
  if (!CheckTiming(f)) return kExitCannotRun;
  if (!CheckRespTarget(m, f)) return kExitCannotRun;
  InstallInterruptHandlers();
  std::string name = workloads.size() == 1 ? workloads[0].name : "run";
  BenchResult result(SettingsOf(m, f, command_line), f.results_dir, name);
  ProgressPrinter progress;
  ResultWriter writer(&result, &progress);
  WarnIfLoaded(&result);
  AddReclaimNotes(m, &result, &progress);
  writer.Write();
  for (const Workload& w : workloads) progress.Plan(CountCells(w, m));
  SayWhatRuns(workloads, m, &progress);
  bool ok = true;
  for (const Workload& w : workloads) {
    if (Interrupted()) break;
    ok = RunWorkloadMatrix(w, m, &result, &writer, &progress) && ok;
  }
  return Finish(&result, f, ok, &writer, &progress);
}

int SweepCommand(BenchFlags& f, const std::vector<std::string>& command_line) {
  // The workload flags shape workloads; a sweep's probes have their own.
  for (const char* flag : {"--threads", "--operations", "--duration", "--warmup", "--records",
                           "--elements", "--resp", "--resp-only"}) {
    if (f.Given(flag)) {
      throw UsageError(std::string(flag) +
                       " does not apply to sweeps (their probes run one thread, in-process; "
                       "see --calls, --probe-budget, --sizes)");
    }
  }
  const bool rtt = f.sweep_kind == "rtt";
  for (const char* flag :
       rtt ? std::vector<const char*>{"--max-size", "--sizes", "--series-budget", "--rtt-us"}
           : std::vector<const char*>{"--rtts", "--rtt-size"}) {
    if (f.Given(flag)) {
      throw UsageError(std::string(flag) + " does not apply to `sweep " + f.sweep_kind + "`" +
                       (std::string(flag) == "--rtt-us" ? " (give the delays with --rtts)" : ""));
    }
  }
  if (f.Given("--max-size") && f.Given("--sizes")) {
    throw UsageError("--max-size and --sizes were both given; give one of them");
  }
  if (f.repetitions == 0) f.repetitions = kSweepRepetitions;
  const MatrixOptions m = MakeMatrixOptions(f);
  if (!CheckTiming(f)) return kExitCannotRun;
  SweepOptions sweep;
  sweep.types = f.sweep_types;
  sweep.sizes = f.sizes.empty() ? DecadeSizes(f.max_size) : f.sizes;
  std::sort(sweep.sizes.begin(), sweep.sizes.end());
  sweep.calls = f.calls;
  sweep.probe_budget_s = f.probe_budget_s;
  sweep.series_budget_s = f.series_budget_s;
  sweep.repetitions = m.repetitions;
  sweep.rtts_us = f.rtts;
  sweep.rtt_size = f.rtt_size;
  if (f.overrides.seed) sweep.seed = *f.overrides.seed;
  InstallInterruptHandlers();
  RunSettings settings = SettingsOf(m, f, command_line);
  settings.gc_at_end = false;  // sweep points measure no space
  BenchResult result(settings, f.results_dir, "sweep-" + f.sweep_kind);
  ProgressPrinter progress;
  ResultWriter writer(&result, &progress);
  WarnIfLoaded(&result);
  writer.Write();
  progress.Plan(CountSweepPoints(f.sweep_kind, sweep, m));
  bool ok = true;
  AddSweepToResult(f.sweep_kind, sweep, m, &result, &writer, &progress, &ok);
  return Finish(&result, f, ok, &writer, &progress);
}

// The flags of the matrix, the store, the engine and the output, on `app` (the main job, run
// and sweep each list them in their --help).
void AddMatrixFlags(CLI::App* app, const flags::TestHooks& hooks, BenchFlags* f) {
  f->apps.push_back(app);
  f->store.AddTo(app);
  f->engine.AddTo(app, hooks);
  app->add_option("--backends", f->backends,
                  "Backends of the matrix, comma-separated (default: all four; --backend "
                  "picks one)")
      ->delimiter(',');
  // One --<type>-versions per type of the registry.
  const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
  for (const encodings::TypeSpec& type : registry.types()) {
    std::string known;
    for (const encodings::EncodingSpec* row : registry.VersionsOf(type.type)) {
      known += (known.empty() ? "" : ",") + std::string(row->name);
    }
    std::string name(type.name);
    name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    app->add_option("--" + std::string(type.name) + "-versions",
                    f->versions[std::string(type.name)],
                    name + " encode-versions of the matrix, by name (" + known +
                        "; default: all this engine runs)")
        ->delimiter(',');
  }
  app->add_option("--migration-from", f->migration_from,
                  "Also run each cell with the first half of the records loaded under these "
                  "versions (TYPE=VERSION,...), migration off ('keep') and on ('migrate'): "
                  "what NeoKV's migration on write costs (docs/engine.md)")
      ->check(CLI::Validator(
          [](std::string& text) {
            encodings::EncodingProfile ignored;
            const Status s = encodings::ParseEncodingList(encodings::EncodingRegistry::Builtin(),
                                                          text, &ignored);
            return s.ok() ? std::string() : s.message();
          },
          "TYPE=VERSION,..."));
  app->add_option("--repetitions", f->repetitions,
                  "Runs of the whole matrix, cells interleaved; reports take medians and "
                  "intervals over them (default: 3 for the main job and sweeps, 1 for run)")
      ->check(InRange(1, 1000));
  app->add_option("--results", f->results_dir, "Directory the results are added to")
      ->capture_default_str();
  app->add_option("--physical", f->physical,
                  "Physical counters: auto (per command on RocksDB, per phase elsewhere), "
                  "command, phase or off")
      ->check(CLI::IsMember({"auto", "command", "phase", "off"}))
      ->capture_default_str();
  app->add_flag("--allow-invalid-timing", f->allow_invalid_timing,
                "Run in a debug or sanitizer build; the result is marked timing_valid=false");
  app->add_flag("--no-report", f->no_report, "Write only the result JSON");
  app->add_flag("--no-plots", f->no_plots, "Write the Markdown report without plots");
  // Test-only, hidden from --help (empty group): one command slowed by a fraction of its own
  // time, so that the gate's measurement (scripts/gate-noise) has a known slowdown to find.
  app->add_option("--test-slow-command", f->test_slow_command,
                  "Test only: COMMAND=FRACTION makes one command that much slower")
      ->group("");
}

// The workload overrides (main job and run) and --seed (also sweeps).
void AddWorkloadFlags(CLI::App* app, BenchFlags* f, bool workloads) {
  app->add_option("--seed", f->overrides.seed, "Random seed (recorded in the result)")
      ->check(NonNegative());
  if (!workloads) return;
  app->add_option("--resp", f->resp,
                  "Also run over RESP at this address (kvlab serve); every cell starts with "
                  "FLUSHALL, so a server that holds keys is refused unless --allow-flush");
  app->add_flag("--resp-only", f->resp_only, "Run only over RESP, not in-process");
  app->add_flag("--allow-flush", f->allow_flush,
                "Let bench FLUSHALL a --resp server that holds keys");
  // Two flags rather than CLI11's "--gc-at-end,!--no-gc-at-end", whose help line read
  // "--gc-at-end,--no-gc-at-end{false}": the default of the negation, not of the switch.
  CLI::Option* gc_at_end = app->add_flag_callback(
      "--gc-at-end", [f] { f->gc_at_end = true; },
      "At the end of each in-process cell, after its garbage is measured, run one GC pass and "
      "measure the store and its disk space again (the default)");
  app->add_flag_callback(
         "--no-gc-at-end", [f] { f->gc_at_end = false; },
         "Measure each in-process cell's garbage, and run no GC pass at its end")
      ->excludes(gc_at_end);
  app->add_option(
         "--reclaim", f->reclaim,
         "Reclaim mechanisms, a matrix axis (none, scan, compaction, ttl-index, or all): each "
         "in-process cell runs one beside its run phases and reports the foreground "
         "latency, the records reclaimed per second of its work and the disk over time "
         "(docs/workloads.md); compaction runs on RocksDB only, and is skipped "
         "elsewhere with a note")
      ->check(CLI::Validator(
          [](std::string& text) {
            std::vector<std::string> ignored;
            const Status s = ParseReclaimList(text, &ignored);
            return s.ok() ? std::string() : s.message();
          },
          "LIST"));
  app->add_option("--reclaim-interval-ms", f->reclaim_interval_ms,
                  "With --reclaim: from the start of one round of the mechanism (a scan pass, a "
                  "full compaction) to the next")
      ->check(InRange(uint64_t{1}, uint64_t{3600000}))
      ->capture_default_str();
  app->add_option("--reclaim-sample-ms", f->reclaim_sample_ms,
                  "With --reclaim: between two samples of the store's disk bytes (the timeline)")
      ->check(InRange(uint64_t{1}, uint64_t{3600000}))
      ->capture_default_str();
  app->add_option("--threads", f->overrides.threads, "Client threads (workload default: 1)")
      ->check(InRange(1, 256));
  app->add_option("-n,--operations", f->overrides.operations, "Operations per run phase (>= 1)")
      ->check(InRange(uint64_t{1}, UINT64_MAX));
  app->add_option("--duration", f->overrides.duration_s, "Seconds per run phase (> 0)")
      ->check(Positive());
  app->add_option("--warmup", f->overrides.warmup_operations, "Warm-up operations per phase")
      ->check(NonNegative());
  app->add_option("--pace", f->overrides.pace,
                  "A trace:FILE workload's pace: closed loop by default, 'recorded', or a "
                  "speed-up of it such as 2x (docs/traces.md)");
  app->add_option("--records", f->overrides.records, "Records loaded (>= 1)")
      ->check(InRange(uint64_t{1}, UINT64_MAX));
  app->add_option("--elements", f->overrides.elements, "Fields or members per record")
      ->check(NonNegative());
  app->add_option("-d,--data-size", f->overrides.value_bytes,
                  "Bytes of each value the workload writes ({value}, a hash's field values), "
                  "replacing its value_bytes")
      ->check(InRange(uint64_t{1}, uint64_t{64} << 20));
  AddOpenLoopFlags(app, &f->rate, &f->clients, &f->pipeline);
}

void AddSweepFlags(CLI::App* sweep, BenchFlags* f) {
  sweep->add_option("kind", f->sweep_kind, "size or rtt")
      ->required()
      ->check(CLI::IsMember({"size", "rtt"}));
  sweep->add_option("--types", f->sweep_types, "Types swept: hash, zset, list, set (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"hash", "zset", "list", "set"}));
  sweep->add_option("--max-size", f->max_size, "Largest size (decade steps from 10)")
      ->check(InRange(uint64_t{10}, uint64_t{100000000}))
      ->capture_default_str();
  sweep->add_option("--sizes", f->sizes, "Explicit sizes, comma-separated")
      ->delimiter(',')
      ->check(InRange(uint64_t{1}, uint64_t{100000000}));
  sweep->add_option("--calls", f->calls, "Calls per probe and size")
      ->check(InRange(uint64_t{1}, UINT64_MAX))
      ->capture_default_str();
  sweep->add_option("--probe-budget", f->probe_budget_s, "Seconds per probe and size at most")
      ->check(Positive())
      ->capture_default_str();
  sweep
      ->add_option("--series-budget", f->series_budget_s,
                   "Seconds per backend and version; larger sizes are skipped beyond it")
      ->check(Positive())
      ->capture_default_str();
  sweep->add_option("--rtts", f->rtts, "Round-trip delays in microseconds (rtt sweep)")
      ->delimiter(',')
      ->check(NonNegative());
  sweep->add_option("--rtt-size", f->rtt_size, "Collection size of the rtt sweep")
      ->check(InRange(uint64_t{1}, uint64_t{100000000}))
      ->capture_default_str();
}

}  // namespace

void AddBenchCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code) {
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Workload drivers: per-command KV amplification, latency and throughput over backends "
      "and encodings. With no subcommand: the main job (default suite, size sweep, report)");
  auto flags = std::make_shared<BenchFlags>();
  AddMatrixFlags(bench, hooks, flags.get());
  AddWorkloadFlags(bench, flags.get(), true);
  bench->require_subcommand(0, 1);

  CLI::App* run = bench->add_subcommand("run", "Run workloads (catalogue names or .json files)");
  run->add_option("workloads", flags->workloads, "Workloads to run")->required();
  AddMatrixFlags(run, hooks, flags.get());
  AddWorkloadFlags(run, flags.get(), true);

  CLI::App* sweep = bench->add_subcommand("sweep", "Cost against collection size or round trips");
  AddSweepFlags(sweep, flags.get());
  AddMatrixFlags(sweep, hooks, flags.get());
  AddWorkloadFlags(sweep, flags.get(), false);

  auto info = std::make_shared<BenchInfoCommands>();
  AddBenchInfoCommands(bench, info.get());

  // One dispatch point, after the whole command line is parsed.
  bench->final_callback([=] {
    const std::vector<std::string> command_line = OwnCommandLine();
    BenchFlags& f = *flags;
    if (run->parsed()) {
      *exit_code = RunCommand(f, command_line);
    } else if (sweep->parsed()) {
      *exit_code = SweepCommand(f, command_line);
    } else if (RunBenchInfoCommand(*info)) {
      return;
    } else {
      *exit_code = MainJob(f, command_line);
    }
  });
}

}  // namespace kvlab::workloads
