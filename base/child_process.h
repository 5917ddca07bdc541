// ChildProcess: a server process kvlab starts, watches, and stops (a private redis-server, an
// etcd member). What the server is (its command line, how to tell it is ready, where its log
// is) comes from a Launcher; how it runs is the same for every server:
//
// A monitor thread forks the server (so that PR_SET_PDEATHSIG, which fires when the forking
// *thread* exits, ties the server to the monitor's life, and the server dies with kvlab) and
// waits for it with waitpid, so a dead server never lingers as a zombie. The server runs in a
// process group of its own, so a terminal's Ctrl-C reaches kvlab, which stops it in order. With
// `supervise`, a server that exits unasked is restarted with the same command line after a
// backoff (100 ms, doubling up to 10 s, back to 100 ms once it has run for a minute); every exit
// and restart is reported through `on_event`. Without it, the server stays down until Start()
// is called again, as tests that simulate crashes want.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace kvlab {

struct ChildProcessOptions {
  // The server's name in messages and events: "redis-server", "etcd member 1".
  std::string name;
  // Said when the binary cannot be executed: "is the redis-server package installed?".
  std::string install_hint;
  // Restart the server when it exits unasked (see the file comment).
  bool supervise = false;
  // Told of exits and restarts, one line each ("redis-server (pid 123) exited: signal 9;
  // restarting in 100 ms"). Called from the monitor thread. Default: nothing.
  std::function<void(const std::string&)> on_event;
  // How long a launch may take to become ready.
  std::chrono::milliseconds start_timeout{10000};
  // Launches tried at the first start (a server that picks a free port may lose it to another
  // process before binding it). A restart tries once per backoff step.
  int first_start_attempts = 1;
  // Where the server's stdout and stderr go, appended (empty: kvlab's own).
  std::string output_path;
};

// What one server is. Every function is called from the monitor thread or from Start().
struct ChildProcessLauncher {
  // The command line of the next launch (argv[0] is looked up in PATH). `attempt` counts the
  // launches of the first start from 0 (a server may pick another port on a retry); it is 0 on
  // a restart, which must keep the server's address.
  std::function<Status(int attempt, std::vector<std::string>* args)> command;
  // Told the pid of each launched server (an owner file may record it). May be empty.
  std::function<void(pid_t)> launched;
  // Whether the server answers requests yet.
  std::function<bool()> ready;
  // The tail of the server's log, for error messages. May be empty.
  std::function<std::string()> log_tail;
};

class ChildProcess {
 public:
  enum class State { kNotStarted, kRunning, kRestarting, kStopped };

  ChildProcess(ChildProcessOptions options, ChildProcessLauncher launcher);
  ~ChildProcess();  // Stop()
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Launches the server and waits until it is ready. OK at once when it runs already.
  Status Start();
  // SIGTERM, then SIGKILL if it has not exited within 5 s. No restart follows.
  void Stop();
  // SIGKILL, as a crash the owner asked for: no restart follows.
  void Kill();
  // SIGKILL, as a crash nobody asked for: a supervised server is restarted.
  void Crash();
  // SIGSTOP / SIGCONT: the server stops answering but keeps its state and connections.
  void Pause();
  void Resume();

  bool running() const { return state() == State::kRunning; }
  State state() const;
  // The server's pid while it runs, else -1.
  pid_t pid() const;
  // Restarts after unasked exits, since construction.
  uint64_t restarts() const { return restarts_.load(); }

 private:
  std::string LogTail() const;
  Status Launch(int attempt, pid_t* pid);
  void Monitor(std::promise<Status>* started);
  void Signal(int signal);
  void StopWith(int signal);
  void Event(const std::string& text) const;

  const ChildProcessOptions options_;
  const ChildProcessLauncher launcher_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::thread monitor_;
  pid_t pid_ = -1;
  State state_ = State::kNotStarted;
  bool stop_requested_ = false;
  bool started_once_ = false;  // the first start succeeded: later launches keep the address
  std::atomic<uint64_t> restarts_{0};
};

const char* ChildProcessStateName(ChildProcess::State state);

// "exit code 1", "signal 9": how a waitpid status ended.
std::string ExitStatusText(int wait_status);

// A TCP port on 127.0.0.1 that was free a moment ago.
int FreeLoopbackPort();

// Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. With the
// pid, it names one process even after pids are reused. 0 when there is no such process.
uint64_t ProcessStartTime(pid_t pid);

}  // namespace kvlab
