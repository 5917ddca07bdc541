// Latency of every command of docs/amplification.md, per encoding version and cache state, in
// one run: the numbers behind docs/tier-benchmark.md.
//
// Each measurement starts from the row's fresh state (dataset built, cache flushed or warmed,
// none of it timed) and times the one command; the median of --reps repetitions is reported
// with the row's exact KV and Redis-tier operation counts. Run on a quiet machine, compare rows
// of one run with each other, not with other runs.
//
// usage: amplification_bench [--backend memory|rocksdb|...] [--n 100] [--reps 15] [--out FILE]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>

#include "backends/registry.h"
#include "base/data_dir.h"
#include "engine/engine.h"
#include "resp/split_args.h"
#include "testing/amplification_table.h"

namespace kvlab::testing {

using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::CommandCost;
using engine::Engine;
using engine::EngineOptions;
using engine::Session;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;
using resp::SplitArgs;

namespace {

struct Options {
  std::string backend = "memory";
  int64_t n = 100;
  int reps = 15;
  std::string out = "docs/tier-benchmark.md";
};

std::string Flat(const std::vector<std::pair<const char*, uint64_t>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (value == 0 || std::string_view(name).starts_with("bytes_")) continue;
    if (!out.empty()) out += " ";
    out += std::string(name) + "=" + std::to_string(value);
  }
  return out.empty() ? "-" : out;
}

int Run(const Options& opts) {
#if !defined(NDEBUG) || defined(KVLAB_SANITIZER_BUILD)
  std::fprintf(stderr, "amplification_bench: refusing to time a debug or sanitizer build\n");
  return 2;
#endif
  std::vector<AmplificationRow> rows;
  std::string table_path;
  Status s = FindDataFile("docs/amplification.md", &table_path);
  if (s.ok()) s = LoadAmplificationTable(table_path, &rows);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::map<bool, std::unique_ptr<OpenedStore>> stores;
  std::map<bool, std::unique_ptr<Engine>> engines;
  for (bool no_reverse : {false, true}) {
    StoreSpec spec;
    spec.backend = opts.backend;
    spec.no_reverse_scan = no_reverse;
    s = OpenStore(spec, &stores[no_reverse]);
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 1;
    }
    engines[no_reverse] = std::make_unique<Engine>(stores[no_reverse]->store(), EngineOptions());
  }
  std::string table =
      "| command | encoding | median µs | KV operations | Redis tier |\n|---|---|---|---|---|\n";
  for (const AmplificationRow& row : rows) {
    std::vector<std::string> versions =
        row.versions.empty() ? std::vector<std::string>{"0"} : row.versions;
    for (const std::string& version : versions) {
      Engine& engine = *engines[row.no_reverse_scan];
      Session session;
      auto exec = [&](const std::vector<std::string>& argv, CommandCost* cost = nullptr) {
        return engine.Execute(session, argv, cost);
      };
      std::vector<std::string> command;
      SplitArgs(row.command, &command);
      std::vector<double> micros;
      CommandCost cost;
      for (int rep = 0; rep < opts.reps; ++rep) {
        exec({"FLUSHALL"});
        // The row's version for its type, every other type at its default.
        for (const encodings::TypeSpec& type : engine.registry().types()) {
          exec({"CONFIG", "SET", std::string(type.name) + "-encoding",
                row.type == type.name
                    ? version
                    : std::string(engine.registry().DefaultVersion(type.type).name)});
        }
        for (const auto& c : DatasetCommands(row.dataset, opts.n)) exec(c);
        if (row.cache == AmplificationRow::CacheState::kWarm) {
          for (const auto& c : WarmUpCommands(row.dataset, opts.n)) exec(c);
        } else if (row.cache == AmplificationRow::CacheState::kCold) {
          std::vector<Reply> ignored;
          TierCounts counts;
          s = engine.tier()->Pipeline(TierRole::kCache, {{"FLUSHALL"}}, &ignored, &counts);
          if (!s.ok()) {
            // A cold row measured over a warm cache would be a wrong number: stop instead.
            std::fprintf(stderr, "flushing the cache: %s\n", s.ToString().c_str());
            return 1;
          }
        }
        cost = CommandCost();
        const auto start = std::chrono::steady_clock::now();
        exec(command, &cost);
        micros.push_back(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                .count());
      }
      std::sort(micros.begin(), micros.end());
      const char* state = row.cache == AmplificationRow::CacheState::kCold   ? " (cold)"
                          : row.cache == AmplificationRow::CacheState::kWarm ? " (warm)"
                                                                             : "";
      char median[32];
      std::snprintf(median, sizeof(median), "%.1f", micros[micros.size() / 2]);
      const std::string encoding = row.type + (row.type == "string" ? "" : " v" + version) + state +
                                   (row.no_reverse_scan ? " (no reverse scan)" : "");
      table += "| `" + row.command + "` | " + encoding + " | " + median + " | " +
               Flat(cost.kv.Fields()) + " | " + Flat(cost.tier.Fields()) + " |\n";
      std::fprintf(stderr, "%-40s %-28s %8s us\n", row.command.c_str(), encoding.c_str(), median);
    }
  }
  std::ofstream out(opts.out);
  out << "# Latency per command, encoding and cache state\n\n"
      << "One run of `build/testing/amplification_bench --backend " << opts.backend << " --n "
      << opts.n << " --reps " << opts.reps
      << "`: every row of [amplification.md](amplification.md) at n = " << opts.n
      << ", the median of " << opts.reps
      << " measurements, each from a fresh state (dataset built; cache flushed for cold rows, "
         "warmed for warm rows; none of it timed). Redis tier: private redis-servers on "
         "loopback. The machine is shared and noisy: compare rows of this run with each other "
         "(cold against warm, one version against another), not with other runs.\n\n"
      << table;
  std::fprintf(stderr, "wrote %s\n", opts.out.c_str());
  return out ? 0 : 1;
}

}  // namespace
}  // namespace kvlab::testing

int main(int argc, char** argv) {
  kvlab::testing::Options opts;
  CLI::App app{"Latency of every command of docs/amplification.md, per version and cache state"};
  app.add_option("--backend", opts.backend, "KV backend")->capture_default_str();
  app.add_option("--n", opts.n, "Collection size of the datasets")->capture_default_str();
  app.add_option("--reps", opts.reps, "Measurements per row (the median is reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--out", opts.out, "Markdown file to write")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  return kvlab::testing::Run(opts);
}
