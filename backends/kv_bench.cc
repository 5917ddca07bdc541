// Raw backend operations under Google Benchmark: the physical floor the engine is compared with.
//
// Every benchmark runs on every backend (the benchmark's argument is the backend's index in
// BackendNames()), over a store preloaded with kPreload keys of 100-byte values. etcd runs on a
// private 3-member cluster on loopback (a fresh one per benchmark): its CPU time is only the
// client's, so its real time (the round trip and the raft commit) is the number to read.
// One more argument past the backends, labelled "lmdb-nochecksums", is LMDB without its value
// checksums (backends/checksum_store.h): run beside "lmdb" (the filter
// 'backend:(2|5)$' with --benchmark_enable_random_interleaving), it measures what they cost.
#include <benchmark/benchmark.h>

#include <random>

#include "backends/registry.h"

namespace kvlab::backends {
namespace {

constexpr int kPreload = 100000;

std::string KeyOf(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "key%012llu", static_cast<unsigned long long>(i));
  return buf;
}

// Opens a temporary store of the benchmark's backend and preloads it.
std::unique_ptr<OpenedStore> OpenPreloaded(benchmark::State& state) {
  StoreSpec spec;
  const auto index = static_cast<size_t>(state.range(0));
  const bool raw_lmdb = index == BackendNames().size();
  spec.backend = raw_lmdb ? "lmdb" : BackendNames().at(index);
  spec.checksums = !raw_lmdb;
  std::unique_ptr<OpenedStore> opened;
  Status s = OpenStore(spec, &opened);
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return nullptr;
  }
  const std::string value(100, 'v');
  for (int start = 0; start < kPreload; start += 1000) {
    WriteBatch batch;
    for (int i = start; i < start + 1000; ++i) batch.Put(KeyOf(2 * i), value);  // even keys only
    if (!opened->store()->Write(batch).ok()) state.SkipWithError("preload failed");
  }
  state.SetLabel(raw_lmdb ? "lmdb-nochecksums" : spec.backend);
  return opened;
}

void BM_GetHit(benchmark::State& state) {
  auto opened = OpenPreloaded(state);
  if (!opened) return;
  std::mt19937_64 rng(1);
  std::string v;
  for (auto _ : state) {
    Status s = opened->store()->Get(KeyOf(2 * (rng() % kPreload)), &v);
    benchmark::DoNotOptimize(s);
  }
}

void BM_GetMiss(benchmark::State& state) {
  auto opened = OpenPreloaded(state);
  if (!opened) return;
  std::mt19937_64 rng(2);
  std::string v;
  for (auto _ : state) {
    Status s = opened->store()->Get(KeyOf(2 * (rng() % kPreload) + 1), &v);
    benchmark::DoNotOptimize(s);
  }
}

void BM_Put(benchmark::State& state) {
  auto opened = OpenPreloaded(state);
  if (!opened) return;
  std::mt19937_64 rng(3);
  const std::string value(100, 'w');
  for (auto _ : state) {
    Status s = opened->store()->Put(KeyOf(rng() % (2 * kPreload)), value);
    benchmark::DoNotOptimize(s);
  }
}

void BM_Batch10(benchmark::State& state) {
  auto opened = OpenPreloaded(state);
  if (!opened) return;
  std::mt19937_64 rng(4);
  const std::string value(100, 'w');
  for (auto _ : state) {
    WriteBatch batch;
    for (int i = 0; i < 10; ++i) batch.Put(KeyOf(rng() % (2 * kPreload)), value);
    Status s = opened->store()->Write(batch);
    benchmark::DoNotOptimize(s);
  }
  state.SetItemsProcessed(state.iterations() * 10);
}

void BM_Seek10Next(benchmark::State& state) {
  auto opened = OpenPreloaded(state);
  if (!opened) return;
  std::mt19937_64 rng(5);
  for (auto _ : state) {
    auto it = opened->store()->NewIterator({});
    it->Seek(KeyOf(rng() % (2 * kPreload)));
    for (int i = 0; i < 10 && it->Valid(); ++i) it->Next();
    benchmark::DoNotOptimize(it->Valid());
  }
}

void BM_SeekForPrev10Prev(benchmark::State& state) {
  auto opened = OpenPreloaded(state);
  if (!opened) return;
  std::mt19937_64 rng(6);
  for (auto _ : state) {
    auto it = opened->store()->NewIterator({});
    it->SeekForPrev(KeyOf(rng() % (2 * kPreload)));
    for (int i = 0; i < 10 && it->Valid(); ++i) it->Prev();
    benchmark::DoNotOptimize(it->Valid());
  }
}

void AllBackends(benchmark::internal::Benchmark* b) {
  for (size_t i = 0; i <= BackendNames().size(); ++i) b->Arg(static_cast<int64_t>(i));
  b->ArgName("backend");
}

BENCHMARK(BM_GetHit)->Apply(AllBackends);
BENCHMARK(BM_GetMiss)->Apply(AllBackends);
BENCHMARK(BM_Put)->Apply(AllBackends);
BENCHMARK(BM_Batch10)->Apply(AllBackends);
BENCHMARK(BM_Seek10Next)->Apply(AllBackends);
BENCHMARK(BM_SeekForPrev10Prev)->Apply(AllBackends);

}  // namespace
}  // namespace kvlab::backends

BENCHMARK_MAIN();
