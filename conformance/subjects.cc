#include "conformance/subjects.h"

#include <algorithm>
#include <sstream>
#include <thread>

#include "conformance/redis_commands.h"
#include "engine/command_table.h"

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
  RemoteSession(const RedisEndpoint& endpoint, const std::string& name,
                const RemoteSubjectOptions& options)
      : client_(endpoint, options.timeout),
        target_(name, &client_, options.timeout),
        reconnect_wait_(options.reconnect_wait) {}
  ReplyTarget& target() override { return target_; }
  RedisTierControl* tier_control() override { return nullptr; }
  RedisClient& client() { return client_; }

  Status Reconnect() override {
    // The client reconnects by itself on the next command; here the harness waits until a
    // PING is answered (a server that restarts under a supervisor, or that is still busy with
    // the command that timed out).
    const auto deadline = std::chrono::steady_clock::now() + reconnect_wait_;
    Status last;
    while (true) {
      Reply pong;
      last = client_.Command({"PING"}, &pong);
      if (last.ok()) return Status::OK();
      if (std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return Status::Unavailable("it did not answer again within " +
                               std::to_string(reconnect_wait_.count()) + " ms: " + last.ToString());
  }

 private:
  RedisClient client_;
  RedisTarget target_;
  const std::chrono::milliseconds reconnect_wait_;
};

// CONFIG GET's value for `name`, or "" when the server does not know it.
std::string ConfigValue(RedisClient& client, const std::string& name) {
  Reply r;
  if (!client.Command({"CONFIG", "GET", name}, &r).ok()) return "";
  if (r.type() != Reply::Type::kArray || r.elements().size() != 2) return "";
  return r.elements()[1].str();
}

constexpr const char* kMigrateParameter = "kv.encoding.migrate.on.write";

bool ConfigSet(RedisClient& client, const std::string& name, const std::string& value) {
  Reply r;
  return client.Command({"CONFIG", "SET", name, value}, &r).ok() &&
         r.type() == Reply::Type::kStatus;
}

}  // namespace

std::string Profile::Label() const {
  std::string label = encodings.versions.empty() ? "as configured" : encodings_label;
  if (!migrate_with.versions.empty()) label += " <-> " + migrate_with_label;
  if (tier != TierState::kNone) label += " " + std::string(TierStateName(tier));
  return label;
}

Profile MakeProfile(const encodings::EncodingRegistry& registry,
                    encodings::EncodingProfile encodings, TierState tier,
                    encodings::EncodingProfile migrate_with) {
  Profile p;
  p.encodings_label = encodings.Label(registry);
  p.encodings = std::move(encodings);
  p.tier = tier;
  p.migrate_with_label = migrate_with.Label(registry);
  p.migrate_with = std::move(migrate_with);
  return p;
}

Status ParseBackendColumn(const std::string& column, StoreSpec* out) {
  *out = StoreSpec();
  return backends::ParseBackendColumn(
      column, encodings::RecordKindPrefixes(encodings::EncodingRegistry::Builtin().AllSubKeyTags()),
      out);
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
  for (const encodings::EncodingSpec& row : engine.registry().rows()) {
    if (engine.encoding(row.type, row.id) == nullptr) continue;
    versions_[std::string(engine.registry().FindType(row.type)->name)].emplace_back(row.name);
  }
  probed_ = true;
  return Status::OK();
}

bool EngineSubject::Serves(std::string_view command) const {
  return RedisGroupOf(command).empty() || engine::CommandTable::Get().Find(command) != nullptr;
}

std::map<std::string, std::vector<std::string>> EngineSubject::Versions() {
  return Probe().ok() ? versions_ : std::map<std::string, std::vector<std::string>>{};
}

bool EngineSubject::UsesTier(const encodings::EncodingProfile& profile) const {
  if (!tier_.uses_tier || !tier_.attach) return false;
  for (const auto& [type, version] : profile.versions) {
    if (version && tier_.uses_tier(type, *version)) return true;
  }
  return false;
}

