// Target: where a workload's commands go. The same command stream runs in-process against an
// Engine (EngineTarget), with exact KV counters per command, or over RESP to any Redis-protocol
// server (RespTarget): `kvlab serve`, or a real redis-server for comparison.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends/counting_store.h"
#include "backends/registry.h"
#include "engine/engine.h"
#include "redis/client.h"
#include "resp/reply.h"

namespace kvlab::workloads {

// What one command cost, as far as the target can tell.
struct CommandSample {
  bool has_kv = false;  // kv holds the command's exact KV operation counts
  backends::OpCounts kv;
  // Further per-command counters by name: the backend's physical counters over the command
  // ("rocksdb.block_read_count"), the remote-store decorator's round trips
  // ("remote.round_trips"), and the Redis tier's operations when it lands.
  std::vector<std::pair<std::string, uint64_t>> counters;
};

// One client of a target: a session in-process, a connection over RESP. Used by one thread.
class TargetConnection {
 public:
  virtual ~TargetConnection() = default;
  // Runs one command. A failed Status means the command could not be run at all (a broken
  // connection); an error reply is an OK Status with reply->is_error().
  virtual Status Execute(const std::vector<std::string>& argv, resp::Reply* reply,
                         CommandSample* sample) = 0;
  // Runs several commands, in order, and returns each one's reply and sample. Over RESP every
  // command is sent before any reply is read (a pipeline: one round trip); the default runs
  // them one after the other.
  virtual Status ExecuteBatch(const std::vector<std::vector<std::string>>& argvs,
                              std::vector<resp::Reply>* replies,
                              std::vector<CommandSample>* samples);
};

class Target {
 public:
  virtual ~Target() = default;
  // "in-process" or "resp".
  virtual std::string kind() const = 0;
  // A human-readable name: "rocksdb", "resp 127.0.0.1:7379".
  virtual std::string Describe() const = 0;
  virtual Status Connect(std::unique_ptr<TargetConnection>* out) = 0;
  // Store-wide counters, read at phase boundaries: the backend's physical counters and the
  // remote-store decorator's round trips. Empty when the target has no local store.
  virtual backends::PhysicalCounters StoreCounters() { return {}; }
};

struct EngineTargetOptions {
  // Ask the engine for the backend's physical counters around each command. Exact per command
  // on RocksDB (a per-thread PerfContext); store-wide on the others, so only meaningful there
  // with one thread.
  bool physical_per_command = false;
  // Attribute the remote-store decorator's round trips to each command. The counter is
  // store-wide: exact with one thread.
  bool round_trips_per_command = false;
  // Read the store-wide counters at phase boundaries (StoreCounters): the remote round trips,
  // and with store_physical the backend's physical counters. Not for backends whose counters
  // are per thread (RocksDB): a reading on the coordinating thread says nothing about the
  // workers' work.
  bool store_counters = true;
  bool store_physical = true;
  // When set, wraps every connection (a decorator: e.g. the test-only slowdown of one command,
  // workloads/slow_command.h).
  std::function<std::unique_ptr<TargetConnection>(std::unique_ptr<TargetConnection>)>
      connection_decorator;
};

// In-process: Engine::Execute with a Session per connection.
class EngineTarget final : public Target {
 public:
  // REQUIRES: engine and store outlive the target. store may be null (no store counters).
  EngineTarget(engine::Engine* engine, backends::OpenedStore* store, EngineTargetOptions options)
      : engine_(engine), store_(store), options_(options) {}

  std::string kind() const override { return "in-process"; }
  std::string Describe() const override { return engine_->store()->name(); }
  Status Connect(std::unique_ptr<TargetConnection>* out) override;
  backends::PhysicalCounters StoreCounters() override;

 private:
  engine::Engine* engine_;
  backends::OpenedStore* store_;
  EngineTargetOptions options_;
};

// Over RESP, one RedisClient per connection. Commands carry no per-command KV counters: the
// server keeps them. A `kvlab serve` target reports them per phase instead (StoreCounters).
class RespTarget final : public Target {
 public:
  explicit RespTarget(redis::RedisEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

  std::string kind() const override { return "resp"; }
  std::string Describe() const override { return "resp " + endpoint_.ToString(); }
  Status Connect(std::unique_ptr<TargetConnection>* out) override;
  // The server's cumulative per-command counters from `INFO kvlab` (ServerKvCounters), on a
  // connection of its own. Empty when the server has no kvlab section (a real redis-server) or
  // cannot be reached. Exact per phase when the workload is the server's only client.
  backends::PhysicalCounters StoreCounters() override;

 private:
  redis::RedisEndpoint endpoint_;
};

// Parses the `kv_total` and `kvstat_<command>` lines of INFO kvlab's text into counters named
// "server.<command>.<field>" ("server.hget.gets", "server.kv_total.nexts"): every integer field
// (calls, failed_calls, the KV operations, the Redis-tier work) that is not zero. Latency
// fields (usec, usec_per_call) are timings, not counters, and are left out. Other lines are
// ignored, so any INFO text may be passed.
backends::PhysicalCounters ServerKvCounters(std::string_view info);

}  // namespace kvlab::workloads
