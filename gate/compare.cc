#include "gate/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace kvlab::gate {

std::string RowVerdictName(RowVerdict v) {
  switch (v) {
    case RowVerdict::kUnchanged:
      return "unchanged";
    case RowVerdict::kWorse:
      return "worse";
    case RowVerdict::kBetter:
      return "better";
    case RowVerdict::kInconclusive:
      return "inconclusive";
  }
  return "?";
}

namespace {

// Equal within the metric's tolerance (Metric::tolerance says why there is one).
bool SameCount(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max({1.0, std::fabs(a), std::fabs(b)});
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string FormatNumber(double v) { return fmt::format("{:.6g}", v); }

// Why timings of the two results cannot be compared, or "".
std::string TimingMismatch(const Environment& b, const Environment& c) {
  std::vector<std::string> reasons;
  if (!b.machine.empty() && !c.machine.empty() && b.machine != c.machine) {
    reasons.push_back(
        fmt::format("different machines: baseline ran on {}, current on {}", b.machine, c.machine));
  }
  if (!b.build.empty() && !c.build.empty() && b.build != c.build) {
    reasons.push_back(
        fmt::format("different build types: baseline {}, current {}", b.build, c.build));
  }
  if (!b.timing_valid) {
    reasons.push_back("the baseline's timings are invalid (" + b.timing_invalid_reason + ")");
  }
  if (!c.timing_valid) {
    reasons.push_back("the current timings are invalid (" + c.timing_invalid_reason + ")");
  }
  std::string out;
  for (const std::string& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

void CompareCounter(const std::string& cell, const std::string& name, const Metric* b,
                    const Metric* c, GateReport* report) {
  CounterRow row;
  row.cell = cell;
  row.metric = name;
  row.unit = (b ? b : c)->unit;
  const std::vector<double> bs = b ? b->samples : std::vector<double>{0.0};
  const std::vector<double> cs = c ? c->samples : std::vector<double>{0.0};
  row.baseline = Median(bs);
  row.current = Median(cs);
  const auto [bmin, bmax] = std::minmax_element(bs.begin(), bs.end());
  const auto [cmin, cmax] = std::minmax_element(cs.begin(), cs.end());
  row.baseline_min = *bmin;
  row.baseline_max = *bmax;
  row.current_min = *cmin;
  row.current_max = *cmax;
  const double tolerance = (b ? b : c)->tolerance;
  row.baseline_varies = !SameCount(*bmin, *bmax, tolerance);
  row.current_varies = !SameCount(*cmin, *cmax, tolerance);
  if (SameCount(row.baseline, row.current, tolerance)) {
    row.verdict = RowVerdict::kUnchanged;
  } else if (row.current > row.baseline) {
    row.verdict = RowVerdict::kWorse;
    report->regressions.push_back(fmt::format("{}: {} {} -> {} {} ({:+.6g})", cell, name,
                                              FormatNumber(row.baseline), FormatNumber(row.current),
                                              row.unit, row.current - row.baseline));
  } else {
    row.verdict = RowVerdict::kBetter;
    report->improved = true;
  }
  report->counters.push_back(std::move(row));
}

void CompareTiming(const std::string& cell, const std::string& name, const Metric& b,
                   const Metric& c, GateReport* report) {
  if (b.samples.empty() || c.samples.empty()) return;
  analysis::ComparisonOptions opt;
  opt.threshold = report->options.threshold;
  opt.alpha = report->options.alpha;
  opt.direction = b.direction;
  TimingRow row;
  row.cell = cell;
  row.metric = name;
  row.unit = b.unit;
  row.comparison = analysis::CompareSamples(b.samples, c.samples, opt);
  switch (row.comparison.verdict) {
    case analysis::Verdict::kUnchanged:
      row.verdict = RowVerdict::kUnchanged;
      break;
    case analysis::Verdict::kWorse:
      row.verdict = RowVerdict::kWorse;
      if (report->timings_gated) {
        report->regressions.push_back(fmt::format("{}: {} median {} -> {} {}: {}", cell, name,
                                                  FormatNumber(row.comparison.baseline.median),
                                                  FormatNumber(row.comparison.current.median),
                                                  row.unit, row.comparison.reason));
      }
      break;
    case analysis::Verdict::kBetter:
      row.verdict = RowVerdict::kBetter;
      break;
    case analysis::Verdict::kInconclusive:
      row.verdict = RowVerdict::kInconclusive;
      if (report->timings_gated) {
        report->inconclusive.push_back(
            fmt::format("{}: {}: {}", cell, name, row.comparison.reason));
      }
      break;
  }
  report->timings.push_back(std::move(row));
}

void CompareCells(const Dataset& baseline, const Dataset& current, GateReport* report) {
  for (const auto& [key, bcell] : baseline.cells) {
    const auto it = current.cells.find(key);
    if (it == current.cells.end()) {
      report->only_in_baseline.push_back(CellName(bcell));
      if (!report->options.allow_missing) {
        report->regressions.push_back(CellName(bcell) +
                                      ": in the baseline, missing from the current result");
      }
      continue;
    }
    const Cell& ccell = it->second;
    const std::string name = CellName(ccell);
    if (!ccell.error.empty()) {
      const bool regression = bcell.error.empty();
      report->cell_errors.push_back({name, ccell.error, regression});
      if (regression) report->regressions.push_back(name + ": failed: " + ccell.error);
      continue;
    }
    std::set<std::string> metrics;
    for (const auto& [m, _] : bcell.metrics) metrics.insert(m);
    for (const auto& [m, _] : ccell.metrics) metrics.insert(m);
    for (const std::string& m : metrics) {
      const auto bi = bcell.metrics.find(m);
      const auto ci = ccell.metrics.find(m);
      const Metric* bm = bi == bcell.metrics.end() ? nullptr : &bi->second;
      const Metric* cm = ci == ccell.metrics.end() ? nullptr : &ci->second;
      const MetricKind kind = (bm ? bm : cm)->kind;
      if (kind == MetricKind::kCounter) {
        CompareCounter(name, m, bm, cm, report);
      } else if (report->timings_compared && bm && cm) {
        CompareTiming(name, m, *bm, *cm, report);
      }
    }
  }
  for (const auto& [key, ccell] : current.cells) {
    if (!baseline.cells.count(key)) report->only_in_current.push_back(CellName(ccell));
  }
}

void CompareConformance(const Dataset& baseline, const Dataset& current, GateReport* report) {
  report->baseline_failures_total = baseline.conform_failures_total;
  report->current_failures_total = current.conform_failures_total;
  std::set<std::string> before;
  for (const ConformFailure& f : baseline.conform_failures) before.insert(f.Id());
  std::set<std::string> now;
  for (const ConformFailure& f : current.conform_failures) {
    now.insert(f.Id());
    if (before.count(f.Id())) {
      report->conformance.push_back(
          {f.Name(), "still failing (as in the baseline)", RowVerdict::kUnchanged});
      continue;
    }
    std::string detail = fmt::format("Redis replied {}, kvlab {}", f.redis, f.kvlab);
    if (!f.explanation.empty()) detail += ": " + f.explanation;
    report->conformance.push_back({f.Name(), detail, RowVerdict::kWorse});
    report->regressions.push_back("conformance: " + f.Name() + " fails: " + detail);
  }
  for (const ConformFailure& f : baseline.conform_failures) {
    if (now.count(f.Id())) continue;
    report->conformance.push_back(
        {f.Name(), "passes now (failed in the baseline)", RowVerdict::kBetter});
    report->improved = true;
  }
  // The matrix tallies: coverage, and failures beyond the recorded list (conform keeps the
  // first 500 failures).
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, const ConformTally*> base;
  for (const ConformTally& t : baseline.conform_tallies)
    base[{t.subject, t.version, t.command}] = &t;
  std::set<Key> seen;
  const bool truncated = current.conform_failures_total > current.conform_failures.size();
  for (const ConformTally& t : current.conform_tallies) {
    const Key key{t.subject, t.version, t.command};
    seen.insert(key);
    const std::string name = fmt::format("{} {} {}", t.subject, t.version, t.command);
    const auto it = base.find(key);
    if (it == base.end()) {
      report->only_in_current.push_back("conformance " + name);
      continue;
    }
    const ConformTally& b = *it->second;
    ++report->conform_cells_compared;
    const std::string counts =
        fmt::format("{} pass, {} deviation, {} fail (baseline {}, {}, {})", t.pass, t.deviation,
                    t.fail, b.pass, b.deviation, b.fail);
    if (truncated && t.fail > b.fail) {
      report->conformance.push_back({name, counts, RowVerdict::kWorse, false});
      report->regressions.push_back("conformance: " + name + ": " + counts);
    } else {
      // One row per matrix cell, so that the JUnit report shows what was covered. (Newly
      // failing cases are rows and regressions of their own, above.)
      report->conformance.push_back({name, counts,
                                     t.fail > b.fail   ? RowVerdict::kWorse
                                     : t.fail < b.fail ? RowVerdict::kBetter
                                                       : RowVerdict::kUnchanged,
                                     false});
    }
    if (t.deviation != b.deviation) {
      report->notes.push_back(fmt::format(
          "conformance {}: {} catalogued deviations, {} in the baseline (allowed, not gated)", name,
          t.deviation, b.deviation));
    }
  }
  for (const auto& [key, t] : base) {
    if (seen.count(key)) continue;
    const std::string name =
        fmt::format("{} {} {}", std::get<0>(key), std::get<1>(key), std::get<2>(key));
    report->only_in_baseline.push_back("conformance " + name);
    if (!report->options.allow_missing) {
      report->regressions.push_back("conformance " + name +
                                    ": in the baseline, not run in the current result");
    }
  }
}

std::string LoadNote(const char* which, const Environment& env) {
  if (env.load_average < 0 || env.usable_cpus <= 0) return "";
  if (env.load_average <= env.usable_cpus) return "";
  return fmt::format(
      "the {} run started on a loaded machine (load average {:.1f} on {} usable "
      "cpus): its timings are noisier",
      which, env.load_average, env.usable_cpus);
}

}  // namespace

Status Compare(const Dataset& baseline, const Dataset& current, const GateOptions& options,
               GateReport* report) {
  *report = GateReport();
  if (baseline.kind != current.kind) {
    return Status::InvalidArgument(fmt::format(
        "cannot compare a {} ({}) with a {} ({}): give two results of the same kind",
        InputKindName(baseline.kind), baseline.path, InputKindName(current.kind), current.path));
  }
  for (const auto& [which, d] :
       {std::pair{"baseline", &baseline}, std::pair{"current", &current}}) {
    if (!d->untrustworthy.empty()) {
      std::string why;
      for (const std::string& u : d->untrustworthy) why += "\n  - " + u;
      return Status::InvalidArgument(
          fmt::format("the {} result {} cannot be trusted, so the gate cannot pass on it:{}", which,
                      d->path, why));
    }
  }
  if (!(options.threshold >= 0)) {
    return Status::InvalidArgument(fmt::format("threshold {} must be >= 0", options.threshold));
  }
  if (!(options.alpha > 0 && options.alpha < 1)) {
    return Status::InvalidArgument(fmt::format("alpha {} must be in (0, 1)", options.alpha));
  }
  report->baseline_path = baseline.path;
  report->current_path = current.path;
  report->baseline_description = baseline.description;
  report->current_description = current.description;
  report->baseline_env = baseline.env;
  report->current_env = current.env;
  report->kind = baseline.kind;
  report->options = options;
  for (const std::string& n : baseline.notes) report->notes.push_back("baseline: " + n);
  for (const std::string& n : current.notes) report->notes.push_back("current: " + n);

  if (baseline.kind == InputKind::kConform) {
    CompareConformance(baseline, current, report);
    return Status::OK();
  }

  const std::string mismatch = TimingMismatch(baseline.env, current.env);
  switch (options.timings) {
    case TimingMode::kOff:
      report->timings_note = "timings not compared (--timings off)";
      break;
    case TimingMode::kGate:
      if (!mismatch.empty()) {
        return Status::InvalidArgument("timings cannot be gated (--timings gate): " + mismatch);
      }
      report->timings_compared = report->timings_gated = true;
      break;
    case TimingMode::kReport:
      report->timings_compared = mismatch.empty();
      report->timings_note = mismatch.empty()
                                 ? "timings reported, not gated (--timings report)"
                                 : "timings not compared: " + mismatch + ". Counters only.";
      break;
    case TimingMode::kAuto:
      report->timings_compared = report->timings_gated = mismatch.empty();
      if (!mismatch.empty())
        report->timings_note = "timings not compared: " + mismatch + ". Counters only.";
      break;
  }
  for (const char* which : {"baseline", "current"}) {
    const std::string note =
        LoadNote(which, std::string(which) == "baseline" ? baseline.env : current.env);
    if (!note.empty() && report->timings_compared) report->notes.push_back(note);
  }
  CompareCells(baseline, current, report);
  return Status::OK();
}

}  // namespace kvlab::gate
