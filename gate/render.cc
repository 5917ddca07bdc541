#include "gate/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "gate/units.h"

namespace kvlab::gate {

namespace {

constexpr size_t kListLimit = 50;

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += " ";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Num(double v) { return fmt::format("{:.6g}", v); }

int Order(RowVerdict v) {
  switch (v) {
    case RowVerdict::kWorse:
      return 0;
    case RowVerdict::kBetter:
      return 1;
    case RowVerdict::kInconclusive:
      return 2;
    case RowVerdict::kUnchanged:
      return 3;
  }
  return 4;
}

std::string VerdictCell(RowVerdict v, bool gated = true) {
  switch (v) {
    case RowVerdict::kWorse:
      return gated ? "**worse**" : "worse (not gated)";
    case RowVerdict::kBetter:
      return "better";
    case RowVerdict::kInconclusive:
      return "inconclusive";
    case RowVerdict::kUnchanged:
      return "unchanged";
  }
  return "?";
}

template <typename Row>
std::map<RowVerdict, size_t> Count(const std::vector<Row>& rows) {
  std::map<RowVerdict, size_t> n;
  for (const Row& r : rows) ++n[r.verdict];
  return n;
}

std::string Counts(const std::map<RowVerdict, size_t>& n, bool with_inconclusive) {
  auto get = [&](RowVerdict v) {
    const auto it = n.find(v);
    return it == n.end() ? size_t{0} : it->second;
  };
  std::string out =
      fmt::format("{} worse, {} better", get(RowVerdict::kWorse), get(RowVerdict::kBetter));
  if (with_inconclusive) out += fmt::format(", {} inconclusive", get(RowVerdict::kInconclusive));
  out += fmt::format(", {} unchanged", get(RowVerdict::kUnchanged));
  return out;
}

std::string Describe(const std::string& path, const std::string& description,
                     const Environment& env) {
  std::string out = fmt::format("`{}`: {}", path, description);
  if (!env.commit.empty()) out += ", commit " + env.commit;
  if (!env.build.empty()) out += ", " + env.build;
  if (!env.machine.empty()) out += ", " + env.machine;
  return out;
}

std::string CounterValue(double median, bool varies, double lo, double hi) {
  if (!varies) return Num(median);
  return fmt::format("{} (repetitions {}..{})", Num(median), Num(lo), Num(hi));
}

std::string SampleCell(const analysis::Summary& s, const std::string& unit) {
  if (s.n <= 1) return FormatValue(s.median, unit);
  return fmt::format("{} [{}, {}]", FormatValue(s.median, unit), FormatValue(s.min, unit),
                     FormatValue(s.max, unit));
}

std::string ChangeCell(const TimingRow& row) {
  if (std::isinf(row.ratio)) return "from 0";
  std::string out = fmt::format("{:+.1f}%", 100 * (row.ratio - 1));
  if (row.has_interval && row.confidence > 0) {
    out += fmt::format(" [{:.3g}×, {:.3g}× at {:.0f}%]", row.low, row.high, 100 * row.confidence);
  }
  if (row.verdict != RowVerdict::kWorse && row.verdict != RowVerdict::kBetter &&
      std::fabs(row.ratio - 1) > 0.005) {
    out = "≈ " + out;  // a difference the data do not support
  }
  if (row.relative_ratio != 1) {
    out += fmt::format("; {:+.1f}% beside the shift", 100 * (row.relative_ratio - 1));
  }
  return out;
}

std::string PCell(double p) { return p >= 0.995 ? "1" : fmt::format("{:.2g}", p); }

// What the timing rows were compared with, in one line.
std::string TimingMethod(const GateReport& r) {
  std::string test =
      r.paired ? fmt::format(
                     "paired ({} pairs{}, the same seeds): Wilcoxon signed-rank test on "
                     "the pair log ratios, Hodges-Lehmann ratio",
                     r.pairs, r.pairs_how.empty() ? "" : ", " + r.pairs_how)
               : "unpaired: two-sided Mann-Whitney, ratio of medians with Hodges-Lehmann interval";
  return fmt::format(
      "{}; worse or better only when Holm's adjusted p <= {:g} over the {} timing rows (so "
      "noise fails this gate run with probability at most {:g}) and the change is beyond {:g}%",
      test, r.options.alpha, r.timing_family, r.options.alpha, 100 * r.options.threshold);
}

// The table (header first, only when a row is shown): worse, better, inconclusive, unchanged.
// Unchanged rows, and inconclusive ones when `hide_inconclusive`, are counted unless `all`.
template <typename Row, typename Emit>
void Rows(std::vector<const Row*> rows, bool all, bool hide_inconclusive, const std::string& header,
          std::string* md, Emit emit) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) {
    return Order(a->verdict) < Order(b->verdict);
  });
  size_t hidden = 0;
  bool any = false;
  for (const Row* r : rows) {
    const bool quiet = r->verdict == RowVerdict::kUnchanged ||
                       (hide_inconclusive && r->verdict == RowVerdict::kInconclusive);
    if (!all && quiet) {
      ++hidden;
      continue;
    }
    if (!any) *md += header;
    any = true;
    *md += emit(*r);
  }
  if (hidden > 0) {
    *md += fmt::format("{}{} {} rows not shown (`--all` lists them).\n", any ? "\n" : "", hidden,
                       hide_inconclusive ? "unchanged or inconclusive" : "unchanged");
  }
}

