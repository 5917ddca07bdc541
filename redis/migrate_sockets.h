// MigrateSockets: the side of MIGRATE that talks to the target server, as Redis 7.0.15's
// cluster.c does it (migrateGetSocket, migrateCloseSocket, migrateCloseTimedoutSockets and the
// transfer half of migrateCommand).
//
// The engine runs MIGRATE's data part (which keys are live, their TTLs, their DUMP payloads,
// deleting the acknowledged ones) and hands the transfer to the session's host
// (engine::SessionHost::Migrate); the RESP server's host runs it here. This class knows RESP
// and sockets, not keys or encodings.
//
// Like Redis, it keeps one connection per "host:port" (as the client spelled them) for reuse:
// at most 64, each closed once unused for more than 10 seconds (CloseIdle, which the server
// calls every second), and remembers the database it last SELECTed on it. Every wait (connect,
// each 64 KiB write, each reply line) is bounded by the transfer's timeout; the transfer blocks
// the calling thread, as MIGRATE blocks a Redis server.
//
// Thread-safe: transfers from several threads may run at once. A cached connection serves one
// transfer at a time; a transfer that finds it busy uses a connection of its own, closed after.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kvlab::redis {

// What to send: AUTH (with password; AUTH2: username and password), SELECT db unless the
// connection has it selected, then RESTORE key ttl payload [REPLACE] for each key, pipelined.
struct MigrateTransfer {
  std::string host;
  std::string port;           // as the client gave it; read as atoi, as Redis reads it
  int64_t timeout_ms = 1000;  // REQUIRES: > 0
  int64_t db = 0;
  std::optional<std::string> username;  // AUTH2's (with password)
  std::optional<std::string> password;
  bool replace = false;
  struct Key {
    std::string key;
    int64_t ttl_ms = 0;  // 0: no expiry
    std::string payload;
  };
  std::vector<Key> keys;
};

struct MigrateOutcome {
  // acknowledged[i]: the target replied OK to keys[i]'s RESTORE. Redis's source deletes these
  // keys (without COPY) whatever the reply to MIGRATE is.
  std::vector<bool> acknowledged;
  // Empty when MIGRATE replies OK; otherwise its error reply: the target's first error ("ERR
  // Target instance replied with error: BUSYKEY ..."), or "IOERR error or timeout ...".
  std::string error;
};

class MigrateSockets {
 public:
  static constexpr size_t kMaxCached = 64;
  static constexpr std::chrono::seconds kIdleTtl{10};

  MigrateSockets() = default;
  ~MigrateSockets();
  MigrateSockets(const MigrateSockets&) = delete;
  MigrateSockets& operator=(const MigrateSockets&) = delete;

  MigrateOutcome Transfer(const MigrateTransfer& transfer);
  // Closes the cached connections unused for more than kIdleTtl.
  void CloseIdle();
  // INFO's migrate_cached_sockets.
  size_t cached() const;

 private:
  struct Cached {
    int fd = -1;
    int64_t last_db = -1;  // -1: SELECT next time
    std::chrono::steady_clock::time_point last_use;
    bool busy = false;
  };
  // A connection for one attempt: the cached one for `name` (marked busy), or a new one (cached
  // when there is room for it under that name). fd -1 after a failed connect.
  struct Lease {
    int fd = -1;
    int64_t last_db = -1;
    bool cached = false;
  };
  Lease Acquire(const std::string& name, const MigrateTransfer& t);
  // Gives the lease back: kept (with its database) when `healthy`, closed otherwise.
  void Release(const std::string& name, const Lease& lease, bool healthy, int64_t last_db);

  mutable std::mutex mu_;
  std::map<std::string, Cached> cache_;
};

}  // namespace kvlab::redis
