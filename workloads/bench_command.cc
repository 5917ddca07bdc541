#include "workloads/bench_command.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "flags/common_flags.h"
#include "workloads/build_info.h"
#include "workloads/catalogue.h"
#include "workloads/matrix.h"
#include "workloads/report.h"
#include "workloads/result.h"
#include "workloads/sweep.h"

namespace kvlab::workloads {

using backends::BackendNames;
using flags::EngineFlags;
using flags::StoreFlags;
using redis::RedisEndpoint;

namespace {

// Set by the SIGINT/SIGTERM handler: the one piece of global mutable state kvlab allows, because
// a signal handler can reach nothing else. Everything below reads it through a pointer.
volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

// The first Ctrl-C asks for a clean stop (partial results are written); SA_RESETHAND makes a
// second one kill the process as usual.
void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

constexpr int kExitFailed = 1;
constexpr int kExitInvalidTiming = 2;
constexpr int kExitInterrupted = 130;

struct BenchFlags {
  StoreFlags store;
  EngineFlags engine;
  CLI::Option* backend_option = nullptr;
  CLI::Option* hash_option = nullptr;
  CLI::Option* zset_option = nullptr;
  std::vector<std::string> backends;
  std::vector<int> hash_versions;
  std::vector<int> zset_versions;
  int repetitions = 0;  // 0: the subcommand's default
  std::string results_dir = "results";
  std::string physical = "auto";
  bool allow_invalid_timing = false;
  bool no_report = false;
  bool no_plots = false;
  std::string resp;
  bool resp_only = false;
  WorkloadOverrides overrides;
  // run
  std::vector<std::string> workloads;
  // sweep
  std::string sweep_kind;
  std::vector<std::string> sweep_types = {"hash", "zset"};
  uint64_t max_size = 100000;
  std::vector<uint64_t> sizes;
  uint64_t calls = 200;
  double probe_budget_s = 2;
  double series_budget_s = 120;
  std::vector<uint64_t> rtts = {0, 100, 1000};
  uint64_t rtt_size = 1000;
  // show, report
  std::string name;
  std::string result_path;
};

// One progress line on a terminal (rewritten in place), plain lines otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter() : tty_(isatty(STDERR_FILENO) == 1) {}

  void Begin(const std::string& what) {
    what_ = what;
    stage_.clear();
    if (!tty_) std::fprintf(stderr, "kvlab bench: %s\n", what.c_str());
  }

  void Update(const Progress& p) {
    const auto now = std::chrono::steady_clock::now();
    std::string line = what_ + " | " + p.stage + " ";
    double fraction = -1;
    if (p.total > 0) fraction = static_cast<double>(p.done) / static_cast<double>(p.total);
    if (p.duration_s > 0) fraction = std::max(fraction, p.elapsed_s / p.duration_s);
    if (fraction >= 0) {
      fraction = std::min(1.0, fraction);
      const int filled = static_cast<int>(fraction * 20);
      line += "[" + std::string(filled, '#') + std::string(20 - filled, '.') + "] " +
              std::to_string(static_cast<int>(fraction * 100)) + "% ";
    }
    const double rate = p.elapsed_s > 0 ? static_cast<double>(p.done) / p.elapsed_s : 0;
    char tail[96];
    std::snprintf(tail, sizeof(tail), "%llu ops, %.0f ops/s",
                  static_cast<unsigned long long>(p.done), rate);
    line += tail;
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.substr(0, 160).c_str());
      std::fflush(stderr);
    } else if (p.stage != stage_ || now - last_ >= std::chrono::seconds(5)) {
      std::fprintf(stderr, "  %s\n", line.c_str());
      last_ = now;
    }
    stage_ = p.stage;
  }

  void Note(const std::string& text) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "kvlab bench: %s\n", text.c_str());
  }

  void End() {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  const bool tty_;
  std::string what_;
  std::string stage_;
  std::chrono::steady_clock::time_point last_{};
};

// The process's own argv, for the result's context (/proc/self/cmdline: NUL-separated).
std::vector<std::string> OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

std::string Join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

