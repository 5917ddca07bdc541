#include "workloads/reclaim.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "engine/active_expiry.h"
#include "engine/collector.h"

namespace kvlab::workloads {

using engine::Collector;
using engine::CompactionDrops;
using engine::GcOptions;
using engine::GcStats;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

namespace fs = std::filesystem;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// What a collector pass or an active expiry cycle did, added to a mechanism's stats.
void AddGc(const GcStats& g, ReclaimStats* stats) {
  stats->examined += g.scanned;
  stats->reclaimed_sub_keys += g.reclaimed_sub_keys;
  stats->reclaimed_metas += g.reclaimed_metas;
  stats->reclaimed_tier += g.reclaimed_tier;
  stats->index_entries += g.index_entries;
  stats->stale_index_entries += g.stale_index_entries;
}

// The scanning collector: one pass per round, as fast as the store goes.
class ScanMechanism final : public ReclaimMechanism {
 public:
  explicit ScanMechanism(engine::Engine* engine) : engine_(engine) {}
  Status Round(const std::atomic<bool>& stop, ReclaimStats* stats) override {
    GcOptions options;
    options.stop = &stop;
    GcStats g;
    const Status s = Collector(engine_).RunPass(options, &g);
    AddGc(g, stats);
    return s;
  }

 private:
  engine::Engine* engine_;
};

// The compaction filter: one full compaction per round. What the filter drops in RocksDB's own
// compactions between rounds is counted too (the policy's counters are cumulative): it is the
// same mechanism's work, only triggered by the writes.
class CompactionMechanism final : public ReclaimMechanism {
 public:
  CompactionMechanism(backends::OpenedStore* store,
                      std::shared_ptr<engine::KeyMetaCompactionPolicy> policy)
      : store_(store), policy_(std::move(policy)), last_(policy_->drops()) {}
  Status Round(const std::atomic<bool>&, ReclaimStats* stats) override {
    const Status s = store_->CompactAll();
    const CompactionDrops now = policy_->drops();
    stats->examined += now.examined - last_.examined;
    stats->reclaimed_sub_keys += now.sub_keys - last_.sub_keys;
    stats->reclaimed_metas += now.metas - last_.metas;
    last_ = now;
    return s;
  }

 private:
  backends::OpenedStore* store_;
  std::shared_ptr<engine::KeyMetaCompactionPolicy> policy_;
  CompactionDrops last_;
};

// The TTL index: Redis's active expire cycle over it, one cycle of at most 25 ms every 100 ms
// (serve's schedule); the drain runs cycles until nothing is due. The ActiveExpiry object keeps
// the purges a cycle left for the next one.
class TtlIndexMechanism final : public ReclaimMechanism {
 public:
  explicit TtlIndexMechanism(engine::Engine* engine) : expiry_(engine) {}
  Status Round(const std::atomic<bool>& stop, ReclaimStats* stats) override {
    engine::ActiveExpiryOptions options;
    options.stop = &stop;
    GcStats g;
    const Status s = expiry_.RunCycle(options, &g);
    AddGc(g, stats);
    return s;
  }
  Status Drain(ReclaimStats* stats) override {
    GcStats g;
    const Status s = expiry_.RunUntilIdle(engine::ActiveExpiryOptions(), &g);
    AddGc(g, stats);
    return s;
  }
  std::chrono::milliseconds Interval(std::chrono::milliseconds) const override {
    return std::chrono::milliseconds(100);
  }

 private:
  engine::ActiveExpiry expiry_;
};

// MeasureDiskUsage's split, over a directory that changes as it is read (RocksDB writes and
// deletes files meanwhile): a file gone between the listing and its stat is skipped, and the
// walk goes on.
backends::DiskUsage SampleDisk(const std::string& backend, const std::string& dir) {
  backends::DiskUsage usage;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const uint64_t bytes = static_cast<uint64_t>(st.st_blocks) * 512;
    const bool top_level = it.depth() == 0;
    if (top_level && backends::IsStoreLogFile(backend, it->path().filename().string())) {
      usage.log_bytes += bytes;
    } else {
      usage.data_bytes += bytes;
    }
  }
  return usage;
}

void Add(const ReclaimStats& d, ReclaimStats* to) {
  to->rounds += d.rounds;
  to->work_seconds += d.work_seconds;
  to->examined += d.examined;
  to->reclaimed_sub_keys += d.reclaimed_sub_keys;
  to->reclaimed_metas += d.reclaimed_metas;
  to->reclaimed_tier += d.reclaimed_tier;
  to->index_entries += d.index_entries;
  to->stale_index_entries += d.stale_index_entries;
}

