#include "study/study_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "backends/registry.h"
#include "conformance/deviations.h"
#include "encodings/registry.h"
#include "flags/common_flags.h"
#include "flags/conventions.h"
#include "study/metrics.h"
#include "study/ranking.h"
#include "study/report_input.h"
#include "study/verdict.h"
#include "study/version_legend.h"
#include "workloads/build_info.h"
#include "workloads/catalogue.h"
#include "workloads/matrix.h"
#include "workloads/result.h"

namespace kvlab::study {
using namespace kvlab::workloads;    // NOLINT: this file drives that module
using namespace kvlab::flags;        // NOLINT: this file drives that module
using namespace kvlab::backends;     // NOLINT: this file drives that module
using namespace kvlab::conformance;  // NOLINT: this file drives that module
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// One exit-status convention and one Ctrl-C flag for every subcommand (flags/conventions.h).
using flags::InRange;
using flags::InstallInterruptHandlers;
using flags::InterruptFlag;
using flags::kExitFailed;
using flags::kExitInterrupted;
using flags::kExitUsage;

struct StudyFlags {
  StoreFlags store;
  EngineFlags engine;
  CLI::Option* backend_option = nullptr;
  std::vector<std::string> workloads;
  std::vector<std::string> backends;
  std::vector<std::string> types;
  bool quick = false;
  bool cross = false;
  std::string out_dir;
  std::string weights;
  double tie_margin = 0.1;
  int repetitions = 3;
  bool no_report = false;
  bool allow_invalid_timing = false;
  std::string deviations;
  std::string from;  // a saved bench result to rank again instead of running
  WorkloadOverrides overrides;
};

// The main job's study: the game workload (hashes and a zset), sized so that every version of
// both types on the three embedded backends, three repetitions, fits in about two minutes on a
// shared 2-core machine.
void ScaleDefault(Workload* w) {
  w->keyspace.records = 2000;
  for (PhaseSpec& p : w->phases) {
    p.operations = 5000;
    p.duration_s = 0;
    p.warmup_operations = 300;
  }
}

// --quick: at most 20,000 elements loaded, 2,000 operations and 100 warm-up operations per
// phase (shorter phases keep their length).
void ScaleQuick(Workload* w) {
  constexpr uint64_t kElements = 20000;
  const uint64_t per_record = std::max<uint64_t>(1, w->keyspace.elements);
  if (w->keyspace.records * per_record > kElements) {
    if (kElements / per_record >= 2) {
      w->keyspace.records = kElements / per_record;
    } else {
      w->keyspace.elements = std::max<uint64_t>(1, kElements / w->keyspace.records);
    }
  }
  for (PhaseSpec& p : w->phases) {
    if (p.operations == 0 || p.operations > 2000) p.operations = 2000;
    p.duration_s = 0;
    p.warmup_operations = std::min<uint64_t>(p.warmup_operations, 100);
  }
}

std::vector<std::string> TypesOf(const Workload& w) {
  std::vector<std::string> t;
  for (const encodings::TypeSpec& type : encodings::EncodingRegistry::Builtin().types()) {
    if (w.UsesType(type)) t.push_back(std::string(type.name));
  }
  return t;
}

// One progress line: on a terminal rewritten in place, otherwise one line per cell.
class Progress {
 public:
  explicit Progress(size_t total)
      : tty_(isatty(STDERR_FILENO) == 1), total_(total), start_(Clock::now()) {}

  void Cell(const std::string& label) {
    ++index_;
    label_ = label;
    Print("");
  }
  void Phase(const kvlab::workloads::Progress& p) {
    if (!tty_) return;
    Print(p.stage + " " + std::to_string(p.done) + " ops");
  }
  void Note(const std::string& text) {
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "kvlab study: %s\n", text.c_str());
  }
  void End() {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  using Clock = std::chrono::steady_clock;
  void Print(const std::string& detail) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
    std::string eta = "";
    if (index_ > 1) {
      const double per_cell = elapsed / static_cast<double>(index_ - 1);
      const double left = per_cell * static_cast<double>(total_ - index_ + 1);
      char buf[48];
      std::snprintf(buf, sizeof(buf), ", ETA %.0f s", left);
      eta = buf;
    }
    char head[64];
    std::snprintf(head, sizeof(head), "[%zu/%zu] %.0f s%s ", index_, total_, elapsed, eta.c_str());
    const std::string line = std::string(head) + label_ + (detail.empty() ? "" : " | " + detail);
    if (tty_) {
      std::fprintf(stderr, "\r\033[K%s", line.substr(0, 150).c_str());
      std::fflush(stderr);
    } else if (detail.empty()) {
      std::fprintf(stderr, "  %s\n", line.c_str());
    }
  }
  const bool tty_;
  const size_t total_;
  const Clock::time_point start_;
  size_t index_ = 0;
  std::string label_;
};

