// RedisServerProcess: a private redis-server (Debian's package) that kvlab starts and stops.
//
// The conformance harness runs one as its reference; the Redis tier starts one when no
// --cache-redis/--store-redis is given; tests start them to kill and restart mid-workload. It
// listens on 127.0.0.1 on a free port (or a unix socket), keeps its files in its own temporary
// directory, and dies with its parent (PR_SET_PDEATHSIG), so no test leaves one behind.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "redis/client.h"

namespace kvlab::redis {

struct RedisServerOptions {
  enum class Persistence { kNone, kAofEverySec };
  Persistence persistence = Persistence::kNone;
  bool unix_socket = false;  // listen on DIR/redis.sock instead of TCP
  std::string dir;           // empty: a fresh temporary directory, removed by the destructor
  std::vector<std::string> extra_args;  // e.g. {"--maxmemory", "1mb"}
  std::string binary = "redis-server";
};

class RedisServerProcess {
 public:
  explicit RedisServerProcess(RedisServerOptions options = {});
  ~RedisServerProcess();
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  // Starts the server and waits until it answers PING. On a restart, reuses the port (or
  // socket) and the directory, so AOF data comes back.
  Status Start();
  // SIGTERM, then SIGKILL if it has not exited within 5 s.
  void Stop();
  // SIGKILL, as a crash.
  void Kill();
  // SIGSTOP / SIGCONT: the server stops answering but keeps its data and connections, as a
  // network partition or a long pause would.
  void Pause();
  void Resume();
  bool running() const { return pid_ > 0; }
  const RedisEndpoint& endpoint() const { return endpoint_; }
  const std::string& dir() const { return dir_; }
  // The server's own log, for error messages.
  std::string LogTail() const;

 private:
  Status StartOnce();
  void Reap(int signal, int wait_ms);
  void ReleaseGuardian();

  const RedisServerOptions options_;
  std::string dir_;
  bool own_dir_ = false;
  RedisEndpoint endpoint_;
  bool address_fixed_ = false;
  pid_t pid_ = -1;
  // Forks the server and lives as long as it does (see StartOnce).
  std::thread guardian_;
  std::mutex guardian_mu_;
  std::condition_variable guardian_cv_;
  bool release_guardian_ = false;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

}  // namespace kvlab::redis
