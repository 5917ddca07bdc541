#include "gate/paired_run.h"

#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "analysis/paired.h"
#include "gate/compare.h"
#include "gate/process.h"

namespace kvlab::gate {

namespace fs = std::filesystem;

size_t AutoPairs(double alpha, size_t timing_rows) {
  const double level = alpha / static_cast<double>(std::max<size_t>(1, timing_rows));
  return std::min<size_t>(60, analysis::PairsNeeded(level) + kPairsMargin);
}

size_t CountTimingRows(const Dataset& a, const Dataset& b) {
  size_t n = 0;
  for (const auto& [key, cell] : a.cells) {
    const auto it = b.cells.find(key);
    if (it == b.cells.end() || !cell.error.empty() || !it->second.error.empty()) continue;
    for (const auto& [name, metric] : cell.metrics) {
      if (metric.kind == MetricKind::kTiming && it->second.metrics.count(name)) ++n;
    }
  }
  return n;
}

Dataset MergeRuns(std::vector<Dataset> runs) {
  Dataset out = std::move(runs[0]);
  for (size_t k = 1; k < runs.size(); ++k) {
    Dataset& run = runs[k];
    for (auto& [key, cell] : run.cells) {
      auto [it, fresh] = out.cells.try_emplace(key, cell);
      if (fresh) continue;
      Cell& into = it->second;
      into.calls += cell.calls;
      if (into.error.empty()) into.error = cell.error;
      if (into.degraded.empty()) into.degraded = cell.degraded;
      for (auto& [name, metric] : cell.metrics) {
        Metric& m = into.metrics[name];
        if (m.samples.empty()) {
          const std::vector<double> samples = std::move(metric.samples);
          m = metric;
          m.samples.clear();
          // A counter absent from the earlier runs was 0 there (results list non-zero ones).
          if (metric.kind == MetricKind::kCounter) m.samples.assign(k, 0.0);
          m.samples.insert(m.samples.end(), samples.begin(), samples.end());
          continue;
        }
        m.samples.insert(m.samples.end(), metric.samples.begin(), metric.samples.end());
      }
      for (auto& [name, m] : into.metrics) {
        if (m.kind == MetricKind::kCounter && !cell.metrics.count(name)) m.samples.push_back(0);
      }
    }
    out.untrustworthy.insert(out.untrustworthy.end(), run.untrustworthy.begin(),
                             run.untrustworthy.end());
  }
  return out;
}

namespace {

// The CPUs this process may run on.
std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  return cpus;
}

// While it lives, this process runs on one CPU only, and so do the children it starts (they
// inherit the mask); the old mask comes back at the end.
class PinnedToCpu {
 public:
  explicit PinnedToCpu(int cpu) {
    CPU_ZERO(&old_);
    saved_ = sched_getaffinity(0, sizeof(old_), &old_) == 0;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (saved_) sched_setaffinity(0, sizeof(one), &one);
  }
  ~PinnedToCpu() {
    if (saved_) sched_setaffinity(0, sizeof(old_), &old_);
  }
  PinnedToCpu(const PinnedToCpu&) = delete;
  PinnedToCpu& operator=(const PinnedToCpu&) = delete;

 private:
  cpu_set_t old_;
  bool saved_ = false;
};

// One run of one side: started, then finished (its result loaded into *out).
class SideRun {
 public:
  SideRun(std::string binary, std::vector<std::string> args, std::string dir)
      : binary_(std::move(binary)), args_(std::move(args)), dir_(std::move(dir)) {
    args_.insert(args_.end(), {"--results", dir_, "--no-report", "--no-plots"});
  }

  Status Start() {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    std::string error;
    pid_ = StartProgram(binary_, args_, dir_ + ".log", &error);
    return pid_ < 0 ? Status::IOError(error) : Status::OK();
  }

  Status Finish(const LoadOptions& load, Dataset* out) {
    std::string error;
    const int rc = WaitProgram(pid_, &error);
    if (rc < 0) return Status::IOError(error);
    const std::string result = FindResultFile(dir_);
    if (rc != 0 || result.empty()) {
      return Status::InvalidArgument(
          fmt::format("`{}` exited with status {}{}:\n{}", CommandLine(binary_, args_), rc,
                      result.empty() ? " and wrote no result" : "", FileTail(dir_ + ".log")));
    }
    return LoadDataset(result, load, out);
  }

 private:
  std::string binary_;
  std::vector<std::string> args_;
  std::string dir_;
  int pid_ = -1;
};

}  // namespace