json StatsJson(const ReclaimStats& s) {
  return {{"rounds", s.rounds},
          {"work_seconds", s.work_seconds},
          {"examined", s.examined},
          {"reclaimed",
           {{"records", s.reclaimed()},
            {"sub_keys", s.reclaimed_sub_keys},
            {"metas", s.reclaimed_metas},
            {"tier", s.reclaimed_tier}}},
          {"index_entries", s.index_entries},
          {"stale_index_entries", s.stale_index_entries},
          {"records_per_second", s.work_seconds > 0
                                     ? json(static_cast<double>(s.reclaimed()) / s.work_seconds)
                                     : json(nullptr)}};
}

json LatencyJson(const LatencyHistogram& h) {
  auto us = [](uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
  return {{"operations", h.count()},
          {"p50_us", us(h.Percentile(0.5))},
          {"p99_us", us(h.Percentile(0.99))},
          {"p999_us", us(h.Percentile(0.999))},
          {"max_us", us(h.max())}};
}

}  // namespace

Status ParseReclaimList(const std::string& text, std::vector<std::string>* out) {
  out->clear();
  std::vector<std::string> names;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    names.push_back(text.substr(begin, comma - begin));
    begin = comma + 1;
  }
  for (const std::string& name : names) {
    const bool all = name == "all";
    bool known = all;
    for (const char* m : kReclaimMechanisms) {
      if (!all && name != m) continue;
      known = true;
      if (std::find(out->begin(), out->end(), m) == out->end()) out->push_back(m);
    }
    if (!known) {
      std::string list;
      for (const char* m : kReclaimMechanisms) list += std::string(list.empty() ? "" : ", ") + m;
      return Status::InvalidArgument("--reclaim: unknown mechanism '" + name + "' (known: " + list +
                                     ", or all)");
    }
  }
  return Status::OK();
}

std::string ReclaimSkipReason(const std::string& mechanism, const std::string& backend,
                              const std::string& target) {
  if (mechanism == "none") return "";
  if (target != "in-process") {
    return mechanism +
           " skipped over RESP: reclaim mechanisms run in-process only (the store "
           "is the server's)";
  }
  const std::string base = backends::BackendOfColumn(backend);
  if (mechanism == "compaction" && base != "rocksdb") {
    return "compaction skipped on " + backend +
           ": the compaction filter applies to RocksDB only (" + base +
           " does not compact; the scan is its mechanism)";
  }
  return "";
}

Status MakeReclaimMechanism(const std::string& name, const ReclaimContext& context,
                            std::unique_ptr<ReclaimMechanism>* out) {
  out->reset();
  if (name == "none") return Status::OK();
  if (name == "scan") {
    if (context.engine == nullptr) return Status::InvalidArgument("scan needs an engine");
    *out = std::make_unique<ScanMechanism>(context.engine);
    return Status::OK();
  }
  if (name == "compaction") {
    if (context.store == nullptr || context.policy == nullptr) {
      return Status::InvalidArgument(
          "compaction needs a store opened with the compaction filter (RocksDB)");
    }
    *out = std::make_unique<CompactionMechanism>(context.store, context.policy);
    return Status::OK();
  }
  if (name == "ttl-index") {
    if (context.engine == nullptr || !context.engine->codec().options().ttl_index) {
      return Status::InvalidArgument("ttl-index needs an engine whose store keeps the TTL index");
    }
    *out = std::make_unique<TtlIndexMechanism>(context.engine);
    return Status::OK();
  }
  return Status::InvalidArgument("unknown reclaim mechanism '" + name + "'");
}

ReclaimDriver::ReclaimDriver(std::unique_ptr<ReclaimMechanism> mechanism, engine::Engine* engine,
                             const backends::OpenedStore* store, std::string backend,
                             ReclaimOptions options)
    : mechanism_(std::move(mechanism)),
      engine_(engine),
      store_(store),
      backend_(backends::BackendOfColumn(backend)),
      options_(options) {}

ReclaimDriver::~ReclaimDriver() {
  stop_ = true;
  cv_.notify_all();
  if (rounds_.joinable()) rounds_.join();
  if (sampler_.joinable()) sampler_.join();
}

void ReclaimDriver::Start() {
  start_ = Clock::now();
  TakeSample();
  sampler_ = std::thread([this] { SampleLoop(); });
  if (mechanism_ != nullptr) rounds_ = std::thread([this] { RoundLoop(); });
}

bool ReclaimDriver::WaitFor(std::chrono::milliseconds d) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, d, [this] { return stop_.load(); });
}

