#include "workloads/report.h"

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

#include "analysis/mann_whitney.h"
#include "base/data_dir.h"
#include "base/run_to_completion.h"
#include "workloads/result.h"
#include "workloads/sweep.h"

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

std::string CellLabel(const json& run) {
  std::string backend = run.value("backend", "?");
  if (run.value("target", "") == "resp") backend = "resp " + backend;
  std::string versions = run.value("profile_label", "");
  // A schema 1 run not read through ReadResultFile: its hash_version / zset_version.
  for (const auto& [member, letter] : {std::pair{"hash_version", "h"}, {"zset_version", "z"}}) {
    if (!run.contains("profile_label") && run.value(member, json()).is_number_integer()) {
      versions += (versions.empty() ? "" : " ") + std::string(letter) +
                  std::to_string(run[member].get<int>());
    }
  }
  std::string label = versions.empty() ? backend : backend + " " + versions;
  // A degraded run is not the version's: it never shares a row with the version's real runs.
  if (run.value("degraded", false)) label += " (degraded)";
  return label;
}

// "8123" for one value; "8123 [7010-9200]" (median [min-max]) over repetitions.
std::string MedianWithRange(const std::vector<double>& v) {
  if (v.empty()) return "-";
  const double median = Median(v);
  if (v.size() == 1) return Num(median);
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return Num(median) + " [" + Num(*lo) + "–" + Num(*hi) + "]";
}

constexpr double kRatioConfidence = 0.90;

// A ratio between two cells over their repetitions: the ratio of their medians (the medians
// the tables show), with the 90% interval of the ratio (analysis::RatioOfMedians, around the
// Hodges-Lehmann estimate): "1.80× [1.52–2.10]" when the interval excludes 1; "≈ 1.05× [0.82–1.31]"
// when it does not (no significant difference); "≈ 1.80× (n = 1 vs 1: no interval)" when the
// repetitions are too few to give one.
std::string RatioText(const std::vector<double>& cell, const std::vector<double>& base) {
  if (cell.empty() || base.empty()) return "-";
  auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0 && std::isfinite(x); });
  };
  if (!positive(cell) || !positive(base)) return "-";
  const analysis::RatioInterval r = analysis::RatioOfMedians(cell, base, kRatioConfidence);
  if (!r.attainable) {
    return "≈ " + Fixed(r.median_ratio, 2) + "× (n = " + std::to_string(cell.size()) + " vs " +
           std::to_string(base.size()) + ": no interval)";
  }
  const std::string interval = " [" + Fixed(r.low, 2) + "–" + Fixed(r.high, 2) + "]";
  return (r.significant ? "" : "≈ ") + Fixed(r.median_ratio, 2) + "×" + interval;
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

// Every non-zero per-call counter, largest first ("tier.tier_round_trips 1,
// rocksdb.block_read_count 0.02"), and the hit ratio of every cache.
std::string CountersPerCall(const json& per_call) {
  std::vector<std::pair<double, std::string>> items;
  for (auto it = per_call.begin(); it != per_call.end(); ++it) {
    const double value = it.value().get<double>();
    if (value != 0) items.emplace_back(value, it.key());
  }
  std::stable_sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::string out;
  for (const auto& [value, name] : items)
    out += (out.empty() ? "" : ", ") + name + " " + Num(value);
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
  return out.empty() ? "-" : out;
}

// Over RESP to `kvlab serve`: the server's own per-call counts of `command` in a phase, from its
// INFO kvlab totals (store_counters "server.<command>.<field>", warm-up included), as a KV
// per-call object and a further-counters per-call object. False when the phase has none.
bool ServerPerCall(const json& phase, const std::string& command, json* kv, json* counters) {
  if (!phase.contains("store_counters")) return false;
  std::string lower = command;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const json& sc = phase["store_counters"];
  const std::string prefix = "server." + lower + ".";
  const double calls = sc.value(prefix + "calls", 0.0);
  if (calls <= 0) return false;
  *kv = json::object();
  *counters = json::object();
  static const std::set<std::string> kTier = {"tier_round_trips", "tier_commands", "cache_hits",
                                              "cache_misses", "cache_degraded"};
  for (auto it = sc.begin(); it != sc.end(); ++it) {
    if (!it.key().starts_with(prefix)) continue;
    const std::string field = it.key().substr(prefix.size());
    if (field == "calls" || field == "failed_calls") continue;
    const double per_call = it.value().get<double>() / calls;
    if (kTier.count(field)) {
      (*counters)["tier." + field] = per_call;
    } else {
      (*kv)[field] = per_call;
    }
  }
  return true;
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

// Values at `pointer` over runs (scaled), skipping runs without a number there.
std::vector<double> ValuesAt(const std::vector<const json*>& runs, const std::string& pointer,
                             double scale = 1) {
  std::vector<double> v;
  const json::json_pointer p(pointer);
  for (const json* r : runs) {
    if (r->contains(p) && (*r)[p].is_number()) v.push_back((*r)[p].get<double>() / scale);
  }
  return v;
}

// The median over runs of the number at `pointer` (scaled), or "-" when no run has one.
std::string MedianAt(const std::vector<const json*>& runs, const std::string& pointer,
                     double scale = 1) {
  const std::vector<double> v = ValuesAt(runs, pointer, scale);
  if (v.empty()) return "-";
  const double m = Median(v);
  // Two significant digits where Num would print 0.000 (zset v3's KV holds almost nothing).
  if (m > 0 && m < 0.001) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2g", m);
    return buf;
  }
  return Num(m);
}

