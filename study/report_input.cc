#include "study/report_input.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/comparison.h"
#include "analysis/summary.h"
#include "base/data_dir.h"
#include "base/run_to_completion.h"
#include "gate/compare.h"
#include "gate/dataset.h"
#include "study/metrics.h"
#include "study/version_legend.h"
#include "workloads/build_info.h"
#include "workloads/report.h"
#include "workloads/result.h"

namespace kvlab::study {
using namespace kvlab::workloads;  // NOLINT: this file drives that module
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// "rocksdb h0 z1": the cell's backend and its profile's label (results are normalized by
// workloads::NormalizeResult, so every run has a profile).
std::string CellLabel(const json& run) {
  std::string label = run.value("backend", "?");
  if (run.value("target", "") == "resp") label = "resp " + label;
  const std::string profile = ProfileLabel(ProfileOf(run));
  return profile.empty() ? label : label + " " + profile;
}

json SummaryJson(const std::vector<double>& s) {
  if (s.empty()) return nullptr;
  const analysis::Summary m = analysis::Summarize(s);
  return {{"n", m.n},     {"median", m.median}, {"min", m.min},
          {"max", m.max}, {"q1", m.q1},         {"q3", m.q3}};
}

// Samples per (workload, cell, phase, command): p50, p99 (ns) and throughput, per repetition.
struct CellSamples {
  std::string workload, cell, phase, command, backend;
  json profile;  // {"hash": 0, ...}
  std::vector<double> p50, p99, throughput;
  json kv_per_call;  // from the first repetition (exact)
  double calls = 0;
  uint64_t errors = 0;
  std::string first_error;
};

std::map<std::string, CellSamples> CollectSamples(const json& result) {
  std::map<std::string, CellSamples> out;
  for (const json& w : result.value("workloads", json::array())) {
    const std::string wname = w.value("name", "");
    for (const json& run : w.value("runs", json::array())) {
      if (!run.value("error", json()).is_null()) continue;
      const std::string cell = CellLabel(run);
      for (const json& phase : run.value("phases", json::array())) {
        if (phase.value("kind", "") == "load") continue;
        const std::string pname = phase.value("name", "");
        const json& commands = phase.value("commands", json::object());
        auto add = [&](const std::string& command, const json& st) {
          const std::string key = wname + "\n" + cell + "\n" + pname + "\n" + command;
          CellSamples& c = out[key];
          if (c.p50.empty() && c.throughput.empty()) {
            c.workload = wname;
            c.cell = cell;
            c.phase = pname;
            c.command = command;
            c.backend = run.value("backend", "");
            c.profile = run.value("profile", json::object());
            c.kv_per_call = st.value("kv_per_call", json());
          }
          const json& lat = st.value("latency_ns", json::object());
          if (lat.contains("p50")) c.p50.push_back(lat["p50"].get<double>());
          if (lat.contains("p99")) c.p99.push_back(lat["p99"].get<double>());
          c.throughput.push_back(st.value("throughput_per_s", 0.0));
          c.calls += st.value("calls", 0.0);
          c.errors += st.value("errors", uint64_t{0});
          if (c.first_error.empty() && st.contains("first_error")) {
            c.first_error = st["first_error"].get<std::string>();
          }
        };
        for (auto it = commands.begin(); it != commands.end(); ++it) add(it.key(), it.value());
        // The phase as a whole: "*" (its throughput is the phase's).
        json whole = {{"throughput_per_s", phase.value("throughput_per_s", 0.0)},
                      {"calls", phase.value("operations", 0.0)}};
        add("*", whole);
      }
    }
  }
  return out;
}

std::string Describe(const json& ctx) {
  const json& b = ctx.value("build", json::object());
  const json& h = ctx.value("host", json::object());
  return "commit " + b.value("commit", std::string("?")).substr(0, 12) +
         (b.value("commit_dirty", false) ? "+dirty" : "") + ", " + b.value("build_type", "?") +
         ", " + b.value("compiler", "?") + " on " + h.value("hostname", "?") + " (" +
         h.value("cpu_model", "?") + ", " + std::to_string(h.value("usable_cpus", 0)) + " CPUs)";
}

Status ReadJsonFile(const std::string& path, json* out) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read " + path + ": " + std::strerror(errno));
  try {
    *out = json::parse(in);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(path + ": not valid JSON: " + e.what());
  }
  return Status::OK();
}

}  // namespace