Status EngineSubject::Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) {
  if (!spec_.options.dir.empty()) {
    return Status::InvalidArgument("an engine subject needs a fresh store per profile");
  }
  auto session = std::make_unique<EngineSession>();
  KVLAB_RETURN_IF_ERROR(OpenStore(spec_, &session->store_));
  EngineOptions options = options_;
  const encodings::EncodingRegistry& registry =
      options.registry != nullptr ? *options.registry : encodings::EncodingRegistry::Builtin();
  for (const auto& [type_name, version] : profile.encodings.versions) {
    const encodings::TypeSpec* type = registry.FindType(type_name);
    const encodings::EncodingSpec* row = nullptr;
    if (type == nullptr || !version) {
      return Status::InvalidArgument("profile " + profile.Label() + " names no version of " +
                                     type_name);
    }
    KVLAB_RETURN_IF_ERROR(registry.ParseVersion(*type, *version, &row));
    options.versions[type->type] = row->id;
  }
  options.migrate_on_write = !profile.migrate_with.versions.empty();
  session->engine_ = std::make_unique<Engine>(session->store_->store(), options);
  if (profile.tier != TierState::kNone) {
    if (!UsesTier(profile.encodings) && !UsesTier(profile.migrate_with)) {
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

std::string ServerNameFromInfo(const std::string& info) {
  // "_version" fields that name a library, a compiler or a storage engine, not the server.
  static constexpr std::string_view kNotServers[] = {
      "gcc",   "libevent", "rocksdb", "leveldb", "lmdb",     "wiredtiger", "lua",  "jemalloc",
      "glibc", "openssl",  "ssl",     "os",      "tcmalloc", "mimalloc",   "arch", "git"};
  std::map<std::string, std::string> fields;
  std::string own;  // the first "<name>_version" naming the server
  std::istringstream lines(info);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(':');
    if (line.empty() || line[0] == '#' || colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    fields.emplace(key, line.substr(colon + 1));
    constexpr std::string_view kSuffix = "_version";
    if (own.empty() && key.size() > kSuffix.size() && key.ends_with(kSuffix) &&
        key != "redis_version") {
      const std::string prefix = key.substr(0, key.size() - kSuffix.size());
      if (std::find(std::begin(kNotServers), std::end(kNotServers), prefix) ==
          std::end(kNotServers)) {
        own = prefix;
      }
    }
  }
  auto field = [&fields](const std::string& key) {
    auto it = fields.find(key);
    return it == fields.end() ? std::string() : it->second;
  };
  std::string server = field("server_name");
  if (server.empty()) server = own;
  const std::string redis_version = field("redis_version");
  if (server.empty() || server == "redis") {
    return redis_version.empty() ? std::string() : "redis " + redis_version;
  }
  const std::string version = field(server + "_version");
  std::string name = server + (version.empty() ? "" : " " + version);
  if (!redis_version.empty()) name += " (redis_version " + redis_version + ")";
  return name;
}

RemoteSubject::RemoteSubject(RedisEndpoint endpoint, RemoteSubjectOptions options)
    : endpoint_(std::move(endpoint)),
      options_(std::move(options)),
      client_(endpoint_, options_.timeout) {}

std::string RemoteSubject::name() const {
  if (!options_.name.empty()) return options_.name;
  return (info_name_.empty() ? std::string("server") : info_name_) + " at " + endpoint_.ToString();
}

RemoteSubject::~RemoteSubject() {
  for (const auto& [type, version] : original_) {
    // Best effort: the server keeps whatever version the run left if it is gone by now.
    ConfigSet(client_, "kv." + type + ".key.meta.version", version);
  }
  if (!original_migrate_.empty()) ConfigSet(client_, kMigrateParameter, original_migrate_);
}

Status RemoteSubject::Probe() {
  if (probed_) return Status::OK();
  KVLAB_RETURN_IF_ERROR(client_.Connect());
  Reply info;
  if (client_.Command({"INFO", "server"}, &info).ok() && info.type() == Reply::Type::kBulk) {
    info_name_ = ServerNameFromInfo(info.str());
  }
  // The versions of kvlab's registry the server accepts (a kvlab server of another build may
  // run others; it is asked for these).
  const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
  for (const encodings::TypeSpec& type : registry.types()) {
    const std::string param = "kv." + std::string(type.name) + ".key.meta.version";
    const std::string original = ConfigValue(client_, param);
    if (original.empty()) continue;
    original_[std::string(type.name)] = original;
    for (const encodings::EncodingSpec* row : registry.VersionsOf(type.type)) {
      if (ConfigSet(client_, param, std::string(row->name))) {
        versions_[std::string(type.name)].emplace_back(row->name);
      }
    }
  }
  original_migrate_ = ConfigValue(client_, kMigrateParameter);
  probed_ = true;
  return Status::OK();
}

std::map<std::string, std::vector<std::string>> RemoteSubject::Versions() {
  return Probe().ok() ? versions_ : std::map<std::string, std::vector<std::string>>{};
}

Status RemoteSubject::CheckEmpty() {
  return RequireEmptyServer(client_, "conform runs FLUSHALL on it before every case");
}

Status RemoteSubject::Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) {
  KVLAB_RETURN_IF_ERROR(Probe());
  auto session = std::make_unique<RemoteSession>(endpoint_, name(), options_);
  KVLAB_RETURN_IF_ERROR(session->client().Connect());
  for (const auto& [type, version] : profile.encodings.versions) {
    if (version && !ConfigSet(session->client(), "kv." + type + ".key.meta.version", *version)) {
      return Status::Unavailable(name() + " refused " + type + " version " + *version);
    }
  }
  // A migration profile needs migration on write; a plain one after it, off again.
  const bool migrate = !profile.migrate_with.versions.empty();
  if ((migrate || !original_migrate_.empty()) &&
      !ConfigSet(session->client(), kMigrateParameter, migrate ? "yes" : "no")) {
    return Status::Unavailable(name() + " refused CONFIG SET " + kMigrateParameter);
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

TierWiring EngineTierWiring(const encodings::EncodingRegistry& registry) {
  TierWiring wiring;
  wiring.uses_tier = [&registry](std::string_view type_name, std::string_view version) {
    const encodings::TypeSpec* type = registry.FindType(type_name);
    const encodings::EncodingSpec* row = type ? registry.Find(type->type, version) : nullptr;
    return row != nullptr && row->tier != encodings::TierUse::kNone;
  };
  wiring.attach = [](Engine& engine) -> std::unique_ptr<RedisTierControl> {
    if (engine.tier() == nullptr) return nullptr;
    return std::make_unique<EngineTierControl>(engine.tier());
  };
  return wiring;
}

}  // namespace kvlab::conformance
