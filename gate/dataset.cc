#include "gate/dataset.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace kvlab::gate {

using nlohmann::json;

std::string InputKindName(InputKind kind) {
  switch (kind) {
    case InputKind::kBench:
      return "kvlab bench result";
    case InputKind::kConform:
      return "kvlab conform result";
    case InputKind::kGoogleBenchmark:
      return "Google Benchmark JSON";
  }
  return "?";
}

std::string CellName(const Cell& cell) {
  std::string out;
  auto add = [&](const std::string& part) {
    if (part.empty()) return;
    if (!out.empty()) out += " · ";
    out += part;
  };
  add(cell.key.workload);
  add(cell.key.phase);
  add(cell.key.command);
  add(cell.key.backend);
  add(cell.profile_label.empty() ? cell.key.profile : cell.profile_label);
  return out;
}

std::string ConformFailure::Id() const {
  return subject + "\n" + profile + "\n" + source + "\n" + std::to_string(line) + "\n" + command;
}

std::string ConformFailure::Name() const {
  return fmt::format("{}:{} `{}` on {} {}", source, line, command, subject, profile);
}

const std::set<std::string>& DefaultExactCounterNames() {
  // backends/counting_store.h (OpCounts) and redis/tier.h (TierCounts): the counters kvlab's
  // benchmarks report per call. They are deterministic for a fixed workload and seed.
  static const std::set<std::string> names = {"gets",          "multiget_calls",
                                              "multiget_keys", "puts",
                                              "deletes",       "range_deletes",
                                              "batches",       "batch_records",
                                              "seeks",         "nexts",
                                              "prevs",         "bytes_read",
                                              "bytes_written", "tier_round_trips",
                                              "tier_commands", "cache_hits",
                                              "cache_misses",  "cache_degraded"};
  return names;
}

namespace {

// The markers of the trustworthy-results work (issue 12) and of older results: a reader must
// not treat a result that says it is unfinished as a finished one.
void CheckCompletion(const json& doc, Dataset* out) {
  if (doc.value("partial", false)) {
    std::string reason = "the result is partial";
    if (doc.contains("partial_reason") && doc["partial_reason"].is_string()) {
      reason += " (" + doc["partial_reason"].get<std::string>() + ")";
    }
    out->untrustworthy.push_back(reason);
  }
  if (doc.contains("complete") && doc["complete"].is_boolean() && !doc["complete"].get<bool>()) {
    out->untrustworthy.push_back("the result is incomplete (its writer did not finish)");
  }
  for (const char* marker : {"incomplete", "in_progress"}) {
    if (doc.contains(marker) && doc[marker].is_boolean() && doc[marker].get<bool>()) {
      out->untrustworthy.push_back(
          fmt::format("the result is marked {} (its writer did not finish)", marker));
    }
  }
  if (doc.contains("degraded") && doc["degraded"].is_boolean() && doc["degraded"].get<bool>()) {
    out->untrustworthy.push_back("the result is marked degraded");
  }
}

}  // namespace

