// What a study reads from the cells of a bench result (docs/results-schema.md, normalized by
// workloads::NormalizeResult, so that versions are names): the versions each cell ran, which
// commands belong to which type, and, per repetition, the number of every criterion
// (criteria.h) for one type.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvlab::study {

// The versions a run's new keys got: type name -> version name ("hash" -> "kvrocks"), from the
// run's "profile"; types of unknown version (null) are left out.
using Profile = std::map<std::string, std::string>;
Profile ProfileOf(const nlohmann::json& run);
// "h0 zkvrocks": each type's letter and version name, in the encoding registry's type order (a
// type the registry lacks goes last, as "<type>=<version>").
std::string ProfileLabel(const Profile& profile);

// The Redis type a command works on: the encoding registry's type whose command group is the
// command's group in the command table ("hash", "zset", "list", "set"), "string" for string
// commands, and for generic commands (DEL, EXPIRE, ...) and unknown ones the workload's keyspace
// type.
std::string CommandType(const std::string& command, const std::string& keyspace_type);

// Elements of `type` the load phase of a workload definition writes: a command of the type that
// may grow it (the command table's denyoom flag: HSET, ZADD, SADD, RPUSH, ...) adds, per record,
// every element of the record when it has an {elements} argument, the elements of the record's
// synthetic collection when it has {fields:N:L:V}, {members:N:L} or {scored:N:L} (a profile's
// workload: a function of the key, counted record by record), else one element per
// TypeSpec::element_args arguments after the key; a command with a record range
// ({"records": [from, to], "command": ...}) counts for those records only. Repeated members are
// counted each time, so this is an upper bound when a load command draws random members.
double ElementsLoaded(const nlohmann::json& definition, const std::string& type);

// The KV round trips a remote store needs for these per-call KV operations (a `kv_per_call`
// object), by backends::RemoteLatencyStore's rules: one per get, put, delete, range delete,
// MultiGet, batch and seek, and one per `page_rows` rows stepped by an iterator.
double KvRoundTrips(const nlohmann::json& kv_per_call, double page_rows = 100);

// One repetition's numbers for the commands of one type.
struct RepMetrics {
  std::map<std::string, double> criteria;  // by criterion name; absent = not measured
  // Per command of the type's run phases: calls, p50_us, p99_us, kv_reads, kv_writes, kv_ops,
  // kv_bytes, round_trips (Redis tier), kv_round_trips (KvRoundTrips), all per call except
  // calls, and kv_per_call (every KV counter per call).
  nlohmann::json commands = nlohmann::json::object();
  // The whole store's disk bytes after the cell (every type's data) per element of every type
  // loaded; -1 when not measured (the in-memory backend).
  double disk_per_element = -1;
  // Live bytes of the type per element at the end of the cell (after its run phases and GC
  // pass), plus a store Redis's dataset; -1 when not measured.
  double space_after_run = -1;
  // What could not be measured, and why.
  std::vector<std::string> notes;
};

// The numbers of `type` in one run (a cell's repetition).
// REQUIRES: `run` is a run of a normalized bench result and `definition` its workload's.
RepMetrics MetricsOf(const nlohmann::json& run, const nlohmann::json& definition,
                     const std::string& type);

}  // namespace kvlab::study