// Space at the end of each cell (runs[].space): logical bytes, the store's bytes over them,
// garbage, and the same after the GC pass. Nothing when no run measured it.
void SpaceTable(const std::vector<std::pair<std::string, std::vector<const json*>>>& groups,
                std::ostringstream& md) {
  bool any = false, gc = false;
  for (const auto& [label, runs] : groups) {
    for (const json* r : runs) {
      any = any || r->contains(json::json_pointer("/space/logical"));
      gc = gc || (r->contains("space") && (*r)["space"].value("gc", json()).is_object());
    }
  }
  if (!any) return;
  md << "Space at the end (medians over repetitions): **logical** is what the workload left "
        "(keys, field names and values, members and 8 bytes per score, items), **KV** the "
        "bytes of every record in the store, **garbage** the records no live key owns (what a "
        "GC pass reclaims), **disk** the data files after Flush.\n\n"
        "| cell | logical KiB | elements | KV / logical | live KV / logical | garbage records | "
        "garbage KiB | disk / logical | disk B/element |";
  if (gc) md << " after GC: garbage records | KV / logical | disk / logical |";
  md << "\n|---|---|---|---|---|---|---|---|---|" << (gc ? "---|---|---|" : "") << "\n";
  for (const auto& [label, runs] : groups) {
    md << "| " << label << " | " << MedianAt(runs, "/space/logical/bytes", 1024) << " | "
       << MedianAt(runs, "/space/logical/elements") << " | "
       << MedianAt(runs, "/space/kv_amplification") << " | "
       << MedianAt(runs, "/space/live_kv_amplification") << " | "
       << MedianAt(runs, "/space/store/garbage_records") << " | "
       << MedianAt(runs, "/space/store/garbage_bytes", 1024) << " | "
       << MedianAt(runs, "/space/disk_amplification") << " | "
       << MedianAt(runs, "/space/disk_bytes_per_element") << " |";
    if (gc) {
      md << " " << MedianAt(runs, "/space/gc/store/garbage_records") << " | "
         << MedianAt(runs, "/space/gc/kv_amplification") << " | "
         << MedianAt(runs, "/space/gc/disk_amplification") << " |";
    }
    md << "\n";
  }
  md << "\n";
}

