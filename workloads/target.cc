#include "workloads/target.h"

namespace kvlab {
namespace {

class EngineConnection final : public TargetConnection {
 public:
  EngineConnection(Engine* engine, RemoteLatencyStore* remote, EngineTargetOptions options)
      : engine_(engine), remote_(remote), options_(options) {}

  Status Execute(const std::vector<std::string>& argv, Reply* reply,
                 CommandSample* sample) override {
    CommandCost cost;
    cost.want_physical = options_.physical_per_command;
    const bool count_trips = remote_ != nullptr && options_.round_trips_per_command;
    const uint64_t trips_before = count_trips ? remote_->round_trips() : 0;
    *reply = engine_->Execute(session_, argv, &cost);
    sample->has_kv = true;
    sample->kv = cost.kv;
    sample->counters.clear();
    if (cost.want_physical) sample->counters = std::move(cost.physical);
    if (count_trips) {
      sample->counters.emplace_back("remote.round_trips", remote_->round_trips() - trips_before);
    }
    // The Redis tier's work (hash v2/v3, zset v1-v3), as "tier.<counter>": the report turns
    // tier.cache_hits and tier.cache_misses into a hit ratio.
    for (const auto& [name, value] : cost.tier.Fields()) {
      if (value != 0) sample->counters.emplace_back(std::string("tier.") + name, value);
    }
    return Status::OK();
  }

 private:
  Engine* engine_;
  RemoteLatencyStore* remote_;
  EngineTargetOptions options_;
  Session session_;
};

class RespConnection final : public TargetConnection {
 public:
  explicit RespConnection(const RedisEndpoint& endpoint) : client_(endpoint) {}
  Status Connect() { return client_.Connect(); }

  Status Execute(const std::vector<std::string>& argv, Reply* reply,
                 CommandSample* sample) override {
    sample->has_kv = false;
    sample->counters.clear();
    return client_.Command(argv, reply);
  }

 private:
  RedisClient client_;
};

}  // namespace

Status EngineTarget::Connect(std::unique_ptr<TargetConnection>* out) {
  *out = std::make_unique<EngineConnection>(engine_, store_ ? store_->remote() : nullptr, options_);
  return Status::OK();
}

PhysicalCounters EngineTarget::StoreCounters() {
  if (store_ == nullptr || !options_.store_counters) return {};
  PhysicalCounters out;
  if (options_.store_physical) out = store_->store()->ReadPhysicalCounters();
  if (store_->remote() != nullptr) {
    out.emplace_back("remote.round_trips", store_->remote()->round_trips());
  }
  return out;
}

Status RespTarget::Connect(std::unique_ptr<TargetConnection>* out) {
  auto connection = std::make_unique<RespConnection>(endpoint_);
  Status s = connection->Connect();
  if (!s.ok()) {
    return Status::Unavailable("cannot connect to " + endpoint_.ToString() + ": " + s.ToString());
  }
  *out = std::move(connection);
  return Status::OK();
}

}  // namespace kvlab
