// Engine microbenchmarks: one Google Benchmark per command, encoding version and backend.
//
// Each reports ns/op of Engine::Execute, the command's KV operations as user counters averaged
// per iteration (gets, seeks, nexts, batches, ...: so the JSON output carries amplification),
// and its raw floor: floor_cpu_ns is the CPU time of replaying the command's own KV calls
// (kv_trace.h) on the raw store, interleaved with the engine calls in blocks of 64, and
// ratio = engine_cpu_ns / floor_cpu_ns is the engine's own overhead (target: <= 1.5, issue 3).
//
// Data: 10,000 strings, 10,000 hashes of 10 fields and 100 zsets of 1,000 members, values of
// 100 bytes; each call picks its key at random (fixed seed).
//
//   build/workloads/engine_bench [--kvlab_backends=memory,rocksdb]
//                                [--kvlab_allow_invalid_timing] [Google Benchmark flags]
//
// A debug or sanitizer build refuses to run unless --kvlab_allow_invalid_timing is given; the
// context then says kvlab_timing_valid=false.
#include <benchmark/benchmark.h>
#include <time.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>

#include "backends/registry.h"
#include "engine/engine.h"
#include "workloads/build_info.h"
#include "workloads/generators.h"
#include "workloads/kv_trace.h"
#include "workloads/matrix.h"

namespace kvlab::workloads {

using backends::KvStore;
using backends::OpCounts;
using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::CommandCost;
using engine::Engine;
using engine::EngineOptions;
using engine::Session;
using redis::TierCounts;
using resp::Reply;

namespace {

constexpr int kStrings = 10000;
constexpr int kHashes = 10000;
constexpr int kFields = 10;
constexpr int kZsets = 100;
constexpr int kMembers = 1000;
constexpr size_t kArgvs = 512;   // distinct commands cycled through by each benchmark
constexpr uint64_t kBlock = 64;  // engine calls between two raw replays

std::string Value(Rng& rng) {
  std::string v(100, ' ');
  for (char& c : v) c = static_cast<char>('a' + rng.Uniform(26));
  return v;
}

// A store with the data set, created with one hash and zset version.
struct Dataset {
  std::unique_ptr<OpenedStore> store;
  std::unique_ptr<Engine> engine;
  Session session;
};

Status BuildDataset(const std::string& backend, int hash_version, int zset_version, Dataset* d) {
  StoreSpec spec;
  spec.backend = backend;
  KVLAB_RETURN_IF_ERROR(OpenStore(spec, &d->store));
  EngineOptions options;
  options.versions = {{encodings::KeyType::kHash, static_cast<uint8_t>(hash_version)},
                      {encodings::KeyType::kZset, static_cast<uint8_t>(zset_version)}};
  d->engine = std::make_unique<Engine>(d->store->store(), options);
  Rng rng(1);
  auto run = [&](std::vector<std::string> argv) {
    const Reply r = d->engine->Execute(d->session, argv);
    return r.is_error() ? Status::InvalidArgument(r.str()) : Status::OK();
  };
  for (int i = 0; i < kStrings; ++i) {
    KVLAB_RETURN_IF_ERROR(run({"SET", "s:" + std::to_string(i), Value(rng)}));
  }
  for (int i = 0; i < kHashes; ++i) {
    std::vector<std::string> argv = {"HSET", "h:" + std::to_string(i)};
    for (int f = 0; f < kFields; ++f) {
      argv.push_back("field" + std::to_string(f));
      argv.push_back(Value(rng));
    }
    KVLAB_RETURN_IF_ERROR(run(std::move(argv)));
  }
  for (int i = 0; i < kZsets; ++i) {
    std::vector<std::string> argv = {"ZADD", "z:" + std::to_string(i)};
    for (int m = 0; m < kMembers; ++m) {
      argv.push_back(std::to_string(rng.Uniform(1000000)));
      argv.push_back("m" + std::to_string(m));
    }
    KVLAB_RETURN_IF_ERROR(run(std::move(argv)));
  }
  return d->store->store()->Flush();
}

// The data sets, built on first use and kept for the other benchmarks of the same cell. Owned
// by main and captured by the benchmarks (no global state).
class Datasets {
 public:
  Dataset* Get(const std::string& backend, int hash_version, int zset_version, Status* status) {
    auto key = std::make_tuple(backend, hash_version, zset_version);
    auto it = sets_.find(key);
    if (it != sets_.end()) return it->second.get();
    auto d = std::make_unique<Dataset>();
    *status = BuildDataset(backend, hash_version, zset_version, d.get());
    if (!status->ok()) return nullptr;
    return (sets_[key] = std::move(d)).get();
  }

