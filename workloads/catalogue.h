// The built-in workloads: YCSB A-F mapped to Redis hashes, and Redis-shaped workloads
// (leaderboard, timeline, session store, big keys, TTL churn). Each is JSON text in the format
// of docs/workloads.md, so `kvlab bench show NAME` prints a file a user can copy and edit.
//
// Also the default suite: what `kvlab bench` runs with no arguments (the README's main job).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/workload.h"

namespace kvlab::workloads {

struct CatalogueEntry {
  const char* name;
  const char* json;  // the workload file's text
};

const std::vector<CatalogueEntry>& Catalogue();

// Parses the catalogue workload `name` (source "builtin:<name>"). NotFound when unknown.
Status BuiltinWorkload(const std::string& name, Workload* out);

// A catalogue workload, a file when `name_or_path` names an existing file or ends in .json, or
// a trace to replay when it is `trace:FILE` (trace_replay.h).
Status ResolveWorkload(const std::string& name_or_path, Workload* out);

// One workload of the default suite, scaled down so that the whole suite runs in about a minute
// on a 2-core machine over the four backends and every encoding version.
struct SuiteEntry {
  std::string workload;
  WorkloadOverrides overrides;
};

struct DefaultSuite {
  std::vector<SuiteEntry> workloads;
  // The size sweep that follows them (hash and zset, decade steps; each probe at each size
  // `repetitions` times, and a Redis-tier version cold and warm).
  uint64_t sweep_max_size = 10000;
  uint64_t sweep_calls = 30;
  double sweep_probe_budget_s = 0.25;
  double sweep_series_budget_s = 60;
  int repetitions = 3;
};

DefaultSuite MainJobSuite();

}  // namespace kvlab::workloads