// The reclaim axis (runs[].reclaim): each mechanism's work, the foreground p99 beside it
// against the same cell's reclaim=none, the garbage and disk at the end. Nothing without it.
void ReclaimTable(const std::vector<std::pair<std::string, std::vector<const json*>>>& groups,
                  std::ostringstream& md) {
  std::map<std::string, std::vector<double>> baseline;  // label with reclaim=none -> p99s
  bool any = false;
  for (const auto& [label, runs] : groups) {
    if (!runs.front()->contains("reclaim")) continue;
    any = true;
    if ((*runs.front())["reclaim"].value("mechanism", "") == "none") {
      baseline[label] = ValuesAt(runs, "/reclaim/foreground/p99_us");
    }
  }
  if (!any) return;
  md << "Reclaim beside the run phases (medians [min–max] over repetitions): **reclaimed/s** is "
        "records reclaimed per second of the mechanism's own work (its rounds, the drain "
        "included); **p99** the foreground operations' 99th percentile while it ran, against "
        "the same cell with reclaim=none; **garbage** what is left right after the drain; "
        "**disk** the timeline's last and highest bytes of the store's files (data and log: "
        "RocksDB keeps what it has not flushed in its WAL).\n\n"
        "| cell | rounds | reclaimed | reclaimed/s | work s | p50 µs | p99 µs | p99 vs none | "
        "garbage records at end | disk MiB at end | disk MiB peak |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& [label, runs] : groups) {
    if (!runs.front()->contains("reclaim")) continue;
    const std::string mechanism = (*runs.front())["reclaim"].value("mechanism", "");
    const std::vector<double> p99 = ValuesAt(runs, "/reclaim/foreground/p99_us");
    std::string base_label = label;
    const size_t at = base_label.rfind("reclaim=" + mechanism);
    if (at != std::string::npos) base_label.replace(at, 8 + mechanism.size(), "reclaim=none");
    auto base = baseline.find(base_label);
    std::vector<double> peak;
    for (const json* r : runs) {
      double m = 0;
      for (const json& s : (*r)["reclaim"]["timeline"]) {
        m = std::max(m, (s.value("disk_bytes", 0.0) + s.value("disk_log_bytes", 0.0)) / (1 << 20));
      }
      peak.push_back(m);
    }
    std::vector<double> end;
    for (const json* r : runs) {
      const json& t = (*r)["reclaim"]["timeline"];
      if (!t.empty()) {
        end.push_back((t.back().value("disk_bytes", 0.0) + t.back().value("disk_log_bytes", 0.0)) /
                      (1 << 20));
      }
    }
    md << "| " << label << " | " << MedianAt(runs, "/reclaim/rounds") << " | "
       << MedianAt(runs, "/reclaim/reclaimed/records") << " | "
       << MedianWithRange(ValuesAt(runs, "/reclaim/records_per_second")) << " | "
       << MedianAt(runs, "/reclaim/work_seconds") << " | "
       << MedianAt(runs, "/reclaim/foreground/p50_us") << " | " << MedianWithRange(p99) << " | "
       << (mechanism == "none"      ? std::string("(baseline)")
           : base == baseline.end() ? std::string("-")
                                    : RatioText(p99, base->second))
       << " | " << MedianAt(runs, "/reclaim/garbage_end/records") << " | " << MedianWithRange(end)
       << " | " << MedianWithRange(peak) << " |\n";
  }
  md << "\n";
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

  // Throughput per cell and phase (median [min-max] over repetitions), with the ratio of the
  // first phase's throughput to the first version's on the same backend, and its interval.
  md << "| cell | reps |";
  for (const auto& p : phases) md << " " << p << " ops/s |";
  md << " vs first version (" << static_cast<int>(kRatioConfidence * 100)
     << "% interval) | load s | data MiB |\n|---|---|";
  for (size_t i = 0; i < phases.size(); ++i) md << "---|";
  md << "---|---|---|\n";
  std::map<std::string, std::vector<double>> first_of_backend;
  for (const auto& [label, runs] : groups) {
    md << "| " << label << " | " << runs.size() << " |";
    std::vector<double> first_phase;
    for (size_t i = 0; i < phases.size(); ++i) {
      std::vector<double> values;
      for (const json* r : runs) {
        if (const json* p = FindPhase(*r, phases[i]))
          values.push_back(p->value("throughput_per_s", 0.0));
      }
      if (i == 0) first_phase = values;
      md << " " << MedianWithRange(values) << " |";
    }
    const bool degraded = runs.front()->value("degraded", false);
    const std::string backend = (*runs.front()).value("backend", "");
    if (degraded) {
      md << " n/a (degraded) |";
    } else {
      auto [it, inserted] = first_of_backend.emplace(backend, first_phase);
      md << " " << (inserted ? "(baseline)" : RatioText(first_phase, it->second)) << " |";
    }
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

  md << "Ratios: the ratio of the two cells' medians, with a "
     << static_cast<int>(kRatioConfidence * 100)
     << "% distribution-free interval over the pairwise ratios of their repetitions "
        "(Hodges-Lehmann / Mann-Whitney); **≈** marks a ratio whose "
        "interval includes 1 (no significant difference) or that has too few repetitions for "
        "an interval (3 or more give one).\n\n";

  SpaceTable(groups, md);
  ReclaimTable(groups, md);

  // Per command: latency medians across repetitions, exact KV operations per call.
  md << "| phase | command | cell | calls (all reps) | p50 µs | p99 µs | p99.9 µs | max µs | KV "
        "per call | "
        "B read/call | B written/call | other counters per call |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  bool server_counts = false;
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
        const json* last_phase = nullptr;
        uint64_t calls = 0;
        for (const json* r : runs) {
          const json* p = FindPhase(*r, phase);
          if (p == nullptr || !(*p)["commands"].contains(command)) continue;
          last = &(*p)["commands"][command];
          last_phase = p;
          // Open loop: the reported latency is the one from the intended start (the header says).
          const json& lat = (*last).contains("intended_latency_ns") ? (*last)["intended_latency_ns"]
                                                                    : (*last)["latency_ns"];
          p50.push_back(lat.value("p50", 0.0));
          p99.push_back(lat.value("p99", 0.0));
          p999.push_back(lat.value("p999", 0.0));
          max.push_back(lat.value("max", 0.0));
          calls += last->value("calls", uint64_t{0});
        }
        if (last == nullptr) continue;
        std::string kv = KvPerCall((*last)["kv_per_call"]);
        std::string read = (*last).contains("bytes_read_per_call")
                               ? Num((*last)["bytes_read_per_call"].get<double>())
                               : "-";
        std::string written = (*last).contains("bytes_written_per_call")
                                  ? Num((*last)["bytes_written_per_call"].get<double>())
                                  : "-";
        std::string counters = CountersPerCall((*last)["counters_per_call"]);
        json server_kv, server_counters;
        if ((*last)["kv_per_call"].is_null() &&
            ServerPerCall(*last_phase, command, &server_kv, &server_counters)) {
          // Over RESP: the server's own counts (INFO kvlab), marked as such.
          server_counts = true;
          kv = KvPerCall(server_kv) + " †";
          read = Num(server_kv.value("bytes_read", 0.0)) + " †";
          written = Num(server_kv.value("bytes_written", 0.0)) + " †";
          const std::string tier = CountersPerCall(server_counters);
          if (tier != "-") counters = (counters == "-" ? "" : counters + ", ") + tier + " †";
        }
        md << "| " << phase << " | " << command << " | " << label << " | " << calls << " | "
           << Micros(Median(p50)) << " | " << Micros(Median(p99)) << " | " << Micros(Median(p999))
           << " | " << Micros(Median(max)) << " | " << kv << " | " << read << " | " << written
           << " | " << counters << " |\n";
        if (last->value("errors", 0) > 0) {
          md << "| | | | | | | | | errors: " << last->value("errors", 0)
             << " (first: " << last->value("first_error", "") << ") | | | |\n";
        }
      }
    }
  }
  md << "\n";
  if (server_counts) {
    md << "† over RESP: the server's own per-command counts from `INFO kvlab` (warm-up "
          "included), exact when the workload was its only client.\n\n";
  }
  for (const json& r : w["runs"]) {
    if (!r["error"].is_null()) {
      md << "- **" << CellLabel(r) << "** (repetition " << r.value("repetition", 0)
         << ") failed: " << r["error"].get<std::string>() << "\n";
    }
    if (r.value("degraded", false)) {
      md << "- **" << CellLabel(r) << "** (repetition " << r.value("repetition", 0)
         << ") ran degraded, its Redis tier unusable: " << r.value("degraded_reason", std::string())
         << "\n";
    }
  }
  md << "\n";
}