Status RunPaired(const PairedRunOptions& options, PairedRunResult* out) {
  std::vector<std::string> args = options.args;
  if (args.empty()) {
    return Status::InvalidArgument(
        "--baseline-binary needs the workload after --run (e.g. --run bench run ycsb-a "
        "--backends memory)");
  }
  if (args[0] == "conform") {
    return Status::InvalidArgument(
        "--baseline-binary pairs kvlab bench runs; conformance is exact, compare two conform "
        "results with --baseline and --current");
  }
  if (args[0] != "bench") args.insert(args.begin(), "bench");
  args = Without(args, {"--repetitions", "--results"}, {"--no-report", "--no-plots"});
  args.insert(args.end(), {"--repetitions", "1"});
  std::string error;
  const std::string current =
      options.current_binary.empty() ? SelfPath(&error) : options.current_binary;
  if (current.empty()) return Status::IOError(error);
  for (const std::string& b : {options.baseline_binary, current}) {
    if (::access(b.c_str(), X_OK) != 0) {
      return Status::InvalidArgument(b + ": not an executable kvlab binary");
    }
  }
  out->baseline_command = CommandLine(options.baseline_binary, args);
  out->current_command = CommandLine(current, args);
  std::vector<Dataset> a, b;
  const std::vector<int> cpus = AllowedCpus();
  size_t pairs = options.pairs;
  for (size_t i = 0; pairs == 0 || i < pairs; ++i) {
    Dataset da, db;
    const std::string base = fmt::format("{}/pair-{}", options.dir, i);
    SideRun a_run(options.baseline_binary, args, base + "-a");
    SideRun b_run(current, args, base + "-b");
    // Even pairs start the baseline first, odd ones the current build.
    SideRun& first = i % 2 == 0 ? a_run : b_run;
    SideRun& second = i % 2 == 0 ? b_run : a_run;
    Dataset& first_out = i % 2 == 0 ? da : db;
    Dataset& second_out = i % 2 == 0 ? db : da;
    if (options.pairing == Pairing::kDuet) {
      // Both at once, on one CPU (pair by pair round the CPUs allowed): they share its time
      // slices, caches and frequency, so whatever the machine does meanwhile, it does to both.
      // On two CPUs at once they would not: measured, the spread of a pair's log ratios was 3
      // to 5 times larger (docs/gate.md).
      Status s;
      {
        const PinnedToCpu pin(cpus.empty() ? 0 : cpus[i % cpus.size()]);
        KVLAB_RETURN_IF_ERROR(first.Start());
        s = second.Start();
      }
      Status f = first.Finish(options.load, &first_out);
      if (!s.ok()) return s;
      // Both are waited for, whatever happened to the first: no run outlives the gate.
      Status g = second.Finish(options.load, &second_out);
      KVLAB_RETURN_IF_ERROR(f);
      KVLAB_RETURN_IF_ERROR(g);
    } else {
      KVLAB_RETURN_IF_ERROR(first.Start());
      KVLAB_RETURN_IF_ERROR(first.Finish(options.load, &first_out));
      KVLAB_RETURN_IF_ERROR(second.Start());
      KVLAB_RETURN_IF_ERROR(second.Finish(options.load, &second_out));
    }
    if (da.kind != InputKind::kBench || db.kind != InputKind::kBench) {
      return Status::InvalidArgument("the paired runs did not write kvlab bench results");
    }
    if (pairs == 0) {
      const size_t rows = CountTimingRows(da, db);
      pairs = AutoPairs(options.alpha, rows);
      std::fprintf(stderr,
                   "kvlab gate: %zu timing rows; %zu pairs reach Holm's first level %g / %zu "
                   "with a margin (--pairs sets it)\n",
                   rows, pairs, options.alpha, std::max<size_t>(1, rows));
    }
    std::fprintf(stderr, "kvlab gate: pair %zu/%zu done (%s, %s first)\n", i + 1, pairs,
                 options.pairing == Pairing::kDuet ? "at once" : "one after the other",
                 i % 2 == 0 ? "baseline" : "current");
    a.push_back(std::move(da));
    b.push_back(std::move(db));
  }
  out->pairs = pairs;
  out->baseline = MergeRuns(std::move(a));
  out->current = MergeRuns(std::move(b));
  out->baseline.path = options.baseline_binary;
  out->current.path = current;
  out->baseline.description =
      fmt::format("{} (kvlab bench, {} runs paired with the current build's)",
                  out->baseline.description, pairs);
  out->current.description = fmt::format("{} (kvlab bench, {} runs paired with the baseline's)",
                                         out->current.description, pairs);
  return Status::OK();
}

}  // namespace kvlab::gate
