#include "gate/history.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "analysis/change_point.h"
#include "analysis/summary.h"
#include "base/data_dir.h"
#include "gate/process.h"
#include "gate/units.h"

namespace kvlab::gate {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double Median(const std::vector<double>& v) { return analysis::Summarize(v).median; }

bool SameCount(double a, double b, double tolerance) {
  return std::fabs(a - b) <= tolerance * std::max({1.0, std::fabs(a), std::fabs(b)});
}

std::string RunLabel(const HistoryRun& run, size_t index) {
  std::string out = fmt::format("run {} ({}", index + 1, run.name);
  if (!run.commit.empty()) out += ", commit " + run.commit.substr(0, 12);
  return out + ")";
}

// Shuffles per candidate: enough that the smallest attainable p, 1 / (R + 1), is a tenth of
// the level, so that a clear change is not held back by the shuffle count.
size_t PermutationsFor(double level) {
  return static_cast<size_t>(std::min(200000.0, std::ceil(10 / level)));
}

// A level as the tables show it: counters with their digits, timings in their unit.
std::string Level(double v, const HistorySeries& s) {
  return s.counter ? fmt::format("{:.6g}", v) : FormatValue(v, s.unit);
}

}  // namespace

std::string HistoryFileName(const Dataset& result) {
  std::string date;
  for (char c : result.env.date) {
    if (std::isalnum(static_cast<unsigned char>(c))) date += c;
  }
  if (date.empty()) date = "undated";
  std::string commit;
  for (char c : result.env.commit.substr(0, 12)) {
    if (std::isalnum(static_cast<unsigned char>(c))) commit += c;
  }
  return date + (commit.empty() ? "" : "-" + commit) + ".json";
}

