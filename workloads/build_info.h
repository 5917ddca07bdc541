// What the binary is and where it runs: the context block of every result (results-schema.md).
#pragma once

#include <string>

namespace kvlab::workloads {

struct BuildInfo {
  std::string commit;         // git commit of the source tree at build time, or "unknown"
  bool commit_dirty = false;  // the tree had uncommitted changes
  std::string build_type;     // CMAKE_BUILD_TYPE
  std::string compiler;       // "GNU 12.2.0"
  std::string cxx_flags;      // the flags of that build type
  bool assertions = false;    // NDEBUG not defined
  bool sanitizer = false;     // KVLAB_SANITIZER_BUILD
  std::string sanitizers;     // e.g. "address,undefined"
};

BuildInfo GetBuildInfo();

// Whether times measured by this binary mean anything. A build with assertions (no NDEBUG) or
// with sanitizers is slower in ways that differ from command to command, so its times must not
// be compared; `reason` says why, empty when valid.
bool TimingValid(std::string* reason);

struct HostInfo {
  std::string cpu_model;  // /proc/cpuinfo "model name"
  int logical_cpus = 0;   // std::thread::hardware_concurrency
  int usable_cpus = 0;    // the process's CPU affinity mask
  std::string kernel;     // uname -sr
  std::string hostname;
  double load_average_1m = -1;  // how busy the shared machine was when the run started
};

HostInfo GetHostInfo();

// A warning when the machine was busy as a run started, or "". Busy means a 1-minute load
// average of at least the usable CPUs: every CPU already had a runnable task before kvlab's own
// work, so times will be noisy and small differences between cells will not be significant.
std::string LoadWarning(const HostInfo& host);

// The current UTC time as "2024-05-01T12:34:56Z", and as "20240501T123456Z" (file names).
std::string UtcTimestamp();
std::string UtcTimestampCompact();

}  // namespace kvlab::workloads