// Builds the matrix options from the flags; on bad flags prints why and returns false.
bool MakeMatrixOptions(BenchFlags& f, MatrixOptions* m) {
  m->backends = f.backends.empty() ? BackendNames() : f.backends;
  if (f.backend_option != nullptr && f.backend_option->count() > 0) m->backends = {f.store.backend};
  for (const auto& b : m->backends) {
    if (std::find(BackendNames().begin(), BackendNames().end(), b) == BackendNames().end()) {
      std::fprintf(stderr, "kvlab bench: unknown backend '%s'\n", b.c_str());
      return false;
    }
  }
  const std::vector<int> hash_available = AvailableHashVersions();
  const std::vector<int> zset_available = AvailableZsetVersions();
  m->hash_versions = f.hash_versions.empty() ? hash_available : f.hash_versions;
  m->zset_versions = f.zset_versions.empty() ? zset_available : f.zset_versions;
  if (f.hash_option != nullptr && f.hash_option->count() > 0)
    m->hash_versions = {f.engine.hash_version};
  if (f.zset_option != nullptr && f.zset_option->count() > 0)
    m->zset_versions = {f.engine.zset_version};
  for (int v : m->hash_versions) {
    if (std::find(hash_available.begin(), hash_available.end(), v) == hash_available.end()) {
      std::fprintf(stderr,
                   "kvlab bench: hash encoding v%d is not available (this engine runs %s)\n", v,
                   Join(hash_available).c_str());
      return false;
    }
  }
  for (int v : m->zset_versions) {
    if (std::find(zset_available.begin(), zset_available.end(), v) == zset_available.end()) {
      std::fprintf(stderr,
                   "kvlab bench: zset encoding v%d is not available (this engine runs %s)\n", v,
                   Join(zset_available).c_str());
      return false;
    }
  }
  m->store = f.store.ToSpec();
  m->engine = f.engine.ToOptions();
  m->config_file = f.engine.config_file;
  m->repetitions = std::max(1, f.repetitions);
  Status s = ParsePhysicalMode(f.physical, &m->physical);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab bench: %s\n", s.message().c_str());
    return false;
  }
  if (!f.resp.empty()) {
    RedisEndpoint endpoint;
    s = RedisEndpoint::Parse(f.resp, &endpoint);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab bench: --resp: %s\n", s.ToString().c_str());
      return false;
    }
    m->resp = endpoint;
  }
  m->in_process = !f.resp_only;
  if (f.resp_only && f.resp.empty()) {
    std::fprintf(stderr, "kvlab bench: --resp-only needs --resp ADDRESS\n");
    return false;
  }
  m->stop = &g_interrupted;
  return true;
}

RunSettings SettingsOf(const MatrixOptions& m, const BenchFlags& f,
                       const std::vector<std::string>& command_line) {
  RunSettings s;
  s.command_line = command_line;
  s.backends = m.backends;
  s.hash_versions = m.hash_versions;
  s.zset_versions = m.zset_versions;
  s.store = m.store;
  s.engine = m.engine;
  s.repetitions = m.repetitions;
  s.physical = f.physical;
  s.resp = m.resp ? m.resp->ToString() : "";
  s.in_process = m.in_process;
  return s;
}

// Refuses a build whose times mean nothing, unless told to go on (then the result says so).
bool CheckTiming(const BenchFlags& f, int* exit_code) {
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
  *exit_code = kExitInvalidTiming;
  return false;
}

// Runs one workload over the matrix, adding its cells to the result as they finish.
bool RunWorkloadMatrix(const Workload& w, const MatrixOptions& base, BenchResult* result,
                       ProgressPrinter* progress) {
  MatrixOptions m = base;
  const size_t index = result->AddWorkload(w);
  bool ok = true;
  m.on_cell = [&](const Cell& c, size_t i, size_t n) {
    progress->Begin("[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " + w.name + " " +
                    c.Label() +
                    (m.repetitions > 1 ? " rep " + std::to_string(c.repetition + 1) : ""));
  };
  m.progress = [&](const Cell&, const Progress& p) { progress->Update(p); };
  m.on_cell_done = [&](const CellResult& r) {
    result->AddCell(index, r);
    if (!r.run.error.empty()) {
      progress->Note(w.name + " " + r.cell.Label() + " failed: " + r.run.error);
      ok = false;
    }
    Status s = result->Write();
    if (!s.ok()) progress->Note(s.ToString());
  };
  std::vector<CellResult> cells;
  RunMatrix(w, m, &cells);
  return ok;
}

