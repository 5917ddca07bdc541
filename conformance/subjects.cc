#include "conformance/subjects.h"

#include <algorithm>

namespace kvlab::conformance {

using backends::BackendNames;
using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::Engine;
using engine::EngineOptions;
using redis::RedisClient;
using redis::RedisEndpoint;
using redis::RedisTier;
using redis::TierCounts;
using redis::TierRole;
using resp::Reply;

namespace {

constexpr int kMaxProbedVersion = 15;

class EngineSession final : public SubjectSession {
 public:
  ReplyTarget& target() override { return *target_; }
  RedisTierControl* tier_control() override { return tier_.get(); }

  // Destroyed in reverse order: the target and the tier first, then the engine, then its store.
  std::unique_ptr<OpenedStore> store_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<RedisTierControl> tier_;
  std::unique_ptr<EngineReplyTarget> target_;
};

class RemoteSession final : public SubjectSession {
 public:
  explicit RemoteSession(const RedisEndpoint& endpoint)
      : client_(endpoint, std::chrono::milliseconds(10000)), target_("serve", &client_) {}
  ReplyTarget& target() override { return target_; }
  RedisTierControl* tier_control() override { return nullptr; }
  RedisClient& client() { return client_; }

 private:
  RedisClient client_;
  RedisTarget target_;
};

// CONFIG GET's value for `name`, or "" when the server does not know it.
std::string ConfigValue(RedisClient& client, const std::string& name) {
  Reply r;
  if (!client.Command({"CONFIG", "GET", name}, &r).ok()) return "";
  if (r.type() != Reply::Type::kArray || r.elements().size() != 2) return "";
  return r.elements()[1].str();
}

bool ConfigSet(RedisClient& client, const std::string& name, const std::string& value) {
  Reply r;
  return client.Command({"CONFIG", "SET", name, value}, &r).ok() &&
         r.type() == Reply::Type::kStatus;
}

}  // namespace

std::string Profile::Label() const {
  std::string label = hash_version < 0 || zset_version < 0
                          ? "as configured"
                          : "h" + std::to_string(hash_version) + "z" + std::to_string(zset_version);
  if (tier != TierState::kNone) label += " " + std::string(TierStateName(tier));
  return label;
}

Status ParseBackendColumn(const std::string& column, StoreSpec* out) {
  *out = StoreSpec();
  std::string backend = column;
  const size_t colon = column.find(':');
  if (colon != std::string::npos) {
    backend = column.substr(0, colon);
    if (column.substr(colon + 1) != "noreverse") {
      return Status::InvalidArgument("bad backend column '" + column +
                                     "' (expected NAME or NAME:noreverse)");
    }
    out->no_reverse_scan = true;
  }
  const auto& names = BackendNames();
  if (std::find(names.begin(), names.end(), backend) == names.end()) {
    std::string known;
    for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
    return Status::InvalidArgument("unknown backend '" + backend + "' (known: " + known + ")");
  }
  out->backend = backend;
  return Status::OK();
}

EngineSubject::EngineSubject(std::string name, StoreSpec spec, EngineOptions options,
                             TierWiring tier)
    : name_(std::move(name)),
      spec_(std::move(spec)),
      options_(std::move(options)),
      tier_(std::move(tier)) {}

Status EngineSubject::Probe() {
  if (probed_) return Status::OK();
  // The versions are the engine's, whatever the backend: ask an engine over a memory store.
  StoreSpec memory;
  std::unique_ptr<OpenedStore> store;
  KVLAB_RETURN_IF_ERROR(OpenStore(memory, &store));
  Engine engine(store->store(), options_);
  for (int v = 0; v <= kMaxProbedVersion; ++v) {
    if (engine.hash_encoding(static_cast<uint8_t>(v)) != nullptr) hash_versions_.push_back(v);
    if (engine.zset_encoding(static_cast<uint8_t>(v)) != nullptr) zset_versions_.push_back(v);
  }
  probed_ = true;
  return Status::OK();
}

std::vector<int> EngineSubject::HashVersions() {
  return Probe().ok() ? hash_versions_ : std::vector<int>{};
}

std::vector<int> EngineSubject::ZsetVersions() {
  return Probe().ok() ? zset_versions_ : std::vector<int>{};
}

bool EngineSubject::UsesTier(int hash_version, int zset_version) const {
  if (!tier_.uses_tier || !tier_.attach) return false;
  return tier_.uses_tier("hash", hash_version) || tier_.uses_tier("zset", zset_version);
}

Status EngineSubject::Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) {
  if (!spec_.options.dir.empty()) {
    return Status::InvalidArgument("an engine subject needs a fresh store per profile");
  }
  auto session = std::make_unique<EngineSession>();
  KVLAB_RETURN_IF_ERROR(OpenStore(spec_, &session->store_));
  EngineOptions options = options_;
  options.hash_version = static_cast<uint8_t>(profile.hash_version);
  options.zset_version = static_cast<uint8_t>(profile.zset_version);
  session->engine_ = std::make_unique<Engine>(session->store_->store(), options);
  if (profile.tier != TierState::kNone) {
    if (!UsesTier(profile.hash_version, profile.zset_version)) {
      return Status::InvalidArgument("profile " + profile.Label() + " has no Redis tier");
    }
    session->tier_ = tier_.attach(*session->engine_);
    if (session->tier_ == nullptr) {
      return Status::Unavailable("the Redis tier of profile " + profile.Label() +
                                 " could not be attached");
    }
  }
  session->target_ = std::make_unique<EngineReplyTarget>(session->engine_.get());
  *out = std::move(session);
  return Status::OK();
}