 private:
  std::map<std::tuple<std::string, int, int>, std::unique_ptr<Dataset>> sets_;
};

struct Case {
  const char* name;
  const char* type;  // "string", "hash" or "zset": which version axis applies
  std::function<std::vector<std::string>(Rng&)> argv;
  // >= 0: the commands come in pairs that differ only in this argument, so that cycling
  // through them changes state on every call (ZADD of the score a member already has would be
  // a no-op after the first cycle).
  int alternate_arg = -1;
};

std::string R(Rng& rng, const char* prefix, int n) {
  return prefix + std::to_string(rng.Uniform(static_cast<uint64_t>(n)));
}

std::vector<Case> Cases() {
  return {
      {"GET", "string",
       [](Rng& r) {
         return std::vector<std::string>{"GET", R(r, "s:", kStrings)};
       }},
      {"SET", "string",
       [](Rng& r) {
         return std::vector<std::string>{"SET", R(r, "s:", kStrings), Value(r)};
       }},
      {"HGET", "hash",
       [](Rng& r) {
         return std::vector<std::string>{"HGET", R(r, "h:", kHashes), R(r, "field", kFields)};
       }},
      {"HSET", "hash",
       [](Rng& r) {
         return std::vector<std::string>{"HSET", R(r, "h:", kHashes), R(r, "field", kFields),
                                         Value(r)};
       }},
      {"HMGET-3", "hash",
       [](Rng& r) {
         return std::vector<std::string>{"HMGET", R(r, "h:", kHashes), "field1", "field4",
                                         "field7"};
       }},
      {"HGETALL", "hash",
       [](Rng& r) {
         return std::vector<std::string>{"HGETALL", R(r, "h:", kHashes)};
       }},
      {"HLEN", "hash",
       [](Rng& r) {
         return std::vector<std::string>{"HLEN", R(r, "h:", kHashes)};
       }},
      {"HEXISTS", "hash",
       [](Rng& r) {
         return std::vector<std::string>{"HEXISTS", R(r, "h:", kHashes), R(r, "field", kFields)};
       }},
      {"ZSCORE", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZSCORE", R(r, "z:", kZsets), R(r, "m", kMembers)};
       }},
      // ZADD of an existing member that changes its score (a different score on every call).
      {"ZADD", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZADD", R(r, "z:", kZsets),
                                         std::to_string(r.Uniform(1000000)), R(r, "m", kMembers)};
       },
       /*alternate_arg=*/2},
      {"ZINCRBY", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZINCRBY", R(r, "z:", kZsets), "1", R(r, "m", kMembers)};
       }},
      {"ZCARD", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZCARD", R(r, "z:", kZsets)};
       }},
      {"ZRANK", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZRANK", R(r, "z:", kZsets), R(r, "m", kMembers)};
       }},
      {"ZRANGE-10", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZRANGE", R(r, "z:", kZsets), "0", "9"};
       }},
      {"ZREVRANGE-10", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZREVRANGE", R(r, "z:", kZsets), "0", "9"};
       }},
      {"ZRANGEBYSCORE-10", "zset",
       [](Rng& r) {
         return std::vector<std::string>{"ZRANGEBYSCORE",
                                         R(r, "z:", kZsets),
                                         std::to_string(r.Uniform(900000)),
                                         "+inf",
                                         "LIMIT",
                                         "0",
                                         "10"};
       }},
  };
}