Status DetectKind(const json& doc, std::string* kind) {
  if (!doc.is_object()) return Status::InvalidArgument("not a JSON object");
  const std::string schema = doc.value("schema", "");
  if (schema == "kvlab-bench-result") {
    *kind = "bench";
  } else if (schema == "kvlab-study") {
    *kind = "study";
  } else if (doc.value("tool", "") == "kvlab conform") {
    *kind = "conform";
  } else {
    return Status::InvalidArgument(
        "not a kvlab result (expected a bench result, a conform.json or a study.json)");
  }
  return Status::OK();
}

Status ReadAnyResult(const std::string& path, json* doc, std::string* kind, json* bench) {
  KVLAB_RETURN_IF_ERROR(ReadJsonFile(path, doc));
  Status s = DetectKind(*doc, kind);
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  if (*kind == "bench") KVLAB_RETURN_IF_ERROR(NormalizeResult(doc, path));
  *bench = nullptr;
  if (*kind == "study") {
    const std::string rel = doc->value("bench_result", "");
    if (!rel.empty()) {
      // The study's raw bench result, when it is still beside it (the example studies in
      // docs/studies/ keep only study.json): the report then lacks only the workloads section.
      const fs::path p = fs::path(path).parent_path() / rel;
      std::error_code ec;
      if (fs::exists(p, ec)) KVLAB_RETURN_IF_ERROR(ReadResultFile(p.string(), bench));
    }
  }
  return Status::OK();
}

json SummarizeBench(const json& result) {
  json cells = json::array();
  for (const auto& [key, c] : CollectSamples(result)) {
    cells.push_back({{"workload", c.workload},
                     {"cell", c.cell},
                     {"backend", c.backend},
                     {"profile", c.profile},
                     {"phase", c.phase},
                     {"command", c.command},
                     {"calls", c.calls},
                     {"errors", c.errors},
                     {"first_error", c.first_error},
                     {"p50_ns", SummaryJson(c.p50)},
                     {"p99_ns", SummaryJson(c.p99)},
                     {"throughput", SummaryJson(c.throughput)},
                     {"kv_per_call", c.kv_per_call}});
  }
  return {{"cells", cells}};
}

namespace {

json SummaryOf(const analysis::Summary& s) {
  return {{"n", s.n},     {"median", s.median}, {"min", s.min},
          {"max", s.max}, {"q1", s.q1},         {"q3", s.q3}};
}

// One timing row of the gate's comparison, for the page.
json TimingJson(const gate::TimingRow& t) {
  json j = {{"baseline", SummaryOf(t.baseline)},
            {"current", SummaryOf(t.current)},
            {"unit", t.unit},
            {"ratio", std::isfinite(t.ratio) ? json(t.ratio) : json(nullptr)},
            {"p_value", t.p_value},
            {"p_adjusted", t.p_adjusted},
            {"paired", t.paired},
            {"verdict", gate::RowVerdictName(t.verdict)},
            {"reason", t.reason}};
  if (t.has_interval) {
    j["low"] = t.low;
    j["high"] = t.high;
    j["confidence"] = t.confidence;
  }
  if (t.relative_ratio != 1) j["relative_ratio"] = t.relative_ratio;
  return j;
}

// "rocksdb h0 z1", "resp h0": the cell as the page names it.
std::string PageCell(const gate::CellKey& key, const std::string& label) {
  return label.empty() ? key.backend : key.backend + " " + label;
}

}  // namespace