std::vector<std::string> OwnCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> out;
  std::string arg;
  while (std::getline(in, arg, '\0')) out.push_back(arg);
  return out;
}

// The runs of one repetition: for each varied type, its versions with the other types at their
// baseline (one factor at a time); with --cross every combination.
struct Plan {
  std::vector<MatrixOptions> passes;  // each one RunMatrix call per repetition
  size_t cells_per_repetition = 0;
};

// Ranks the cells of `bench` (written at bench_path), writes study.json and the report into
// f.out_dir, and prints the verdict. Returns the exit code.
int WriteStudyUnguarded(const StudyFlags& f, const json& bench, const std::string& bench_path,
                        Weights weights, const std::vector<conformance::Deviation>& deviations,
                        const std::string& deviations_path, bool main_job,
                        const std::string& design,
                        const std::map<std::string, std::string>& baseline, bool ok) {
  const bool partial = bench.value("partial", false);
  // Rank, explain, write.
  RankOptions rank_options;
  rank_options.weights = weights;
  rank_options.types = f.types;
  rank_options.deviations = deviations;
  rank_options.tie_margin = f.tie_margin;
  json rankings = json::array();
  Status s = RankResult(bench, rank_options, &rankings);
  // The rankings' warnings, each once, named by where they hold.
  json warnings = json::array();
  {
    std::set<std::string> seen;
    for (const json& r : rankings) {
      for (const json& w : r.value("warnings", json::array())) {
        const std::string text = r.value("workload", "") + " " + r.value("type", "") + " on " +
                                 r.value("backend", "") + ": " + w.get<std::string>();
        if (seen.insert(text).second) warnings.push_back(text);
      }
    }
    if (partial) warnings.push_back("partial: the study was interrupted; some cells are missing");
  }
  json criteria = json::array();
  for (const Criterion& c : Criteria()) {
    criteria.push_back({{"name", c.name},
                        {"title", c.title},
                        {"unit", c.unit},
                        {"what", c.what},
                        {"higher_is_better", c.higher_is_better},
                        {"timed", c.timed},
                        {"per_command", c.per_command},
                        {"floor", c.floor},
                        {"weight", weights[c.name]}});
  }
  json study = {{"schema", "kvlab-study"},
                {"schema_version", 2},
                {"partial", partial},
                {"warnings", warnings},
                {"context", bench["context"]},
                {"study",
                 {{"workloads",
                   [&] {
                     json a = json::array();
                     for (const json& w : bench.value("workloads", json::array())) {
                       a.push_back(w.value("name", ""));
                     }
                     return a;
                   }()},
                  {"backends", bench["context"]["store"].value("backends", json::array())},
                  {"design", design},
                  {"baseline", baseline},
                  {"quick", f.quick},
                  {"main_job", main_job},
                  {"repetitions", bench["context"].value("repetitions", f.repetitions)},
                  {"weights", weights},
                  {"weights_text", FormatWeights(weights)},
                  {"weights_given", f.weights},
                  {"confidence", rank_options.confidence},
                  {"materiality", rank_options.materiality},
                  {"tie_margin", rank_options.tie_margin},
                  {"deviations_catalogue", deviations_path}}},
                {"bench_result", fs::path(bench_path).filename().string()},
                {"versions", VersionLegendJson()},
                {"criteria", criteria},
                {"rankings", rankings},
                {"notes", bench.value("notes", json::array())}};
  if (!s.ok()) study["notes"].push_back(s.message());
  study["verdict"] = MakeVerdict(study);
  const std::string study_path = (fs::path(f.out_dir) / "study.json").string();
  {
    std::ofstream out(study_path);
    out << study.dump(1) << "\n";
    if (!out) {
      std::fprintf(stderr, "kvlab study: cannot write %s\n", study_path.c_str());
      return kExitFailed;
    }
  }
  std::printf("%s", TerminalVerdict(study).c_str());
  std::printf("weights: %s\n", FormatWeights(weights).c_str());
  std::printf("study: %s%s\n", study_path.c_str(), partial ? " (partial)" : "");
  int exit_code = ok && rankings.size() > 0 ? 0 : kExitFailed;
  if (!f.no_report) {
    ReportFiles files;
    json doc = {{"kind", "study"}, {"path", study_path}, {"name", "study.json"},
                {"data", study},   {"bench", bench},     {"summary", SummarizeBench(bench)}};
    s = WriteReportFor({doc}, f.out_dir, "study.md", &files);
    if (s.ok()) {
      std::printf("report: %s\n", files.html.c_str());
    } else {
      std::fprintf(stderr, "kvlab study: report: %s\n", s.message().c_str());
      exit_code = kExitFailed;
    }
  }
  if (*InterruptFlag() != 0) return kExitInterrupted;
  return exit_code;
}