// CPU time of the calling thread.
double ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void RunCase(benchmark::State& state, Datasets* sets, const Case& c, const std::string& backend,
             int hash_version, int zset_version) {
  Status s;
  Dataset* d = sets->Get(backend, hash_version, zset_version, &s);
  if (d == nullptr) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  // The commands, and the KV calls each issues, captured with a second engine over a tracing
  // view of the same store. The timed loop below cycles through the same commands, so the cycle
  // runs once untraced first: the traces are those of the steady state the loop measures (the
  // Redis tier's caches warm, each write's change already made once), not of a first, cold run.
  Rng rng(Rng::StreamSeed(7, std::hash<std::string>()(c.name)));
  std::vector<std::vector<std::string>> argvs;
  for (size_t i = 0; i < kArgvs; ++i) {
    if (c.alternate_arg >= 0 && i % 2 == 1) {
      std::vector<std::string> other = argvs.back();
      const size_t a = static_cast<size_t>(c.alternate_arg);
      while (other[a] == argvs.back()[a]) other[a] = c.argv(rng)[a];
      argvs.push_back(std::move(other));
    } else {
      argvs.push_back(c.argv(rng));
    }
  }
  std::vector<KvTrace> traces;
  TracingStore tracing(d->store->store());
  EngineOptions options;
  options.versions = {{encodings::KeyType::kHash, static_cast<uint8_t>(hash_version)},
                      {encodings::KeyType::kZset, static_cast<uint8_t>(zset_version)}};
  options.tier = d->engine->tier();  // one Redis tier: the same caches and zset store
  Engine tracer(&tracing, options);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& argv : argvs) {
      tracing.Take();
      const Reply r = tracer.Execute(d->session, argv);
      if (r.is_error()) {
        state.SkipWithError(r.str().c_str());
        return;
      }
      if (pass == 1) traces.push_back(tracing.Take());
    }
  }
  // Side by side: after each block of engine calls, the timer is paused and a block of the same
  // commands' traces is replayed raw. Both are timed in thread CPU time, which a busy shared
  // machine disturbs far less than wall time.
  KvStore* raw = d->store->store();
  Engine& engine = *d->engine;
  OpCounts total;
  TierCounts tier_total;
  CommandCost cost;
  double engine_cpu = 0, floor_cpu = 0;
  uint64_t calls = 0, replays = 0;
  auto replay_block = [&](uint64_t first, uint64_t n) {
    const double t0 = ThreadCpuNs();
    for (uint64_t k = first; k < first + n; ++k) {
      if (!ReplayTrace(traces[k % kArgvs], raw).ok()) state.SkipWithError("replay failed");
    }
    floor_cpu += ThreadCpuNs() - t0;
    replays += n;
  };
  double block_start = ThreadCpuNs();
  for (auto _ : state) {
    const Reply r = engine.Execute(d->session, argvs[calls % kArgvs], &cost);
    benchmark::DoNotOptimize(r);
    total += cost.kv;
    tier_total += cost.tier;
    if (++calls % kBlock == 0) {
      engine_cpu += ThreadCpuNs() - block_start;
      state.PauseTiming();
      // Half a cycle away from the block the engine just ran, so that neither side replays keys
      // the other has just brought into the CPU caches: each block's keys were last touched
      // half a cycle earlier, by the other side.
      replay_block(calls - kBlock + kArgvs / 2, kBlock);
      state.ResumeTiming();
      block_start = ThreadCpuNs();
    }
  }
  engine_cpu += ThreadCpuNs() - block_start;
  if (replays == 0) replay_block(0, calls);  // fewer calls than a block: replay them after

  for (const auto& [name, value] : total.Fields()) {
    state.counters[name] =
        benchmark::Counter(static_cast<double>(value), benchmark::Counter::kAvgIterations);
  }
  // The Redis tier's work per call (hash v2/v3, zset v1-v3, set v2/v3). The raw floor replays only
  // the KV calls, so where these are non-zero the ratio includes the Redis round trips' client
  // cost.
  for (const auto& [name, value] : tier_total.Fields()) {
    state.counters[name] =
        benchmark::Counter(static_cast<double>(value), benchmark::Counter::kAvgIterations);
  }
  const double engine_ns = engine_cpu / static_cast<double>(std::max<uint64_t>(1, calls));
  const double floor_ns = floor_cpu / static_cast<double>(std::max<uint64_t>(1, replays));
  state.counters["engine_cpu_ns"] = engine_ns;
  state.counters["floor_cpu_ns"] = floor_ns;
  state.counters["ratio"] = floor_ns > 0 ? engine_ns / floor_ns : 0;
  state.SetLabel(backend);
}

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t comma = s.find(',', start);
    const size_t end = comma == std::string::npos ? s.size() : comma;
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace
}  // namespace kvlab::workloads