Status AnalyzeHistory(const std::string& dir, const HistoryOptions& options,
                      HistoryReport* report) {
  *report = HistoryReport();
  report->dir = dir;
  report->options = options;
  if (options.min_segment < 2) {
    return Status::InvalidArgument("the minimum segment of a change must be at least 2 runs");
  }
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument(dir + ": not a directory of results (--history DIR)");
  }
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      paths.push_back(entry.path().string());
    }
  }
  if (paths.empty()) return Status::InvalidArgument(dir + ": no *.json results in it");
  std::vector<Dataset> results(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    KVLAB_RETURN_IF_ERROR(LoadDataset(paths[i], options.load, &results[i]));
    if (results[i].kind == InputKind::kConform) {
      return Status::InvalidArgument(paths[i] +
                                     ": a kvlab conform result; --history reads bench and Google "
                                     "Benchmark results (conformance is exact: compare two "
                                     "results with --baseline and --current)");
    }
    if (results[i].kind != results[0].kind) {
      return Status::InvalidArgument(fmt::format("{} is a {}, but {} is a {}: one kind per history",
                                                 paths[i], InputKindName(results[i].kind), paths[0],
                                                 InputKindName(results[0].kind)));
    }
    if (!results[i].untrustworthy.empty()) {
      report->notes.push_back(fmt::format("{} left out: {}", fs::path(paths[i]).filename().string(),
                                          results[i].untrustworthy[0]));
    }
  }
  // Oldest first: by the date the result records, then by file name.
  std::vector<size_t> order(paths.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(results[a].env.date, paths[a]) < std::tie(results[b].env.date, paths[b]);
  });
  std::map<std::pair<std::string, std::string>, size_t> index;  // (cell, metric) -> series
  std::set<std::string> machines;
  for (size_t i : order) {
    const Dataset& d = results[i];
    if (!d.untrustworthy.empty()) continue;
    const size_t run = report->runs.size();
    report->runs.push_back({paths[i], fs::path(paths[i]).filename().string(), d.env.date,
                            d.env.commit, d.env.machine});
    if (!d.env.machine.empty()) machines.insert(d.env.machine);
    for (const auto& [key, cell] : d.cells) {
      if (!cell.error.empty()) continue;
      const std::string name = CellName(cell);
      for (const auto& [metric, m] : cell.metrics) {
        if (m.samples.empty()) continue;
        auto [it, fresh] = index.try_emplace({name, metric}, report->series.size());
        if (fresh) {
          HistorySeries s;
          s.cell = name;
          s.metric = metric;
          s.unit = m.unit;
          s.counter = m.kind == MetricKind::kCounter;
          s.direction = m.direction;
          s.tolerance = m.tolerance;
          report->series.push_back(std::move(s));
        }
        HistorySeries& s = report->series[it->second];
        s.runs.push_back(run);
        s.values.push_back(Median(m.samples));
      }
    }
  }
  if (machines.size() > 1) {
    report->notes.push_back(fmt::format(
        "the runs come from {} machine classes: a change of machine shows as a change of level",
        machines.size()));
  }
  const size_t n_runs = report->runs.size();
  const size_t first_recent = n_runs > options.recent ? n_runs - options.recent : 0;
  for (const HistorySeries& s : report->series) {
    if (!s.counter && s.values.size() >= 2 * options.min_segment) ++report->timing_series_tested;
  }
  report->level =
      options.alpha / static_cast<double>(std::max<size_t>(1, report->timing_series_tested));
  report->permutations = PermutationsFor(report->level);
  if (report->timing_series_tested == 0) {
    report->inconclusive = fmt::format(
        "{} runs: a change in timings needs at least {} runs of a series ({} on each side); "
        "counters were compared run by run",
        n_runs, 2 * options.min_segment, options.min_segment);
  }
  for (size_t si = 0; si < report->series.size(); ++si) {
    const HistorySeries& s = report->series[si];
    std::vector<HistoryChange> found;
    if (s.counter) {
      for (size_t k = 1; k < s.values.size(); ++k) {
        if (SameCount(s.values[k - 1], s.values[k], s.tolerance)) continue;
        HistoryChange c;
        c.series = si;
        c.run = s.runs[k];
        c.before = s.values[k - 1];
        c.after = s.values[k];
        c.worse = c.after > c.before;
        c.large = true;
        found.push_back(c);
      }
    } else if (s.values.size() >= 2 * options.min_segment) {
      analysis::ChangePointOptions o;
      o.min_segment = options.min_segment;
      o.significance = report->level;
      o.permutations = report->permutations;
      o.seed = si + 1;
      for (const analysis::ChangePoint& p : analysis::EDivisive(s.values, o)) {
        HistoryChange c;
        c.series = si;
        c.run = s.runs[p.index];
        c.before = p.before_median;
        c.after = p.after_median;
        c.p_value = p.p_value;
        c.permutations = p.permutations;
        const bool higher = c.after > c.before;
        c.worse = higher == (s.direction == analysis::Direction::kLowerIsBetter);
        c.large = c.before != 0 && std::fabs(c.after / c.before - 1) > options.threshold;
        found.push_back(c);
      }
    }
    for (HistoryChange& c : found) {
      c.recent = c.run >= first_recent;
      if (c.worse && c.large && c.recent) {
        const std::string size =
            s.counter ? fmt::format("{:.6g} -> {:.6g} {}", c.before, c.after, s.unit)
                      : fmt::format(
                            "{} -> {} ({:+.1f}%), confidence {:.4g}% (p = {:.2g} <= "
                            "{:.2g})",
                            FormatValue(c.before, s.unit), FormatValue(c.after, s.unit),
                            100 * (c.after / c.before - 1), 100 * (1 - c.p_value), c.p_value,
                            report->level);
        report->regressions.push_back(fmt::format("{}: {} from {} on: {}", s.cell, s.metric,
                                                  RunLabel(report->runs[c.run], c.run), size));
      }
      report->changes.push_back(c);
    }
  }
  return Status::OK();
}

