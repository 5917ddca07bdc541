// The columns of the conformance matrix: what is tested against the real redis-server.
//
// A Subject opens a fresh session for each profile of the matrix (a pair of encode-versions
// and, for the Redis-tier versions, a tier state): a target that answers commands on an empty
// keyspace, with new keys taking the profile's versions.
//   EngineSubject   the engine in-process over a backend (a fresh store per profile);
//   RemoteSubject   any RESP server, e.g. `kvlab serve`, end to end over hiredis. When the
//                   server accepts CONFIG SET kv.hash.key.meta.version (kvlab does), every
//                   version it accepts is a profile; otherwise (a plain redis-server) it runs as
//                   configured, in one profile where no catalogued deviation applies.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/registry.h"
#include "conformance/differential.h"
#include "conformance/redis_tier_hook.h"
#include "engine/engine.h"
#include "redis/client.h"

namespace kvlab::conformance {

// One run configuration of a subject.
struct Profile {
  int hash_version = -1;  // -1: as the subject is configured (unknown)
  int zset_version = -1;
  TierState tier = TierState::kNone;
  // "h0z0", "h2z1 warm", or "as configured".
  std::string Label() const;
  bool operator==(const Profile&) const = default;
};

// How the engine's Redis tier plugs into the harness (see redis_tier_hook.h). Both functions
// may be empty: then no version uses a tier and every profile runs in state kNone.
struct TierWiring {
  // Whether encode-version `version` of `type` ("hash" or "zset") keeps state in the tier.
  std::function<bool(std::string_view type, int version)> uses_tier;
  // The control of `engine`'s tier. Called only for versions that use it.
  std::function<std::unique_ptr<RedisTierControl>(engine::Engine& engine)> attach;
};

// The wiring of the engine's own Redis tier: hash v2/v3 and zset v1-v3 use it; flushing empties
// the engine's cache Redis (never zset v3's store).
TierWiring EngineTierWiring();

class SubjectSession {
 public:
  virtual ~SubjectSession() = default;
  virtual ReplyTarget& target() = 0;
  // nullptr when the profile has no tier state.
  virtual RedisTierControl* tier_control() = 0;
};

class Subject {
 public:
  virtual ~Subject() = default;
  // The column name in reports: "memory", "rocksdb:noreverse", "serve 127.0.0.1:7000".
  virtual std::string name() const = 0;
  // The encode-versions this subject runs; empty when it cannot be told.
  virtual std::vector<int> HashVersions() = 0;
  virtual std::vector<int> ZsetVersions() = 0;
  // Whether the tier states apply to a profile with these versions.
  virtual bool UsesTier(int hash_version, int zset_version) const = 0;
  virtual Status Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) = 0;
};

// The engine over a fresh store of `spec.backend` for every profile (spec.options.dir must be
// empty: each store gets its own temporary directory).
class EngineSubject final : public Subject {
 public:
  // `name`: the column name; `options`: everything but the versions, which profiles set.
  EngineSubject(std::string name, backends::StoreSpec spec, engine::EngineOptions options,
                TierWiring tier = {});
  std::string name() const override { return name_; }
  std::vector<int> HashVersions() override;
  std::vector<int> ZsetVersions() override;
  bool UsesTier(int hash_version, int zset_version) const override;
  Status Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) override;

 private:
  Status Probe();

  const std::string name_;
  const backends::StoreSpec spec_;
  const engine::EngineOptions options_;
  const TierWiring tier_;
  bool probed_ = false;
  std::vector<int> hash_versions_, zset_versions_;
};

// Parses a --backends entry: "NAME" or "NAME:noreverse" (the backend without reverse scan, so
// the engine takes its fallback paths), into a StoreSpec.
Status ParseBackendColumn(const std::string& column, backends::StoreSpec* out);

// A RESP server at `endpoint`. The harness FLUSHALLs it before every case.
class RemoteSubject final : public Subject {
 public:
  explicit RemoteSubject(redis::RedisEndpoint endpoint);
  ~RemoteSubject() override;
  std::string name() const override { return "serve " + endpoint_.ToString(); }
  std::vector<int> HashVersions() override;
  std::vector<int> ZsetVersions() override;
  bool UsesTier(int, int) const override { return false; }
  Status Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) override;
  // Fails unless every database 0-15 of the server is empty: the harness would wipe it.
  Status CheckEmpty();

 private:
  Status Probe();

  const redis::RedisEndpoint endpoint_;
  redis::RedisClient client_;
  bool probed_ = false;
  std::vector<int> hash_versions_, zset_versions_;
  // The server's versions before the run, restored by the destructor ("" if it has none).
  std::string original_hash_, original_zset_;
};

}  // namespace kvlab::conformance