void List(const std::string& title, const std::vector<std::string>& items, bool all,
          std::string* md) {
  if (items.empty()) return;
  *md += fmt::format("\n{} ({}):\n", title, items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (!all && i == kListLimit) {
      *md += fmt::format("- ... and {} more (`--all` lists them)\n", items.size() - kListLimit);
      break;
    }
    *md += "- " + Escape(items[i]) + "\n";
  }
}

std::string Xml(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t') {
          out += fmt::format("&#x{:x};", c == 0 ? 0xfffd : c);  // XML 1.0 has no NUL
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace

std::string RenderMarkdown(const GateReport& r, const RenderOptions& options) {
  std::string md;
  const size_t n = r.regressions.size();
  if (n > 0) {
    md += fmt::format("## kvlab gate: FAIL ({} regression{})\n\n", n, n == 1 ? "" : "s");
  } else if (!r.inconclusive.empty()) {
    md += fmt::format(
        "## kvlab gate: INCONCLUSIVE ({} gated timing finding{} the data cannot judge; no "
        "regression found, none ruled out)\n\n",
        r.inconclusive.size(), r.inconclusive.size() == 1 ? "" : "s");
    if (!options.conclusive_command.empty()) {
      md += "To make it conclusive: " + options.conclusive_command + "\n\n";
    }
  } else {
    md += "## kvlab gate: PASS\n\n";
  }
  md += "- Baseline: " + Describe(r.baseline_path, r.baseline_description, r.baseline_env) + "\n";
  md += "- Current: " + Describe(r.current_path, r.current_description, r.current_env) + "\n";
  if (r.kind != InputKind::kConform) {
    md += "- Counters: compared exactly; any increase is a regression.\n";
    if (r.timings_compared) {
      md += fmt::format("- Timings: {}: {}.\n",
                        r.timings_gated ? "gated" : "reported, not gated (--timings report)",
                        TimingMethod(r));
      const analysis::CommonShift& c = r.common_shift;
      if (c.present) {
        md += fmt::format(
            "- **Machine-wide shift: {:+.1f}%** (the median of {} timing rows, {} of them beyond "
            "{:g}% the same way; quartiles {:+.1f}%..{:+.1f}%). One finding, not {} rows: {}. "
            "Each row is judged beside it.\n",
            100 * (c.ratio - 1), c.rows, c.beyond_threshold, 100 * r.options.threshold,
            100 * (c.low - 1), 100 * (c.high - 1), c.beyond_threshold,
            c.ratio > 1 ? "an unpaired comparison cannot tell a slower machine from a change "
                          "that slows everything, so it cannot pass or fail on it"
                        : "the current run's machine was faster; a regression would show as a "
                          "row beyond it");
      }
      if (!r.loaded.empty()) {
        md += "- **Loaded machine**: " + r.loaded +
              ". Unpaired timings can neither pass nor fail there: a row that differs is "
              "inconclusive, and so is the run's verdict on timings.\n";
      }
    } else {
      md += "- Timings: " + r.timings_note + "\n";
    }
  }
  if (n > 0) {
    md += "\n### Regressions\n\n";
    for (size_t i = 0; i < n; ++i) {
      if (!options.all && i == kListLimit) {
        md += fmt::format("- ... and {} more (`--all` lists them)\n", n - kListLimit);
        break;
      }
      md += "- " + Escape(r.regressions[i]) + "\n";
    }
  }

  if (!r.counters.empty()) {
    md += "\n### Counters: " + Counts(Count(r.counters), false) + "\n\n";
    std::vector<const CounterRow*> rows;
    for (const CounterRow& c : r.counters) rows.push_back(&c);
    const std::string header =
        "| verdict | cell | counter | baseline | current | change "
        "|\n|---|---|---|---:|---:|---:|\n";
    Rows(rows, options.all, false, header, &md, [](const CounterRow& c) {
      return fmt::format(
          "| {} | {} | {} {} | {} | {} | {:+.6g} |\n", VerdictCell(c.verdict), Escape(c.cell),
          c.metric, c.unit,
          CounterValue(c.baseline, c.baseline_varies, c.baseline_min, c.baseline_max),
          CounterValue(c.current, c.current_varies, c.current_min, c.current_max),
          c.current - c.baseline);
    });
  }
  if (r.improved && !options.update_command.empty()) {
    md += "\nImprovements: when they are intended, refresh the baseline with `" +
          options.update_command + "`.\n";
  }

  if (!r.timings.empty()) {
    md += fmt::format("\n### Timings ({}): {}\n\n", r.timings_gated ? "gated" : "not gated",
                      Counts(Count(r.timings), true));
    const std::string header =
        "| verdict | cell | metric | baseline median [min, max] | current median [min, max] | "
        "change [interval of the ratio] | p | adjusted p | n |\n"
        "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
    std::vector<const TimingRow*> rows;
    for (const TimingRow& t : r.timings) rows.push_back(&t);
    const bool gated = r.timings_gated;
    // Ungated inconclusive rows (e.g. single repetitions in CI) would only be noise.
    Rows(rows, options.all, !gated, header, &md, [gated](const TimingRow& t) {
      return fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                         VerdictCell(t.verdict, gated), Escape(t.cell), t.metric,
                         SampleCell(t.baseline, t.unit), SampleCell(t.current, t.unit),
                         ChangeCell(t), PCell(t.p_value), PCell(t.p_adjusted),
                         t.paired ? fmt::format("{} pairs", t.baseline.n)
                                  : fmt::format("{} vs {}", t.baseline.n, t.current.n));
    });
    const auto inconclusive = Count(r.timings)[RowVerdict::kInconclusive];
    if (inconclusive > 0 && gated) {
      for (const TimingRow& t : r.timings) {
        if (t.verdict != RowVerdict::kInconclusive) continue;
        md += "\nInconclusive: " + t.reason + ".\n";
        break;
      }
    }
  }

  if (!r.conformance.empty() || r.kind == InputKind::kConform) {
    md += "\n### Conformance: " + Counts(Count(r.conformance), false) + "\n\n";
    if (r.kind == InputKind::kConform) {
      md += fmt::format(
          "{} matrix cells (subject, version, command) in both results; failing replies: {} in "
          "the baseline, {} now.\n\n",
          r.conform_cells_compared, r.baseline_failures_total, r.current_failures_total);
    }
    if (!r.conformance.empty()) {
      // Failing cases, every one; then the matrix cells whose failures changed.
      std::vector<const ConformRow*> cases, cells;
      for (const ConformRow& c : r.conformance) (c.is_case ? cases : cells).push_back(&c);
      const auto row = [](const ConformRow& c) {
        return fmt::format("| {} | {} | {} |\n", VerdictCell(c.verdict), Escape(c.what),
                           Escape(c.detail));
      };
      Rows(cases, true, false, "| verdict | case | detail |\n|---|---|---|\n", &md, row);
      if (!cases.empty()) md += "\n";
      Rows(cells, options.all, false,
           "| verdict | matrix cell | replies now (and in the baseline) |\n|---|---|---|\n", &md,
           row);
    }
    if (r.baseline_failures_total == 0 && r.current_failures_total == 0) {
      md += "No failing case in either result.\n";
    }
  }

  if (!r.cell_errors.empty()) {
    md += "\n### Cells that failed\n\n";
    for (const CellErrorRow& e : r.cell_errors) {
      md += fmt::format("- {}{}: {}\n", Escape(e.cell),
                        e.regression ? " (**new**)" : " (failed in the baseline too)",
                        Escape(e.error));
    }
  }
  if (!r.only_in_baseline.empty() || !r.only_in_current.empty()) {
    md += "\n### Unmatched cells\n";
    List(r.options.allow_missing ? "Only in the baseline (allowed by --allow-missing)"
                                 : "Only in the baseline (missing now: a regression)",
         r.only_in_baseline, options.all, &md);
    List("Only in the current result (new, not compared)", r.only_in_current, options.all, &md);
  }
  if (!r.notes.empty()) {
    md += "\n### Notes\n\n";
    for (const std::string& note : r.notes) md += "- " + Escape(note) + "\n";
  }
  return md;
}