void ReclaimDriver::RoundLoop() {
  while (!stop_) {
    const Clock::time_point begin = Clock::now();
    ReclaimStats round;
    const Status s = mechanism_->Round(stop_, &round);
    round.rounds = 1;
    round.work_seconds = SecondsSince(begin);
    {
      std::lock_guard<std::mutex> lock(mu_);
      Add(round, &stats_);
      if (!s.ok() && !s.IsAborted() && error_.empty()) error_ = s.ToString();
    }
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin);
    const std::chrono::milliseconds interval = mechanism_->Interval(options_.interval);
    if (!WaitFor(std::max(std::chrono::milliseconds(0), interval - spent))) return;
  }
}

void ReclaimDriver::SampleLoop() {
  while (WaitFor(options_.sample_interval)) TakeSample();
}

void ReclaimDriver::TakeSample() {
  ReclaimSample sample;
  sample.t = SecondsSince(start_);
  const backends::DiskUsage usage = SampleDisk(backend_, store_->dir());
  sample.disk_bytes = usage.data_bytes;
  sample.disk_log_bytes = usage.log_bytes;
  std::lock_guard<std::mutex> lock(mu_);
  sample.reclaimed = stats_.reclaimed();
  // Two samples race only at Finish's last one; keep t in order.
  if (!timeline_.empty() && timeline_.back().t > sample.t) sample.t = timeline_.back().t;
  timeline_.push_back(sample);
}

void ReclaimDriver::Finish(ReclaimResult* out) {
  stop_ = true;
  cv_.notify_all();
  if (rounds_.joinable()) rounds_.join();
  if (sampler_.joinable()) sampler_.join();
  if (mechanism_ != nullptr) {
    // The drain: what the run phases left, not to be stopped.
    const Clock::time_point begin = Clock::now();
    ReclaimStats round;
    const Status s = mechanism_->Drain(&round);
    round.rounds = 1;
    round.work_seconds = SecondsSince(begin);
    std::lock_guard<std::mutex> lock(mu_);
    Add(round, &stats_);
    out->drain = round;
    if (!s.ok() && error_.empty()) error_ = "drain: " + s.ToString();
  }
  TakeSample();
  out->wall_seconds = SecondsSince(start_);
  if (mechanism_ != nullptr) out->options.interval = mechanism_->Interval(options_.interval);
  GcOptions census;
  census.dry_run = true;
  GcStats garbage;
  const Status s = Collector(engine_).RunPass(census, &garbage);
  std::lock_guard<std::mutex> lock(mu_);
  if (s.ok()) {
    out->garbage_measured = true;
    out->garbage_records = garbage.reclaimed_sub_keys + garbage.reclaimed_metas;
    out->garbage_bytes = garbage.garbage_bytes;
  } else if (error_.empty()) {
    error_ = "garbage after the drain: " + s.ToString();
  }
  out->stats = stats_;
  out->timeline = timeline_;
  out->error = error_;
}

json ReclaimJson(const ReclaimResult& r, const WorkloadRunResult& run) {
  json out = StatsJson(r.stats);
  out["mechanism"] = r.mechanism;
  out["interval_ms"] = r.options.interval.count();  // the mechanism's own (ttl-index: 100)
  out["sample_interval_ms"] = r.options.sample_interval.count();
  out["wall_seconds"] = r.wall_seconds;
  out["drain"] = StatsJson(r.drain);
  out["error"] = r.error.empty() ? json(nullptr) : json(r.error);
  // The foreground: every recorded operation of the run phases (the mechanism ran beside them).
  LatencyHistogram all;
  std::map<std::string, LatencyHistogram> by_op;
  for (const PhaseResult& p : run.phases) {
    if (p.is_load) continue;
    for (const auto& [name, stats] : p.ops) {
      all.Merge(stats.latency_ns);
      by_op[name].Merge(stats.latency_ns);
    }
  }
  json foreground = LatencyJson(all);
  foreground["ops"] = json::object();
  for (const auto& [name, h] : by_op) foreground["ops"][name] = LatencyJson(h);
  out["foreground"] = foreground;
  out["garbage_end"] = r.garbage_measured
                           ? json{{"records", r.garbage_records}, {"bytes", r.garbage_bytes}}
                           : json(nullptr);
  json timeline = json::array();
  for (const ReclaimSample& s : r.timeline) {
    timeline.push_back({{"t", s.t},
                        {"disk_bytes", s.disk_bytes},
                        {"disk_log_bytes", s.disk_log_bytes},
                        {"reclaimed", s.reclaimed}});
  }
  out["timeline"] = timeline;
  return out;
}

}  // namespace kvlab::workloads