// "O(n), slope 0.98 [0.95–1.01]" for a time class judged over repetitions.
std::string TimeClassText(const json& g) {
  const std::string cls = g.value("time_class", "");
  const json& interval = g.value("time_slope_interval", json::array());
  if (cls.empty()) return "— (" + g.value("time_note", std::string("not classified")) + ")";
  std::string text = cls + ", slope " + Fixed(g.value("time_slope", 0.0), 2);
  if (interval.size() == 2) {
    text += " [" + Fixed(interval[0].get<double>(), 2) + "–" + Fixed(interval[1].get<double>(), 2) +
            "]";
  }
  return text;
}

void GrowthSection(const json& result, std::ostringstream& md) {
  const json& growth = result["growth"];
  if (growth.empty()) return;
  md << "## Cost against collection size\n\n"
        "Per call at each size, exact: KV steps (point reads + seeks + nexts + prevs + written "
        "records), shown as `KV + tier` where the Redis tier is used (tier = Redis commands sent; "
        "round trips are in the result). The **cost class** classifies KV steps + tier commands, "
        "from the two largest sizes. A Redis-tier version is measured **cold** (the cache "
        "emptied before every call: what filling it costs) and **warm** (filled by a read of the "
        "whole collection and a first pass of the probe, which the measured pass repeats). The "
        "**time class** compares the p50 times of the two largest sizes "
        "over the repetitions: the slope of log time against log size, with its "
     << static_cast<int>(kTimeGrowthConfidence * 100)
     << "% interval; a class is given only when the whole interval lies in one class "
        "(O(1) below 0.15, sublinear below 0.6, O(n) below 1.4).\n\n";
  // Group by (type, backend).
  std::map<std::pair<std::string, std::string>, std::vector<const json*>> groups;
  for (const json& g : growth) groups[{g.value("type", ""), g.value("backend", "")}].push_back(&g);
  for (auto& [key, series] : groups) {
    // Versions and cache states of one probe side by side.
    auto order = [](const json* g) {
      return std::make_tuple((*g)["probe"].get<std::string>(), (*g)["command"].get<std::string>(),
                             (*g)["version"].get<std::string>(),
                             g->value("cache", std::string("none")));
    };
    std::stable_sort(series.begin(), series.end(),
                     [&](const json* a, const json* b) { return order(a) < order(b); });
    std::set<uint64_t> sizes;
    for (const json* s : series) {
      for (const auto& v : (*s)["sizes"]) sizes.insert(v.get<uint64_t>());
    }
    md << "### " << key.first << " on " << key.second << "\n\n| probe | command | version |";
    for (uint64_t s : sizes) md << " n=" << s << " |";
    md << " KV class | cost class | p50 µs at largest | time class |\n|---|---|---|";
    for (size_t i = 0; i < sizes.size(); ++i) md << "---|";
    md << "---|---|---|---|\n";
    for (const json* s : series) {
      const std::string cache = s->value("cache", std::string("none"));
      md << "| " << (*s)["probe"].get<std::string>() << " | " << (*s)["command"].get<std::string>()
         << " | v" << (*s)["version"].get<std::string>() << (cache == "none" ? "" : " " + cache)
         << " |";
      std::map<uint64_t, std::string> values;
      const json& commands = s->value("tier_commands_per_call", json::array());
      for (size_t i = 0; i < (*s)["sizes"].size(); ++i) {
        std::string text = Num((*s)["kv_steps_per_call"][i].get<double>());
        const double tier = i < commands.size() ? commands[i].get<double>() : 0.0;
        if (tier > 0) text += " + " + Num(tier);
        values[(*s)["sizes"][i].get<uint64_t>()] = text;
      }
      for (uint64_t size : sizes) md << " " << (values.count(size) ? values[size] : "-") << " |";
      const json& p50 = (*s)["p50_ns"];
      md << " " << (*s)["kv_class"].get<std::string>() << " | "
         << s->value("cost_class", std::string("-")) << " | "
         << (p50.empty() ? "-" : Micros(p50.back().get<double>())) << " | " << TimeClassText(*s)
         << " |\n";
    }
    md << "\n";
  }
}