Status ParseDataset(const json& doc, const std::string& path, const LoadOptions& options,
                    Dataset* out) {
  *out = Dataset();
  out->path = path;
  if (!doc.is_object()) {
    return Status::InvalidArgument(path +
                                   ": not a kvlab bench, kvlab conform or Google Benchmark "
                                   "result (the document is not a JSON object)");
  }
  Status s;
  try {
    if (doc.contains("schema") && doc["schema"].is_string()) {
      const std::string schema = doc["schema"].get<std::string>();
      if (schema != "kvlab-bench-result") {
        return Status::InvalidArgument(fmt::format(
            "{}: unknown schema '{}' (the gate reads kvlab-bench-result, kvlab conform results "
            "and Google Benchmark JSON)",
            path, schema));
      }
      out->kind = InputKind::kBench;
      s = ParseBenchResult(doc, options, out);
    } else if (doc.value("tool", "") == "kvlab conform") {
      out->kind = InputKind::kConform;
      s = ParseConformResult(doc, out);
    } else if (doc.contains("benchmarks") && doc.contains("context")) {
      out->kind = InputKind::kGoogleBenchmark;
      s = ParseGoogleBenchmark(doc, options, out);
    } else {
      return Status::InvalidArgument(
          path +
          ": not a kvlab bench, kvlab conform or Google Benchmark result (no \"schema\", "
          "\"tool\" or \"benchmarks\" member)");
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(
        fmt::format("{}: malformed {}: {}", path, InputKindName(out->kind), e.what()));
  }
  if (!s.ok()) return Status::InvalidArgument(path + ": " + s.message());
  CheckCompletion(doc, out);
  return Status::OK();
}

namespace {

// Google Benchmark writes non-finite values as bare NaN / inf / -nan tokens (its "cv" aggregate
// of a constant counter is 0/0), which JSON does not have: they become null, outside strings.
std::string NullNonFinite(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (const char* token : {"-Infinity", "Infinity", "-nan", "-inf", "NaN", "nan", "inf"}) {
      const size_t n = std::char_traits<char>::length(token);
      if (text.compare(i, n, token) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

Status LoadDataset(const std::string& path, const LoadOptions& options, Dataset* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot read the file (missing or unreadable)");
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(NullNonFinite(text.str()));
  } catch (const json::parse_error& e) {
    return Status::InvalidArgument(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  return ParseDataset(doc, path, options, out);
}

// ---- kvlab conform ----------------------------------------------------------------------

Status ParseConformResult(const json& doc, Dataset* out) {
  const int version = doc.value("schema_version", 0);
  if (version != 1 && version != 2) {
    return Status::InvalidArgument(fmt::format(
        "kvlab conform result of schema_version {}, this kvlab reads versions 1 and 2", version));
  }
  out->description = fmt::format("kvlab conform result (schema {})", version);
  out->conform_verdict = doc.value("verdict", "");
  const std::string command_line = doc.value("command_line", "");
  // "kvlab conform --backends memory": the arguments after the program name, split on spaces
  // (conform records its command line as one string).
  std::istringstream words(command_line);
  std::string word;
  bool first = true;
  while (words >> word) {
    if (!first) out->command_args.push_back(word);
    first = false;
  }
  for (const json& c : doc.at("matrix")) {
    ConformTally t;
    t.subject = c.at("subject").get<std::string>();
    t.version = c.at("version").get<std::string>();
    t.command = c.at("command").get<std::string>();
    t.pass = c.at("pass").get<uint64_t>();
    t.deviation = c.at("deviation").get<uint64_t>();
    t.fail = c.at("fail").get<uint64_t>();
    out->conform_tallies.push_back(std::move(t));
  }
  for (const json& f : doc.at("failures")) {
    ConformFailure cf;
    cf.subject = f.at("subject").get<std::string>();
    cf.profile = f.at("profile").get<std::string>();
    cf.source = f.at("source").get<std::string>();
    cf.line = f.at("line").get<int64_t>();
    cf.command = f.at("command").get<std::string>();
    cf.redis = f.value("redis", "");
    // Version 2 names the subject's reply for what it is; version 1 called it "kvlab".
    cf.kvlab = f.value(version >= 2 ? "subject_reply" : "kvlab", "");
    cf.explanation = f.value("explanation", "");
    out->conform_failures.push_back(std::move(cf));
  }
  out->conform_failures_total = doc.value("failures_total", out->conform_failures.size());
  return Status::OK();
}

// ---- Google Benchmark -------------------------------------------------------------------

namespace {

double ToNanoseconds(double value, const std::string& unit) {
  if (unit == "ns" || unit.empty()) return value;
  if (unit == "us") return value * 1e3;
  if (unit == "ms") return value * 1e6;
  if (unit == "s") return value * 1e9;
  return value;
}

bool IsStandardMember(const std::string& name) {
  static const std::set<std::string> standard = {"name",
                                                 "family_index",
                                                 "per_family_instance_index",
                                                 "run_name",
                                                 "run_type",
                                                 "repetitions",
                                                 "repetition_index",
                                                 "threads",
                                                 "iterations",
                                                 "real_time",
                                                 "cpu_time",
                                                 "time_unit",
                                                 "label",
                                                 "error_occurred",
                                                 "error_message",
                                                 "aggregate_name",
                                                 "aggregate_unit",
                                                 "big_o",
                                                 "rms",
                                                 "skipped",
                                                 "skip_message"};
  return standard.count(name) > 0;
}

bool HigherIsBetter(const std::string& counter) {
  return counter.ends_with("_per_second") || counter.ends_with("per_s") ||
         counter.find("throughput") != std::string::npos;
}

}  // namespace

Status ParseGoogleBenchmark(const json& doc, const LoadOptions& options, Dataset* out) {
  const json& ctx = doc.at("context");
  out->description = "Google Benchmark JSON";
  Environment& env = out->env;
  env.hostname = ctx.value("host_name", "");
  std::string caches;
  if (ctx.contains("caches")) {
    for (const json& c : ctx["caches"]) {
      caches += fmt::format(" L{}{}:{}", c.value("level", 0), c.value("type", "").substr(0, 1),
                            c.value("size", 0));
    }
  }
  env.machine = fmt::format("{} cpus at {} MHz{}", ctx.value("num_cpus", 0),
                            ctx.value("mhz_per_cpu", 0), caches.empty() ? "" : "," + caches);
  env.build = ctx.value("library_build_type", "");
  if (ctx.contains("kvlab_build_type")) {
    env.build = ctx["kvlab_build_type"].get<std::string>() + " (library " + env.build + ")";
  }
  if (ctx.value("kvlab_timing_valid", "true") == "false") {
    env.timing_valid = false;
    env.timing_invalid_reason = ctx.value("kvlab_timing_invalid_reason", "marked invalid");
  }
  if (ctx.contains("kvlab_commit")) env.commit = ctx["kvlab_commit"].get<std::string>();
  if (ctx.contains("date") && ctx["date"].is_string()) env.date = ctx["date"].get<std::string>();
  if (ctx.contains("load_avg") && ctx["load_avg"].is_array() && !ctx["load_avg"].empty()) {
    env.load_average = ctx["load_avg"][0].get<double>();
  }

  const json& benchmarks = doc.at("benchmarks");
  if (!benchmarks.is_array()) return Status::InvalidArgument("\"benchmarks\" is not an array");
  bool only_aggregates = true;
  for (const json& b : benchmarks) {
    if (b.value("run_type", "iteration") != "aggregate") only_aggregates = false;
  }
  if (only_aggregates && !benchmarks.empty()) {
    out->notes.push_back(
        "only aggregates in the file (--benchmark_report_aggregates_only): each benchmark's "
        "median is one sample, so its timings are inconclusive");
  }
  for (const json& b : benchmarks) {
    const std::string run_type = b.value("run_type", "iteration");
    if (run_type == "aggregate") {
      if (!only_aggregates || b.value("aggregate_name", "") != "median") continue;
    }
    const std::string name = b.value("run_name", b.at("name").get<std::string>());
    CellKey key;
    key.command = name;
    Cell& cell = out->cells[key];
    cell.key = key;
    if (b.value("error_occurred", false) && cell.error.empty()) {
      cell.error = b.value("error_message", "error");
      continue;
    }
    const std::string unit = b.value("time_unit", "ns");
    for (const char* t : {"real_time", "cpu_time"}) {
      if (!b.contains(t)) continue;
      Metric& m = cell.metrics[t];
      m.kind = MetricKind::kTiming;
      m.unit = "ns";
      m.samples.push_back(ToNanoseconds(b[t].get<double>(), unit));
    }
    for (const auto& [member, value] : b.items()) {
      if (IsStandardMember(member) || !value.is_number()) continue;
      Metric& m = cell.metrics[member];
      const bool exact =
          DefaultExactCounterNames().count(member) || options.exact_counters.count(member);
      m.kind = exact ? MetricKind::kCounter : MetricKind::kTiming;
      m.direction = HigherIsBetter(member) ? analysis::Direction::kHigherIsBetter
                                           : analysis::Direction::kLowerIsBetter;
      m.unit = exact ? "per iteration" : "";
      m.tolerance = 1e-3;
      m.samples.push_back(value.get<double>());
    }
    cell.calls += b.value("iterations", uint64_t{0});
  }
  return Status::OK();
}

}  // namespace kvlab::gate
