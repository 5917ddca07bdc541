#include "server/serve_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>
#include <tuple>
#include <utility>

#include "base/version.h"
#include "encodings/registry.h"
#include "engine/active_expiry.h"
#include "engine/collector.h"
#include "flags/common_flags.h"
#include "flags/conventions.h"
#include "server/server.h"
#include "traces/recorder.h"

namespace kvlab::server {

using backends::OpenedStore;
using engine::Engine;
using flags::EngineFlags;
using flags::InRange;
using flags::kExitCannotRun;
using flags::kExitOk;
using flags::kExitUsage;
using flags::OpenStoreOrReport;
using flags::StoreFlags;

namespace {

struct ServeFlags {
  StoreFlags store;
  EngineFlags engine;
  // The server's flags, as CONFIG values. Applied after --config FILE, so that the command
  // line wins over the file, as with redis-server.
  int port = 6379;
  std::vector<std::string> bind = {"127.0.0.1"};
  std::string unix_socket;
  std::string unix_socket_perm;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  uint64_t max_clients = 10000;
  std::string max_bulk_len = "512mb";
  std::string query_buffer_limit = "1gb";
  std::string output_buffer_limit = "256mb";
  std::string requirepass;
  std::string protected_mode = "yes";
  std::string max_client_memory = "25%";
  std::vector<std::pair<std::string, std::string>> renames;
  // The scheduled garbage collector (engine/collector.h, docs/gc.md).
  double gc_interval_s = 300;
  uint64_t gc_rate = 10000;
  // --record (docs/traces.md).
  traces::RecorderOptions record;
};

// (flag, CONFIG name) of every flag that has a CONFIG parameter.
constexpr std::pair<const char*, const char*> kFlagParams[] = {
    {"--port", "port"},
    {"--bind", "bind"},
    {"--unixsocket", "unixsocket"},
    {"--unixsocketperm", "unixsocketperm"},
    {"--threads", "worker-threads"},
    {"--maxclients", "maxclients"},
    {"--proto-max-bulk-len", "proto-max-bulk-len"},
    {"--client-query-buffer-limit", "client-query-buffer-limit"},
    {"--requirepass", "requirepass"},
    {"--protected-mode", "protected-mode"},
    {"--maxmemory-clients", "maxmemory-clients"},
    {"--hash-encoding", "hash-encoding"},
    {"--zset-encoding", "zset-encoding"},
};

// The explicitly given flags, as CONFIG SET pairs.
std::vector<std::pair<std::string, std::string>> GivenFlags(const CLI::App& cmd,
                                                            const ServeFlags& flags) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [flag, param] : kFlagParams) {
    const CLI::Option* option = cmd.get_option(flag);
    if (option->count() == 0) continue;
    std::string value;
    for (const std::string& word : option->results()) value += (value.empty() ? "" : " ") + word;
    out.emplace_back(param, value);
  }
  if (cmd.get_option("--client-output-buffer-limit")->count() > 0) {
    out.emplace_back("client-output-buffer-limit", "normal " + flags.output_buffer_limit + " 0 0");
  }
  return out;
}

// A Redis-tier version given on the command line needs its tier now: serving it without would
// run every command degraded, silently. Returns the problem, or "" (also with --allow-degraded).
std::string TierProblemAtStart(const ServeFlags& flags, const Engine& engine) {
  if (flags.engine.allow_degraded) return "";
  for (const auto& [type_name, given] : flags.engine.given) {
    Status s = engine.CheckTier(given.row->type, given.row->id);
    if (!s.ok()) {
      return given.flag + ": " + s.message() +
             ".\nkvlab: give a reachable server with --cache-redis / --store-redis, or pass "
             "--allow-degraded to serve it degraded (counted in INFO kvlab as cache_degraded)";
    }
  }
  return "";
}