json CompareBench(const json& baseline, const json& other, const std::string& baseline_name,
                  const std::string& other_name) {
  json warnings = json::array();
  const json& bc = baseline.value("context", json::object());
  const json& oc = other.value("context", json::object());
  const std::string bd = Describe(bc), od = Describe(oc);
  const json& bb = bc.value("build", json::object());
  const json& ob = oc.value("build", json::object());
  if (bb.value("commit", "") != ob.value("commit", "") ||
      bb.value("commit_dirty", false) != ob.value("commit_dirty", false) ||
      bb.value("build_type", "") != ob.value("build_type", "") ||
      bb.value("compiler", "") != ob.value("compiler", "")) {
    warnings.push_back("different builds: " + baseline_name + " is " + bd + "; " + other_name +
                       " is " + od);
  }
  // The gate's reading and comparison, exactly: the same cells, the same tests, Holm over every
  // timing row, the same machine-wide shift and loaded-machine rules (docs/gate.md), reported
  // and never gated.
  gate::Dataset b, c;
  gate::LoadOptions load;
  for (auto [doc, name, out] :
       {std::tuple{&baseline, &baseline_name, &b}, std::tuple{&other, &other_name, &c}}) {
    if (Status s = gate::ParseDataset(*doc, *name, load, out); !s.ok()) {
      return {{"baseline", baseline_name},
              {"current", other_name},
              {"error", s.message()},
              {"warnings", warnings},
              {"rows", json::array()}};
    }
    // A partial result is compared for what it holds, and said so (the gate refuses it).
    for (const std::string& u : out->untrustworthy) warnings.push_back(*name + ": " + u);
    out->untrustworthy.clear();
  }
  gate::GateOptions options;
  options.timings = gate::TimingMode::kReport;
  gate::GateReport report;
  if (Status s = gate::Compare(b, c, options, &report); !s.ok()) {
    return {{"baseline", baseline_name},
            {"current", other_name},
            {"error", s.message()},
            {"warnings", warnings},
            {"rows", json::array()}};
  }
  if (!report.timings_compared && !report.timings_note.empty()) {
    warnings.push_back(report.timings_note);
  }
  if (!report.loaded.empty()) {
    warnings.push_back(report.loaded +
                       ": timings that differ are inconclusive there, never better or worse (the "
                       "load can fake a difference or hide one)");
  }
  // Rows by cell: its counters (kv.*, per call) and timings (p50_ns, p99_ns; the phase's
  // throughput on the row of command "*").
  std::map<gate::CellKey, json> rows;
  auto row_of = [&](const gate::CellKey& key, const std::string& label) -> json& {
    json& row = rows[key];
    if (row.is_null()) {
      json profile = json::object();
      std::istringstream words(key.profile);
      std::string word;
      while (words >> word) {
        const size_t eq = word.find('=');
        if (eq != std::string::npos) profile[word.substr(0, eq)] = word.substr(eq + 1);
      }
      row = {{"workload", key.workload},     {"cell", PageCell(key, label)},
             {"backend", key.backend},       {"profile", profile},
             {"phase", key.phase},           {"command", key.command.empty() ? "*" : key.command},
             {"kv_per_call", json::object()}};
    }
    return row;
  };
  for (const gate::CounterRow& r : report.counters) {
    json& row = row_of(r.key, r.profile_label);
    if (!r.metric.starts_with("kv.") || (r.baseline == 0 && r.current == 0)) continue;
    row["kv_per_call"][r.metric.substr(3)] = {{"baseline", r.baseline}, {"current", r.current}};
  }
  for (const gate::TimingRow& t : report.timings) {
    row_of(t.key, t.profile_label)[t.metric] = TimingJson(t);
  }
  for (const auto& [key, cell] : b.cells) {
    if (!c.cells.count(key)) row_of(key, cell.profile_label)["only_in"] = baseline_name;
  }
  for (const auto& [key, cell] : c.cells) {
    if (!b.cells.count(key)) row_of(key, cell.profile_label)["only_in"] = other_name;
  }
  json list = json::array();
  for (auto& [key, row] : rows) list.push_back(std::move(row));
  const analysis::CommonShift& shift = report.common_shift;
  return {{"baseline", baseline_name},
          {"current", other_name},
          {"baseline_build", bd},
          {"current_build", od},
          {"threshold", options.threshold},
          {"alpha", options.alpha},
          {"confidence", options.confidence},
          {"family", report.timing_family},
          {"timings_compared", report.timings_compared},
          {"common_shift",
           {{"present", shift.present},
            {"ratio", shift.ratio},
            {"rows", shift.rows},
            {"beyond_threshold", shift.beyond_threshold},
            {"low", shift.low},
            {"high", shift.high}}},
          {"repetitions_needed", report.repetitions_needed},
          {"warnings", warnings},
          {"rows", list}};
}

