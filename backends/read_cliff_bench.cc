// Point-read throughput as a store grows past its cache and through its compactions (issue 40's
// read cliff): scripts/bench-read-cliff runs it, side by side with a baseline build, and writes
// docs/studies/read-cliff.
//
// One run loads --keys keys into a fresh store of one backend, in random order (a fixed
// permutation of the key numbers), in --steps equal steps. After each step it
// - waits until the store's background work is done: every thread but this one has used
//   (almost) no CPU for a while (RocksDB's flushes and compactions, WiredTiger's eviction), so
//   that the reads are timed alone and the LSM state below is the one they ran against;
// - times Gets of present keys and of absent keys inside the loaded key range (only a Bloom
//   filter or the data block can tell those apart), for --read-ms each, --reps times, and
//   records each rate, the CPU time per Get of this thread, and the blocks read per Get (the
//   backend's physical counters; for RocksDB also the index and filter blocks its PerfContext
//   counts);
// - for RocksDB, reads the store's event log (the LOG file's EVENT_LOG_v1 records): the
//   compactions and flushes finished so far, the files per level, and the largest index and
//   filter block of a live file; and, once, the block cache and index options the LOG prints.
// It writes one JSON document (stdout, or --json FILE).
//
// usage: read_cliff_bench [--backend rocksdb] [--keys 10000000] [--steps 20] [--reps 5]
//                         [--read-ms 200] [--value-bytes 16] [--cache-mb 64] [--settle-s 600]
//                         [--label NAME] [--json FILE]
#include <rocksdb/perf_context.h>
#include <rocksdb/perf_level.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "backends/registry.h"

namespace kvlab::backends {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string backend = "rocksdb";
  uint64_t keys = 10'000'000;
  int steps = 20;
  int reps = 5;
  int read_ms = 200;
  int value_bytes = 16;
  uint64_t cache_mb = 64;
  int settle_s = 600;
  std::string label;
  std::string json_path;
};

// The permutation of [0, n) that orders the load: i -> (i * kStride + kOffset) mod n, a
// bijection because kStride is a prime larger than any n accepted.
constexpr uint64_t kStride = 2654435761ull;
constexpr uint64_t kOffset = 12345;
constexpr uint64_t kMaxKeys = 1'000'000'000ull;
constexpr int kBatch = 1000;
constexpr int kGetsPerClockRead = 256;

uint64_t Permute(uint64_t i, uint64_t n) { return (i * kStride + kOffset) % n; }

// Key number k's record: "key" and 12 digits of 2k (present keys are even, so that 2k+1 is an
// absent key between two present ones).
std::string KeyOf(uint64_t number) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(number));
  return buf;
}

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Incompressible bytes, different for every key: a value compression would shrink to nothing
// would let a file hold far more records than real data does.
std::string ValueOf(uint64_t k, int bytes) {
  std::string v(static_cast<size_t>(bytes), '\0');
  uint64_t x = k;
  for (int i = 0; i < bytes; i += 8) {
    x = SplitMix(x);
    for (int j = 0; j < 8 && i + j < bytes; ++j) v[i + j] = static_cast<char>(x >> (8 * j));
  }
  return v;
}

// CPU time (clock ticks) of this process's threads other than the calling one.
uint64_t BackgroundTicks() {
  const std::string self = std::to_string(syscall(SYS_gettid));
  uint64_t ticks = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    if (task.path().filename() == self) continue;
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Fields after the parenthesized name: state is field 3, utime 14, stime 15.
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string f;
    for (int field = 3; field <= 15 && fields >> f; ++field) {
      if (field == 14 || field == 15) ticks += std::stoull(f);
    }
  }
  return ticks;
}

// Waits until the other threads use under 5% of a core over a 500 ms window, or `limit` passes.
// Returns whether they went quiet.
bool Settle(std::chrono::seconds limit) {
  const long hz = sysconf(_SC_CLK_TCK);
  const uint64_t quiet_ticks = static_cast<uint64_t>(hz) / 40;  // 25 ms in 500 ms
  const auto deadline = Clock::now() + limit;
  uint64_t before = BackgroundTicks();
  while (Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const uint64_t now = BackgroundTicks();
    if (now - before <= quiet_ticks) return true;
    before = now;
  }
  return false;
}

// This thread's CPU time: what a Get costs, whatever else the shared machine is running (the
// rates, in wall time, also count the time this thread waited for a core).
uint64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

json LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  in >> a >> b >> c;
  return json::array({a, b, c});
}

