#include "cli/gc_command.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "engine/active_expiry.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "flags/common_flags.h"
#include "flags/conventions.h"

namespace kvlab::cli {

using engine::Collector;
using engine::Engine;
using engine::GcOptions;
using engine::GcProgress;
using engine::GcStats;
using flags::kExitFailed;
using flags::kExitInterrupted;
using flags::kExitOk;
using flags::kExitUsage;
using flags::UsageError;

namespace {

struct GcFlags {
  flags::StoreFlags store;
  flags::EngineFlags engine;
  uint64_t batch = 1000;
  uint64_t rate = 0;
  bool quiet = false;
  std::string mechanism = "scan";
  bool dry_run = false;
};

// A pass's exit status: 0 done, 130 interrupted (what was reclaimed stays reclaimed), 1 a store
// error stopped it.
int ExitStatusOf(const Status& s) {
  if (s.IsAborted()) {
    std::fprintf(stderr, "kvlab gc: interrupted; what was reclaimed so far stays reclaimed\n");
    return kExitInterrupted;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab gc: %s\n", s.message().c_str());
    return kExitFailed;
  }
  return kExitOk;
}

// --mechanism compaction: a full RocksDB compaction whose filter drops the garbage
// (engine/compaction_policy.h). One line on stdout, as the scan's.
int RunCompaction(const GcFlags& f) {
  if (f.store.Backend() != "rocksdb") {
    throw UsageError("--mechanism compaction needs a RocksDB store: " + f.store.Backend() +
                     " does not compact (use --mechanism scan)");
  }
  flags::StoreFlags store = f.store;
  store.compaction_filter = true;
  std::shared_ptr<engine::KeyMetaCompactionPolicy> policy;
  std::unique_ptr<backends::OpenedStore> opened =
      flags::OpenStoreOrReport(store, f.engine, &policy);
  if (opened == nullptr) return kExitUsage;  // an unusable --dir, as for serve
  if (!f.quiet) {
    std::fprintf(stderr,
                 "gc: compacting every column family to the bottommost level (RocksDB's "
                 "CompactRange; it cannot be interrupted midway)\n");
  }
  const auto start = std::chrono::steady_clock::now();
  const Status s = opened->CompactAll();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const engine::CompactionDrops d = policy->drops();
  std::printf(
      "gc: compaction examined %llu records, dropped %llu (sub-keys %llu, metas %llu) in "
      "%.2f s\n",
      static_cast<unsigned long long>(d.examined),
      static_cast<unsigned long long>(d.sub_keys + d.metas),
      static_cast<unsigned long long>(d.sub_keys), static_cast<unsigned long long>(d.metas),
      seconds);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab gc: %s\n", s.message().c_str());
    return kExitFailed;
  }
  return kExitOk;
}

// --mechanism ttl-index: active expiry cycles over the TTL index until no entry is due
// (engine/active_expiry.h). One line on stdout, as the scan's.
int RunTtlIndex(const GcFlags& f) {
  flags::EngineFlags engine_flags = f.engine;
  engine_flags.ttl_index = true;
  std::unique_ptr<backends::OpenedStore> opened = flags::OpenStoreOrReport(f.store, engine_flags);
  if (opened == nullptr) {
    std::fprintf(stderr,
                 "kvlab gc: --mechanism ttl-index needs a store written with --ttl-index (a "
                 "store without the index: use --mechanism scan)\n");
    return kExitUsage;
  }
  Engine engine(opened->store(), engine_flags.ToOptions(*opened));
  flags::InstallInterruptHandlers();
  std::atomic<bool> stop{false};
  engine::ActiveExpiryOptions options;
  options.batch_entries = static_cast<size_t>(f.batch);
  options.purge_records = static_cast<size_t>(f.batch);
  options.stop = &stop;
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto last = std::chrono::steady_clock::now();
  bool printed = false;
  GcStats stats;
  const Status s =
      engine::ActiveExpiry(&engine).RunUntilIdle(options, &stats, [&](const GcStats& so_far) {
        if (*flags::InterruptFlag() != 0) stop = true;
        const auto now = std::chrono::steady_clock::now();
        if (f.quiet || now - last < std::chrono::seconds(1)) return;
        last = now;
        printed = true;
        std::fprintf(stderr, "%sgc: ttl index: %llu entries read, reclaimed %llu%s",
                     tty ? "\r" : "", static_cast<unsigned long long>(so_far.index_entries),
                     static_cast<unsigned long long>(so_far.reclaimed()), tty ? "\x1b[K" : "\n");
      });
  if (printed && tty) std::fprintf(stderr, "\n");
  std::printf("%s\n", stats.Line().c_str());
  return ExitStatusOf(s);
}

int RunGc(const GcFlags& f) {
  if (f.store.dir.empty()) {
    throw UsageError("kvlab gc collects an existing store: give its --dir");
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(f.store.dir, ec)) {
    throw UsageError("--dir " + f.store.dir + ": no such directory, so no store to collect");
  }
  if (f.mechanism == "compaction") {
    if (f.dry_run) {
      throw UsageError(
          "--dry-run counts what a scan pass would reclaim; a compaction cannot be "
          "dry-run (use --mechanism scan --dry-run)");
    }
    return RunCompaction(f);
  }
  if (f.mechanism == "ttl-index") {
    if (f.dry_run) {
      throw UsageError(
          "--dry-run counts what a scan pass would reclaim; use --mechanism scan --dry-run");
    }
    if (f.rate != 0) throw UsageError("--rate paces the scan; --mechanism ttl-index has none");
    return RunTtlIndex(f);
  }
  std::unique_ptr<backends::OpenedStore> opened = flags::OpenStoreOrReport(f.store, f.engine);
  if (opened == nullptr) return kExitUsage;  // an unusable --dir, as for serve
  Engine engine(opened->store(), f.engine.ToOptions(*opened));

  flags::InstallInterruptHandlers();
  std::atomic<bool> stop{false};
  GcOptions options;
  options.batch_records = static_cast<size_t>(f.batch);
  options.max_records_per_second = f.rate;
  options.stop = &stop;
  options.dry_run = f.dry_run;
  // Progress on stderr: at most one line a second, rewritten in place on a terminal.
  const bool tty = isatty(STDERR_FILENO) != 0;
  auto last = std::chrono::steady_clock::now();
  bool printed = false;
  options.progress = [&](const GcProgress& p) {
    if (*flags::InterruptFlag() != 0) stop = true;
    const auto now = std::chrono::steady_clock::now();
    if (f.quiet || now - last < std::chrono::seconds(1)) return;
    last = now;
    printed = true;
    std::fprintf(stderr, "%sgc: db %d %s: scanned %llu records, %s %llu%s", tty ? "\r" : "", p.db,
                 p.phase.c_str(), static_cast<unsigned long long>(p.so_far.scanned),
                 f.dry_run ? "garbage" : "reclaimed",
                 static_cast<unsigned long long>(p.so_far.reclaimed()), tty ? "\x1b[K" : "\n");
  };
  GcStats stats;
  const Status s = Collector(&engine).RunPass(options, &stats);
  if (printed && tty) std::fprintf(stderr, "\n");
  std::printf("%s\n", (f.dry_run ? stats.DryRunLine() : stats.Line()).c_str());
  return ExitStatusOf(s);
}

}  // namespace

void AddGcCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "gc",
      "Reclaim what deletes and expiries left in a store: the sub-keys of deleted, overwritten "
      "and expired keys, expired key-metas, and their Redis-tier data (one pass)");
  auto f = std::make_shared<GcFlags>();
  f->store.AddTo(cmd);
  f->engine.AddTo(cmd, hooks);
  cmd->add_option("--batch", f->batch,
                  "Records read per batch; their deletes are written as one batch")
      ->check(flags::Positive())
      ->capture_default_str();
  cmd->add_option("--rate", f->rate, "At most this many records a second (0: no limit)")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_flag("--quiet", f->quiet, "No progress lines on stderr");
  cmd->add_option("--mechanism", f->mechanism,
                  "scan: the collector's pass over the metas and sub-keys (every backend); "
                  "compaction: a full RocksDB compaction whose filter drops the garbage, expired "
                  "keys once --compaction-grace-ms has passed; ttl-index: the active expiry "
                  "cycle over the TTL index of a store written with --ttl-index, which reaps "
                  "the expired keys with their sub-keys (docs/gc.md)")
      ->check(CLI::IsMember({"scan", "compaction", "ttl-index"}))
      ->capture_default_str();
  cmd->add_flag("--dry-run", f->dry_run,
                "Write nothing: count what a pass would reclaim (records and their bytes)");
  cmd->callback([f, exit_code] { *exit_code = RunGc(*f); });
}

}  // namespace kvlab::cli
