// The columns of the conformance matrix: what is tested against the real redis-server.
//
// A Subject opens a fresh session for each profile of the matrix (a pair of encode-versions
// and, for the Redis-tier versions, a tier state): a target that answers commands on an empty
// keyspace, with new keys taking the profile's versions.
//   EngineSubject   the engine in-process over a backend (a fresh store per profile);
//   RemoteSubject   any RESP server, e.g. `kvlab serve`, end to end over hiredis. When the
//                   server accepts CONFIG SET kv.<type>.key.meta.version (kvlab does), every
//                   version of the registry it accepts is a profile; otherwise (a plain
//                   redis-server, Ardb, Kvrocks...) it runs as configured, in one profile where
//                   no catalogued deviation applies. It is named by what it is (INFO server).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/registry.h"
#include "conformance/differential.h"
#include "conformance/redis_tier_hook.h"
#include "encodings/registry.h"
#include "engine/engine.h"
#include "redis/client.h"

namespace kvlab::conformance {

// One run configuration of a subject.
struct Profile {
  // The version new keys of each type get, by name; empty: as the subject is configured
  // (unknown).
  encodings::EncodingProfile encodings;
  TierState tier = TierState::kNone;
  // The encodings' label ("h0 z1", EncodingProfile::Label), set by MakeProfile.
  std::string encodings_label;
  // A migration run (`kvlab conform --migrate-with`): the versions the configured ones
  // alternate with, for the types whose version differs from `encodings`' (empty: a plain
  // run). Migration on write is on, and before every command outside MULTI the subject's
  // configured versions switch, these first (RunCase).
  encodings::EncodingProfile migrate_with;
  std::string migrate_with_label;  // "hardb zardb", set by MakeProfile
  // "h0 z0", "h2 z1 warm", "h0 z0 <-> hardb zardb", or "as configured".
  std::string Label() const;
  bool operator==(const Profile&) const = default;
};

// A profile with its labels from `registry`.
Profile MakeProfile(const encodings::EncodingRegistry& registry,
                    encodings::EncodingProfile encodings, TierState tier = TierState::kNone,
                    encodings::EncodingProfile migrate_with = {});

// How the engine's Redis tier plugs into the harness (see redis_tier_hook.h). Both functions
// may be empty: then no version uses a tier and every profile runs in state kNone.
struct TierWiring {
  // Whether the version named `version` of `type` ("hash", "zset") keeps state in the tier.
  std::function<bool(std::string_view type, std::string_view version)> uses_tier;
  // The control of `engine`'s tier. Called only for versions that use it.
  std::function<std::unique_ptr<RedisTierControl>(engine::Engine& engine)> attach;
};

// The wiring of the engine's own Redis tier: the versions whose registry row uses a tier (hash
// v2/v3, zset v1-v3); flushing empties the engine's cache Redis (never zset v3's store).
TierWiring EngineTierWiring(const encodings::EncodingRegistry& registry);

class SubjectSession {
 public:
  virtual ~SubjectSession() = default;
  virtual ReplyTarget& target() = 0;
  // nullptr when the profile has no tier state.
  virtual RedisTierControl* tier_control() = 0;
  // After the target's connection was lost (ReplyTarget::TakeTransportFailure): waits, for a
  // bounded time, until the server answers again, so that the next case can run. Fails when it
  // does not come back. An in-process session has nothing to do.
  virtual Status Reconnect() { return Status::OK(); }
};

class Subject {
 public:
  virtual ~Subject() = default;
  // The column name in reports: "memory", "rocksdb:noreverse" (kvlab's engine), or what a
  // server is: "ardb 0.10.0 (redis_version 2.8.0) at 127.0.0.1:7000".
  virtual std::string name() const = 0;
  // Whether the subject serves `command` (lower case). A case that uses a Redis 7.0 command
  // the subject does not serve is skipped on it, and counted (MatrixResult::skipped).
  virtual bool Serves(std::string_view command) const {
    (void)command;
    return true;
  }
  // The encode-versions this subject runs, by type name, in the registry's order; empty when
  // it cannot be told.
  virtual std::map<std::string, std::vector<std::string>> Versions() = 0;
  // Whether the tier states apply to a profile with these versions.
  virtual bool UsesTier(const encodings::EncodingProfile& profile) const = 0;
  // A session with new keys in profile.encodings' versions, and, for a migration profile,
  // migration on write on.
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
  // The commands of the engine's table, and any name that is no Redis 7.0 command (unknown
  // commands are run: their error replies are compared).
  bool Serves(std::string_view command) const override;
  std::map<std::string, std::vector<std::string>> Versions() override;
  bool UsesTier(const encodings::EncodingProfile& profile) const override;
  Status Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) override;

 private:
  Status Probe();

  const std::string name_;
  const backends::StoreSpec spec_;
  const engine::EngineOptions options_;
  const TierWiring tier_;
  bool probed_ = false;
  std::map<std::string, std::vector<std::string>> versions_;
};

// Parses a --backends entry into a StoreSpec: "NAME", then any of ":noreverse" (the backend
// without reverse scan, so the engine takes its fallback paths) and ":cf" (every record kind in
// a key space of its own), as backends::ParseBackendColumn.
Status ParseBackendColumn(const std::string& column, backends::StoreSpec* out);

struct RemoteSubjectOptions {
  // The subject's name in reports; empty: what INFO server says it is (RemoteSubject::name).
  std::string name;
  // How long a reply may take; a command that takes longer is reported as not answered, and
  // the case stops there.
  std::chrono::milliseconds timeout{10000};
  // How long to wait for the server to answer again after it closed the connection or did not
  // answer, before the run of this subject stops.
  std::chrono::milliseconds reconnect_wait{10000};
};

// The name INFO server's text gives a server: "<server> <version>", plus "(redis_version V)"
// for a server that is not Redis: the server_name field (Valkey), else the first
// "<name>_version" field that names no library or engine (ardb_version, kvrocks_version,
// kvlab_version, dragonfly_version), else "redis <redis_version>". "" when INFO says nothing.
std::string ServerNameFromInfo(const std::string& info);

// A RESP server at `endpoint`. The harness FLUSHALLs it before every case.
class RemoteSubject final : public Subject {
 public:
  explicit RemoteSubject(redis::RedisEndpoint endpoint, RemoteSubjectOptions options = {});
  ~RemoteSubject() override;
  // options.name, or ServerNameFromInfo (once connected) + " at " + the address: "redis 7.0.15
  // at 127.0.0.1:7000"; "server at ADDRESS" before it answered INFO.
  std::string name() const override;
  std::map<std::string, std::vector<std::string>> Versions() override;
  bool UsesTier(const encodings::EncodingProfile&) const override { return false; }
  Status Open(const Profile& profile, std::unique_ptr<SubjectSession>* out) override;
  // Fails unless every database 0-15 of the server is empty: the harness would wipe it.
  Status CheckEmpty();

 private:
  Status Probe();

  const redis::RedisEndpoint endpoint_;
  const RemoteSubjectOptions options_;
  redis::RedisClient client_;
  bool probed_ = false;
  std::string info_name_;  // ServerNameFromInfo, once probed
  std::map<std::string, std::vector<std::string>> versions_;
  // The server's version of each type before the run, restored by the destructor.
  std::map<std::string, std::string> original_;
  // Its kv.encoding.migrate.on.write before the run ("" when it has none), restored too.
  std::string original_migrate_;
};

}  // namespace kvlab::conformance