// Writes the final result, the report, and prints where they are. Returns the exit code.
int Finish(BenchResult* result, const BenchFlags& f, bool ok, ProgressPrinter* progress) {
  progress->End();
  if (g_interrupted) result->MarkPartial("interrupted by a signal (Ctrl-C)");
  Status s = result->Write();
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab bench: %s\n", s.ToString().c_str());
    return kExitFailed;
  }
  std::printf("%s", SummaryTable(result->document()).c_str());
  std::printf("result: %s%s\n", result->path().c_str(), result->partial() ? " (partial)" : "");
  if (!f.no_report) {
    std::string report, note;
    s = WriteReport(result->path(), !f.no_plots, &report, &note);
    if (s.ok()) {
      std::printf("report: %s\n", report.c_str());
      if (!note.empty()) std::fprintf(stderr, "kvlab bench: %s\n", note.c_str());
    } else {
      std::fprintf(stderr, "kvlab bench: report: %s\n", s.ToString().c_str());
    }
  }
  if (g_interrupted) return kExitInterrupted;
  return ok ? 0 : kExitFailed;
}

void AddSweepToResult(const std::string& kind, const SweepOptions& sweep, const MatrixOptions& m,
                      BenchResult* result, ProgressPrinter* progress, bool* ok) {
  SweepResult sr;
  auto note = [&](const std::string& what) { progress->Begin("sweep " + what); };
  if (kind == "rtt") {
    RunRttSweep(sweep, m, note, &sr);
  } else {
    RunSizeSweep(sweep, m, note, &sr);
  }
  for (const auto& n : sr.notes) {
    progress->Note(n);
    if (n.find("skipped") == std::string::npos) *ok = false;
  }
  result->AddSweep(sr);
  Status s = result->Write();
  if (!s.ok()) progress->Note(s.ToString());
}

int MainJob(BenchFlags& f, const std::vector<std::string>& command_line) {
  int exit_code = 0;
  if (!CheckTiming(f, &exit_code)) return exit_code;
  const DefaultSuite suite = MainJobSuite();
  if (f.repetitions == 0) f.repetitions = suite.repetitions;
  MatrixOptions m;
  if (!MakeMatrixOptions(f, &m)) return kExitFailed;
  InstallInterruptHandlers();
  BenchResult result(SettingsOf(m, f, command_line), f.results_dir, "main");
  ProgressPrinter progress;
  bool ok = true;
  for (const SuiteEntry& entry : suite.workloads) {
    if (g_interrupted) break;
    Workload w;
    Status s = BuiltinWorkload(entry.workload, &w);
    if (s.ok()) s = ApplyOverrides(entry.overrides, &w);
    if (s.ok()) s = ApplyOverrides(f.overrides, &w);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab bench: %s: %s\n", entry.workload.c_str(), s.ToString().c_str());
      return kExitFailed;
    }
    ok = RunWorkloadMatrix(w, m, &result, &progress) && ok;
  }
  if (!g_interrupted) {
    SweepOptions sweep;
    sweep.sizes = DecadeSizes(suite.sweep_max_size);
    sweep.calls = suite.sweep_calls;
    sweep.probe_budget_s = 0.5;
    AddSweepToResult("size", sweep, m, &result, &progress, &ok);
  }
  return Finish(&result, f, ok, &progress);
}

int RunCommand(BenchFlags& f, const std::vector<std::string>& command_line) {
  int exit_code = 0;
  if (!CheckTiming(f, &exit_code)) return exit_code;
  std::vector<Workload> workloads;
  for (const std::string& name : f.workloads) {
    Workload w;
    Status s = ResolveWorkload(name, &w);
    if (s.ok()) s = ApplyOverrides(f.overrides, &w);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab bench: %s\n", s.ToString().c_str());
      return kExitFailed;
    }
    workloads.push_back(std::move(w));
  }
  MatrixOptions m;
  if (!MakeMatrixOptions(f, &m)) return kExitFailed;
  InstallInterruptHandlers();
  std::string name = workloads.size() == 1 ? workloads[0].name : "run";
  BenchResult result(SettingsOf(m, f, command_line), f.results_dir, name);
  ProgressPrinter progress;
  bool ok = true;
  for (const Workload& w : workloads) {
    if (g_interrupted) break;
    ok = RunWorkloadMatrix(w, m, &result, &progress) && ok;
  }
  return Finish(&result, f, ok, &progress);
}