// Serves until shutdown; returns the exit status. REQUIRES: the store outlives the engine.
int ServeOn(const CLI::App& cmd, const ServeFlags& flags, OpenedStore* opened) {
  Engine engine(opened->store(), flags.engine.ToOptions(*opened));
  const std::string tier_problem = TierProblemAtStart(flags, engine);
  if (!tier_problem.empty()) {
    std::fprintf(stderr, "kvlab: %s\n", tier_problem.c_str());
    return kExitCannotRun;
  }
  ServerOptions options;
  options.threads = flags.threads;
  options.handle_signals = true;
  options.version = kKvlabVersion;
  if (!flags.engine.config_file.empty()) {
    options.config_file = std::filesystem::absolute(flags.engine.config_file).string();
  }
  std::unique_ptr<traces::TraceRecorder> recorder;
  if (!flags.record.path.empty()) {
    traces::RecorderOptions record = flags.record;
    record.context = "store: " + opened->store()->name() + "\nkvlab: " + kKvlabVersion + "\n";
    record.log = [](const std::string& line) { std::fprintf(stderr, "kvlab: %s\n", line.c_str()); };
    Status rs = traces::TraceRecorder::Open(std::move(record), &recorder);
    if (!rs.ok()) {
      std::fprintf(stderr, "kvlab: --record: %s\n", rs.message().c_str());
      return kExitUsage;
    }
    options.recorder = recorder.get();
  }
  Server server(&engine, options);
  // The defaults that are not the in-process server's; the config file and flags win.
  Status s = engine.config().Set({{"maxmemory-clients", flags.max_client_memory}});
  if (s.ok()) s = flags.engine.ApplyConfigFile(&engine);
  for (const auto& [name, value] : GivenFlags(cmd, flags)) {
    if (!s.ok()) break;
    s = engine.config().Set({{name, value}});
  }
  for (const auto& [from, to] : flags.renames) {
    if (!s.ok()) break;
    s = engine.RenameCommand(from, to);
  }
  // The cache and the store on one server would lose zsets: refuse it before serving.
  if (s.ok() && engine.tier() != nullptr) s = engine.tier()->Validate();
  if (!s.ok()) {
    // A flag or config file value the engine refused, or a tier it cannot run safely.
    std::fprintf(stderr, "kvlab: %s\n", s.message().c_str());
    return kExitUsage;
  }
  s = server.Start();
  if (!s.ok()) {
    // The address is taken, the socket path unusable, ...
    std::fprintf(stderr, "kvlab: %s\n", s.message().c_str());
    return kExitCannotRun;
  }
  std::string where;
  for (const std::string& a : server.Addresses()) where += (where.empty() ? "" : ", ") + a;
  std::string encodings;  // ", hash encoding 0, zset encoding 0"
  for (const auto& type : engine.registry().types()) {
    encodings += ", " + std::string(type.name) + " encoding " +
                 std::string(engine.new_key_version_name(type.type));
  }
  std::fprintf(
      stderr, "kvlab: serving RESP2 and RESP3 (HELLO 3) on %s (%d worker threads, %s store%s)\n",
      where.c_str(), server.options().threads, opened->store()->name().c_str(), encodings.c_str());
  const std::string warning =
      ExposureWarning(server.options().bind, engine.AuthRequired(), server.protected_mode());
  if (server.options().port != 0 && !warning.empty()) {
    std::fprintf(stderr, "kvlab: %s\n", warning.c_str());
  }
  std::fflush(stderr);
  std::unique_ptr<engine::BackgroundCollector> gc;
  if (flags.gc_interval_s > 0) {
    engine::GcOptions gc_options;
    gc_options.max_records_per_second = flags.gc_rate;
    gc = std::make_unique<engine::BackgroundCollector>(
        &engine, std::chrono::milliseconds(static_cast<int64_t>(flags.gc_interval_s * 1000)),
        std::move(gc_options),
        [](const std::string& line) { std::fprintf(stderr, "kvlab: %s\n", line.c_str()); });
  }
  // Redis's active expire cycle (hz 10), over the TTL index.
  std::unique_ptr<engine::BackgroundCollector> active_expiry;
  if (engine.codec().options().ttl_index) {
    active_expiry = engine::StartActiveExpiry(&engine, std::chrono::milliseconds(100),
                                              engine::ActiveExpiryOptions());
  }
  server.Run();
  if (recorder != nullptr) {
    // Every worker has stopped: no command can reach the recorder any more.
    const uint64_t recorded = recorder->recorded();
    Status rs = recorder->Close();
    if (rs.ok()) {
      std::fprintf(stderr, "kvlab: --record: %llu commands in %s\n",
                   static_cast<unsigned long long>(recorded), flags.record.path.c_str());
    } else {
      std::fprintf(stderr, "kvlab: --record: %s\n", rs.message().c_str());
    }
  }
  gc.reset();  // stops a running pass after its current batch
  if (active_expiry != nullptr) {
    const engine::GcStats expired = active_expiry->totals();
    const uint64_t cycles = active_expiry->passes();
    active_expiry.reset();
    if (expired.index_entries > 0) {
      std::fprintf(stderr, "kvlab: active expiry, %llu cycles: %s\n",
                   static_cast<unsigned long long>(cycles), expired.Line().c_str());
    }
  }
  std::fprintf(stderr, "kvlab: every connection is closed; closing the store\n");
  return kExitOk;
}