std::string ReportScriptPath() {
  if (const char* env = std::getenv("KVLAB_REPORT_SCRIPT")) return env;
  std::string path;
  if (FindDataFile("reports/kvlab_report.py", &path).ok()) return path;
  return DataFileHelp("reports/kvlab_report.py");  // the error names where it was looked for
}

Status WriteReportFor(const std::vector<json>& documents, const std::string& dir,
                      const std::string& markdown_name, ReportFiles* files) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  json input = {{"schema", "kvlab-report-input"},  {"schema_version", 1},
                {"generated", UtcTimestamp()},     {"markdown_name", markdown_name},
                {"versions", VersionLegendJson()}, {"documents", documents},
                {"comparisons", json::array()}};
  // Two or more bench-like documents: each compared with the first.
  std::vector<size_t> benchlike;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (documents[i].contains("bench") && documents[i]["bench"].is_object()) benchlike.push_back(i);
  }
  for (size_t j = 1; j < benchlike.size(); ++j) {
    const json& b = documents[benchlike[0]];
    const json& c = documents[benchlike[j]];
    json cmp = CompareBench(b["bench"], c["bench"], b["name"], c["name"]);
    cmp["baseline_index"] = benchlike[0];
    cmp["current_index"] = benchlike[j];
    input["comparisons"].push_back(cmp);
  }
  const std::string input_path = (fs::path(dir) / "report-input.json").string();
  {
    std::ofstream out(input_path);
    out << input.dump(1) << "\n";
    if (!out) return Status::IOError("cannot write " + input_path);
  }
  const std::string python = PythonPath();
  const std::string script = ReportScriptPath();
  if (access(python.c_str(), X_OK) != 0) {
    return Status::NotSupported(python +
                                " not found (scripts/bootstrap installs python3 and "
                                "python3-matplotlib)");
  }
  if (access(script.c_str(), R_OK) != 0) {
    return Status::NotSupported("the report renderer " + script +
                                " is missing (build the kvlab target, or set "
                                "KVLAB_REPORT_SCRIPT)");
  }
  const std::string log = (fs::path(dir) / "report.log").string();
  int rc = -1;
  KVLAB_RETURN_IF_ERROR(RunToCompletion({python, script, input_path, dir}, log, nullptr, &rc));
  if (rc != 0) {
    std::ifstream in(log);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.size() > 2000) text = "..." + text.substr(text.size() - 2000);
    return Status::IOError("the report renderer failed (exit " + std::to_string(rc) + "):\n" +
                           text);
  }
  files->html = (fs::path(dir) / "index.html").string();
  files->markdown = (fs::path(dir) / markdown_name).string();
  return Status::OK();
}

Status WriteReport(const std::vector<std::string>& inputs, const std::string& dir,
                   const std::string& markdown_name, ReportFiles* files) {
  std::vector<json> documents;
  for (const std::string& path : inputs) {
    json doc, bench;
    std::string kind;
    KVLAB_RETURN_IF_ERROR(ReadAnyResult(path, &doc, &kind, &bench));
    json d = {{"kind", kind}, {"path", path}, {"name", fs::path(path).filename().string()}};
    // A bench result travels once, as `bench`; the others as `data` (and a study's bench
    // result as `bench`).
    if (kind == "bench") {
      bench = std::move(doc);
    } else {
      d["data"] = std::move(doc);
    }
    if (bench.is_object()) {
      d["bench"] = bench;
      d["summary"] = SummarizeBench(bench);
    }
    if (kind == "study" || kind == "bench") {
      // Several results named alike (two study.json files): name them by their directory.
      const std::string parent = fs::path(path).parent_path().filename().string();
      if (kind == "study" && !parent.empty())
        d["name"] = parent + "/" + d["name"].get<std::string>();
    }
    documents.push_back(std::move(d));
  }
  // Names tell the documents apart: the file name, or the path when two share one.
  std::map<std::string, int> uses;
  for (const json& d : documents) ++uses[d["name"].get<std::string>()];
  for (json& d : documents) {
    if (uses[d["name"].get<std::string>()] > 1) d["name"] = d["path"];
  }
  return WriteReportFor(documents, dir, markdown_name, files);
}

}  // namespace kvlab::study
