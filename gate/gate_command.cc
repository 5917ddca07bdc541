#include "gate/gate_command.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>

#include "gate/compare.h"
#include "gate/dataset.h"
#include "gate/history.h"
#include "gate/paired_run.h"
#include "gate/process.h"
#include "gate/render.h"

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
  // Paired mode.
  std::string baseline_binary;
  std::string current_binary;
  size_t pairs = 0;
  std::string pairing = "duet";
  // History.
  std::string history;
  size_t recent = 10;
  std::string plots;
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

// The options every mode shares, checked: InvalidArgument naming the bad flag.
Status ParseOptions(const GateFlags& f, GateOptions* options, LoadOptions* load) {
  KVLAB_RETURN_IF_ERROR(ParseThreshold(f.threshold, &options->threshold));
  char* end = nullptr;
  options->alpha = std::strtod(f.alpha.c_str(), &end);
  if (f.alpha.empty() || end != f.alpha.c_str() + f.alpha.size() ||
      !(options->alpha > 0 && options->alpha < 1)) {
    return Status::InvalidArgument("--alpha '" + f.alpha +
                                   "' must be a number between 0 and 1 (e.g. 0.01)");
  }
  const std::map<std::string, TimingMode> modes = {{"auto", TimingMode::kAuto},
                                                   {"gate", TimingMode::kGate},
                                                   {"report", TimingMode::kReport},
                                                   {"off", TimingMode::kOff}};
  if (!modes.count(f.timings)) {
    return Status::InvalidArgument("--timings '" + f.timings +
                                   "': expected auto, gate, report or off");
  }
  options->timings = modes.at(f.timings);
  options->allow_missing = f.allow_missing;
  load->exact_counters.insert(f.exact_counters.begin(), f.exact_counters.end());
  load->latency_metrics = SplitComma(f.latency);
  static const std::set<std::string> known = {"min", "p50", "p90", "p99", "p999", "max", "mean"};
  for (const std::string& p : load->latency_metrics) {
    if (!known.count(p)) {
      return Status::InvalidArgument("--latency: unknown metric '" + p +
                                     "' (min, p50, p90, p99, p999, max, mean)");
    }
  }
  return Status::OK();
}

// The report to stdout, --markdown, $GITHUB_STEP_SUMMARY; false when a file could not be
// written that the caller must fail on (none of these: only a warning).
void Publish(const std::string& markdown, const std::string& markdown_file) {
  std::fwrite(markdown.data(), 1, markdown.size(), stdout);
  std::fflush(stdout);
  if (!markdown_file.empty()) {
    if (Status s = WriteFile(markdown_file, markdown, false); !s.ok()) Error(s.message());
  }
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    if (Status s = WriteFile(summary, markdown + "\n", true); !s.ok()) Error(s.message());
  }
}

// The exit status of a comparison, with the inconclusive finding said on stderr.
int ExitStatus(const GateReport& report) {
  if (!report.regressions.empty()) return kExitRegression;
  if (!report.inconclusive.empty()) {
    // Inconclusive is never a pass, and not a regression either: a code of its own.
    Error(fmt::format("INCONCLUSIVE: {} gated timing finding{} the data cannot judge: {}",
                      report.inconclusive.size(), report.inconclusive.size() == 1 ? "" : "s",
                      report.inconclusive[0]));
    return kExitInconclusive;
  }
  return kExitPass;
}

// `kvlab gate --run`: runs bench or conform as the baseline was made (or with `args`) and
// returns the path of the result it wrote, inside `dir`. *shown receives the command.
Status RunWorkload(const Dataset* baseline, std::vector<std::string> args, const std::string& dir,
                   std::string* result_path, std::string* shown) {
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
  *shown = CommandLine("kvlab", args);
  std::fprintf(stderr, "kvlab gate: running %s\n", shown->c_str());
  std::string error, self = SelfPath(&error);
  if (self.empty()) return Status::IOError(error);
  const int rc = RunProgram(self, args, "", &error);
  if (rc < 0) return Status::IOError(error);
  *result_path = kind == InputKind::kConform ? dir + "/conform.json" : FindResultFile(dir);
  std::error_code ec;
  if (result_path->empty() || !fs::exists(*result_path, ec)) {
    return Status::InvalidArgument(
        fmt::format("`{}` exited with status {} and wrote no result", *shown, rc));
  }
  if (rc != 0) {
    std::fprintf(stderr, "kvlab gate: `%s` exited with status %d; comparing what it wrote\n",
                 shown->c_str(), rc);
  }
  return Status::OK();
}