int main(int argc, char** argv) {
  using namespace kvlab::workloads;  // main() runs the benchmarks defined above
  std::vector<std::string> backends = {"memory", "rocksdb"};
  bool allow_invalid = false;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--kvlab_backends=", 17) == 0) {
      backends = SplitComma(argv[i] + 17);
    } else if (std::strcmp(argv[i], "--kvlab_allow_invalid_timing") == 0) {
      allow_invalid = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  std::string reason;
  const bool valid = TimingValid(&reason);
  if (!valid && !allow_invalid) {
    std::fprintf(stderr,
                 "engine_bench: refusing to time a %s. Build RelWithDebInfo or Release, or pass "
                 "--kvlab_allow_invalid_timing (the output is then marked invalid).\n",
                 reason.c_str());
    return 2;
  }
  const BuildInfo build = GetBuildInfo();
  benchmark::AddCustomContext("kvlab_timing_valid", valid ? "true" : "false");
  if (!valid) benchmark::AddCustomContext("kvlab_timing_invalid_reason", reason);
  benchmark::AddCustomContext("kvlab_commit",
                              build.commit + (build.commit_dirty ? " (dirty)" : ""));
  benchmark::AddCustomContext("kvlab_build_type", build.build_type);

  auto sets = std::make_shared<Datasets>();
  // Every version this engine runs, as the matrix of `kvlab bench` does.
  const std::map<std::string, std::vector<std::string>> available =
      AvailableVersions(EngineOptions());
  // The registry ids of the versions the engine runs (the ids are what EngineOptions takes).
  auto ids = [&available](kvlab::encodings::KeyType type, const char* name) {
    std::vector<int> out;
    const auto& registry = kvlab::encodings::EncodingRegistry::Builtin();
    auto it = available.find(name);
    if (it == available.end()) return out;
    for (const std::string& v : it->second) out.push_back(registry.Find(type, v)->id);
    return out;
  };
  const std::vector<int> hash_versions = ids(kvlab::encodings::KeyType::kHash, "hash");
  const std::vector<int> zset_versions = ids(kvlab::encodings::KeyType::kZset, "zset");
  for (const std::string& backend : backends) {
    for (const Case& c : Cases()) {
      std::vector<std::pair<int, int>> versions;  // (hash, zset)
      if (std::string(c.type) == "hash") {
        for (int v : hash_versions) versions.emplace_back(v, 0);
      } else if (std::string(c.type) == "zset") {
        for (int v : zset_versions) versions.emplace_back(0, v);
      } else {
        versions.emplace_back(0, 0);
      }
      for (const auto& [h, z] : versions) {
        std::string name = std::string("BM_Engine/") + c.name + "/";
        name += std::string(c.type) == "hash"   ? "v" + std::to_string(h)
                : std::string(c.type) == "zset" ? "v" + std::to_string(z)
                                                : "-";
        name += "/" + backend;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [sets, c, backend, h = h, z = z](benchmark::State& state) {
                                       RunCase(state, sets.get(), c, backend, h, z);
                                     });
      }
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  // The registered benchmarks hold the data sets: drop them while the storage engines' own
  // static state is still alive, not during static destruction.
  benchmark::ClearRegisteredBenchmarks();
  sets.reset();
  benchmark::Shutdown();
  return 0;
}