// What RocksDB's event log says so far (the LOG file of the store's directory).
json ReadRocksDbLog(const std::string& dir) {
  std::ifstream in(dir + "/LOG");
  int compactions = 0, flushes = 0;
  json lsm = json::array();
  std::map<uint64_t, json> live;  // file number -> table properties
  json options = json::object();
  std::string line;
  const std::string tag = "EVENT_LOG_v1 ";
  while (std::getline(in, line)) {
    // The block-based table options RocksDB prints once at open (" key: value" lines).
    for (const char* name : {"index_type", "partition_filters", "metadata_block_size",
                             "num_shard_bits", "capacity", "high_pri_pool_ratio",
                             "pin_top_level_index_and_filter", "cache_index_and_filter_blocks"}) {
      const std::string key = std::string(name);
      const size_t at = line.find(" " + key + " :");
      const size_t at2 = line.find(" " + key + ":");
      const size_t pos = at != std::string::npos ? at : at2;
      if (pos == std::string::npos || options.contains(key)) continue;
      std::string value = line.substr(line.find(':', pos) + 1);
      value.erase(0, value.find_first_not_of(' '));
      options[key] = value;
    }
    const size_t at = line.find(tag);
    if (at == std::string::npos) continue;
    json event = json::parse(line.substr(at + tag.size()), nullptr, /*allow_exceptions=*/false);
    if (!event.is_object() || !event.contains("event")) continue;
    const std::string kind = event["event"].get<std::string>();
    if (kind == "compaction_finished") ++compactions;
    if (kind == "flush_finished") ++flushes;
    if (event.contains("lsm_state")) lsm = event["lsm_state"];
    if (kind == "table_file_creation" && event.contains("table_properties")) {
      live[event["file_number"].get<uint64_t>()] = event["table_properties"];
    }
    if (kind == "table_file_deletion") live.erase(event["file_number"].get<uint64_t>());
  }
  uint64_t filter = 0, index = 0, entries = 0;
  for (const auto& [number, props] : live) {
    filter = std::max(filter, props.value("filter_size", uint64_t{0}));
    index = std::max(index, props.value("index_size", uint64_t{0}));
    entries = std::max(entries, props.value("num_entries", uint64_t{0}));
  }
  return {{"compactions", compactions},
          {"flushes", flushes},
          {"lsm_state", lsm},
          {"live_files", live.size()},
          {"largest_filter_bytes", filter},
          {"largest_index_bytes", index},
          {"largest_file_entries", entries},
          {"options", options}};
}

// Counter deltas divided by `gets`.
json PerGet(const PhysicalCounters& before, const PhysicalCounters& after, uint64_t gets) {
  json out = json::object();
  std::map<std::string, uint64_t> start(before.begin(), before.end());
  for (const auto& [name, value] : after) {
    const uint64_t b = start.count(name) ? start[name] : 0;
    if (value >= b) out[name] = static_cast<double>(value - b) / static_cast<double>(gets);
  }
  return out;
}

// Times Gets of random loaded keys (present, or the absent key after each) for `ms`.
json TimeGets(KvStore* store, uint64_t loaded, uint64_t n, bool present, int ms,
              std::mt19937_64* rng) {
  const rocksdb::PerfContext perf_before = *rocksdb::get_perf_context();
  const PhysicalCounters before = store->ReadPhysicalCounters();
  std::string value;
  uint64_t gets = 0, wrong = 0;
  const uint64_t cpu_start = ThreadCpuNanos();
  const auto start = Clock::now();
  const auto end = start + std::chrono::milliseconds(ms);
  auto now = start;
  while (now < end) {
    for (int i = 0; i < kGetsPerClockRead; ++i) {
      const uint64_t k = 2 * Permute((*rng)() % loaded, n) + (present ? 0 : 1);
      Status s = store->Get(KeyOf(k), &value);
      if (present ? !s.ok() : !s.IsNotFound()) ++wrong;
    }
    gets += kGetsPerClockRead;
    now = Clock::now();
  }
  const double seconds = std::chrono::duration<double>(now - start).count();
  const double cpu_us = static_cast<double>(ThreadCpuNanos() - cpu_start) / 1000.0;
  json per_get = PerGet(before, store->ReadPhysicalCounters(), gets);
  if (store->name() == "rocksdb") {
    const rocksdb::PerfContext* p = rocksdb::get_perf_context();
    const double g = static_cast<double>(gets);
    per_get["rocksdb.filter_block_read_count"] =
        static_cast<double>(p->filter_block_read_count - perf_before.filter_block_read_count) / g;
    per_get["rocksdb.index_block_read_count"] =
        static_cast<double>(p->index_block_read_count - perf_before.index_block_read_count) / g;
  }
  return {{"rate", static_cast<double>(gets) / seconds},
          {"cpu_us_per_get", cpu_us / static_cast<double>(gets)},
          {"gets", gets},
          {"wrong", wrong},
          {"per_get", per_get}};
}

