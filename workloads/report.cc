#include "workloads/report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "workloads/result.h"

#ifndef KVLAB_SOURCE_DIR
#define KVLAB_SOURCE_DIR "."
#endif

namespace kvlab::workloads {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// 3 significant digits, without exponent for everyday magnitudes.
std::string Num(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a < 1e15 && v == std::round(v)) return Fixed(v, 0);
  if (a >= 100) return Fixed(v, 0);
  if (a >= 10) return Fixed(v, 1);
  if (a >= 1) return Fixed(v, 2);
  return Fixed(v, 3);
}

std::string Micros(double ns) { return Num(ns / 1000.0); }

std::string VersionLabel(const json& run) {
  std::string s;
  if (!run["hash_version"].is_null()) s += "h" + std::to_string(run["hash_version"].get<int>());
  if (!run["zset_version"].is_null()) {
    s += std::string(s.empty() ? "" : " ") + "z" + std::to_string(run["zset_version"].get<int>());
  }
  return s;
}

std::string CellLabel(const json& run) {
  std::string backend = run.value("backend", "?");
  if (run.value("target", "") == "resp") backend = "resp " + backend;
  const std::string versions = VersionLabel(run);
  return versions.empty() ? backend : backend + " " + versions;
}

// "2 gets · 1 batch (1 rec)": the non-zero KV operations per call.
std::string KvPerCall(const json& per_call) {
  if (per_call.is_null()) return "n/a";
  std::string out;
  auto add = [&](const std::string& text) { out += (out.empty() ? "" : " · ") + text; };
  auto v = [&](const char* name) { return per_call.value(name, 0.0); };
  if (v("gets") > 0) add(Num(v("gets")) + " get");
  if (v("multiget_calls") > 0) {
    add(Num(v("multiget_calls")) + " multiget (" + Num(v("multiget_keys")) + " keys)");
  }
  if (v("seeks") > 0) add(Num(v("seeks")) + " seek");
  if (v("nexts") > 0) add(Num(v("nexts")) + " next");
  if (v("prevs") > 0) add(Num(v("prevs")) + " prev");
  if (v("puts") > 0) add(Num(v("puts")) + " put");
  if (v("deletes") > 0) add(Num(v("deletes")) + " delete");
  if (v("range_deletes") > 0) add(Num(v("range_deletes")) + " range delete");
  if (v("batches") > 0) add(Num(v("batches")) + " batch (" + Num(v("batch_records")) + " rec)");
  return out.empty() ? "none" : out;
}

// The largest few per-call counters ("rocksdb.block_read_count 0.02").
std::string CountersPerCall(const json& per_call, size_t max) {
  std::vector<std::pair<double, std::string>> items;
  for (auto it = per_call.begin(); it != per_call.end(); ++it) {
    const double value = it.value().get<double>();
    if (value != 0) items.emplace_back(value, it.key());
  }
  std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) {
    out += (out.empty() ? "" : ", ") + items[i].second + " " + Num(items[i].first);
  }
  // A cache's hit ratio, for every "<source>.cache_hits" with its "<source>.cache_misses"
  // (the convention of docs/results-schema.md).
  const std::string kHits = ".cache_hits";
  for (auto it = per_call.begin(); it != per_call.end(); ++it) {
    const std::string& name = it.key();
    if (name.size() <= kHits.size() || !name.ends_with(kHits)) continue;
    const std::string source = name.substr(0, name.size() - kHits.size());
    const double hits = it.value().get<double>();
    const double misses = per_call.value(source + ".cache_misses", 0.0);
    if (hits + misses > 0) {
      out += (out.empty() ? "" : ", ") + source + " hit ratio " + Fixed(hits / (hits + misses), 3);
    }
  }
  return out;
}

