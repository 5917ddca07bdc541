#include "gate/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "analysis/mann_whitney.h"
#include "analysis/paired.h"
#include "gate/units.h"

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

// A timing row waiting for the family's correction: its samples stay reachable until then.
struct PendingTiming {
  size_t row = 0;
  const Metric* baseline = nullptr;
  const Metric* current = nullptr;
};

bool AllPositive(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

// The row's test, estimate and interval, before any correction. `scale` divides the current
// samples' lower-is-better values (multiplies higher-is-better ones): the common shift.
void TestRow(const std::vector<double>& b, std::vector<double> c, bool paired, double scale,
             double confidence, TimingRow* row) {
  if (scale != 1) {
    for (double& v : c)
      v = row->direction == analysis::Direction::kLowerIsBetter ? v / scale : v * scale;
  }
  row->baseline = analysis::Summarize(b);
  row->current = analysis::Summarize(c);
  if (row->baseline.median != 0) {
    row->ratio = row->current.median / row->baseline.median;
  } else {
    row->ratio = row->current.median == 0 ? 1 : std::numeric_limits<double>::infinity();
  }
  row->has_interval = false;
  if (paired) {
    row->paired = true;
    row->minimum_p = analysis::MinimumSignedRankP(b.size());
    if (AllPositive(b) && AllPositive(c)) {
      const analysis::PairedRatio r = analysis::ComparePaired(b, c, confidence);
      row->ratio = r.estimate;
      row->p_value = r.test.p_value;
      row->has_interval = true;
      row->low = r.low;
      row->high = r.high;
      row->confidence = r.confidence;
    } else {
      std::vector<double> d(b.size());
      for (size_t i = 0; i < b.size(); ++i) d[i] = c[i] - b[i];
      row->p_value = analysis::WilcoxonSignedRank(d).p_value;
    }
    return;
  }
  row->minimum_p = analysis::MinimumPValue(c.size(), b.size());
  row->p_value = analysis::MannWhitneyU(c, b).p_value;
  if (AllPositive(b) && AllPositive(c)) {
    const analysis::RatioInterval r = analysis::RatioOfMedians(c, b, confidence);
    row->has_interval = true;
    row->low = r.low;
    row->high = r.high;
    row->confidence = r.confidence;
  }
}

// Oriented so that positive is slower: log(ratio), inverted for higher-is-better rows.
double SlowerLog(const TimingRow& row) {
  const double l = std::log(row.ratio);
  return row.direction == analysis::Direction::kLowerIsBetter ? l : -l;
}

bool Worse(const TimingRow& row, double ratio) {
  return (ratio > 1) == (row.direction == analysis::Direction::kLowerIsBetter);
}

// The smallest sample size per side (pairs, when paired) whose best p reaches `level`.
size_t RepetitionsFor(double level, bool paired) {
  if (paired) return analysis::PairsNeeded(level);
  size_t n = 1;
  while (analysis::MinimumPValue(n, n) > level) ++n;
  return n;
}

void CollectTiming(const std::string& cell, const std::string& name, const Metric& b,
                   const Metric& c, GateReport* report, std::vector<PendingTiming>* pending) {
  if (b.samples.empty() || c.samples.empty()) return;
  TimingRow row;
  row.cell = cell;
  row.metric = name;
  row.unit = b.unit;
  row.direction = b.direction;
  const bool paired = report->options.paired && b.samples.size() == c.samples.size();
  TestRow(b.samples, c.samples, paired, 1, report->options.confidence, &row);
  if (paired) {
    report->paired = true;
    report->pairs = std::max(report->pairs, b.samples.size());
  }
  pending->push_back({report->timings.size(), &b, &c});
  report->timings.push_back(std::move(row));
}

// Holm over the family, the verdicts, and (unpaired) the common shift and the loaded machine.
void FinishTimings(const std::vector<PendingTiming>& pending, GateReport* report) {
  std::vector<TimingRow>& rows = report->timings;
  const GateOptions& o = report->options;
  const size_t m = rows.size();
  report->timing_family = m;
  if (m == 0) return;
  const double level = analysis::HolmFirstLevel(o.alpha, m);
  std::vector<double> p(m);
  for (size_t i = 0; i < m; ++i) p[i] = rows[i].p_value;
  const std::vector<double> adjusted = analysis::HolmAdjust(p);
  size_t short_rows = 0;
  bool any_unpaired = false;
  size_t smallest_baseline = SIZE_MAX;
  for (size_t i = 0; i < m; ++i) {
    TimingRow& row = rows[i];
    row.p_adjusted = adjusted[i];
    any_unpaired = any_unpaired || !row.paired;
    smallest_baseline = std::min(smallest_baseline, row.baseline.n);
    const double change = row.ratio - 1;
    if (row.minimum_p > level) {
      ++short_rows;
      row.verdict = RowVerdict::kInconclusive;
      const size_t need = RepetitionsFor(level, row.paired);
      row.reason = row.paired
                       ? fmt::format(
                             "{} pairs can reach p = {:.2g} at best, more than Holm's first level "
                             "{:g} / {} rows = {:.2g}: need {} pairs",
                             row.baseline.n, row.minimum_p, o.alpha, m, level, need)
                       : fmt::format(
                             "n = {} vs {} can reach p = {:.2g} at best, more than Holm's first "
                             "level {:g} / {} rows = {:.2g}: need {} repetitions",
                             row.current.n, row.baseline.n, row.minimum_p, o.alpha, m, level, need);
      continue;
    }
    const bool significant = row.p_adjusted <= o.alpha;
    const bool large = std::fabs(change) > o.threshold;
    if (significant && large) {
      row.verdict = Worse(row, row.ratio) ? RowVerdict::kWorse : RowVerdict::kBetter;
      row.reason = fmt::format(
          "adjusted p = {:.2g} <= {:g} (raw {:.2g}, Holm over {} rows) and "
          "{:+.1f}% beyond {:g}%",
          row.p_adjusted, o.alpha, row.p_value, m, 100 * change, 100 * o.threshold);
    } else if (significant) {
      row.verdict = RowVerdict::kUnchanged;
      row.reason = fmt::format("significant (adjusted p = {:.2g}) but {:+.1f}% is within {:g}%",
                               row.p_adjusted, 100 * change, 100 * o.threshold);
    } else {
      row.verdict = RowVerdict::kUnchanged;
      row.reason = fmt::format("not significant: adjusted p = {:.2g} > {:g} ({:+.1f}%)",
                               row.p_adjusted, o.alpha, 100 * change);
    }
  }
  if (short_rows > 0) {
    const bool paired = report->paired && !any_unpaired;
    // A margin beyond the bare minimum, so that one repetition out of order does not leave the
    // result inconclusive again (every repetition must otherwise be beyond every other).
    report->repetitions_needed = RepetitionsFor(level, paired) + (paired ? kPairsMargin : 2);
    if (!paired && smallest_baseline != SIZE_MAX) {
      for (size_t n = 1; n <= 1000; ++n) {
        if (analysis::MinimumPValue(n, smallest_baseline) <= level / 2) {
          report->current_repetitions_needed = n;
          break;
        }
      }
    }
  }

  if (any_unpaired) {
    // The common shift, over the unpaired rows whose ratio means something.
    std::vector<size_t> considered;
    std::vector<double> logs;
    for (size_t i = 0; i < m; ++i) {
      if (rows[i].paired || !(rows[i].ratio > 0) || !std::isfinite(rows[i].ratio)) continue;
      considered.push_back(i);
      logs.push_back(SlowerLog(rows[i]));
    }
    report->common_shift = analysis::FindCommonShift(logs, o.threshold);
    if (report->common_shift.present) {
      const double shift = report->common_shift.ratio;
      // Each row again, its current samples divided by the shift: how it moved compared with
      // the machine. A row that moved with the rest is unchanged; one that moved beyond it is
      // named, but cannot fail an unpaired gate (the machine was not the same).
      std::vector<double> rel_p;
      std::vector<TimingRow> relative;
      for (size_t i : considered) {
        TimingRow r = rows[i];
        TestRow(pending[i].baseline->samples, pending[i].current->samples, false, shift,
                o.confidence, &r);
        rel_p.push_back(r.p_value);
        relative.push_back(std::move(r));
      }
      const std::vector<double> rel_adjusted = analysis::HolmAdjust(rel_p);
      for (size_t k = 0; k < considered.size(); ++k) {
        TimingRow& row = rows[considered[k]];
        row.relative_ratio = relative[k].ratio;
        row.relative_p_adjusted = rel_adjusted[k];
        if (row.verdict == RowVerdict::kInconclusive) continue;
        const bool beyond =
            rel_adjusted[k] <= o.alpha && std::fabs(relative[k].ratio - 1) > o.threshold;
        if (beyond) {
          row.verdict = RowVerdict::kInconclusive;
          row.reason = fmt::format(
              "{:+.1f}% beyond the machine-wide shift of {:+.1f}% (adjusted p = {:.2g}): "
              "unpaired, a machine that moved cannot be told from a change",
              100 * (relative[k].ratio - 1), 100 * (shift - 1), rel_adjusted[k]);
        } else {
          row.verdict = RowVerdict::kUnchanged;
          row.reason = fmt::format("moved with the machine-wide shift of {:+.1f}% ({:+.1f}% here)",
                                   100 * (shift - 1), 100 * (row.ratio - 1));
        }
      }
    } else if (!report->loaded.empty()) {
      for (TimingRow& row : rows) {
        if (row.paired) continue;
        if (row.verdict != RowVerdict::kWorse && row.verdict != RowVerdict::kBetter) continue;
        row.verdict = RowVerdict::kInconclusive;
        row.reason = fmt::format(
            "{:+.1f}% with adjusted p = {:.2g}, but {}: an unpaired timing "
            "cannot be judged there",
            100 * (row.ratio - 1), row.p_adjusted, report->loaded);
      }
    }
  }

  if (!report->timings_gated) return;
  for (const TimingRow& row : rows) {
    if (row.verdict == RowVerdict::kWorse) {
      report->regressions.push_back(fmt::format(
          "{}: {} {} -> {}: {}", row.cell, row.metric, FormatValue(row.baseline.median, row.unit),
          FormatValue(row.current.median, row.unit), row.reason));
    } else if (row.verdict == RowVerdict::kInconclusive) {
      report->inconclusive.push_back(fmt::format("{}: {}: {}", row.cell, row.metric, row.reason));
    }
  }
  const analysis::CommonShift& shift = report->common_shift;
  if (any_unpaired && !report->loaded.empty()) {
    // Not only the rows that differ: on a loaded machine the load's noise can hide a change as
    // well as fake one (docs/gate.md, "Measured": on the loaded machine the unpaired estimate
    // missed a 15% slowdown of HGET, and identical builds moved more), so no unpaired timing
    // passes either.
    report->inconclusive.insert(
        report->inconclusive.begin(),
        fmt::format("loaded machine: {}: an unpaired comparison there can neither pass nor fail "
                    "timings (the load can fake a difference or hide one)",
                    report->loaded));
  }
  if (shift.present && shift.ratio > 1) {
    report->inconclusive.insert(
        report->inconclusive.begin(),
        fmt::format("machine-wide shift: the timing rows moved {:+.1f}% (the median of {} rows; "
                    "{} of them beyond {:g}%; quartiles {:+.1f}%..{:+.1f}%): an unpaired "
                    "comparison cannot tell a slower machine from a change that slows "
                    "everything",
                    100 * (shift.ratio - 1), shift.rows, shift.beyond_threshold, 100 * o.threshold,
                    100 * (shift.low - 1), 100 * (shift.high - 1)));
  }
}

void CompareCells(const Dataset& baseline, const Dataset& current, GateReport* report,
                  std::vector<PendingTiming>* pending) {
  for (const auto& [key, bcell] : baseline.cells) {
    const auto it = current.cells.find(key);
    if (it == current.cells.end()) {
      // A phase's throughput (the cell without a command) goes with its commands' cells, which
      // name what is missing.
      if (key.command.empty() && baseline.kind == InputKind::kBench) continue;
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
        report->counters.back().key = key;
        report->counters.back().profile_label = ccell.profile_label;
      } else if (report->timings_compared && bm && cm) {
        CollectTiming(name, m, *bm, *cm, report, pending);
        if (!report->timings.empty() && report->timings.back().cell == name) {
          report->timings.back().key = key;
          report->timings.back().profile_label = ccell.profile_label;
        }
      }
    }
  }
  for (const auto& [key, ccell] : current.cells) {
    if (key.command.empty() && current.kind == InputKind::kBench) continue;
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
      "cpus)",
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
    if (note.empty() || !report->timings_compared) continue;
    report->notes.push_back(note);
    if (!options.paired) report->loaded += (report->loaded.empty() ? "" : "; ") + note;
  }
  std::vector<PendingTiming> pending;
  CompareCells(baseline, current, report, &pending);
  FinishTimings(pending, report);
  return Status::OK();
}

}  // namespace kvlab::gate