// Timing rows a comparison with `baseline` will have, and its smallest repetition count.
void TimingShape(const Dataset& baseline, size_t* rows, size_t* smallest) {
  *rows = 0;
  *smallest = SIZE_MAX;
  for (const auto& [key, cell] : baseline.cells) {
    for (const auto& [name, m] : cell.metrics) {
      if (m.kind != MetricKind::kTiming || m.samples.empty()) continue;
      ++*rows;
      *smallest = std::min(*smallest, m.samples.size());
    }
  }
}

// --run of a bench workload without --repetitions: as many as the gate needs against this
// baseline (Holm's first level over its timing rows), so that `bench run`'s default of 1 does
// not make every gated run inconclusive. 0 when none is needed or none up to 30 suffices.
size_t RepetitionsForRun(const Dataset& baseline, const GateOptions& options) {
  if (baseline.kind != InputKind::kBench || options.timings == TimingMode::kOff ||
      options.timings == TimingMode::kReport) {
    return 0;
  }
  size_t rows = 0, smallest = 0;
  TimingShape(baseline, &rows, &smallest);
  if (rows == 0) return 0;
  const double level = options.alpha / static_cast<double>(rows);
  for (size_t n = 1; n <= 30; ++n) {
    if (analysis::MinimumPValue(n, smallest) <= level / 2) return std::max<size_t>(n, 3);
  }
  return 0;
}

// The command that would make an inconclusive comparison conclusive, as a sentence.
std::string ConclusiveHint(const GateReport& report, const GateFlags& f,
                           const std::vector<std::string>& run_args, const Dataset& current) {
  if (report.repetitions_needed == 0) {
    if (report.common_shift.present || !report.loaded.empty()) {
      return "compare the two builds in pairs, on the same machine in one job: `kvlab gate "
             "--baseline-binary OLD_KVLAB --run bench run ...` (docs/gate.md, \"Paired runs\")";
    }
    return "";
  }
  const size_t n = report.repetitions_needed;
  if (report.paired) {
    std::vector<std::string> args = {"--baseline-binary", f.baseline_binary, "--pairs",
                                     std::to_string(n)};
    if (f.pairing != "duet") args.insert(args.end(), {"--pairing", f.pairing});
    if (!f.current_binary.empty()) args.insert(args.end(), {"--current-binary", f.current_binary});
    args.push_back("--run");
    args.insert(args.end(), run_args.begin(), run_args.end());
    return "`" + CommandLine("kvlab gate", args) + "`";
  }
  std::vector<std::string> args = f.run && !run_args.empty() ? run_args : current.command_args;
  args = Without(args, {"--repetitions", "--results"}, {"--no-report", "--no-plots"});
  if (!args.empty() && args[0] != "bench") args.insert(args.begin(), "bench");
  if (f.run) {
    // This baseline as it is needs current_repetitions_needed; a remade pair, n each.
    const size_t mine =
        report.current_repetitions_needed > 0 ? report.current_repetitions_needed : n;
    std::vector<std::string> gate = {"--baseline", f.baseline, "--run"};
    gate.insert(gate.end(), args.begin(), args.end());
    gate.insert(gate.end(), {"--repetitions", std::to_string(mine)});
    std::string out = "`" + CommandLine("kvlab gate", gate) + "`";
    if (mine != n) {
      out += fmt::format(" (or remake the baseline with --repetitions {} and run the same)", n);
    }
    return out;
  }
  std::vector<std::string> both = args;
  both.insert(both.end(), {"--repetitions", std::to_string(n)});
  return fmt::format("`{}` for both the baseline and the current result{}",
                     CommandLine("kvlab", both),
                     report.current_repetitions_needed > 0
                         ? fmt::format(", or --repetitions {} for the current result only",
                                       report.current_repetitions_needed)
                         : "");
}