// WriteStudyUnguarded, turning a malformed result (a JSON member of an unexpected type: a bench
// result edited by hand or written by another tool) into an error that keeps the measurements.
int WriteStudy(const StudyFlags& f, const json& bench, const std::string& bench_path,
               Weights weights, const std::vector<conformance::Deviation>& deviations,
               const std::string& deviations_path, bool main_job, const std::string& design,
               const std::map<std::string, std::string>& baseline, bool ok) {
  try {
    return WriteStudyUnguarded(f, bench, bench_path, std::move(weights), deviations,
                               deviations_path, main_job, design, baseline, ok);
  } catch (const json::exception& e) {
    std::fprintf(stderr,
                 "kvlab study: cannot rank %s: %s\nkvlab study: the measurements are kept there; "
                 "kvlab study --from %s ranks them again\n",
                 bench_path.c_str(), e.what(), bench_path.c_str());
    return kExitFailed;
  }
}

int RunStudy(StudyFlags& f) {
  // Arguments first: every error before the first cell.
  std::string reason;
  if (!TimingValid(&reason) && !f.allow_invalid_timing) {
    std::fprintf(stderr,
                 "kvlab study: refusing to time a %s.\nBuild with "
                 "-DCMAKE_BUILD_TYPE=RelWithDebInfo (scripts/run does), or pass "
                 "--allow-invalid-timing to rank on KV counts only.\n",
                 reason.c_str());
    return kExitUsage;
  }
  Weights weights = DefaultWeights();
  Status s = ParseWeights(f.weights, &weights);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab study: %s\n", s.message().c_str());
    return kExitUsage;
  }
  std::vector<Workload> workloads;
  const bool main_job = f.workloads.empty();
  for (const std::string& name : main_job ? std::vector<std::string>{"game"} : f.workloads) {
    Workload w;
    s = ResolveWorkload(name, &w);
    if (s.ok()) {
      if (f.quick) {
        ScaleQuick(&w);
      } else if (main_job) {
        ScaleDefault(&w);
      }
      s = ApplyOverrides(f.overrides, &w);
    }
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab study: %s\n", s.message().c_str());
      return kExitUsage;
    }
    workloads.push_back(std::move(w));
  }
  // The default: the embedded stores a user deploys (the in-memory map is a test backend).
  std::vector<std::string> backends =
      f.backends.empty() ? backends::PersistentEmbeddedBackendNames() : f.backends;
  if (f.backend_option != nullptr && f.backend_option->count() > 0) {
    if (!f.backends.empty()) {
      std::fprintf(stderr, "kvlab study: give --backend or --backends, not both\n");
      return kExitUsage;
    }
    backends = {f.store.backend};
  }
  for (const std::string& b : backends) {
    backends::StoreSpec ignored;
    if (Status bad = backends::ParseBackendColumn(b, {}, &ignored); !bad.ok()) {
      std::fprintf(stderr, "kvlab study: %s\n", bad.message().c_str());
      return kExitUsage;
    }
  }
  const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
  for (const std::string& t : f.types) {
    if (registry.FindType(t) == nullptr) {
      std::string known;
      for (const encodings::TypeSpec& type : registry.types()) {
        known += (known.empty() ? "" : ", ") + std::string(type.name);
      }
      std::fprintf(stderr,
                   "kvlab study: --types: unknown type '%s' (types with encode-versions: %s)\n",
                   t.c_str(), known.c_str());
      return kExitUsage;
    }
  }
  if (!(f.tie_margin >= 0)) {
    std::fprintf(stderr, "kvlab study: --tie-margin must be a number >= 0\n");
    return kExitUsage;
  }
  conformance::DeviationCatalogue catalogue;
  const std::string deviations_path =
      f.deviations.empty() ? DefaultDeviationCataloguePath() : f.deviations;
  s = conformance::DeviationCatalogue::Load(deviations_path, registry, &catalogue);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab study: %s\n", s.message().c_str());
    return kExitUsage;
  }
  const std::vector<conformance::Deviation>& deviations = catalogue.entries();
  if (f.from.empty()) flags::CheckFreshStoreParent(f.store.dir, "study");
  if (f.out_dir.empty()) {
    std::string leaf = "study-" + UtcTimestampCompact();
    if (!main_job) leaf += "-" + workloads[0].name;
    f.out_dir = (fs::path("results") / leaf).string();
  }
  {
    std::error_code ec;
    fs::create_directories(f.out_dir, ec);
    const std::string probe = (fs::path(f.out_dir) / ".kvlab-write-test").string();
    std::ofstream t(probe);
    if (ec || !t) {
      std::fprintf(stderr, "kvlab study: cannot write to %s: %s\n", f.out_dir.c_str(),
                   ec ? ec.message().c_str() : std::strerror(errno));
      return kExitUsage;
    }
    t.close();
    fs::remove(probe, ec);
  }

  if (!f.from.empty()) {
    // Rank a saved result again (other weights, another verdict) without measuring.
    json bench;
    s = ReadResultFile(f.from, &bench);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab study: --from: %s\n", s.message().c_str());
      return kExitUsage;
    }
    const fs::path copy = fs::path(f.out_dir) / fs::path(f.from).filename();
    std::error_code ec;
    if (!fs::exists(copy, ec) || !fs::equivalent(copy, f.from, ec)) {
      fs::copy_file(f.from, copy, fs::copy_options::overwrite_existing, ec);
      if (ec) {
        std::fprintf(stderr, "kvlab study: cannot copy %s to %s: %s\n", f.from.c_str(),
                     copy.string().c_str(), ec.message().c_str());
        return kExitFailed;
      }
    }
    // The design, from the cells: every combination of the types' versions, or one type at a
    // time; the baseline of each type is the version most of its cells ran.
    std::set<Profile> profiles;
    std::map<std::string, std::map<std::string, int>> runs_of;  // type -> version -> runs
    for (const json& w : bench.value("workloads", json::array())) {
      for (const json& r : w.value("runs", json::array())) {
        const Profile p = ProfileOf(r);
        profiles.insert(p);
        for (const auto& [type, version] : p) ++runs_of[type][version];
      }
    }
    size_t combinations = 1, varied = 0;
    std::map<std::string, std::string> baseline;
    for (const auto& [type, versions] : runs_of) {
      combinations *= versions.size();
      if (versions.size() > 1) ++varied;
      int most = -1;
      for (const auto& [version, n] : versions) {
        if (n > most) {
          most = n;
          baseline[type] = version;
        }
      }
    }
    const bool cross = varied > 1 && profiles.size() == combinations;
    return WriteStudy(f, bench, copy.string(), weights, deviations, deviations_path, false,
                      cross ? "cross" : "one-factor", baseline, true);
  }

  // The matrix options shared by every pass.
  MatrixOptions base;
  base.backends = backends;
  base.store = f.store.ToSpec();
  base.compaction_filter = f.store.compaction_filter;
  base.compaction_grace_ms = f.store.compaction_grace_ms;
  base.engine = f.engine.ToOptions();
  base.config_file = f.engine.config_file;
  base.repetitions = 1;
  base.measure_load_space = true;
  base.stop = InterruptFlag();
  // Every version of every type (the registry's), and the one each type keeps while another
  // type's versions vary: --encoding / --<type>-encoding, or the type's first version.
  const std::map<std::string, std::vector<std::string>> available = AvailableVersions(base.engine);
  const encodings::EncodingProfile given = f.engine.Versions();
  std::map<std::string, std::string> fixed;
  for (const auto& [type, names] : available) {
    fixed[type] = given.VersionOf(type).value_or(names.front());
  }

  // Plans per workload.
  struct WorkloadPlan {
    const Workload* w;
    std::vector<MatrixOptions> passes;
    size_t cells = 0;
  };
  std::vector<WorkloadPlan> plans;
  size_t total_cells = 0;
  for (const Workload& w : workloads) {
    WorkloadPlan plan;
    plan.w = &w;
    std::vector<std::string> types = TypesOf(w);
    if (!f.types.empty()) {
      std::vector<std::string> kept;
      for (const auto& t : types) {
        if (std::find(f.types.begin(), f.types.end(), t) != f.types.end()) kept.push_back(t);
      }
      types = kept;
    }
    if (types.empty()) {
      std::fprintf(stderr,
                   "kvlab study: %s uses no type with encode-versions%s: there is no encoding to "
                   "choose\n",
                   w.name.c_str(), f.types.empty() ? "" : " among --types");
      return kExitUsage;
    }
    if (f.cross) {
      MatrixOptions m = base;
      m.versions = available;
      for (auto& [t, names] : m.versions) {
        if (std::find(types.begin(), types.end(), t) == types.end()) names = {fixed[t]};
      }
      plan.passes.push_back(m);
    } else {
      bool baseline_done = false;
      for (const std::string& t : types) {
        MatrixOptions m = base;
        m.versions.clear();
        for (const auto& [type, name] : fixed) m.versions[type] = {name};
        std::vector<std::string>& varied = m.versions[t];
        varied.clear();
        const std::string& baseline = fixed[t];
        for (const std::string& v : available.at(t)) {
          if (v == baseline && baseline_done) continue;
          varied.push_back(v);
        }
        baseline_done = true;
        if (!varied.empty()) plan.passes.push_back(m);
      }
    }
    for (const MatrixOptions& m : plan.passes) plan.cells += PlanCells(w, m).size();
    total_cells += plan.cells * static_cast<size_t>(f.repetitions);
    plans.push_back(std::move(plan));
  }

  InstallInterruptHandlers();

  RunSettings settings;
  settings.command_line = OwnCommandLine();
  settings.backends = backends;
  settings.versions = available;
  settings.store = base.store;
  settings.engine = base.engine;
  settings.repetitions = f.repetitions;
  BenchResult result(settings, f.out_dir, "study-bench");
  Progress progress(total_cells);
  std::fprintf(stderr, "kvlab study: %zu cells (%d repetitions) into %s\n", total_cells,
               f.repetitions, f.out_dir.c_str());
  bool ok = true;
  for (const WorkloadPlan& plan : plans) {
    const size_t index = result.AddWorkload(*plan.w);
    for (int rep = 0; rep < f.repetitions && *InterruptFlag() == 0; ++rep) {
      for (MatrixOptions m : plan.passes) {
        if (*InterruptFlag() != 0) break;
        m.first_repetition = rep;
        m.on_cell = [&](const Cell& c, size_t, size_t) {
          progress.Cell(plan.w->name + " " + c.Label() + " rep " + std::to_string(rep + 1));
        };
        m.progress = [&](const Cell&, const kvlab::workloads::Progress& p) { progress.Phase(p); };
        m.on_cell_done = [&](const CellResult& r) {
          CellResult copy = r;
          copy.cell.repetition = rep;
          result.AddCell(index, copy);
          if (!r.run.error.empty()) {
            progress.Note(plan.w->name + " " + r.cell.Label() + " failed: " + r.run.error);
            ok = false;
          }
          Status ws = result.Write();
          if (!ws.ok()) progress.Note(ws.message());
        };
        std::vector<CellResult> cells;
        RunMatrix(*plan.w, m, &cells);
      }
    }
  }
  progress.End();
  if (*InterruptFlag() != 0) result.MarkPartial("interrupted by a signal (Ctrl-C)");
  // Every cell ran (or the reason why not is recorded): the result is no longer "in progress".
  result.MarkComplete();
  s = result.Write();
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab study: %s\n", s.message().c_str());
    return kExitFailed;
  }

  return WriteStudy(f, result.document(), result.path(), weights, deviations, deviations_path,
                    main_job, f.cross ? "cross" : "one-factor", fixed, ok);
}

}  // namespace

void AddStudyCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "study",
      "Which encode-version for my workload: runs every version of the types the workloads use "
      "on the chosen backends, ranks them and explains why (writes study.json, index.html, "
      "study.md)");
  auto f = std::make_shared<StudyFlags>();
  f->store.AddTo(cmd);
  f->engine.AddTo(cmd, hooks);
  f->backend_option = cmd->get_option("--backend");
  // Study's default is --backends' (the embedded stores), not StoreFlags' single backend.
  f->backend_option->default_str("")->description(
      "One backend instead of the default matrix (--backends)");
  cmd->add_option("workloads", f->workloads,
                  "Catalogue names or workload .json files (default: the game workload, sized "
                  "for the main job)");
  cmd->add_option("--backends", f->backends,
                  "Backends, comma-separated (default: the embedded ones, rocksdb,lmdb,wiredtiger)")
      ->delimiter(',');
  cmd->add_option("--types", f->types,
                  "Types whose versions are ranked (hash, zset, list, set; default: every type "
                  "the workload uses)")
      ->delimiter(',');
  cmd->add_flag("--quick", f->quick,
                "A small run: at most 20,000 elements and 2,000 operations per phase");
  cmd->add_flag("--cross", f->cross,
                "Every combination of the types' versions (default: one type varied at a time, "
                "the others at --hash-encoding/--zset-encoding)");
  cmd->add_option("-o,--out", f->out_dir,
                  "Output directory (default: results/study-<UTC time>[-<workload>])");
  cmd->add_option("--weights", f->weights,
                  "Criterion weights, e.g. latency=2,space=1 (names: " + CriterionNames() +
                      "; 0 ignores one; default " + FormatWeights(DefaultWeights()) + ")");
  cmd->add_option("--tie-margin", f->tie_margin,
                  "Score difference below which versions are tied even beyond the noise (0.1: "
                  "7% on one criterion of weight 1)")
      ->check(InRange(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--repetitions", f->repetitions,
                  "Runs of every cell, interleaved (3 reach a 90% interval)")
      ->check(InRange(1, 100))
      ->capture_default_str();
  cmd->add_flag("--no-report", f->no_report, "Write study.json only (no HTML, Markdown, plots)");
  cmd->add_flag("--allow-invalid-timing", f->allow_invalid_timing,
                "Run in a debug or sanitizer build (times then mean nothing)");
  cmd->add_option("--deviations", f->deviations, "The deviations catalogue (docs/deviations.json)");
  cmd->add_option("--from", f->from,
                  "Rank a saved bench result (a study's *-study-bench.json) again, e.g. with "
                  "other --weights, without measuring")
      ->check(CLI::ExistingFile);
  cmd->add_option("--operations", f->overrides.operations, "Operations per run phase")
      ->check(InRange(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--duration", f->overrides.duration_s, "Seconds per run phase")
      ->check(InRange(0.001, 1e6));
  cmd->add_option("--warmup", f->overrides.warmup_operations, "Warm-up operations per phase")
      ->check(InRange(int64_t{0}, int64_t{1} << 40));
  cmd->add_option("--pace", f->overrides.pace,
                  "A trace:FILE workload's pace: closed loop by default, 'recorded', or a "
                  "speed-up of it such as 2x (docs/traces.md)");
  cmd->add_option("--records", f->overrides.records, "Records loaded")
      ->check(InRange(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--elements", f->overrides.elements, "Fields or members per record")
      ->check(InRange(int64_t{0}, int64_t{1} << 40));
  cmd->add_option("--seed", f->overrides.seed, "Random seed")
      ->check(InRange(int64_t{0}, INT64_MAX));
  cmd->add_option("--threads", f->overrides.threads, "Client threads")->check(InRange(1, 256));
  cmd->callback([f, exit_code] { *exit_code = RunStudy(*f); });
}

void AddReportCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "report",
      "The HTML page (self-contained) and Markdown of bench, conform and study results; two or "
      "more are compared side by side");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("results", *inputs, "Result files: a bench result, conform.json, study.json")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", *out, "Output directory (default: results/report-<UTC time>)");
  cmd->callback([inputs, out, exit_code] {
    std::string dir = *out;
    if (dir.empty()) dir = (fs::path("results") / ("report-" + UtcTimestampCompact())).string();
    ReportFiles files;
    Status s = WriteReport(*inputs, dir, "report.md", &files);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab report: %s\n", s.message().c_str());
      *exit_code = s.IsInvalidArgument() ? kExitUsage : kExitFailed;
      return;
    }
    std::printf("report: %s\nmarkdown: %s\n", files.html.c_str(), files.markdown.c_str());
  });
}

}  // namespace kvlab::study