std::string RenderHistoryMarkdown(const HistoryReport& r, const std::vector<std::string>& plots) {
  std::string md;
  const size_t n = r.regressions.size();
  if (n > 0) {
    md += fmt::format("## kvlab gate --history: FAIL ({} regression{} in the newest {} runs)\n\n",
                      n, n == 1 ? "" : "s", r.options.recent);
  } else if (!r.inconclusive.empty()) {
    md += "## kvlab gate --history: INCONCLUSIVE (" + r.inconclusive + ")\n\n";
  } else {
    md += "## kvlab gate --history: PASS\n\n";
  }
  md += fmt::format("- History: `{}`, {} runs, {} series ({} timing series searched).\n", r.dir,
                    r.runs.size(), r.series.size(), r.timing_series_tested);
  md += fmt::format(
      "- Counters: exact; a change is any run whose value differs from the run before.\n"
      "- Timings: E-divisive means (energy statistic, permutation test with up to {} shuffles, "
      "at least {} runs on each side of a change), each series at level {:g} / {} = {:.2g} "
      "(Bonferroni: noise names a change somewhere in this history with probability at most "
      "{:g}); a change beyond {:g}% in the worse direction is a regression.\n"
      "- Gated: changes that began in the newest {} runs; older ones are listed.\n",
      r.permutations, r.options.min_segment, r.options.alpha,
      std::max<size_t>(1, r.timing_series_tested), r.level, r.options.alpha,
      100 * r.options.threshold, r.options.recent);
  if (n > 0) {
    md += "\n### Regressions\n\n";
    for (const std::string& line : r.regressions) md += "- " + line + "\n";
  }
  md += fmt::format("\n### Level changes ({})\n\n", r.changes.size());
  if (r.changes.empty()) {
    md += "No level change in any series.\n";
  } else {
    md +=
        "| cell | metric | began at | before | after | change | confidence | verdict |\n"
        "|---|---|---|---:|---:|---:|---:|---|\n";
    for (const HistoryChange& c : r.changes) {
      const HistorySeries& s = r.series[c.series];
      const std::string verdict = !c.large  ? "within the threshold"
                                  : c.worse ? (c.recent ? "**worse**" : "worse (older)")
                                            : "better";
      md += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} |\n", s.cell, s.metric,
          RunLabel(r.runs[c.run], c.run), Level(c.before, s), Level(c.after, s),
          c.before != 0 ? fmt::format("{:+.1f}%", 100 * (c.after / c.before - 1)) : "from 0",
          s.counter ? "exact"
                    : fmt::format("{:.4g}% (p = {:.2g})", 100 * (1 - c.p_value), c.p_value),
          verdict);
    }
  }
  md += "\n### Runs\n\n";
  for (size_t i = 0; i < r.runs.size(); ++i) {
    const HistoryRun& run = r.runs[i];
    md += fmt::format("{}. `{}`{}{}\n", i + 1, run.name, run.date.empty() ? "" : ", " + run.date,
                      run.commit.empty() ? "" : ", commit " + run.commit);
  }
  if (!plots.empty()) {
    md += "\n### Series\n\n";
    for (const std::string& p : plots) md += fmt::format("![{}]({})\n\n", p, p);
  }
  if (!r.notes.empty()) {
    md += "\n### Notes\n\n";
    for (const std::string& note : r.notes) md += "- " + note + "\n";
  }
  return md;
}

json HistoryPlotInput(const HistoryReport& r) {
  json runs = json::array();
  for (const HistoryRun& run : r.runs) {
    runs.push_back({{"name", run.name}, {"date", run.date}, {"commit", run.commit.substr(0, 12)}});
  }
  // Cells with a change first (their plots matter most), then the others, by name.
  std::map<std::string, json> cells;
  std::set<std::string> changed;
  for (const HistoryChange& c : r.changes) changed.insert(r.series[c.series].cell);
  for (size_t si = 0; si < r.series.size(); ++si) {
    const HistorySeries& s = r.series[si];
    json changes = json::array();
    for (const HistoryChange& c : r.changes) {
      if (c.series != si) continue;
      changes.push_back({{"run", c.run},
                         {"before", c.before},
                         {"after", c.after},
                         {"p", s.counter ? json(nullptr) : json(c.p_value)},
                         {"worse", c.worse},
                         {"large", c.large}});
    }
    json& cell = cells[s.cell];
    if (cell.is_null())
      cell = {{"name", s.cell}, {"changed", changed.count(s.cell) > 0}, {"metrics", json::array()}};
    cell["metrics"].push_back({{"metric", s.metric},
                               {"unit", s.unit},
                               {"counter", s.counter},
                               {"runs", s.runs},
                               {"values", s.values},
                               {"changes", changes}});
  }
  json ordered = json::array();
  for (bool want : {true, false}) {
    for (auto& [name, cell] : cells) {
      if (cell["changed"].get<bool>() == want) ordered.push_back(cell);
    }
  }
  return {{"schema", "kvlab-trend-plot"}, {"runs", runs}, {"cells", ordered}};
}

Status DrawTrendPlots(const std::string& input, const std::string& dir,
                      std::vector<std::string>* files) {
  files->clear();
  const char* env = std::getenv("KVLAB_PYTHON");
  const std::string python = env && *env ? env : "/usr/bin/python3";
  if (::access(python.c_str(), X_OK) != 0) {
    return Status::NotSupported(python + " not found (install python3-matplotlib)");
  }
  std::string script;
  KVLAB_RETURN_IF_ERROR(FindDataFile("reports/plot_trend.py", &script));
  const std::string log = (fs::path(dir) / "trend-plots.log").string();
  std::string error;
  const int rc = RunProgram(python, {script, input, dir}, log, &error);
  if (rc < 0) return Status::IOError(error);
  if (rc != 0) {
    return Status::NotSupported(
        fmt::format("{} exited with status {}: {}", script, rc, FileTail(log, 600)));
  }
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.ends_with(".png")) files->push_back(line);
  }
  std::error_code ec;
  fs::remove(log, ec);
  return Status::OK();
}

}  // namespace kvlab::gate
