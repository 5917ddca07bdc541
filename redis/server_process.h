// RedisServerProcess: a redis-server (Debian's package) that kvlab starts, watches and stops.
//
// The conformance harness runs one as its reference; the Redis tier runs its private cache and
// store as these; tests start them to pause, kill and restart mid-workload.
//
// Where it lives: every server has a private runtime directory, mode 0700, in the temporary
// directory ("kvlab-redis-<pid>-XXXXXX"), holding its unix socket, its config file (which
// carries its password, so that the password never appears on a command line) and, unless a
// data directory is given, its data and log. An `owner` file there names the kvlab process and
// the server's pid; RemoveStaleRedisDirs() removes the directories whose both processes are
// gone (a kvlab killed with SIGKILL cannot remove its own), and every new runtime directory
// calls it first. The destructor removes the runtime directory (and a temporary data one).
//
// How it runs: as a kvlab::ChildProcess (base/child_process.h), which forks, watches and, with
// `supervise`, restarts it on the same address and directory.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/child_process.h"
#include "base/status.h"
#include "redis/client.h"

namespace kvlab::redis {

struct RedisServerOptions {
  enum class Persistence { kNone, kAofEverySec };
  Persistence persistence = Persistence::kNone;
  // Listen on a unix socket in the private runtime directory instead of TCP on 127.0.0.1.
  bool unix_socket = false;
  // Where the data lives (the AOF); empty: the runtime directory, removed by the destructor.
  std::string dir;
  // A random password the server requires (clients through endpoint() send it).
  bool generate_password = false;
  // Restart the server when it exits unasked (see the file comment).
  bool supervise = false;
  // Told of exits and restarts, one line each ("redis-server (pid 123) exited: signal 9;
  // restarting in 100 ms"). Called from the monitor thread. Default: nothing.
  std::function<void(const std::string&)> on_event;
  std::vector<std::string> extra_args;  // e.g. {"--maxmemory", "1mb"}
  std::string binary = "redis-server";
};

class RedisServerProcess {
 public:
  using State = ChildProcess::State;

  explicit RedisServerProcess(RedisServerOptions options = {});
  ~RedisServerProcess();
  RedisServerProcess(const RedisServerProcess&) = delete;
  RedisServerProcess& operator=(const RedisServerProcess&) = delete;

  // Starts the server and waits until it answers PING. On a restart, reuses the port (or
  // socket), the password and the directory, so AOF data comes back.
  Status Start();
  // SIGTERM, then SIGKILL if it has not exited within 5 s. No restart follows.
  void Stop();
  // SIGKILL, as a crash the owner asked for: no restart follows.
  void Kill();
  // SIGKILL, as a crash nobody asked for: a supervised server is restarted.
  void Crash();
  // SIGSTOP / SIGCONT: the server stops answering but keeps its data and connections, as a
  // network partition or a long pause would.
  void Pause();
  void Resume();

  bool running() const { return process_.running(); }
  State state() const { return process_.state(); }
  // The server's pid while it runs, else -1.
  pid_t pid() const { return process_.pid(); }
  // Restarts after unasked exits, since construction.
  uint64_t restarts() const { return process_.restarts(); }
  const RedisEndpoint& endpoint() const { return endpoint_; }
  // The data directory.
  const std::string& dir() const { return dir_; }
  // The private runtime directory (socket, config file, owner file).
  const std::string& runtime_dir() const { return runtime_dir_; }
  // The server's own log, for error messages.
  std::string LogTail() const;

 private:
  Status Prepare();
  // The launch's command line (called by process_ before each launch).
  Status Command(int attempt, std::vector<std::string>* args);
  // Whether the server answers PING (called by process_ while it starts).
  bool Ready() const;
  void WriteOwnerFile(pid_t child);
  std::vector<std::string> Args() const;

  const RedisServerOptions options_;
  std::string dir_;
  std::string runtime_dir_;
  bool own_dir_ = false;
  RedisEndpoint endpoint_;
  ChildProcess process_;  // last: stopped before the members it calls back into go
};

const char* RedisServerStateName(RedisServerProcess::State state);

// Removes the runtime directories of redis-servers whose kvlab process and server are both gone
// (see the file comment), in `temp_dir` (default: the system's temporary directory). Only
// directories of this user that carry a well-formed owner file are touched. Returns how many
// were removed.
int RemoveStaleRedisDirs(const std::string& temp_dir = "");

// A TCP port on 127.0.0.1 that was free a moment ago (base/child_process.h).
using kvlab::FreeLoopbackPort;

}  // namespace kvlab::redis
