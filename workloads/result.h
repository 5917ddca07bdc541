// BenchResult: the versioned JSON result of one `kvlab bench` invocation (docs/results-schema.md).
//
// A result has a context block (build, host, options, the workloads' hashes and seeds, the
// date), then the workloads with one entry per matrix cell and repetition, then the sweeps. It
// is written to <results dir>/<UTC time>-<name>.json, never over an existing file, as soon as
// the run starts and again after each cell, so that an interrupted run still leaves what it
// measured. Until MarkComplete, the file says "complete": false and "partial": true: a run that
// was killed (SIGKILL, a crash) leaves a file no reader can take for a whole run.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workloads/matrix.h"
#include "workloads/stats.h"
#include "workloads/sweep.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

inline constexpr const char* kResultSchema = "kvlab-bench-result";
// 2: profiles ("profile": {"hash": "0"}, "profile_label") replace hash_version and
// zset_version; ReadResultFile reads 1 as well, rewriting it into 2's shape.
inline constexpr int kResultSchemaVersion = 2;
// "partial_reason" of a result whose run has not finished (or never will: it was killed).
inline constexpr const char* kIncompleteReason =
    "incomplete: the run had not finished when this file was written (if it is not running "
    "any more, it was killed)";

// What the context block says about the options of the run.
struct RunSettings {
  std::vector<std::string> command_line;
  std::vector<std::string> backends;
  // The matrix's versions: type name -> version names.
  std::map<std::string, std::vector<std::string>> versions;
  backends::StoreSpec store;
  engine::EngineOptions engine;
  int repetitions = 1;
  std::string physical = "auto";
  std::string resp;  // the RESP address, empty when none
  bool in_process = true;
  bool allow_degraded = false;
  bool gc_at_end = true;
  // The reclaim axis (MatrixOptions::reclaim), its options, and the compaction filter's grace.
  std::vector<std::string> reclaim;
  ReclaimOptions reclaim_options;
  int64_t compaction_grace_ms = 60'000;
  OpenLoopOptions open_loop;  // --rate, --pipeline
};

nlohmann::json ContextJson(const RunSettings& settings);
nlohmann::json CallStatsJson(const CallStats& stats, double wall_seconds);
nlohmann::json PhaseJson(const PhaseResult& phase);
nlohmann::json CellJson(const CellResult& cell);
nlohmann::json SweepPointJson(const SweepPoint& point);
// Growth classes per (kind, type, backend, version, probe, command) series of size points.
nlohmann::json GrowthJson(const std::vector<SweepPoint>& points);

class BenchResult {
 public:
  // `name` names the file: <dir>/<UTC time>-<name>.json.
  BenchResult(const RunSettings& settings, std::string dir, std::string name);

  // Adds a workload entry; returns its index for AddCell.
  size_t AddWorkload(const Workload& workload);
  void AddCell(size_t workload_index, const CellResult& cell);
  void AddSweep(const SweepResult& sweep);
  // Some cells are missing or short: Ctrl-C, a sweep that stopped. Stays after MarkComplete.
  void MarkPartial(const std::string& reason);
  // The run is over: "complete": true, and "partial" only for MarkPartial's reasons.
  void MarkComplete();
  void AddNote(const std::string& note);
  // Something that makes the times less trustworthy (a loaded machine), shown at the top of
  // the report.
  void AddWarning(const std::string& warning);
  bool partial() const { return json_["partial"].get<bool>(); }

  // Writes (or rewrites) the result file. The first call picks the file name.
  Status Write();
  const std::string& path() const { return path_; }
  const nlohmann::json& document() const { return json_; }

 private:
  nlohmann::json json_;
  std::string partial_reason_;  // MarkPartial's first reason; "" when none
  std::string dir_;
  std::string name_;
  std::string path_;
};

// The one reader of bench results: every reader (study, report, gate) goes through it so that
// versions are names and profiles maps everywhere. Checks the schema name and version of a parsed
// result and rewrites a schema 1 document into schema 2's shape (profiles from
// hash_version/zset_version, version names as strings). `source` names the document in errors.
Status NormalizeResult(nlohmann::json* doc, const std::string& source);
// Reads a result file and normalizes it (NormalizeResult).
Status ReadResultFile(const std::string& path, nlohmann::json* out);

}  // namespace kvlab::workloads