int Emit(const GateReport& report, RenderOptions render, const GateFlags& f) {
  Publish(RenderMarkdown(report, render), f.markdown);
  if (!f.junit.empty()) {
    if (Status s = WriteFile(f.junit, RenderJUnit(report), false); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
  }
  return ExitStatus(report);
}

// --baseline-binary: the two builds in pairs.
int GatePaired(const GateFlags& f, GateOptions options, const LoadOptions& load,
               const std::vector<std::string>& run_args) {
  if (!f.baseline.empty() || !f.current.empty() || f.update || !f.run) {
    Error(
        "--baseline-binary compares two builds run now in pairs: give it with --run and the "
        "workload (no --baseline, --current or --update)");
    return kExitBadInput;
  }
  TempDir temp;
  if (temp.path().empty()) {
    Error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
    return kExitBadInput;
  }
  PairedRunOptions p;
  if (f.pairing != "duet" && f.pairing != "alternate") {
    Error("--pairing '" + f.pairing + "': expected duet (both builds at once) or alternate");
    return kExitBadInput;
  }
  p.pairing = f.pairing == "duet" ? Pairing::kDuet : Pairing::kAlternate;
  p.baseline_binary = f.baseline_binary;
  p.current_binary = f.current_binary;
  p.args = run_args;
  p.pairs = f.pairs;
  p.alpha = options.alpha;
  p.dir = temp.path();
  p.load = load;
  PairedRunResult result;
  if (Status s = RunPaired(p, &result); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  options.paired = true;
  GateReport report;
  if (Status s = Compare(result.baseline, result.current, options, &report); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  report.pairs_how = p.pairing == Pairing::kDuet ? "both builds at once, the order alternating"
                                                 : "one build after the other, alternating";
  report.notes.push_back("baseline runs: `" + result.baseline_command + "`");
  report.notes.push_back("current runs: `" + result.current_command + "`");
  RenderOptions render;
  render.all = f.all;
  render.conclusive_command = ConclusiveHint(report, f, run_args, result.current);
  return Emit(report, render, f);
}

// --history DIR (without --update): change points over the results in DIR.
int GateHistory(const GateFlags& f, const GateOptions& options, const LoadOptions& load) {
  if (!f.baseline.empty() || !f.current.empty() || f.run || !f.baseline_binary.empty()) {
    Error(
        "--history DIR reads the results in DIR; with --baseline, --current, --run or "
        "--baseline-binary give --update too (to add the result to the history)");
    return kExitBadInput;
  }
  HistoryOptions h;
  h.alpha = options.alpha;
  h.threshold = options.threshold;
  h.recent = f.recent;
  h.load = load;
  HistoryReport report;
  if (Status s = AnalyzeHistory(f.history, h, &report); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  std::vector<std::string> plots;
  if (!f.plots.empty()) {
    const std::string input = (fs::path(f.plots) / "trend-input.json").string();
    if (Status s = WriteFile(input, HistoryPlotInput(report).dump(1), false); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
    Status s = DrawTrendPlots(input, f.plots, &plots);
    if (!s.ok()) report.notes.push_back("no plots: " + s.message());
  }
  const std::string markdown = RenderHistoryMarkdown(report, plots);
  Publish(markdown, f.markdown);
  if (!f.plots.empty()) {
    if (Status s = WriteFile((fs::path(f.plots) / "index.md").string(), markdown, false); !s.ok())
      Error(s.message());
  }
  if (!report.regressions.empty()) return kExitRegression;
  if (!report.inconclusive.empty()) {
    Error("INCONCLUSIVE: " + report.inconclusive);
    return kExitInconclusive;
  }
  return kExitPass;
}

// After --update: a copy of the new baseline joins the history.
void AddToHistory(const std::string& dir, const std::string& result_path, const Dataset& result) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string to = (fs::path(dir) / HistoryFileName(result)).string();
  if (Status s = CopyFile(result_path, to); !s.ok()) {
    Error(s.message());
    return;
  }
  std::fprintf(stderr, "kvlab gate: added to the history as %s\n", to.c_str());
}

int Gate(const GateFlags& f, const std::vector<std::string>& run_args) {
  GateOptions options;
  LoadOptions load;
  if (Status s = ParseOptions(f, &options, &load); !s.ok()) {
    Error(s.message());
    return kExitBadInput;
  }
  if (!f.run && !run_args.empty()) {
    Error("unexpected arguments:" + CommandLine("", run_args) +
          " (arguments of the run go after --run)");
    return kExitBadInput;
  }
  if (!f.baseline_binary.empty()) return GatePaired(f, options, load, run_args);
  if (f.pairs != 0) {
    Error("--pairs counts the pairs of --baseline-binary");
    return kExitBadInput;
  }
  if (!f.history.empty() && !f.update) return GateHistory(f, options, load);
  if (f.baseline.empty()) {
    Error(
        "--baseline FILE is required (or --baseline-binary OLD_KVLAB for paired runs, or "
        "--history DIR)");
    return kExitBadInput;
  }
  if (f.run == !f.current.empty()) {
    Error(f.run ? "give --current FILE or --run, not both"
                : "give --current FILE, or --run to run the workload now");
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
  std::vector<std::string> args = run_args;
  if (f.run) {
    if (temp.path().empty()) {
      Error(fmt::format("cannot create a temporary directory: {}", std::strerror(errno)));
      return kExitBadInput;
    }
    if (!args.empty() && baseline_exists && !f.update && !Gives(args, "--repetitions") &&
        args[0] != "conform") {
      if (const size_t n = RepetitionsForRun(baseline, options); n > 0) {
        args.insert(args.end(), {"--repetitions", std::to_string(n)});
        std::fprintf(stderr,
                     "kvlab gate: --repetitions %zu added to the run: the fewest whose timings "
                     "can be judged against this baseline (Holm over its timing rows)\n",
                     n);
      }
    }
    std::string shown;
    Status s = RunWorkload(baseline_exists ? &baseline : nullptr, args, temp.path(), &current_path,
                           &shown);
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
    if (!f.history.empty()) AddToHistory(f.history, current_path, current);
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
  render.conclusive_command = ConclusiveHint(report, f, args, current);
  const int status = Emit(report, render, f);
  if (status == kExitBadInput) return status;
  if (f.update) {
    if (Status s = CopyFile(current_path, f.baseline); !s.ok()) {
      Error(s.message());
      return kExitBadInput;
    }
    std::fprintf(stderr, "kvlab gate: baseline %s updated from %s%s\n", f.baseline.c_str(),
                 current.path.c_str(),
                 report.Passed() ? "" : " (accepting the findings listed above)");
    if (!f.history.empty()) AddToHistory(f.history, current_path, current);
    return kExitPass;
  }
  return status;
}

}  // namespace

void AddGateCommand(CLI::App& app, int* exit_code) {
  CLI::App* gate = app.add_subcommand(
      "gate",
      "CI regression gate: compare a result with a baseline (kvlab bench, kvlab conform or "
      "Google Benchmark JSON), two builds in pairs, or a history of results; exit 1 on a "
      "regression, 2 on bad input, 4 when the timings cannot be judged");
  auto f = std::make_shared<GateFlags>();
  gate->add_option("--baseline", f->baseline, "The baseline result (or the file --update writes)");
  gate->add_option("--current", f->current, "The result to check");
  gate->add_flag("--run", f->run,
                 "Run the workload now and check its result. Put it last: the arguments after "
                 "it, from the first one the gate does not know, go to kvlab (bench ... or "
                 "conform ...; none: the baseline's own command line)");
  gate->add_flag("--update", f->update,
                 "Make the current result (--current or --run) the baseline, after showing the "
                 "comparison (with --history DIR: also add it to the history)");
  gate->add_option("--baseline-binary", f->baseline_binary,
                   "Paired runs: the old build's kvlab; with --run bench ..., runs it and this "
                   "kvlab alternately, the same seeds, and compares pair by pair");
  gate->add_option("--current-binary", f->current_binary,
                   "Paired runs: the new build's kvlab (default: this one)");
  gate->add_option("--pairs", f->pairs,
                   "Paired runs: how many pairs (default: enough for the timing rows' family)");
  gate->add_option("--pairing", f->pairing,
                   "Paired runs: duet (each pair's two runs at the same time, so that the "
                   "machine's noise hits both at once) or alternate (one after the other)")
      ->capture_default_str();
  gate->add_option("--history", f->history,
                   "A directory of results, one per commit: find the runs where a level "
                   "changed (E-divisive means); with --update, add the new baseline to it");
  gate->add_option("--recent", f->recent,
                   "History: a worsening change that began in the newest N runs fails")
      ->capture_default_str();
  gate->add_option("--plots", f->plots,
                   "History: draw each cell's series into DIR (PNG, and DIR/index.md)");
  gate->add_option("--threshold", f->threshold, "Smallest timing change that counts: 10% or 0.1")
      ->capture_default_str();
  gate->add_option("--alpha", f->alpha,
                   "Family-wise false-alarm rate of one gate run's timings (Holm)")
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
