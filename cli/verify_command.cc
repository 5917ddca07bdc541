#include "cli/verify_command.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backends/checksum_store.h"
#include "encodings/coding.h"
#include "encodings/key_codec.h"
#include "encodings/key_meta.h"
#include "encodings/registry.h"
#include "engine/collector.h"
#include "engine/engine.h"
#include "flags/common_flags.h"
#include "flags/conventions.h"

namespace kvlab::cli {

using backends::ChecksumStore;
using backends::KvStore;
using backends::PrintableKey;
using encodings::EncodingSpec;
using encodings::KeyMeta;
using encodings::SubKeyTag;
using engine::Collector;
using engine::Engine;
using engine::GcOptions;
using engine::GcStats;
using flags::kExitCannotRun;
using flags::kExitFailed;
using flags::kExitOk;
using flags::UsageError;

namespace {

struct VerifyFlags {
  flags::StoreFlags store;
  flags::EngineFlags engine;
  uint64_t max_report = 20;
  bool backend_given = false;
};

// The findings of one kind: how many, and the first few lines naming them.
struct Findings {
  explicit Findings(const char* what) : kind(what) {}

  const char* kind;
  uint64_t count = 0;
  std::vector<std::string> lines;

  void Add(uint64_t max_lines, std::string line) {
    ++count;
    if (lines.size() < max_lines) lines.push_back(std::move(line));
  }
  void Print() const {
    if (count == 0) return;
    std::printf("damage: %s: %llu\n", kind, static_cast<unsigned long long>(count));
    for (const std::string& l : lines) std::printf("  %s\n", l.c_str());
    if (count > lines.size()) {
      std::printf("  ... and %llu more\n", static_cast<unsigned long long>(count - lines.size()));
    }
  }
};

// The backend a store's marker names (backends/registry.h: its second line is "backend NAME").
std::string MarkerBackend(const std::string& dir) {
  std::ifstream in(std::filesystem::path(dir) / "KVLAB_STORE");
  std::string line;
  if (!in || !std::getline(in, line) || !std::getline(in, line) || !line.starts_with("backend ")) {
    throw UsageError("--dir " + dir + ": not a kvlab store (no readable KVLAB_STORE marker)");
  }
  return line.substr(8);
}

// The sub-key kinds whose records a version's meta count must equal, one record per element:
// every kind it writes but the zset member refs (i#: zset v2 and v3 keep one for a long member
// only). Empty when the count cannot be checked from the KV store: versions without a count
// (hash and set v1/v3, the Ardb hash, set and zset), and zset v3, whose members live in the store
// Redis (KV holds its count and its long members' refs). Lists count their element records
// (every version: dense, sparse, Kvrocks's, and Ardb's a# records); the cache-tier versions
// (hash v2, zset v1/v2, set v2) keep every element in KV, and the cache is never the data.
std::vector<SubKeyTag> CountedKinds(const EncodingSpec& row) {
  if (!row.meta_has_count || row.tier == encodings::TierUse::kStore) return {};
  std::vector<SubKeyTag> kinds;
  for (SubKeyTag tag : row.sub_keys) {
    if (tag != SubKeyTag::kIndex) kinds.push_back(tag);
  }
  return kinds;
}

class Verifier {
 public:
  Verifier(Engine* engine, KvStore* store, uint64_t max_report)
      : engine_(engine), store_(store), max_(max_report) {}

  // Step 1: the checksums, below the checksum layer.
  Status ScrubChecksums(ChecksumStore* layer, uint64_t* records) {
    return layer->Scrub(
        [&](std::string_view key, const Status& s) {
          bad_records_.emplace(key);
          checksums_.Add(max_, s.message());
        },
        records);
  }

  // Steps 2 and 3, for every database.
  void CheckKeys() {
    for (int db = 0; db < engine_->databases(); ++db) CheckDatabase(static_cast<uint8_t>(db));
  }

  bool damaged() const {
    return checksums_.count + metas_.count + counts_.count + walks_.count > 0;
  }
  void Print() const {
    checksums_.Print();
    metas_.Print();
    counts_.Print();
    walks_.Print();
  }
  uint64_t keys_checked() const { return keys_checked_; }
  uint64_t counts_checked() const { return counts_checked_; }
  Findings& walks() { return walks_; }