int SweepCommand(BenchFlags& f, const std::vector<std::string>& command_line) {
  int exit_code = 0;
  if (!CheckTiming(f, &exit_code)) return exit_code;
  MatrixOptions m;
  if (!MakeMatrixOptions(f, &m)) return kExitFailed;
  SweepOptions sweep;
  sweep.types = f.sweep_types;
  sweep.sizes = f.sizes.empty() ? DecadeSizes(f.max_size) : f.sizes;
  sweep.calls = f.calls;
  sweep.probe_budget_s = f.probe_budget_s;
  sweep.series_budget_s = f.series_budget_s;
  sweep.rtts_us = f.rtts;
  sweep.rtt_size = f.rtt_size;
  if (f.overrides.seed >= 0) sweep.seed = static_cast<uint64_t>(f.overrides.seed);
  InstallInterruptHandlers();
  BenchResult result(SettingsOf(m, f, command_line), f.results_dir, "sweep-" + f.sweep_kind);
  ProgressPrinter progress;
  bool ok = true;
  AddSweepToResult(f.sweep_kind, sweep, m, &result, &progress, &ok);
  return Finish(&result, f, ok, &progress);
}

void AddCommonFlags(CLI::App* bench, BenchFlags* f) {
  f->store.AddTo(bench);
  f->engine.AddTo(bench);
  f->backend_option = bench->get_option("--backend");
  f->hash_option = bench->get_option("--hash-encoding");
  f->zset_option = bench->get_option("--zset-encoding");
  bench
      ->add_option("--backends", f->backends,
                   "Backends of the matrix, comma-separated (default: all four; --backend "
                   "picks one)")
      ->delimiter(',');
  bench
      ->add_option("--hash-versions", f->hash_versions,
                   "Hash encode-versions of the matrix (default: all this engine runs)")
      ->delimiter(',');
  bench
      ->add_option("--zset-versions", f->zset_versions,
                   "Zset encode-versions of the matrix (default: all this engine runs)")
      ->delimiter(',');
  bench
      ->add_option("--repetitions", f->repetitions,
                   "Runs of the whole matrix; reports take medians (default: 3 for the main "
                   "job, 1 otherwise)")
      ->check(CLI::Range(1, 1000));
  bench->add_option("--results", f->results_dir, "Directory the results are added to")
      ->capture_default_str();
  bench
      ->add_option("--physical", f->physical,
                   "Physical counters: auto (per command on RocksDB, per phase elsewhere), "
                   "command, phase or off")
      ->check(CLI::IsMember({"auto", "command", "phase", "off"}))
      ->capture_default_str();
  bench->add_flag("--allow-invalid-timing", f->allow_invalid_timing,
                  "Run in a debug or sanitizer build; the result is marked timing_valid=false");
  bench->add_flag("--no-report", f->no_report, "Write only the result JSON");
  bench->add_flag("--no-plots", f->no_plots, "Write the Markdown report without plots");
  bench->add_option("--resp", f->resp,
                    "Also run over RESP at this address (kvlab serve); FLUSHALL is sent before "
                    "each cell, so use a scratch server");
  bench->add_flag("--resp-only", f->resp_only, "Run only over RESP, not in-process");
  bench->add_option("--threads", f->overrides.threads, "Client threads (workload default: 1)")
      ->check(CLI::Range(1, 256));
  bench->add_option("--operations", f->overrides.operations, "Operations per run phase");
  bench->add_option("--duration", f->overrides.duration_s, "Seconds per run phase");
  bench->add_option("--warmup", f->overrides.warmup_operations, "Warm-up operations per phase");
  bench->add_option("--records", f->overrides.records, "Records loaded");
  bench->add_option("--elements", f->overrides.elements, "Fields or members per record");
  bench->add_option("--seed", f->overrides.seed, "Random seed (recorded in the result)");
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Workload drivers: per-command KV amplification, latency and throughput over backends "
      "and encodings. With no subcommand: the main job (default suite, size sweep, report)");
  auto flags = std::make_shared<BenchFlags>();
  AddCommonFlags(bench, flags.get());
  bench->require_subcommand(0, 1);

  CLI::App* run = bench->add_subcommand("run", "Run workloads (catalogue names or .json files)");
  run->fallthrough();
  run->add_option("workloads", flags->workloads, "Workloads to run")->required();

  CLI::App* sweep = bench->add_subcommand("sweep", "Cost against collection size or round trips");
  sweep->fallthrough();
  sweep->add_option("kind", flags->sweep_kind, "size or rtt")
      ->required()
      ->check(CLI::IsMember({"size", "rtt"}));
  sweep->add_option("--types", flags->sweep_types, "hash, zset or both")
      ->delimiter(',')
      ->check(CLI::IsMember({"hash", "zset"}));
  sweep->add_option("--max-size", flags->max_size, "Largest size (decade steps from 10)")
      ->check(CLI::Range(uint64_t{10}, uint64_t{100000000}))
      ->capture_default_str();
  sweep->add_option("--sizes", flags->sizes, "Explicit sizes, comma-separated")->delimiter(',');
  sweep->add_option("--calls", flags->calls, "Calls per probe and size")->capture_default_str();
  sweep->add_option("--probe-budget", flags->probe_budget_s, "Seconds per probe and size at most")
      ->capture_default_str();
  sweep
      ->add_option("--series-budget", flags->series_budget_s,
                   "Seconds per backend and version; larger sizes are skipped beyond it")
      ->capture_default_str();
  sweep->add_option("--rtts", flags->rtts, "Round-trip delays in microseconds (rtt sweep)")
      ->delimiter(',');
  sweep->add_option("--rtt-size", flags->rtt_size, "Collection size of the rtt sweep")
      ->capture_default_str();

  CLI::App* list = bench->add_subcommand("list", "List the built-in workloads");
  CLI::App* show = bench->add_subcommand("show", "Print a built-in workload as a workload file");
  show->add_option("name", flags->name, "Workload name")->required();
  CLI::App* report = bench->add_subcommand("report", "Write the report of a result file");
  report->fallthrough();
  report->add_option("result", flags->result_path, "A result JSON file")
      ->required()
      ->check(CLI::ExistingFile);

  // One dispatch point, after the whole command line is parsed.
  bench->final_callback([=] {
    const std::vector<std::string> command_line = OwnCommandLine();
    BenchFlags& f = *flags;
    if (run->parsed()) {
      *exit_code = RunCommand(f, command_line);
    } else if (sweep->parsed()) {
      *exit_code = SweepCommand(f, command_line);
    } else if (list->parsed()) {
      for (const CatalogueEntry& e : Catalogue()) {
        Workload w;
        Status s = ParseWorkload(e.json, e.name, &w);
        std::printf("%-14s %s\n", e.name, s.ok() ? w.description.c_str() : s.ToString().c_str());
      }
    } else if (show->parsed()) {
      for (const CatalogueEntry& e : Catalogue()) {
        if (f.name == e.name) {
          std::printf("%s\n", e.json);
          return;
        }
      }
      std::fprintf(stderr, "kvlab bench: no built-in workload '%s' (see kvlab bench list)\n",
                   f.name.c_str());
      *exit_code = kExitFailed;
    } else if (report->parsed()) {
      std::string path, note;
      Status s = WriteReport(f.result_path, !f.no_plots, &path, &note);
      if (!s.ok()) {
        std::fprintf(stderr, "kvlab bench: %s\n", s.ToString().c_str());
        *exit_code = kExitFailed;
        return;
      }
      if (!note.empty()) std::fprintf(stderr, "kvlab bench: %s\n", note.c_str());
      std::printf("report: %s\n", path.c_str());
    } else {
      *exit_code = MainJob(f, command_line);
    }
  });
}

}  // namespace kvlab::workloads