RemoteSubject::RemoteSubject(RedisEndpoint endpoint)
    : endpoint_(std::move(endpoint)), client_(endpoint_, std::chrono::milliseconds(10000)) {}

RemoteSubject::~RemoteSubject() {
  if (!original_hash_.empty()) ConfigSet(client_, "kv.hash.key.meta.version", original_hash_);
  if (!original_zset_.empty()) ConfigSet(client_, "kv.zset.key.meta.version", original_zset_);
}

Status RemoteSubject::Probe() {
  if (probed_) return Status::OK();
  KVLAB_RETURN_IF_ERROR(client_.Connect());
  original_hash_ = ConfigValue(client_, "kv.hash.key.meta.version");
  original_zset_ = ConfigValue(client_, "kv.zset.key.meta.version");
  for (int v = 0; v <= kMaxProbedVersion; ++v) {
    const std::string value = std::to_string(v);
    if (!original_hash_.empty() && ConfigSet(client_, "kv.hash.key.meta.version", value)) {
      hash_versions_.push_back(v);
    }
    if (!original_zset_.empty() && ConfigSet(client_, "kv.zset.key.meta.version", value)) {
      zset_versions_.push_back(v);
    }
  }
  probed_ = true;
  return Status::OK();
}

std::vector<int> RemoteSubject::HashVersions() {
  return Probe().ok() ? hash_versions_ : std::vector<int>{};
}

std::vector<int> RemoteSubject::ZsetVersions() {
  return Probe().ok() ? zset_versions_ : std::vector<int>{};
}

Status RemoteSubject::CheckEmpty() {
  return RequireEmptyServer(client_, "conform runs FLUSHALL on it before every case");
}

Status RemoteSubject::Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) {
  KVLAB_RETURN_IF_ERROR(Probe());
  auto session = std::make_unique<RemoteSession>(endpoint_);
  KVLAB_RETURN_IF_ERROR(session->client().Connect());
  if (profile.hash_version >= 0 && !ConfigSet(session->client(), "kv.hash.key.meta.version",
                                              std::to_string(profile.hash_version))) {
    return Status::Unavailable(name() + " refused hash version " +
                               std::to_string(profile.hash_version));
  }
  if (profile.zset_version >= 0 && !ConfigSet(session->client(), "kv.zset.key.meta.version",
                                              std::to_string(profile.zset_version))) {
    return Status::Unavailable(name() + " refused zset version " +
                               std::to_string(profile.zset_version));
  }
  *out = std::move(session);
  return Status::OK();
}

namespace {

class EngineTierControl final : public RedisTierControl {
 public:
  explicit EngineTierControl(RedisTier* tier) : tier_(tier) {}
  Status FlushCache() override {
    std::vector<Reply> replies;
    TierCounts ignored;
    KVLAB_RETURN_IF_ERROR(tier_->Pipeline(TierRole::kCache, {{"FLUSHALL"}}, &replies, &ignored));
    if (replies[0].is_error()) return Status::Unavailable("cache FLUSHALL: " + replies[0].str());
    return Status::OK();
  }

 private:
  RedisTier* tier_;
};

}  // namespace

TierWiring EngineTierWiring() {
  TierWiring wiring;
  wiring.uses_tier = [](std::string_view type, int version) {
    return (type == "hash" && version >= 2) || (type == "zset" && version >= 1);
  };
  wiring.attach = [](Engine& engine) -> std::unique_ptr<RedisTierControl> {
    if (engine.tier() == nullptr) return nullptr;
    return std::make_unique<EngineTierControl>(engine.tier());
  };
  return wiring;
}

}  // namespace kvlab::conformance
