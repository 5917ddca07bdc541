#include "workloads/build_info.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "workloads/build_info_commit.h"

// Set by workloads/CMakeLists.txt from the configured build.
#ifndef KVLAB_BUILD_TYPE
#define KVLAB_BUILD_TYPE "unknown"
#endif
#ifndef KVLAB_CXX_FLAGS
#define KVLAB_CXX_FLAGS ""
#endif
#ifndef KVLAB_COMPILER
#define KVLAB_COMPILER "unknown"
#endif
#ifndef KVLAB_SANITIZERS
#define KVLAB_SANITIZERS ""
#endif

namespace kvlab::workloads {

BuildInfo GetBuildInfo() {
  BuildInfo b;
  b.commit = KVLAB_GIT_COMMIT;
  b.commit_dirty = KVLAB_GIT_DIRTY;
  b.build_type = KVLAB_BUILD_TYPE;
  b.compiler = KVLAB_COMPILER;
  b.cxx_flags = KVLAB_CXX_FLAGS;
#ifdef NDEBUG
  b.assertions = false;
#else
  b.assertions = true;
#endif
#ifdef KVLAB_SANITIZER_BUILD
  b.sanitizer = true;
#endif
  b.sanitizers = KVLAB_SANITIZERS;
  return b;
}

bool TimingValid(std::string* reason) {
  const BuildInfo b = GetBuildInfo();
  if (b.sanitizer) {
    *reason = "sanitizer build (" + b.sanitizers + "): times are not comparable";
    return false;
  }
  if (b.assertions) {
    *reason = "build without NDEBUG (" + b.build_type + "): assertions on, times not comparable";
    return false;
  }
  reason->clear();
  return true;
}

HostInfo GetHostInfo() {
  HostInfo h;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) h.cpu_model = line.substr(colon + 2);
      break;
    }
  }
  h.logical_cpus = static_cast<int>(std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) h.usable_cpus = CPU_COUNT(&set);
  struct utsname u;
  if (uname(&u) == 0) {
    h.kernel = std::string(u.sysname) + " " + u.release;
    h.hostname = u.nodename;
  }
  double load[1];
  if (getloadavg(load, 1) == 1) h.load_average_1m = load[0];
  return h;
}

namespace {

std::string FormatUtc(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), format, &tm);
  return buf;
}

}  // namespace

std::string UtcTimestamp() { return FormatUtc("%Y-%m-%dT%H:%M:%SZ"); }
std::string UtcTimestampCompact() { return FormatUtc("%Y%m%dT%H%M%SZ"); }

std::string LoadWarning(const HostInfo& host) {
  const int cpus = std::max(1, host.usable_cpus);
  if (host.load_average_1m < cpus) return "";
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "the machine is loaded: load average %.1f over the last minute on %d usable "
                "CPU%s; times will be noisy, and differences between cells need more "
                "repetitions to be significant",
                host.load_average_1m, cpus, cpus == 1 ? "" : "s");
  return buf;
}

}  // namespace kvlab::workloads