int Run(const Options& opts) {
#if !defined(NDEBUG) || defined(KVLAB_SANITIZER_BUILD)
  std::fprintf(stderr, "read_cliff_bench: refusing to time a debug or sanitizer build\n");
  return 2;
#endif
  rocksdb::SetPerfLevel(rocksdb::kEnableCount);
  StoreSpec spec;
  spec.backend = opts.backend;
  spec.options.cache_bytes = opts.cache_mb << 20;
  std::unique_ptr<OpenedStore> opened;
  if (Status s = OpenStore(spec, &opened); !s.ok()) {
    std::fprintf(stderr, "read_cliff_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  KvStore* store = opened->store();
  const uint64_t n = opts.keys;
  std::mt19937_64 rng(40);
  json steps = json::array();
  uint64_t loaded = 0;
  for (int step = 1; step <= opts.steps; ++step) {
    const uint64_t target = n * static_cast<uint64_t>(step) / static_cast<uint64_t>(opts.steps);
    const auto load_start = Clock::now();
    while (loaded < target) {
      WriteBatch batch;
      for (int i = 0; i < kBatch && loaded < target; ++i, ++loaded) {
        const uint64_t k = Permute(loaded, n);
        batch.Put(KeyOf(2 * k), ValueOf(k, opts.value_bytes));
      }
      if (Status s = store->Write(batch); !s.ok()) {
        std::fprintf(stderr, "read_cliff_bench: load: %s\n", s.ToString().c_str());
        return 1;
      }
    }
    const auto settle_start = Clock::now();
    const bool settled = Settle(std::chrono::seconds(opts.settle_s));
    const auto read_start = Clock::now();
    json hits = json::array(), misses = json::array();
    uint64_t wrong = 0;
    for (int rep = 0; rep < opts.reps; ++rep) {
      hits.push_back(TimeGets(store, loaded, n, true, opts.read_ms, &rng));
      misses.push_back(TimeGets(store, loaded, n, false, opts.read_ms, &rng));
      wrong += hits.back()["wrong"].get<uint64_t>() + misses.back()["wrong"].get<uint64_t>();
    }
    if (wrong != 0) {
      std::fprintf(stderr, "read_cliff_bench: %llu Gets found the wrong answer\n",
                   static_cast<unsigned long long>(wrong));
      return 1;
    }
    const PhysicalCounters counters = store->ReadPhysicalCounters();
    json out = {
        {"keys_loaded", loaded},
        {"load_seconds", std::chrono::duration<double>(settle_start - load_start).count()},
        {"settle_seconds", std::chrono::duration<double>(read_start - settle_start).count()},
        {"settled", settled},
        {"loadavg", LoadAverage()},
        {"get_hit", hits},
        {"get_miss", misses},
        // Gauges among them: LMDB's tree depth, WiredTiger's cache bytes in use.
        {"counters", std::map<std::string, uint64_t>(counters.begin(), counters.end())},
    };
    if (opts.backend == "rocksdb") out["rocksdb"] = ReadRocksDbLog(opened->dir());
    std::fprintf(stderr, "%s %s: %llu keys: hit %.0f/s miss %.0f/s%s\n", opts.label.c_str(),
                 opts.backend.c_str(), static_cast<unsigned long long>(loaded),
                 hits.back()["rate"].get<double>(), misses.back()["rate"].get<double>(),
                 settled ? "" : " (background work still running)");
    steps.push_back(std::move(out));
  }
  json doc = {{"context",
               {{"label", opts.label},
                {"backend", opts.backend},
                {"keys", opts.keys},
                {"steps", opts.steps},
                {"reps", opts.reps},
                {"read_ms", opts.read_ms},
                {"value_bytes", opts.value_bytes},
                {"cache_mb", opts.cache_mb},
                {"hardware_threads", std::thread::hardware_concurrency()}}},
              {"steps", steps}};
  const std::string text = doc.dump(1) + "\n";
  if (opts.json_path.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    std::ofstream(opts.json_path) << text;
  }
  return 0;
}

}  // namespace
}  // namespace kvlab::backends

int main(int argc, char** argv) {
  kvlab::backends::Options opts;
  CLI::App app{"Point-read throughput as a store grows through its compactions"};
  app.add_option("--backend", opts.backend, "Backend")
      ->check(CLI::IsMember(kvlab::backends::EmbeddedBackendNames()))
      ->capture_default_str();
  app.add_option("--keys", opts.keys, "Keys loaded in all")
      ->check(CLI::Range(uint64_t{1000}, kvlab::backends::kMaxKeys))
      ->capture_default_str();
  app.add_option("--steps", opts.steps, "Load steps, each followed by reads")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--reps", opts.reps, "Timed read phases per step and kind")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--read-ms", opts.read_ms, "Length of one timed read phase")
      ->check(CLI::Range(1, 60000))
      ->capture_default_str();
  app.add_option("--value-bytes", opts.value_bytes, "Bytes per value")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app.add_option("--cache-mb", opts.cache_mb, "Backend cache size in MiB")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--settle-s", opts.settle_s, "Longest wait for background work after a step")
      ->check(CLI::Range(0, 86400))
      ->capture_default_str();
  app.add_option("--label", opts.label, "A name for this run, copied into the JSON");
  app.add_option("--json", opts.json_path, "Write the JSON here instead of stdout");
  CLI11_PARSE(app, argc, argv);
  if (opts.steps > 0 && opts.keys < static_cast<uint64_t>(opts.steps)) {
    std::fprintf(stderr, "read_cliff_bench: --keys must be at least --steps\n");
    return 2;
  }
  return kvlab::backends::Run(opts);
}