 private:
  // Reads [from, end) in batches into `each`, stepping over records the scrub found damaged
  // (their error is reported there); any other error stops the walk and is damage.
  template <typename F>
  void Walk(const std::string& begin, const std::string& end, const std::string& what, F each) {
    std::string from = begin;
    std::vector<std::pair<std::string, std::string>> records;
    while (true) {
      const Status s = engine::ReadRecordBatch(store_, from, end, 1000, true, &records);
      for (const auto& [k, v] : records) each(k, v);
      if (!records.empty()) from = records.back().first + '\0';
      if (!s.ok()) {
        auto bad = bad_records_.lower_bound(from);
        if (s.IsCorruption() && bad != bad_records_.end() && *bad < end) {
          from = *bad + '\0';  // damaged, and already reported by the scrub
          continue;
        }
        walks_.Add(max_, what + ": " + s.ToString());
        return;
      }
      if (records.empty()) return;
    }
  }

  void CheckDatabase(uint8_t db) {
    const encodings::KeyCodec& codec = engine_->codec();
    const encodings::EncodingRegistry& registry = engine_->registry();
    const int64_t now = engine_->clock().NowMillis();
    const std::string begin = codec.MetaPrefix(db);
    Walk(begin, encodings::PrefixSuccessor(begin), "the key-metas of db " + std::to_string(db),
         [&](const std::string& meta_key, const std::string& value) {
           std::string key;
           KeyMeta meta;
           if (!codec.DecodeMetaKey(db, meta_key, &key)) {
             metas_.Add(max_, "db " + std::to_string(db) + " record \"" + PrintableKey(meta_key) +
                                  "\": not a key-meta key of this layout");
             return;
           }
           if (const Status s = KeyMeta::Decode(value, registry, &meta); !s.ok()) {
             metas_.Add(max_, "db " + std::to_string(db) + " key \"" + PrintableKey(key) +
                                  "\": its key-meta does not decode: " + s.message());
             return;
           }
           ++keys_checked_;
           if (meta.ExpiredAt(now)) return;  // garbage, counted by the collector's dry run
           const EncodingSpec* row = registry.Find(meta.type, meta.encode_version);
           if (row == nullptr || !meta.count_known) return;
           if (const std::vector<SubKeyTag> kinds = CountedKinds(*row); !kinds.empty()) {
             CheckCount(db, key, meta, *row, kinds);
           }
         });
  }

  void CheckCount(uint8_t db, const std::string& key, const KeyMeta& meta, const EncodingSpec& row,
                  const std::vector<SubKeyTag>& kinds) {
    ++counts_checked_;
    const encodings::TypeSpec* type = engine_->registry().FindType(row.type);
    for (SubKeyTag tag : kinds) {
      // An Ardb key has no key-version: its records are every a# record of the key.
      const bool ardb = tag == SubKeyTag::kArdb;
      const std::string prefix =
          ardb ? engine_->codec().ArdbKeyPrefix(db, key)
               : engine_->codec().SubKeyPrefix(tag, db, key, meta.key_version);
      uint64_t records = 0;
      Walk(prefix, encodings::PrefixSuccessor(prefix),
           "the sub-keys of db " + std::to_string(db) + " key \"" + PrintableKey(key) + "\"",
           [&](const std::string&, const std::string&) { ++records; });
      if (records != meta.count) {
        counts_.Add(max_, "db " + std::to_string(db) + " key \"" + PrintableKey(key) + "\" (" +
                              row.DisplayName(*type) + "): its key-meta counts " +
                              std::to_string(meta.count) + " elements, the store holds " +
                              std::to_string(records) + " " + static_cast<char>(tag) +
                              (ardb ? "# records of the key (" : "# records of its key-version (") +
                              (records > meta.count ? "more" : "fewer") + ")");
      }
    }
  }