int RunServe(const CLI::App& cmd, const ServeFlags& flags) {
  std::unique_ptr<OpenedStore> opened = OpenStoreOrReport(flags.store, flags.engine);
  if (opened == nullptr) return kExitUsage;
  const int exit_code = ServeOn(cmd, flags, opened.get());
  opened->Close();
  if (exit_code == kExitOk) std::fprintf(stderr, "kvlab: store closed\n");
  return exit_code;
}

}  // namespace

void AddServeCommand(CLI::App& app, const flags::TestHooks& hooks, int* exit_code) {
  auto flags = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Serve RESP2 and RESP3 over TCP and a unix socket, for redis-cli, redis-benchmark and "
      "client libraries");
  flags->store.AddTo(cmd);
  flags->engine.AddTo(cmd, hooks);
  cmd->add_option("--port", flags->port, "TCP port (0: no TCP listener)")
      ->check(InRange(0, 65535))
      ->capture_default_str();
  cmd->add_option("--bind", flags->bind, "Addresses to listen on (repeatable; '*' for all IPv4)")
      ->capture_default_str();
  cmd->add_option("--unixsocket", flags->unix_socket, "Also listen on this unix socket");
  cmd->add_option("--unixsocketperm", flags->unix_socket_perm,
                  "Permissions of the unix socket, in octal (e.g. 700)");
  cmd->add_option("--threads", flags->threads, "Worker threads")
      ->check(InRange(1, 1024))
      ->capture_default_str();
  cmd->add_option("--maxclients", flags->max_clients, "Most connections at once")
      ->check(InRange(uint64_t{1}, uint64_t{4294967295}))
      ->capture_default_str();
  cmd->add_option("--proto-max-bulk-len", flags->max_bulk_len,
                  "Longest bulk argument a client may send (e.g. 512mb)")
      ->capture_default_str();
  cmd->add_option("--client-query-buffer-limit", flags->query_buffer_limit,
                  "Most input a client may have pending; past it the client is closed")
      ->capture_default_str();
  cmd->add_option("--client-output-buffer-limit", flags->output_buffer_limit,
                  "Most unread replies a client may have; past it the client is closed (0: none)")
      ->capture_default_str();
  cmd->add_option("--requirepass", flags->requirepass,
                  "The password clients must give (AUTH, HELLO AUTH); better set in --config, "
                  "where other users of this host cannot see it");
  cmd->add_option("--protected-mode", flags->protected_mode,
                  "yes: without requirepass, refuse TCP clients from other hosts")
      ->check(CLI::IsMember({"yes", "no"}, CLI::ignore_case))
      ->capture_default_str();
  cmd->add_option("--maxmemory-clients", flags->max_client_memory,
                  "Most memory all clients together may hold in buffers (a memory value, or a "
                  "percentage of physical memory); past it the biggest clients are closed (0: no "
                  "bound)")
      ->capture_default_str();
  cmd->add_option("--rename-command", flags->renames,
                  "OLD NEW: rename a command; NEW \"\" disables it (repeatable; e.g. "
                  "--rename-command FLUSHALL \"\")");
  cmd->add_option("--gc-interval", flags->gc_interval_s,
                  "Seconds between passes of the garbage collector, which reclaims what DEL, "
                  "overwrites and expiries leave behind (0: never; KVLAB.GC runs one on demand)")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("--gc-rate", flags->gc_rate,
                  "Most records a second the scheduled collector reads (0: no limit)")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("--record", flags->record.path,
                  "Record every command clients send, with its time, client and database, into "
                  "this trace file (docs/traces.md; replay with `kvlab bench run trace:FILE`)");
  cmd->add_option("--record-sample", flags->record.sample,
                  "Record this share of the clients, each whole (per client, chosen by a hash "
                  "of its id), so that transactions stay intact")
      ->check(InRange(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--record-max-bytes", flags->record.max_bytes,
                  "Stop recording before the trace passes this many bytes (0: no bound); the "
                  "trace stays valid and says it stopped")
      ->check(flags::NonNegative());
  cmd->add_flag("--anonymize", flags->record.anonymize,
                "With --record: hash keys and members with a keyed hash and keep only values' "
                "lengths (docs/traces.md says exactly what)");
  cmd->callback([cmd, flags, exit_code] {
    if (flags->record.path.empty()) {
      for (const char* flag : {"--record-sample", "--record-max-bytes", "--anonymize"}) {
        if (cmd->get_option(flag)->count() > 0) {
          throw flags::UsageError(std::string(flag) + " applies to --record FILE");
        }
      }
    } else if (!(flags->record.sample > 0)) {
      throw flags::UsageError("--record-sample: a share of clients in (0, 1]");
    }
    *exit_code = RunServe(*cmd, *flags);
  });
}

}  // namespace kvlab::server