// Runs of a workload grouped by cell (label), in first-appearance order.
std::vector<std::pair<std::string, std::vector<const json*>>> GroupRuns(const json& runs) {
  std::vector<std::pair<std::string, std::vector<const json*>>> groups;
  for (const json& run : runs) {
    const std::string label = CellLabel(run);
    auto it = std::find_if(groups.begin(), groups.end(), [&](auto& g) { return g.first == label; });
    if (it == groups.end()) {
      groups.push_back({label, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(&run);
  }
  return groups;
}

const json* FindPhase(const json& run, const std::string& name) {
  for (const json& p : run["phases"]) {
    if (p.value("name", "") == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> RunPhaseNames(const json& workload) {
  std::vector<std::string> names;
  for (const json& p : workload["definition"]["run"]) names.push_back(p.value("name", "run"));
  return names;
}

void WorkloadSection(const json& w, std::ostringstream& md) {
  md << "## " << w.value("name", "?") << "\n\n";
  md << w["definition"].value("description", "") << "  \n";
  md << "Source `" << w.value("source", "") << "` (sha256 `"
     << w.value("source_sha256", "").substr(0, 12) << "`), effective definition sha256 `"
     << w.value("effective_sha256", "").substr(0, 12) << "`, seed " << w.value("seed", 0)
     << ", threads " << w.value("threads", 1) << ".\n\n";
  const auto groups = GroupRuns(w["runs"]);
  if (groups.empty()) {
    md << "No runs.\n\n";
    return;
  }
  const std::vector<std::string> phases = RunPhaseNames(w);

  // Throughput per cell and phase, with the ratio to the first cell of the same backend.
  md << "| cell | reps |";
  for (const auto& p : phases) md << " " << p << " ops/s |";
  md << " vs first version | load s | disk MiB |\n|---|---|";
  for (size_t i = 0; i < phases.size(); ++i) md << "---|";
  md << "---|---|---|\n";
  std::map<std::string, double> first_of_backend;
  for (const auto& [label, runs] : groups) {
    md << "| " << label << " | " << runs.size() << " |";
    double first_phase = 0;
    for (size_t i = 0; i < phases.size(); ++i) {
      std::vector<double> values;
      for (const json* r : runs) {
        if (const json* p = FindPhase(*r, phases[i]))
          values.push_back(p->value("throughput_per_s", 0.0));
      }
      const double m = Median(values);
      if (i == 0) first_phase = m;
      md << " " << (values.empty() ? "-" : Num(m)) << " |";
    }
    const std::string backend = (*runs.front()).value("backend", "");
    auto [it, inserted] = first_of_backend.emplace(backend, first_phase);
    md << " " << (inserted || it->second == 0 ? "1.00" : Fixed(first_phase / it->second, 2))
       << " |";
    std::vector<double> load_s, disk;
    for (const json* r : runs) {
      if (const json* p = FindPhase(*r, "load")) load_s.push_back(p->value("wall_seconds", 0.0));
      if (!(*r)["disk_bytes"].is_null())
        disk.push_back((*r)["disk_bytes"].get<double>() / (1 << 20));
    }
    md << " " << (load_s.empty() ? "-" : Num(Median(load_s))) << " | "
       << (disk.empty() ? "-" : Num(Median(disk))) << " |\n";
  }
  md << "\n";

  // Per command: latency medians across repetitions, exact KV operations per call.
  md << "| phase | command | cell | calls (all reps) | p50 µs | p99 µs | p99.9 µs | max µs | KV "
        "per call | "
        "B read/call | B written/call | other counters per call |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& phase : phases) {
    std::set<std::string> commands;
    for (const auto& [label, runs] : groups) {
      for (const json* r : runs) {
        if (const json* p = FindPhase(*r, phase)) {
          for (auto it = (*p)["commands"].begin(); it != (*p)["commands"].end(); ++it) {
            commands.insert(it.key());
          }
        }
      }
    }
    for (const std::string& command : commands) {
      for (const auto& [label, runs] : groups) {
        std::vector<double> p50, p99, p999, max;
        const json* last = nullptr;
        uint64_t calls = 0;
        for (const json* r : runs) {
          const json* p = FindPhase(*r, phase);
          if (p == nullptr || !(*p)["commands"].contains(command)) continue;
          last = &(*p)["commands"][command];
          const json& lat = (*last)["latency_ns"];
          p50.push_back(lat.value("p50", 0.0));
          p99.push_back(lat.value("p99", 0.0));
          p999.push_back(lat.value("p999", 0.0));
          max.push_back(lat.value("max", 0.0));
          calls += last->value("calls", uint64_t{0});
        }
        if (last == nullptr) continue;
        md << "| " << phase << " | " << command << " | " << label << " | " << calls << " | "
           << Micros(Median(p50)) << " | " << Micros(Median(p99)) << " | " << Micros(Median(p999))
           << " | " << Micros(Median(max)) << " | " << KvPerCall((*last)["kv_per_call"]) << " | "
           << ((*last).contains("bytes_read_per_call")
                   ? Num((*last)["bytes_read_per_call"].get<double>())
                   : "-")
           << " | "
           << ((*last).contains("bytes_written_per_call")
                   ? Num((*last)["bytes_written_per_call"].get<double>())
                   : "-")
           << " | " << CountersPerCall((*last)["counters_per_call"], 3) << " |\n";
        if (last->value("errors", 0) > 0) {
          md << "| | | | | | | | | errors: " << last->value("errors", 0)
             << " (first: " << last->value("first_error", "") << ") | | | |\n";
        }
      }
    }
  }
  md << "\n";
  for (const json& r : w["runs"]) {
    if (!r["error"].is_null()) {
      md << "- **" << CellLabel(r) << "** (repetition " << r.value("repetition", 0)
         << ") failed: " << r["error"].get<std::string>() << "\n";
    }
  }
  md << "\n";
}

void GrowthSection(const json& result, std::ostringstream& md) {
  const json& growth = result["growth"];
  if (growth.empty()) return;
  md << "## Cost against collection size\n\n"
        "KV steps per call (point reads + seeks + nexts + prevs + written records) are exact; "
        "their growth class comes from the two largest sizes. Times (p50) are noisy and their "
        "class is indicative.\n\n";
  // Group by (type, backend).
  std::map<std::pair<std::string, std::string>, std::vector<const json*>> groups;
  for (const json& g : growth) groups[{g.value("type", ""), g.value("backend", "")}].push_back(&g);
  for (auto& [key, series] : groups) {
    // Versions of one probe side by side.
    std::stable_sort(series.begin(), series.end(), [](const json* a, const json* b) {
      return std::make_tuple((*a)["probe"].get<std::string>(), (*a)["command"].get<std::string>(),
                             (*a)["version"].get<int>()) <
             std::make_tuple((*b)["probe"].get<std::string>(), (*b)["command"].get<std::string>(),
                             (*b)["version"].get<int>());
    });
    std::set<uint64_t> sizes;
    for (const json* s : series) {
      for (const auto& v : (*s)["sizes"]) sizes.insert(v.get<uint64_t>());
    }
    md << "### " << key.first << " on " << key.second << "\n\n| probe | command | version |";
    for (uint64_t s : sizes) md << " n=" << s << " |";
    md << " KV class | p50 µs at largest | time class |\n|---|---|---|";
    for (size_t i = 0; i < sizes.size(); ++i) md << "---|";
    md << "---|---|---|\n";
    for (const json* s : series) {
      md << "| " << (*s)["probe"].get<std::string>() << " | " << (*s)["command"].get<std::string>()
         << " | v" << (*s)["version"].get<int>() << " |";
      std::map<uint64_t, double> values;
      for (size_t i = 0; i < (*s)["sizes"].size(); ++i) {
        values[(*s)["sizes"][i].get<uint64_t>()] = (*s)["kv_steps_per_call"][i].get<double>();
      }
      for (uint64_t size : sizes)
        md << " " << (values.count(size) ? Num(values[size]) : "-") << " |";
      const json& p50 = (*s)["p50_ns"];
      md << " " << (*s)["kv_class"].get<std::string>() << " | "
         << (p50.empty() ? "-" : Micros(p50.back().get<double>())) << " | "
         << (*s)["time_class"].get<std::string>() << " |\n";
    }
    md << "\n";
  }
}

void RttSection(const json& result, std::ostringstream& md) {
  // (type, probe, command, version, size) -> rtt -> (mean ns, round trips per call).
  using Key = std::tuple<std::string, std::string, std::string, int, uint64_t>;
  std::map<Key, std::map<uint64_t, std::pair<double, double>>> rows;
  std::set<uint64_t> rtts;
  for (const json& p : result["sweeps"]) {
    if (p.value("kind", "") != "rtt") continue;
    const std::string type = p["type"].get<std::string>();
    const int version = (type == "zset" ? p["zset_version"] : p["hash_version"]).get<int>();
    const uint64_t rtt = p["rtt_us"].get<uint64_t>();
    rtts.insert(rtt);
    for (const json& ph : p["phases"]) {
      if (ph.value("kind", "") == "load") continue;
      for (auto it = ph["commands"].begin(); it != ph["commands"].end(); ++it) {
        const json& c = it.value();
        rows[{type, ph["name"].get<std::string>(), it.key(), version, p["size"].get<uint64_t>()}]
            [rtt] = {c["latency_ns"].value("mean", 0.0),
                     c["counters_per_call"].value("remote.round_trips", 0.0)};
      }
    }
  }
  if (rows.empty()) return;
  md << "## Against simulated round-trip delay\n\n"
        "Mean measured time per call in µs, and round trips per call in brackets "
        "(RemoteLatencyStore: a scan costs one round trip per page of rows). Round trips x delay "
        "is the simulated network time; the measured time adds the sleeps' overshoot on a busy "
        "machine.\n\n| type | probe | command | version | size |";
  for (uint64_t r : rtts) md << " rtt " << r << " µs |";
  md << "\n|---|---|---|---|---|";
  for (size_t i = 0; i < rtts.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& [key, by_rtt] : rows) {
    const auto& [type, probe, command, version, size] = key;
    md << "| " << type << " | " << probe << " | " << command << " | v" << version << " | " << size
       << " |";
    for (uint64_t r : rtts) {
      auto it = by_rtt.find(r);
      if (it == by_rtt.end()) {
        md << " - |";
      } else {
        md << " " << Micros(it->second.first) << " (" << Num(it->second.second) << ") |";
      }
    }
    md << "\n";
  }
  md << "\n";
}

}  // namespace

std::string MarkdownReport(const json& result, const std::string& result_path,
                           const std::vector<std::string>& plots) {
  std::ostringstream md;
  const json& ctx = result["context"];
  const json& build = ctx["build"];
  const json& host = ctx["host"];
  md << "# kvlab bench report\n\n";
  md << "Result `" << result_path << "`, " << ctx.value("date", "") << ".  \n";
  md << "Build " << build.value("commit", "").substr(0, 12)
     << (build.value("commit_dirty", false) ? " (uncommitted changes)" : "") << ", "
     << build.value("build_type", "") << ", " << build.value("compiler", "") << ".  \n";
  md << "Host: " << host.value("cpu_model", "") << ", " << host.value("usable_cpus", 0)
     << " usable CPUs, load average " << Num(host.value("load_average_1m", 0.0))
     << " at start.  \n";
  md << "Repetitions: " << ctx.value("repetitions", 1)
     << " (times are medians across them; KV operation counts are exact).\n\n";
  if (!result.value("timing_valid", true)) {
    md << "> **Times are not valid**: " << ctx.value("timing_invalid_reason", "")
       << ". Only the KV counts of this result mean anything.\n\n";
  }
  if (result.value("partial", false)) {
    md << "> **Partial result**: " << result.value("partial_reason", std::string("interrupted"))
       << ". Missing cells were not run; the last one may be short.\n\n";
  }
  for (const std::string& p : plots)
    md << "![" << fs::path(p).stem().string() << "](" << p << ")\n\n";
  for (const json& w : result["workloads"]) WorkloadSection(w, md);
  GrowthSection(result, md);
  RttSection(result, md);
  if (!result["notes"].empty()) {
    md << "## Notes\n\n";
    for (const json& n : result["notes"]) md << "- " << n.get<std::string>() << "\n";
    md << "\n";
  }
  return md.str();
}

std::string PlotScriptPath() {
  if (const char* env = std::getenv("KVLAB_PLOT_SCRIPT")) return env;
  return std::string(KVLAB_SOURCE_DIR) + "/reports/plot_bench.py";
}

std::string PythonPath() {
  if (const char* env = std::getenv("KVLAB_PYTHON")) return env;
  return "/usr/bin/python3";  // Debian's, with python3-matplotlib (not a pyenv on PATH)
}

Status DrawPlots(const std::string& result_path, const std::string& prefix,
                 std::vector<std::string>* files) {
  files->clear();
  const std::string python = PythonPath();
  const std::string script = PlotScriptPath();
  if (access(python.c_str(), X_OK) != 0) {
    return Status::NotSupported(python + " not found (install python3-matplotlib)");
  }
  if (access(script.c_str(), R_OK) != 0) return Status::NotSupported(script + " not found");
  int fds[2];
  if (pipe(fds) != 0) return Status::IOError("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError("fork failed");
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(python.c_str(), python.c_str(), script.c_str(), result_path.c_str(), prefix.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string output;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;)
    output.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::istringstream lines(output);
  std::string line;
  std::string messages;
  while (std::getline(lines, line)) {
    if (line.rfind("wrote ", 0) == 0) {
      files->push_back(line.substr(6));
    } else if (!line.empty()) {
      messages += line + "\n";
    }
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (messages.size() > 600) messages = "..." + messages.substr(messages.size() - 600);
    return Status::IOError("plot script failed: " + messages);
  }
  return Status::OK();
}

Status WriteReport(const std::string& result_path, bool plots, std::string* report_path,
                   std::string* plot_note) {
  json result;
  KVLAB_RETURN_IF_ERROR(ReadResultFile(result_path, &result));
  const fs::path path(result_path);
  const std::string stem = (path.parent_path() / path.stem()).string();
  std::vector<std::string> images;
  plot_note->clear();
  if (plots) {
    std::vector<std::string> files;
    Status s = DrawPlots(result_path, stem, &files);
    if (!s.ok()) *plot_note = "plots skipped: " + s.message();
    for (const auto& f : files) images.push_back(fs::path(f).filename().string());
  }
  *report_path = stem + ".md";
  std::ofstream out(*report_path, std::ios::trunc);
  out << MarkdownReport(result, path.filename().string(), images);
  if (!plot_note->empty()) out << "_" << *plot_note << "_\n";
  if (!out) return Status::IOError("cannot write " + *report_path);
  return Status::OK();
}

std::string SummaryTable(const json& result) {
  std::ostringstream out;
  for (const json& w : result["workloads"]) {
    const std::vector<std::string> phases = RunPhaseNames(w);
    if (phases.empty()) continue;
    out << w.value("name", "?") << " (" << phases.front() << " ops/s, median):";
    for (const auto& [label, runs] : GroupRuns(w["runs"])) {
      std::vector<double> values;
      for (const json* r : runs) {
        if (const json* p = FindPhase(*r, phases.front()))
          values.push_back(p->value("throughput_per_s", 0.0));
      }
      out << "  " << label << " " << (values.empty() ? "-" : Num(Median(values)));
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace kvlab::workloads
