#include "gate/gate_command.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "gate/compare.h"
#include "gate/dataset.h"
#include "gate/render.h"

extern char** environ;

namespace kvlab::gate {

namespace {

namespace fs = std::filesystem;

struct GateFlags {
  std::string baseline;
  std::string current;
  bool run = false;
  bool update = false;
  std::string threshold = "10%";
  std::string alpha = "0.01";  // parsed here, so that a bad value exits 2 like any bad input
  std::string timings = "auto";
  bool allow_missing = false;
  std::string junit;
  std::string markdown;
  std::string save_current;
  bool all = false;
  std::vector<std::string> exact_counters;
  std::string latency = "p50,p99";
};

void Error(const std::string& message) {
  std::fprintf(stderr, "kvlab gate: %s\n", message.c_str());
}

// "10%" -> 0.10; "0.1" -> 0.1.
Status ParseThreshold(const std::string& text, double* out) {
  std::string t = text;
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size() || errno != 0 || !(v >= 0)) {
    return Status::InvalidArgument("--threshold '" + text +
                                   "' is not a percentage (10%) or a fraction (0.1) >= 0");
  }
  if (!percent && v > 1) {
    return Status::InvalidArgument(fmt::format(
        "--threshold {} is a fraction above 1 (a {:g}% change): write {}% if you meant that", text,
        100 * v, text));
  }
  *out = percent ? v / 100 : v;
  return Status::OK();
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// The argument list with `option VALUE` / `option=VALUE` removed (and flags in `flags`).
std::vector<std::string> Without(const std::vector<std::string>& args,
                                 const std::vector<std::string>& options,
                                 const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    bool drop = false;
    for (const std::string& o : options) {
      if (args[i] == o) {
        drop = true;
        ++i;  // and its value
        break;
      }
      if (args[i].starts_with(o + "=")) drop = true;
    }
    for (const std::string& f : flags) drop = drop || args[i] == f;
    if (!drop) out.push_back(args[i]);
  }
  return out;
}

// Runs this kvlab binary with `args`, its stdout sent to our stderr (ours carries the report).
// Returns the exit status, or -1 with *error set when it could not run.
int RunSelf(const std::vector<std::string>& args, std::string* error) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) {
    *error = "cannot find the kvlab binary (/proc/self/exe): " + ec.message();
    return -1;
  }
  std::vector<std::string> argv_storage = {self.string()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *error = fmt::format("cannot start {}: {}", argv[0], std::strerror(rc));
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = fmt::format("waitpid: {}", std::strerror(errno));
      return -1;
    }
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// A fresh private directory, removed when the object goes.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kvlab-gate-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `kvlab gate --run`: runs bench or conform as the baseline was made (or with `args`) and
// returns the path of the result it wrote, inside `dir`.
Status RunWorkload(const Dataset* baseline, std::vector<std::string> args, const std::string& dir,
                   std::string* result_path) {
  if (args.empty()) {
    if (baseline == nullptr || baseline->command_args.empty()) {
      return Status::InvalidArgument(
          "--run without arguments repeats the baseline's command line, but the baseline "
          "records none: give the arguments after --run (e.g. --run bench run ycsb-a)");
    }
    args = baseline->command_args;
  }
  InputKind kind = baseline ? baseline->kind : InputKind::kBench;
  if (args[0] == "bench") {
    kind = InputKind::kBench;
  } else if (args[0] == "conform") {
    kind = InputKind::kConform;
  } else {
    if (kind == InputKind::kGoogleBenchmark) {
      return Status::InvalidArgument(
          "--run runs kvlab bench or kvlab conform; for Google Benchmark JSON run the "
          "benchmark binary yourself and pass its output with --current");
    }
    args.insert(args.begin(), kind == InputKind::kConform ? "conform" : "bench");
  }
  if (baseline && baseline->kind != kind) {
    return Status::InvalidArgument(fmt::format("the baseline is a {}, but --run runs kvlab {}",
                                               InputKindName(baseline->kind), args[0]));
  }
  if (kind == InputKind::kBench) {
    args = Without(args, {"--results"}, {"--no-report", "--no-plots"});
    args.insert(args.end(), {"--results", dir, "--no-report", "--no-plots"});
  } else {
    args = Without(args, {"--out", "--reproducers"}, {});
    args.insert(args.end(), {"--out", dir});
  }
  std::string shown = "kvlab";
  for (const std::string& a : args) shown += " " + a;
  std::fprintf(stderr, "kvlab gate: running %s\n", shown.c_str());
  std::string error;
  const int rc = RunSelf(args, &error);
  if (rc < 0) return Status::IOError(error);
  if (kind == InputKind::kConform) {
    *result_path = dir + "/conform.json";
  } else {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json") *result_path = entry.path().string();
    }
  }
  std::error_code ec;
  if (result_path->empty() || !fs::exists(*result_path, ec)) {
    return Status::InvalidArgument(
        fmt::format("`{}` exited with status {} and wrote no result", shown, rc));
  }
  if (rc != 0) {
    std::fprintf(stderr, "kvlab gate: `%s` exited with status %d; comparing what it wrote\n",
                 shown.c_str(), rc);
  }
  return Status::OK();
}