std::string RenderJUnit(const GateReport& r) {
  struct Case {
    std::string classname, name, failure, skipped, out;
  };
  std::map<std::string, std::vector<Case>> suites;
  for (const CounterRow& c : r.counters) {
    Case k{c.cell, c.metric, "", "", ""};
    const std::string numbers = fmt::format("{} {}: baseline {}, current {}", c.metric, c.unit,
                                            Num(c.baseline), Num(c.current));
    if (c.verdict == RowVerdict::kWorse) k.failure = numbers;
    k.out = numbers;
    suites["counters"].push_back(std::move(k));
  }
  for (const TimingRow& t : r.timings) {
    Case k{t.cell, t.metric, "", "", ""};
    const std::string numbers = fmt::format(
        "{}: baseline median {}, current median {} ({:+.1f}%), p = {:.2g}, adjusted p = {:.2g}: "
        "{}",
        t.metric, FormatValue(t.baseline.median, t.unit), FormatValue(t.current.median, t.unit),
        100 * (t.ratio - 1), t.p_value, t.p_adjusted, t.reason);
    if (t.verdict == RowVerdict::kWorse && r.timings_gated) k.failure = numbers;
    if (t.verdict == RowVerdict::kInconclusive) k.skipped = t.reason;
    k.out = numbers;
    suites["timings"].push_back(std::move(k));
  }
  for (const ConformRow& c : r.conformance) {
    Case k{"conformance", c.what, "", "", c.detail};
    if (c.verdict == RowVerdict::kWorse) k.failure = c.detail;
    suites["conformance"].push_back(std::move(k));
  }
  for (const CellErrorRow& e : r.cell_errors) {
    Case k{e.cell, "runs", "", "", e.error};
    if (e.regression) k.failure = e.error;
    suites["cells"].push_back(std::move(k));
  }
  for (const std::string& m : r.only_in_baseline) {
    Case k{m, "present", "", "", "in the baseline, missing from the current result"};
    if (!r.options.allow_missing) k.failure = k.out;
    suites["cells"].push_back(std::move(k));
  }
  size_t tests = 0, failures = 0, skipped = 0;
  for (const auto& [name, cases] : suites) {
    for (const Case& c : cases) {
      ++tests;
      if (!c.failure.empty()) ++failures;
      if (!c.skipped.empty()) ++skipped;
    }
  }
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml +=
      fmt::format("<testsuites name=\"kvlab gate\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                  tests, failures, skipped);
  for (const auto& [suite, cases] : suites) {
    size_t f = 0, s = 0;
    for (const Case& c : cases) {
      f += !c.failure.empty();
      s += !c.skipped.empty();
    }
    xml += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                       suite, cases.size(), f, s);
    for (const Case& c : cases) {
      xml +=
          fmt::format("    <testcase classname=\"{}\" name=\"{}\">", Xml(c.classname), Xml(c.name));
      if (!c.failure.empty()) {
        xml += fmt::format("<failure message=\"{}\"/>", Xml(c.failure));
      } else if (!c.skipped.empty()) {
        xml += fmt::format("<skipped message=\"{}\"/>", Xml(c.skipped));
      }
      if (!c.out.empty()) xml += "<system-out>" + Xml(c.out) + "</system-out>";
      xml += "</testcase>\n";
    }
    xml += "  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  return xml;
}

}  // namespace kvlab::gate