  Engine* const engine_;
  KvStore* const store_;
  const uint64_t max_;
  std::set<std::string> bad_records_;  // raw keys whose checksum failed
  Findings checksums_{"checksum mismatches"};
  Findings metas_{"undecodable key-metas"};
  Findings counts_{"counts that differ from the sub-keys"};
  Findings walks_{"walks the backend stopped with an error"};
  uint64_t keys_checked_ = 0;
  uint64_t counts_checked_ = 0;
};

int RunVerify(VerifyFlags f) {
  if (f.store.dir.empty())
    throw UsageError("kvlab verify scrubs an existing store: give its --dir");
  std::error_code ec;
  if (!std::filesystem::is_directory(f.store.dir, ec)) {
    throw UsageError("--dir " + f.store.dir + ": no such directory, so no store to verify");
  }
  const std::string marked = MarkerBackend(f.store.dir);
  if (!f.backend_given) f.store.backend = marked;
  // Verifying never changes the store: every backend opens it read-only, and writes through
  // the KV interface are refused (backends::StoreSpec::read_only).
  f.store.read_only = true;
  // An LMDB store's pages are scrubbed before LMDB maps them (backends/lmdb_scrub.h): damage in
  // LMDB's own structures is reported here and ends the verify (walking such a store through
  // LMDB could crash it or miss records); records whose checksum differs are listed by step 1.
  backends::LmdbScrubReport scrub;
  std::unique_ptr<backends::OpenedStore> opened =
      flags::OpenStoreOrReport(f.store, f.engine, nullptr, &scrub);
  if (opened == nullptr) {
    if (scrub.structural == 0) return kExitCannotRun;
    std::printf("lmdb structure: DAMAGED (%llu findings in LMDB's own pages)\n",
                static_cast<unsigned long long>(scrub.structural));
    Findings structure("damage in LMDB's own structures (meta pages, pages, nodes, keys)");
    for (const std::string& line : scrub.findings) structure.Add(f.max_report, line);
    structure.count = scrub.structural + scrub.bad_checksums;
    structure.Print();
    std::printf("verify: DAMAGED\n");
    return kExitFailed;
  }
  if (opened->scrubbed()) {
    std::printf("lmdb structure: %llu pages read, %llu records, transaction %llu: sound\n",
                static_cast<unsigned long long>(opened->scrub().pages),
                static_cast<unsigned long long>(opened->scrub().records),
                static_cast<unsigned long long>(opened->scrub().txnid));
  }
  Engine engine(opened->store(), f.engine.ToOptions(*opened));
  Verifier verifier(&engine, opened->store(), f.max_report);

  // 1. Checksums.
  if (ChecksumStore* layer = opened->checksums(); layer != nullptr) {
    uint64_t records = 0;
    const Status s = verifier.ScrubChecksums(layer, &records);
    if (!s.ok()) verifier.walks().Add(f.max_report, "the checksum scrub: " + s.ToString());
    std::printf("checksums: %llu records read, crc32 verified\n",
                static_cast<unsigned long long>(records));
  } else {
    std::printf(
        "checksums: none kept by kvlab in this %s store%s\n", opened->backend().c_str(),
        opened->backend() == "lmdb"
            ? " (written before checksums existed)"
            : (opened->backend() == "memory" ? "" : " (the backend checks its own blocks)"));
  }
  // 2 and 3. Metas and counts.
  verifier.CheckKeys();
  std::printf("key-metas: %llu decoded; counts checked against sub-keys for %llu keys\n",
              static_cast<unsigned long long>(verifier.keys_checked()),
              static_cast<unsigned long long>(verifier.counts_checked()));
  // 4. Garbage: the collector's census, which writes nothing.
  GcOptions options;
  options.dry_run = true;
  GcStats stats;
  const Status s = Collector(&engine).RunPass(options, &stats);
  if (!s.ok()) {
    verifier.walks().Add(f.max_report, "the collector's census: " + s.ToString());
  } else {
    std::printf(
        "reclaimable (garbage, not damage; kvlab gc reclaims it): sub-keys %llu, expired metas "
        "%llu\n",
        static_cast<unsigned long long>(stats.reclaimed_sub_keys),
        static_cast<unsigned long long>(stats.reclaimed_metas));
    if (stats.undecodable > 0) {
      verifier.walks().Add(f.max_report, std::to_string(stats.undecodable) +
                                             " records the collector could not decode (metas or "
                                             "sub-keys of no known layout)");
    }
  }
  verifier.Print();
  std::printf("verify: %s\n", verifier.damaged() ? "DAMAGED" : "clean");
  return verifier.damaged() ? kExitFailed : kExitOk;
}

}  // namespace

void AddVerifyCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Scrub a store without writing to it: checksums, key-metas, meta counts against "
      "sub-keys, and garbage (reported, not damage); exit 1 on damage");
  auto f = std::make_shared<VerifyFlags>();
  f->store.AddTo(cmd);
  f->engine.AddTo(cmd, hooks);
  cmd->add_option("--max-report", f->max_report, "Records named per kind of damage")
      ->check(flags::Positive())
      ->capture_default_str();
  cmd->callback([f, cmd, exit_code] {
    VerifyFlags run = *f;
    run.backend_given = cmd->count("--backend") > 0;
    *exit_code = RunVerify(std::move(run));
  });
}

}  // namespace kvlab::cli