Status WriteFile(const std::string& path, const std::string& text, bool append) {
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IOError(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  return Status::OK();
}

Status CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return Status::IOError("cannot read " + from);
  std::stringstream text;
  text << in.rdbuf();
  // Write a temporary file and rename it, so that an interrupted update leaves the old baseline.
  const std::string tmp = to + ".tmp." + std::to_string(::getpid());
  KVLAB_RETURN_IF_ERROR(WriteFile(tmp, text.str(), false));
  std::error_code ec;
  fs::rename(tmp, to, ec);
  if (ec) return Status::IOError("cannot rename " + tmp + " to " + to + ": " + ec.message());
  return Status::OK();
}

std::string Quote(const std::string& s) {
  if (!s.empty() && s.find_first_of(" \t'\"$\\`;&|<>()*?") == std::string::npos) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int Gate(const GateFlags& f, const std::vector<std::string>& run_args) {
  GateOptions options;
  if (Status s = ParseThreshold(f.threshold, &options.threshold); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  {
    char* end = nullptr;
    options.alpha = std::strtod(f.alpha.c_str(), &end);
    if (f.alpha.empty() || end != f.alpha.c_str() + f.alpha.size() ||
        !(options.alpha > 0 && options.alpha < 1)) {
      Error("--alpha '" + f.alpha + "' must be a number between 0 and 1 (e.g. 0.01)");
      return kExitBadInput;
    }
  }
  const std::map<std::string, TimingMode> modes = {{"auto", TimingMode::kAuto},
                                                   {"gate", TimingMode::kGate},
                                                   {"report", TimingMode::kReport},
                                                   {"off", TimingMode::kOff}};
  if (!modes.count(f.timings)) {
    Error("--timings '" + f.timings + "': expected auto, gate, report or off");
    return kExitBadInput;
  }
  options.timings = modes.at(f.timings);
  options.allow_missing = f.allow_missing;
  LoadOptions load;
  load.exact_counters.insert(f.exact_counters.begin(), f.exact_counters.end());
  load.latency_metrics = SplitComma(f.latency);
  for (const std::string& p : load.latency_metrics) {
    static const std::set<std::string> known = {"min", "p50", "p90", "p99", "p999", "max", "mean"};
    if (!known.count(p)) {
      Error("--latency: unknown metric '" + p + "' (min, p50, p90, p99, p999, max, mean)");
      return kExitBadInput;
    }
  }
  if (f.baseline.empty()) {
    Error("--baseline FILE is required");
    return kExitBadInput;
  }
  if (f.run == !f.current.empty()) {
    Error(f.run ? "give --current FILE or --run, not both"
                : "give --current FILE, or --run to run the workload now");
    return kExitBadInput;
  }
  if (!f.run && !run_args.empty()) {
    std::string extra;
    for (const std::string& a : run_args) extra += " " + a;
    Error("unexpected arguments:" + extra + " (arguments of the run go after --run)");
    return kExitBadInput;
  }

  std::error_code ec;
  const bool baseline_exists = fs::exists(f.baseline, ec);
  Dataset baseline;
  if (baseline_exists || !f.update) {
    if (Status s = LoadDataset(f.baseline, load, &baseline); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
  }
  TempDir temp;
  std::string current_path = f.current;
  if (f.run) {
    if (temp.path().empty()) {
      Error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
      return kExitBadInput;
    }
    Status s =
        RunWorkload(baseline_exists ? &baseline : nullptr, run_args, temp.path(), &current_path);
    if (!s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
    if (!f.save_current.empty()) {
      if (Status c = CopyFile(current_path, f.save_current); !c.ok()) {
        Error(c.message());
        return kExitBadInput;
      }
      std::fprintf(stderr, "kvlab gate: current result saved as %s\n", f.save_current.c_str());
    }
  }
  Dataset current;
  if (Status s = LoadDataset(current_path, load, &current); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  if (f.run) {
    // The temporary file is gone when the report is read: name what produced it instead.
    current.path = f.save_current.empty() ? "the result of --run (temporary; --save-current "
                                            "keeps it)"
                                          : f.save_current;
  }

  if (f.update && !baseline_exists) {
    if (!current.untrustworthy.empty()) {
      Error("the current result cannot become a baseline: " + current.untrustworthy[0]);
      return kExitBadInput;
    }
    if (Status s = CopyFile(current_path, f.baseline); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
    const std::string size =
        current.kind == InputKind::kConform
            ? fmt::format("{} matrix cells, {} failing cases", current.conform_tallies.size(),
                          current.conform_failures_total)
            : fmt::format("{} cells", current.cells.size());
    std::fprintf(stderr, "kvlab gate: new baseline %s (%s, %s)\n", f.baseline.c_str(),
                 current.description.c_str(), size.c_str());
    return kExitPass;
  }

  GateReport report;
  if (Status s = Compare(baseline, current, options, &report); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  RenderOptions render;
  render.all = f.all;
  render.update_command = "kvlab gate --update --baseline " + Quote(f.baseline);
  if (f.run && f.save_current.empty()) {
    render.update_command += " --run";
    for (const std::string& a : run_args) render.update_command += " " + Quote(a);
  } else {
    render.update_command += " --current " + Quote(current.path);
  }
  const std::string markdown = RenderMarkdown(report, render);
  std::fwrite(markdown.data(), 1, markdown.size(), stdout);
  std::fflush(stdout);
  if (!f.markdown.empty()) {
    if (Status s = WriteFile(f.markdown, markdown, false); !s.ok()) Error(s.message());
  }
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    if (Status s = WriteFile(summary, markdown + "\n", true); !s.ok()) Error(s.message());
  }
  if (!f.junit.empty()) {
    if (Status s = WriteFile(f.junit, RenderJUnit(report), false); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
  }
  if (f.update) {
    if (Status s = CopyFile(current_path, f.baseline); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
    std::fprintf(stderr, "kvlab gate: baseline %s updated from %s%s\n", f.baseline.c_str(),
                 current.path.c_str(),
                 report.Passed() ? "" : " (accepting the regressions listed above)");
    return kExitPass;
  }
  if (!report.regressions.empty()) return kExitRegression;
  if (!report.inconclusive.empty()) {
    // "Inconclusive" is never a pass: the inputs cannot support the gate that was asked for.
    Error(fmt::format("{} gated timing{} inconclusive: {}", report.inconclusive.size(),
                      report.inconclusive.size() == 1 ? " is" : "s are", report.inconclusive[0]));
    return kExitBadInput;
  }
  return kExitPass;
}

}  // namespace

void AddGateCommand(CLI::App& app, int* exit_code) {
  CLI::App* gate = app.add_subcommand(
      "gate",
      "CI regression gate: compare a result with a baseline (kvlab bench, kvlab conform or "
      "Google Benchmark JSON); exit 1 on a regression, 2 on bad input");
  auto f = std::make_shared<GateFlags>();
  gate->add_option("--baseline", f->baseline, "The baseline result (or the file --update writes)");
  gate->add_option("--current", f->current, "The result to check");
  gate->add_flag("--run", f->run,
                 "Run the workload now and check its result. Put it last: the arguments after "
                 "it, from the first one the gate does not know, go to kvlab (bench ... or "
                 "conform ...; none: the baseline's own command line)");
  gate->add_flag("--update", f->update,
                 "Make the current result (--current or --run) the baseline, after showing the "
                 "comparison");
  gate->add_option("--threshold", f->threshold, "Smallest timing change that counts: 10% or 0.1")
      ->capture_default_str();
  gate->add_option("--alpha", f->alpha, "Significance level of the timing test")
      ->capture_default_str();
  gate->add_option("--timings", f->timings,
                   "auto (gate when machine and build match, else counters only), gate (a "
                   "mismatch is bad input), report (show, never fail), off")
      ->capture_default_str();
  gate->add_flag("--allow-missing", f->allow_missing,
                 "Cells of the baseline absent from the current result do not fail the gate");
  gate->add_option("--junit", f->junit, "Also write JUnit XML to FILE");
  gate->add_option("--markdown", f->markdown, "Also write the Markdown report to FILE");
  gate->add_option("--save-current", f->save_current, "With --run: keep its result as FILE");
  gate->add_flag("--all", f->all, "List unchanged rows too");
  gate->add_option("--exact-counter", f->exact_counters,
                   "A Google Benchmark user counter to compare exactly (repeatable); kvlab's KV "
                   "and Redis-tier counters always are");
  gate->add_option("--latency", f->latency,
                   "Latency metrics of bench cells: min, p50, p90, p99, p999, max, mean")
      ->capture_default_str();
  // Everything after the first argument the gate does not know (after --run) is the run's.
  gate->prefix_command();
  gate->final_callback([gate, f, exit_code] { *exit_code = Gate(*f, gate->remaining()); });
}

}  // namespace kvlab::gate
