#include "workloads/matrix.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "engine/compaction_policy.h"

namespace kvlab::workloads {

using backends::DiskUsage;
using backends::MeasureDiskUsage;
using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::Engine;
using engine::EngineOptions;
using resp::Reply;

namespace {

// Does the RESP server take kvlab's encoding parameters? (A real redis-server answers CONFIG GET
// of an unknown parameter with an empty array.)
bool ServerHasVersions(TargetConnection& c, const encodings::EncodingRegistry& registry) {
  Reply reply;
  CommandSample sample;
  const std::string param =
      "kv." + std::string(registry.types().front().name) + ".key.meta.version";
  if (!c.Execute({"CONFIG", "GET", param}, &reply, &sample).ok()) return false;
  return reply.is_aggregate() && !reply.elements().empty();
}

Status RunOnConnection(TargetConnection& c, const std::vector<std::string>& argv) {
  Reply reply;
  CommandSample sample;
  KVLAB_RETURN_IF_ERROR(c.Execute(argv, &reply, &sample));
  if (reply.is_error()) {
    return Status::InvalidArgument(argv[0] + " " + (argv.size() > 1 ? argv[1] : "") +
                                   " failed: " + reply.str());
  }
  return Status::OK();
}

// A migration cell's first half: loads records [0, records/2) under cell.half_under, then sets
// the cell's versions and its migration mode for the rest of the load and the run.
Status LoadFirstHalf(const Workload& w, const MatrixOptions& options, const Cell& cell,
                     Target& target, TargetConnection& setup) {
  if (cell.half_under.versions.empty()) return Status::OK();
  Cell first = cell;
  first.profile = cell.half_under;
  KVLAB_RETURN_IF_ERROR(SetVersions(setup, first));
  RunOptions half;
  half.stop = options.stop;
  half.run_phases = false;
  half.load_records_to = std::max<uint64_t>(1, w.keyspace.records / 2);
  WorkloadRunResult loaded;
  RunWorkload(w, target, half, &loaded);
  if (!loaded.error.empty()) return Status::Aborted("loading the first half: " + loaded.error);
  KVLAB_RETURN_IF_ERROR(SetVersions(setup, cell));
  return RunOnConnection(
      setup, {"CONFIG", "SET", "kv.encoding.migrate.on.write", cell.migrate ? "yes" : "no"});
}

// Runs w on target, or, when its setup failed, records the failure and marks the cell partial.
// `on_loaded` (may be empty) runs between the load and the run phases.
void RunOnTarget(const Workload& w, const MatrixOptions& options, const Cell& cell,
                 const Status& setup, Target& target, CellResult* out,
                 std::function<void()> on_loaded = {}) {
  if (!setup.ok()) {
    out->run.partial = true;
    out->run.error = setup.ToString();
    return;
  }
  RunOptions run_options;
  run_options.stop = options.stop;
  // A migration cell's second half (LoadFirstHalf loaded the first).
  if (!cell.half_under.versions.empty()) {
    run_options.load_records_from = std::max<uint64_t>(1, w.keyspace.records / 2);
  }
  if (options.progress) {
    run_options.progress = [&](const Progress& p) { options.progress(cell, p); };
  }
  run_options.on_loaded = std::move(on_loaded);
  run_options.open_loop = options.open_loop;
  RunWorkload(w, target, run_options, &out->run);
}

// INFO memory's used_memory_dataset and DBSIZE of each tier role the engine uses: role name
// ("cache", "store") -> {"used_memory_dataset", "keys"}.
std::map<std::string, std::map<std::string, uint64_t>> ReadTierMemory(engine::Engine& engine) {
  std::map<std::string, std::map<std::string, uint64_t>> out;
  redis::RedisTier* tier = engine.tier();
  if (tier == nullptr) return out;
  for (const auto& [role, name] :
       {std::pair{redis::TierRole::kCache, "cache"}, std::pair{redis::TierRole::kStore, "store"}}) {
    if (!tier->RoleInUse(role)) continue;
    std::vector<resp::Reply> replies;
    redis::TierCounts counts;
    if (!tier->Pipeline(role, {{"INFO", "memory"}, {"DBSIZE"}}, &replies, &counts).ok()) continue;
    if (replies.size() != 2 || replies[0].is_error()) continue;
    const std::string& info = replies[0].str();
    const std::string field = "used_memory_dataset:";
    const size_t at = info.find(field);
    if (at == std::string::npos) continue;
    auto& m = out[name];
    m["used_memory_dataset"] = std::strtoull(info.c_str() + at + field.size(), nullptr, 10);
    if (replies[1].type() == resp::Reply::Type::kInteger) {
      m["keys"] = static_cast<uint64_t>(replies[1].integer());
    }
  }
  return out;
}

// The load's space (MatrixOptions::measure_load_space), between the load and the run phases.
void MeasureLoadSpace(Engine& engine, LoadSpace* out) {
  const Status s = MeasureFootprint(engine, &out->store);
  if (!s.ok()) {
    out->error = s.ToString();
    return;
  }
  for (const auto& [role, m] : ReadTierMemory(engine)) {
    auto it = m.find("used_memory_dataset");
    if (it != m.end()) out->tier_dataset_bytes[role] = it->second;
  }
  out->measured = true;
}

// The space section of an in-process cell: logical bytes, the store and its garbage, then
// (gc_at_end) one GC pass and the store and disk space after it. A failure is recorded in
// space->error; the cell's run stands.
void MeasureSpace(const MatrixOptions& options, const Cell& cell, Engine& engine,
                  OpenedStore& opened, TargetConnection& setup, SpaceResult* space) {
  Status s = MeasureLogicalSize(setup, &space->logical);
  if (s.ok()) s = MeasureFootprint(engine, &space->store);
  if (!s.ok()) {
    space->error = s.ToString();
    return;
  }
  space->measured = true;
  space->has_store = true;
  if (!options.gc_at_end) return;
  s = engine::Collector(&engine).RunPass(engine::GcOptions(), &space->gc);
  if (s.ok()) s = MeasureFootprint(engine, &space->store_after_gc);
  if (s.ok()) s = opened.store()->Flush();
  if (!s.ok()) {
    space->error = "gc at the end: " + s.ToString();
    return;
  }
  const DiskUsage usage = MeasureDiskUsage(backends::BackendOfColumn(cell.backend), opened.dir());
  space->disk_bytes_after_gc = usage.data_bytes;
  space->disk_log_bytes_after_gc = usage.log_bytes;
  space->gc_ran = true;
}

void RunInProcessCell(const Workload& w, const MatrixOptions& options, const Cell& cell,
                      CellResult* out) {
  // (The degraded verdict is given by RunMatrix once the cell is done, for both targets.)
  std::unique_ptr<OpenedStore> opened;
  std::shared_ptr<engine::KeyMetaCompactionPolicy> policy;
  Status s = OpenCellStore(options, cell, w.name, &opened, &policy);
  if (!s.ok()) {
    out->run.partial = true;
    out->run.error = s.ToString();
    return;
  }
  out->store_dir = opened->dir();
  out->store_kept = !opened->temporary();
  out->persistent = opened->store()->capabilities().persistent;
  out->key_spaces = backends::KeySpaceKindName(opened->store()->capabilities().key_space_kind);
  {
    Engine engine(opened->store(), EngineOptionsFor(options, cell));
    EngineTarget target(&engine, opened.get(), TargetOptionsFor(options, cell, w.threads));
    std::unique_ptr<TargetConnection> setup;
    s = ConfigureEngine(options, &engine);
    if (s.ok()) s = target.Connect(&setup);
    // CONFIG SET refuses a tier version whose tier cannot be reached (the cell fails with the
    // reason), unless allow_degraded; then the reason marks the cell degraded.
    if (s.ok()) s = SetVersions(*setup, cell);
    if (s.ok() && options.allow_degraded) out->degraded = TierProblem(engine, cell);
    if (s.ok()) s = LoadFirstHalf(w, options, cell, target, *setup);
    // The reclaim axis: the cell's mechanism starts once the load is done and drains after the
    // run phases, before anything is measured.
    std::unique_ptr<ReclaimDriver> reclaim;
    bool reclaiming = false;
    if (s.ok() && !cell.reclaim.empty()) {
      std::unique_ptr<ReclaimMechanism> mechanism;
      s = MakeReclaimMechanism(cell.reclaim, {&engine, opened.get(), policy}, &mechanism);
      reclaim = std::make_unique<ReclaimDriver>(std::move(mechanism), &engine, opened.get(),
                                                cell.backend, options.reclaim_options);
      out->reclaim.mechanism = cell.reclaim;
      out->reclaim.options = options.reclaim_options;
    }
    RunOnTarget(w, options, cell, s, target, out, [&] {
      if (options.measure_load_space) MeasureLoadSpace(engine, &out->load_space);
      if (reclaim == nullptr) return;
      reclaim->Start();
      reclaiming = true;
    });
    if (reclaiming) reclaim->Finish(&out->reclaim);
    reclaim.reset();
    if (!s.ok()) return;
    out->tier_memory = ReadTierMemory(engine);
    s = opened->store()->Flush();
    if (!s.ok() && out->run.error.empty()) out->run.error = "flush: " + s.ToString();
    const DiskUsage usage =
        MeasureDiskUsage(backends::BackendOfColumn(cell.backend), opened->dir());
    out->disk_bytes = usage.data_bytes;
    out->disk_log_bytes = usage.log_bytes;
    if (!PhysicalCountersPerThread(cell.backend) && options.physical != PhysicalMode::kOff) {
      out->store_counters_end = opened->store()->ReadPhysicalCounters();
    }
    // After every other reading: the walk reads the whole keyspace (and fills Redis caches).
    if (!out->run.partial) MeasureSpace(options, cell, engine, *opened, *setup, &out->space);
  }
  opened->Close();
}

void RunRespCell(const Workload& w, const MatrixOptions& options, const Cell& cell,
                 CellResult* out) {
  RespTarget target(*options.resp);
  std::unique_ptr<TargetConnection> setup;
  Status s = target.Connect(&setup);
  if (s.ok()) s = RunOnConnection(*setup, {"FLUSHALL"});
  if (s.ok()) s = SetVersions(*setup, cell);
  if (s.ok()) s = LoadFirstHalf(w, options, cell, target, *setup);
  RunOnTarget(w, options, cell, s, target, out);
  // Logical bytes only: the server's store is out of reach.
  if (!s.ok() || out->run.partial) return;
  s = MeasureLogicalSize(*setup, &out->space.logical);
  if (s.ok()) {
    out->space.measured = true;
  } else {
    out->space.error = s.ToString();
  }
}

}  // namespace

EngineOptions EngineOptionsFor(const MatrixOptions& options) {
  EngineOptions engine = options.engine;
  engine.allow_degraded_tier = options.allow_degraded;
  return engine;
}

EngineOptions EngineOptionsFor(const MatrixOptions& options, const Cell& cell) {
  EngineOptions engine = EngineOptionsFor(options);
  if (!cell.reclaim.empty()) engine.keys.ttl_index = cell.reclaim == "ttl-index";
  return engine;
}

std::string TierProblem(const Engine& engine, const Cell& cell) {
  std::string problems;
  for (const auto& [type_name, version] : cell.profile.versions) {
    const encodings::TypeSpec* type = engine.registry().FindType(type_name);
    if (!version || type == nullptr) continue;
    const encodings::EncodingSpec* row = engine.registry().Find(type->type, *version);
    if (row == nullptr) continue;
    Status s = engine.CheckTier(type->type, row->id);
    if (!s.ok()) problems += (problems.empty() ? "" : "; ") + s.message();
  }
  return problems;
}

uint64_t DegradedOperations(const WorkloadRunResult& run) {
  uint64_t n = 0;
  for (const PhaseResult& phase : run.phases) {
    for (const auto& [name, stats] : phase.commands) {
      auto it = stats.counters.find("tier.cache_degraded");
      if (it != stats.counters.end()) n += it->second;
    }
    for (const auto& [name, value] : phase.store_counters) {
      if (name.starts_with("server.") && name.ends_with(".cache_degraded")) n += value;
    }
  }
  return n;
}

void JudgeDegraded(const MatrixOptions& options, const Cell& cell, const WorkloadRunResult& run,
                   std::string* degraded, std::string* error) {
  const uint64_t n = DegradedOperations(run);
  if (n == 0) return;
  const std::string what = std::to_string(n) +
                           " cache operations went without the Redis cache (it was down or "
                           "failing), so these are not the numbers of " +
                           cell.Label();
  if (options.allow_degraded) {
    *degraded += (degraded->empty() ? "" : "; ") + what;
  } else if (error->empty()) {
    *error = what + " (pass --allow-degraded to keep them, marked degraded)";
  }
}

std::vector<std::string> ReclaimSkipNotes(const MatrixOptions& options) {
  std::vector<std::string> notes;
  std::vector<std::pair<std::string, std::string>> targets;  // (target, backend)
  if (options.in_process) {
    for (const std::string& b : options.backends) targets.emplace_back("in-process", b);
  }
  if (options.resp) targets.emplace_back("resp", options.resp->ToString());
  for (const std::string& mechanism : options.reclaim) {
    for (const auto& [target, backend] : targets) {
      const std::string why = ReclaimSkipReason(mechanism, backend, target);
      if (!why.empty()) notes.push_back(why);
    }
  }
  return notes;
}

std::string Cell::Label() const {
  return profile_label.empty() ? backend : backend + " " + profile_label;
}

Cell MakeCell(const encodings::EncodingRegistry& registry, std::string target, std::string backend,
              encodings::EncodingProfile profile) {
  Cell c;
  c.target = std::move(target);
  c.backend = std::move(backend);
  c.profile_label = profile.Label(registry);
  c.profile = std::move(profile);
  return c;
}

Status ParsePhysicalMode(const std::string& name, PhysicalMode* out) {
  if (name == "auto") {
    *out = PhysicalMode::kAuto;
  } else if (name == "command") {
    *out = PhysicalMode::kCommand;
  } else if (name == "phase") {
    *out = PhysicalMode::kPhase;
  } else if (name == "off") {
    *out = PhysicalMode::kOff;
  } else {
    return Status::InvalidArgument("--physical: expected auto, command, phase or off");
  }
  return Status::OK();
}

const encodings::EncodingRegistry& RegistryOf(const EngineOptions& options) {
  return options.registry != nullptr ? *options.registry : encodings::EncodingRegistry::Builtin();
}

std::map<std::string, std::vector<std::string>> AvailableVersions(const EngineOptions& options) {
  // Probed on a throwaway in-memory store: the versions are the engine's, whatever the backend.
  StoreSpec spec;
  spec.backend = "memory";
  std::unique_ptr<OpenedStore> opened;
  std::map<std::string, std::vector<std::string>> out;
  if (!OpenStore(spec, &opened).ok()) return out;
  Engine engine(opened->store(), options);
  for (const encodings::EncodingSpec& row : engine.registry().rows()) {
    if (engine.encoding(row.type, row.id) == nullptr) continue;
    out[std::string(engine.registry().FindType(row.type)->name)].emplace_back(row.name);
  }
  return out;
}

bool VersionUsesTier(const encodings::EncodingRegistry& registry, const std::string& type,
                     const std::optional<std::string>& version) {
  const encodings::TypeSpec* t = registry.FindType(type);
  if (t == nullptr || !version) return false;
  const encodings::EncodingSpec* row = registry.Find(t->type, *version);
  return row != nullptr && row->tier != encodings::TierUse::kNone;
}

std::vector<Cell> PlanCells(const Workload& workload, const MatrixOptions& options) {
  const encodings::EncodingRegistry& registry = RegistryOf(options.engine);
  // Every combination of the versions of the types the workload uses, in the registry's order.
  std::vector<encodings::EncodingProfile> profiles(1);
  std::map<std::string, std::vector<std::string>> available;
  for (const encodings::TypeSpec& type : registry.types()) {
    if (!workload.UsesType(type)) continue;
    const std::string name(type.name);
    auto listed = options.versions.find(name);
    std::vector<std::string> versions;
    if (listed != options.versions.end()) {
      versions = listed->second;
    } else {
      if (available.empty()) available = AvailableVersions(options.engine);
      versions = available[name];
    }
    std::vector<encodings::EncodingProfile> next;
    for (const encodings::EncodingProfile& p : profiles) {
      for (const std::string& v : versions) {
        encodings::EncodingProfile q = p;
        q.versions[name] = v;
        next.push_back(std::move(q));
      }
    }
    profiles = std::move(next);
  }
  std::vector<Cell> cells;
  // The reclaim axis: one cell per mechanism that applies to the backend.
  auto push = [&](Cell c) {
    if (options.reclaim.empty()) {
      cells.push_back(std::move(c));
      return;
    }
    for (const std::string& mechanism : options.reclaim) {
      if (!ReclaimSkipReason(mechanism, c.backend, c.target).empty()) continue;
      Cell r = c;
      r.reclaim = mechanism;
      r.profile_label += (r.profile_label.empty() ? "" : " ") + ("reclaim=" + mechanism);
      cells.push_back(std::move(r));
    }
  };
  auto add = [&](const std::string& target, const std::string& backend) {
    for (const encodings::EncodingProfile& p : profiles) {
      push(MakeCell(registry, target, backend, p));
      // Migration cells: the versions of migration_from for the types the workload uses.
      encodings::EncodingProfile from;
      bool differs = false;
      for (const auto& [type, version] : options.migration_from.versions) {
        auto it = p.versions.find(type);
        if (it == p.versions.end()) continue;
        from.versions[type] = version;
        differs = differs || it->second != version;
      }
      if (!differs) continue;
      for (bool migrate : {false, true}) {
        Cell c = MakeCell(registry, target, backend, p);
        c.half_under = from;
        c.migrate = migrate;
        c.profile_label += " half-" + from.Label(registry) + (migrate ? " migrate" : " keep");
        push(std::move(c));
      }
    }
  };
  if (options.in_process) {
    for (const std::string& b : options.backends) add("in-process", b);
  }
  if (options.resp) add("resp", options.resp->ToString());
  return cells;
}

Status OpenCellStore(const MatrixOptions& options, const Cell& cell, const std::string& name,
                     std::unique_ptr<OpenedStore>* out,
                     std::shared_ptr<engine::KeyMetaCompactionPolicy>* policy_out) {
  StoreSpec spec = options.store;
  // The cell's backend is a column: "rocksdb", or with modifiers, "rocksdb:cf".
  KVLAB_RETURN_IF_ERROR(backends::ParseBackendColumn(
      cell.backend, encodings::RecordKindPrefixes(RegistryOf(options.engine).AllSubKeyTags()),
      &spec));
  if (!options.store.options.dir.empty()) {
    std::string leaf = name + "-" + cell.backend;
    // "-h0-z1": the profile label's parts.
    if (!cell.profile_label.empty()) leaf += "-" + cell.profile_label;
    std::replace(leaf.begin(), leaf.end(), ' ', '-');
    std::replace(leaf.begin(), leaf.end(), ':', '-');
    std::replace(leaf.begin(), leaf.end(), '=', '-');
    leaf += "-r" + std::to_string(cell.repetition);
    spec.options.dir = (std::filesystem::path(options.store.options.dir) / leaf).string();
    spec.format = encodings::StoreFormatRecord(EngineOptionsFor(options, cell).keys);
    std::error_code ec;
    if (std::filesystem::exists(spec.options.dir, ec)) {
      return Status::InvalidArgument("store directory " + spec.options.dir +
                                     " already exists; a bench cell needs a fresh store (remove "
                                     "it or choose another --dir)");
    }
  }
  std::shared_ptr<engine::KeyMetaCompactionPolicy> policy;
  // A reclaim cell gets the filter when its mechanism is the compaction, whatever the flag.
  const bool filter =
      cell.reclaim.empty() ? options.compaction_filter : cell.reclaim == "compaction";
  if (filter && spec.backend == "rocksdb") {
    engine::CompactionPolicyOptions po;
    po.keys = options.engine.keys;
    po.registry = &RegistryOf(options.engine);
    po.clock = options.engine.clock;
    po.grace_ms = options.compaction_grace_ms;
    policy = std::make_shared<engine::KeyMetaCompactionPolicy>(po);
    spec.compaction_filter = policy;
  }
  KVLAB_RETURN_IF_ERROR(OpenStore(spec, out));
  if (policy != nullptr) policy->Attach((*out)->base());
  if (policy_out != nullptr) *policy_out = policy;
  return Status::OK();
}

bool PhysicalCountersPerThread(const std::string& backend) {
  return backends::BackendOfColumn(backend) == "rocksdb";
}

EngineTargetOptions TargetOptionsFor(const MatrixOptions& options, const Cell& cell, int threads) {
  EngineTargetOptions t;
  t.connection_decorator = options.connection_decorator;
  const bool per_thread = PhysicalCountersPerThread(cell.backend);
  t.store_physical = !per_thread;
  switch (options.physical) {
    case PhysicalMode::kAuto:
      t.physical_per_command = per_thread;
      break;
    case PhysicalMode::kCommand:
      t.physical_per_command = true;
      break;
    case PhysicalMode::kPhase:
      break;
    case PhysicalMode::kOff:
      t.store_counters = false;
      break;
  }
  t.round_trips_per_command = threads == 1;
  return t;
}

Status ConfigureEngine(const MatrixOptions& options, Engine* engine) {
  if (options.config_file.empty()) return Status::OK();
  return engine->config().LoadFile(options.config_file);
}

Status SetVersions(TargetConnection& c, const Cell& cell) {
  for (const auto& [type, version] : cell.profile.versions) {
    if (!version) continue;
    KVLAB_RETURN_IF_ERROR(
        RunOnConnection(c, {"CONFIG", "SET", "kv." + type + ".key.meta.version", *version}));
  }
  return Status::OK();
}

std::vector<Cell> MatrixCells(const Workload& workload, const MatrixOptions& options,
                              MatrixOptions* effective) {
  *effective = options;
  if (options.resp) {
    // A server without kvlab's encodings runs one cell, its versions unknown.
    RespTarget probe(*options.resp);
    std::unique_ptr<TargetConnection> c;
    if (probe.Connect(&c).ok() && !ServerHasVersions(*c, RegistryOf(options.engine))) {
      effective->resp.reset();
    }
  }
  std::vector<Cell> cells = PlanCells(workload, *effective);
  if (options.resp && !effective->resp) {
    // The types the workload uses, their versions unknown.
    encodings::EncodingProfile unknown;
    for (const encodings::TypeSpec& type : RegistryOf(options.engine).types()) {
      if (workload.UsesType(type)) unknown.versions[std::string(type.name)] = std::nullopt;
    }
    cells.push_back(
        MakeCell(RegistryOf(options.engine), "resp", options.resp->ToString(), unknown));
  }
  return cells;
}

size_t CountCells(const Workload& workload, const MatrixOptions& options) {
  MatrixOptions effective;
  return MatrixCells(workload, options, &effective).size() *
         static_cast<size_t>(std::max(1, options.repetitions));
}

void RunMatrix(const Workload& workload, const MatrixOptions& options,
               std::vector<CellResult>* results) {
  MatrixOptions effective;
  const std::vector<Cell> cells = MatrixCells(workload, options, &effective);
  const size_t total = cells.size() * static_cast<size_t>(std::max(1, options.repetitions));
  size_t index = 0;
  for (int rep = 0; rep < std::max(1, options.repetitions); ++rep) {
    for (Cell cell : cells) {
      if (StopRequested(options.stop)) return;
      cell.repetition = options.first_repetition + rep;
      if (options.on_cell) options.on_cell(cell, index, total);
      ++index;
      CellResult r;
      r.cell = cell;
      if (cell.target == "resp") {
        RunRespCell(workload, effective, cell, &r);
      } else {
        RunInProcessCell(workload, effective, cell, &r);
      }
      JudgeDegraded(effective, cell, r.run, &r.degraded, &r.run.error);
      results->push_back(std::move(r));
      if (options.on_cell_done) options.on_cell_done(results->back());
    }
  }
}

}  // namespace kvlab::workloads
