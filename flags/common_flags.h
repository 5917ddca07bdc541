// Command-line flags shared by the subcommands that open a store and run an engine:
// --backend, --dir, the store options, the remote-store decorators, and the engine's options.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "encodings/registry.h"
#include "engine/compaction_policy.h"
#include "engine/engine.h"
#include "flags/etcd_flags.h"

namespace kvlab::flags {

struct StoreFlags {
  std::string backend = "memory";
  bool backend_given = false;  // --backend was on the command line
  std::string dir;
  bool sync_writes = false;
  uint64_t cache_mb = 64;
  bool no_reverse_scan = false;
  uint64_t rtt_us = 0;
  uint32_t scan_page_rows = 100;
  bool column_families = false;
  // RocksDB's compactions drop garbage (engine/compaction_policy.h), after this grace period
  // for expired keys.
  bool compaction_filter = false;
  int64_t compaction_grace_ms = 60'000;
  // The free space writes leave on the store's filesystem (backends/disk_guard_store.h): a size
  // or a percentage of the filesystem, checked while parsing. 256 MiB leaves room for RocksDB's
  // memtable flushes (64 MiB each) and compactions and for WiredTiger's checkpoints and log
  // files while writes are refused.
  std::string disk_reserve = "256mb";
  // LMDB: scrub data.mdb on open and refuse a damaged store (backends/lmdb_scrub.h).
  bool scrub_on_open = true;
  // RocksDB: the scan-triggered memtable flush and range compaction (StoreOptions'
  // rocksdb_scan_flush_trigger and rocksdb_scan_compact_trigger; 0: off).
  uint64_t rocksdb_scan_flush = 0;
  uint64_t rocksdb_scan_compact = 0;
  // --etcd-endpoints, --etcd-max-txn-ops, TLS and authentication: the etcd cluster of
  // --backend etcd (etcd_flags.h).
  EtcdFlags etcd;
  // Not a flag: the subcommand opens the store without changing it (kvlab verify;
  // backends::StoreSpec::read_only).
  bool read_only = false;

  // Adds --backend, --dir, --sync, --cache-mb, --no-reverse-scan, --rtt-us, --scan-page,
  // --column-families, --compaction-filter, --compaction-grace-ms, --disk-reserve,
  // --scrub-on-open, --rocksdb-scan-flush, --rocksdb-scan-compact, and the etcd flags.
  void AddTo(CLI::App* app);
  // The backend to open: --backend when given; else, when --dir is an existing store, the one
  // its KVLAB_STORE marker names (so that `kvlab gc --dir D` needs no --backend, as serve and
  // verify need none); else the default.
  std::string Backend() const;
  // Throws UsageError when the etcd flags cannot give a password (EtcdFlags::ToOptions).
  backends::StoreSpec ToSpec() const;
};

// The decorators behind the hidden test-only switches of EngineFlags, supplied by the kvlab
// binary's main from its test-support library (test_support/test_hooks.h), so that flags/ ships
// no test decorator. A hook left empty leaves its switch out of the command line (an unknown
// option), as in a program that links no test support.
struct TestHooks {
  // --test-extra-hget-read: one extra KV get per HGET (an EngineOptions::hash_decorator).
  decltype(engine::EngineOptions::hash_decorator) extra_hget_read;
};

struct EngineFlags {
  // A version given on the command line, parsed once while the command line is parsed: the
  // registry's row, and the flag it came from as the user wrote it ("--encoding hash=1",
  // "--hash-encoding 1"), for messages.
  struct GivenVersion {
    const encodings::EncodingSpec* row = nullptr;
    std::string flag;
  };
  // --encoding hash=0,zset=1 and --hash-encoding, --zset-encoding, ... (one per registry type,
  // aliases of --encoding TYPE=NAME that win over it): the version new keys of each type get,
  // by type name.
  std::map<std::string, GivenVersion> given;
  std::string ns_prefix;
  bool md5_prefix = false;
  bool ttl_index = false;  // KeyCodecOptions::ttl_index
  std::string config_file;
  std::string cache_redis;
  std::string store_redis;
  bool allow_degraded = false;
  bool migrate_on_write = false;
  bool test_extra_hget_read = false;  // hidden: see test_support/hash_extra_read.h
  TestHooks hooks;                    // from AddTo

  // Adds --encoding, --<type>-encoding for every type of kvlab's registry, --namespace-prefix,
  // --md5-prefix, --ttl-index, --config, --cache-redis, --store-redis, --allow-degraded,
  // --migrate-on-write (and the hidden, test-only --test-extra-hget-read when `hooks` has its
  // decorator). The version names are checked while parsing, so that a bad one is a usage error.
  void AddTo(CLI::App* app, const TestHooks& hooks = {});
  // The versions given, by type name -> version name.
  encodings::EncodingProfile Versions() const;
  engine::EngineOptions ToOptions() const;
  // The same, for an engine over `store`: a private store Redis keeps its AOF in the store's
  // directory, so that a restart on the same --dir finds the zset v3 data again.
  engine::EngineOptions ToOptions(const backends::OpenedStore& store) const;
  // Applies --config FILE (redis.conf-style "name value" lines) to the engine.
  Status ApplyConfigFile(engine::Engine* engine) const;
};

// Opens the store of `flags` and reports where it lives on stderr ("kvlab: rocksdb store in
// /tmp/kvlab-rocksdb-XXXX (temporary, removed at exit)"). On failure prints the error and
// returns nullptr.
// `engine`: the engine that will write to it, whose format record (layout, namespace and md5
// prefix) the store must have or take (backends/registry.h).
// With --compaction-filter the store's compactions consult a KeyMetaCompactionPolicy, attached
// to the store before this returns; *policy (when given) gets it, for its counts.
// `scrub_report` (kvlab verify): where an LMDB store's scrub on open reports
// (backends::StoreSpec::scrub_report), also when the open fails.
std::unique_ptr<backends::OpenedStore> OpenStoreOrReport(
    const StoreFlags& flags, const EngineFlags& engine,
    std::shared_ptr<engine::KeyMetaCompactionPolicy>* policy = nullptr,
    backends::LmdbScrubReport* scrub_report = nullptr);

}  // namespace kvlab::flags