void RttSection(const json& result, std::ostringstream& md) {
  // (backend, type, probe, command, version, cache, size) -> rtt -> per repetition: (mean ns,
  // round trips per call).
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string,
                         std::string, uint64_t>;
  std::map<Key, std::map<uint64_t, std::vector<std::pair<double, double>>>> rows;
  std::set<uint64_t> rtts;
  for (const json& p : result["sweeps"]) {
    if (p.value("kind", "") != "rtt") continue;
    const std::string type = p["type"].get<std::string>();
    const json& profile = p["profile"];
    const std::string version = profile.contains(type) && profile[type].is_string()
                                    ? profile[type].get<std::string>()
                                    : "?";
    const uint64_t rtt = p["rtt_us"].get<uint64_t>();
    rtts.insert(rtt);
    for (const json& ph : p["phases"]) {
      if (ph.value("kind", "") == "load") continue;
      for (auto it = ph["commands"].begin(); it != ph["commands"].end(); ++it) {
        const json& c = it.value();
        rows[{p.value("backend", ""), type, ph["name"].get<std::string>(), it.key(), version,
              p.value("cache", std::string("none")), p["size"].get<uint64_t>()}][rtt]
            .emplace_back(c["latency_ns"].value("mean", 0.0),
                          c["counters_per_call"].value("remote.round_trips", 0.0));
      }
    }
  }
  if (rows.empty()) return;
  md << "## Against simulated round-trip delay\n\n"
        "Mean measured time per call in µs (the median over repetitions), and round trips per "
        "call in brackets (RemoteLatencyStore: a scan costs one round trip per page of rows). "
        "Round trips x delay is the simulated network time; the measured time adds the sleeps' "
        "overshoot on a busy machine.\n\n| backend | type | probe | command | version | size |";
  for (uint64_t r : rtts) md << " rtt " << r << " µs |";
  md << "\n|---|---|---|---|---|---|";
  for (size_t i = 0; i < rtts.size(); ++i) md << "---|";
  md << "\n";
  for (const auto& [key, by_rtt] : rows) {
    const auto& [backend, type, probe, command, version, cache, size] = key;
    md << "| " << backend << " | " << type << " | " << probe << " | " << command << " | v"
       << version << (cache == "none" ? "" : " " + cache) << " | " << size << " |";
    for (uint64_t r : rtts) {
      auto it = by_rtt.find(r);
      if (it == by_rtt.end()) {
        md << " - |";
        continue;
      }
      std::vector<double> means;
      for (const auto& [mean, trips] : it->second) means.push_back(mean);
      md << " " << Micros(Median(means)) << " (" << Num(it->second.front().second) << ") |";
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
  // What makes the numbers below less than they seem comes first.
  if (!result.value("complete", true)) {
    md << "> **Incomplete result**: the run had not finished when this file was last written "
          "(if it is not running any more, it was killed). Cells are missing.\n\n";
  }
  for (const json& w : result.value("warnings", json::array())) {
    md << "> **Warning**: " << w.get<std::string>() << ".\n\n";
  }
  size_t degraded = 0;
  for (const json& w : result["workloads"]) {
    for (const json& r : w["runs"]) degraded += r.value("degraded", false) ? 1 : 0;
  }
  for (const json& p : result["sweeps"]) degraded += p.value("degraded", false) ? 1 : 0;
  if (degraded > 0) {
    md << "> **Degraded**: " << degraded
       << " cells or sweep points ran a Redis-tier version without its tier (--allow-degraded); "
          "they are marked (degraded), kept out of the ratios and the growth classes, and are "
          "not that version's numbers.\n\n";
  }
  md << "Result `" << result_path << "`, " << ctx.value("date", "") << ".  \n";
  md << "Build " << build.value("commit", "").substr(0, 12)
     << (build.value("commit_dirty", false) ? " (uncommitted changes)" : "") << ", "
     << build.value("build_type", "") << ", " << build.value("compiler", "") << ".  \n";
  md << "Host: " << host.value("cpu_model", "") << ", " << host.value("usable_cpus", 0)
     << " usable CPUs, load average " << Num(host.value("load_average_1m", 0.0))
     << " at start.  \n";
  md << "Repetitions: " << ctx.value("repetitions", 1)
     << " (times are medians across them, with [min–max]; KV operation counts are exact).\n\n";
  if (!result.value("timing_valid", true)) {
    md << "> **Times are not valid**: " << ctx.value("timing_invalid_reason", "")
       << ". Only the KV counts of this result mean anything.\n\n";
  }
  if (result.value("partial", false) && result.value("complete", true)) {
    md << "> **Partial result**: " << result.value("partial_reason", std::string("interrupted"))
       << ". Missing cells were not run; the last one may be short.\n\n";
  }
  if (const json model = ctx.value("load_model", json::object());
      model.is_object() && model.value("kind", "") == "open") {
    md << "> **Open loop** at " << Num(model.value("rate_per_s", 0.0))
       << " ops/s (`--rate`): the latency tables show the latency from each request's intended "
          "start (coordinated omission corrected); the service times are the result's "
          "`latency_ns`.\n\n";
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
  std::string path;
  // When it is missing, running it fails with its path in the message.
  if (!FindDataFile("reports/plot_bench.py", &path).ok()) return "reports/plot_bench.py";
  return path;
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
  std::string output;
  int exit_code = -1;
  KVLAB_RETURN_IF_ERROR(RunToCompletion({python, script, result_path, prefix}, /*output_path=*/"",
                                        &output, &exit_code));
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
  if (exit_code != 0) {
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
  for (const json& w : result.value("warnings", json::array())) {
    out << "warning: " << w.get<std::string>() << "\n";
  }
  for (const json& w : result["workloads"]) {
    const std::vector<std::string> phases = RunPhaseNames(w);
    if (phases.empty()) continue;
    out << w.value("name", "?") << " (" << phases.front()
        << " ops/s, median [min–max] over repetitions):";
    for (const auto& [label, runs] : GroupRuns(w["runs"])) {
      std::vector<double> values;
      for (const json* r : runs) {
        if (const json* p = FindPhase(*r, phases.front()))
          values.push_back(p->value("throughput_per_s", 0.0));
      }
      out << "\n  " << label << " " << MedianWithRange(values);
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace kvlab::workloads
