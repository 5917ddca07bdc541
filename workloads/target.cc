#include "workloads/target.h"

#include <charconv>

namespace kvlab::workloads {

using backends::PhysicalCounters;
using backends::RemoteLatencyStore;
using engine::CommandCost;
using engine::Engine;
using engine::Session;
using redis::RedisClient;
using redis::RedisEndpoint;
using resp::Reply;

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
    // The reply a RESP2 client decodes, as from a server (this session never says HELLO 3).
    *reply = engine_->Execute(session_, argv, &cost).AsResp2();
    sample->has_kv = true;
    sample->kv = cost.kv;
    sample->counters.clear();
    if (cost.want_physical) sample->counters = std::move(cost.physical);
    if (count_trips) {
      sample->counters.emplace_back("remote.round_trips", remote_->round_trips() - trips_before);
    }
    // The Redis tier's work (hash v2/v3, zset v1-v3, set v2/v3), as "tier.<counter>": the report
    // turns tier.cache_hits and tier.cache_misses into a hit ratio.
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

  Status ExecuteBatch(const std::vector<std::vector<std::string>>& argvs,
                      std::vector<Reply>* replies, std::vector<CommandSample>* samples) override {
    samples->assign(argvs.size(), CommandSample());
    return client_.Pipeline(argvs, replies);
  }

 private:
  RedisClient client_;
};

}  // namespace

Status TargetConnection::ExecuteBatch(const std::vector<std::vector<std::string>>& argvs,
                                      std::vector<Reply>* replies,
                                      std::vector<CommandSample>* samples) {
  replies->resize(argvs.size());
  samples->resize(argvs.size());
  for (size_t i = 0; i < argvs.size(); ++i) {
    KVLAB_RETURN_IF_ERROR(Execute(argvs[i], &(*replies)[i], &(*samples)[i]));
  }
  return Status::OK();
}

Status EngineTarget::Connect(std::unique_ptr<TargetConnection>* out) {
  *out = std::make_unique<EngineConnection>(engine_, store_ ? store_->remote() : nullptr, options_);
  if (options_.connection_decorator) *out = options_.connection_decorator(std::move(*out));
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

PhysicalCounters RespTarget::StoreCounters() {
  RedisClient client(endpoint_);
  Reply reply;
  if (!client.Connect().ok() || !client.Command({"INFO", "kvlab"}, &reply).ok() ||
      reply.type() != Reply::Type::kBulk) {
    return {};
  }
  return ServerKvCounters(reply.str());
}

PhysicalCounters ServerKvCounters(std::string_view info) {
  PhysicalCounters out;
  while (!info.empty()) {
    const size_t eol = info.find('\n');
    std::string_view line = info.substr(0, eol);
    info = eol == std::string_view::npos ? std::string_view() : info.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view command;
    if (line.starts_with("kv_total:")) {
      command = "kv_total";
    } else if (line.starts_with("kvstat_")) {
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) continue;
      command = line.substr(7, colon - 7);
    } else {
      continue;
    }
    std::string_view fields = line.substr(line.find(':') + 1);
    while (!fields.empty()) {
      const size_t comma = fields.find(',');
      const std::string_view field = fields.substr(0, comma);
      fields = comma == std::string_view::npos ? std::string_view() : fields.substr(comma + 1);
      const size_t eq = field.find('=');
      if (eq == std::string_view::npos) continue;
      const std::string_view name = field.substr(0, eq);
      const std::string_view text = field.substr(eq + 1);
      if (name == "usec" || name == "usec_per_call") continue;
      uint64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || value == 0) continue;
      out.emplace_back("server." + std::string(command) + "." + std::string(name), value);
    }
  }
  return out;
}

}  // namespace kvlab::workloads
