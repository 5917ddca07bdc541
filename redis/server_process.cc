#include "redis/server_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

namespace kvlab::redis {

using resp::Reply;

namespace fs = std::filesystem;

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

RedisServerProcess::RedisServerProcess(RedisServerOptions options) : options_(std::move(options)) {}

RedisServerProcess::~RedisServerProcess() {
  Stop();
  if (own_dir_ && !dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

std::string RedisServerProcess::LogTail() const {
  std::ifstream in(fs::path(dir_) / "redis.log");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

Status RedisServerProcess::Start() {
  if (running()) return Status::OK();
  if (dir_.empty()) {
    if (options_.dir.empty()) {
      std::string templ = (fs::temp_directory_path() / "kvlab-redis-XXXXXX").string();
      if (::mkdtemp(templ.data()) == nullptr) {
        return Status::IOError("cannot create a directory for redis-server");
      }
      dir_ = templ;
      own_dir_ = true;
    } else {
      dir_ = options_.dir;
      fs::create_directories(dir_);
    }
  }
  // A first start picks a free port; if another process takes it before the server binds it,
  // pick another. A restart keeps its address, so clients find the server again.
  Status s;
  for (int attempt = 0; attempt < 5; ++attempt) {
    s = StartOnce();
    if (s.ok()) {
      address_fixed_ = true;
      return s;
    }
    if (address_fixed_ || options_.unix_socket) break;
    endpoint_ = RedisEndpoint();
  }
  return s;
}

Status RedisServerProcess::StartOnce() {
  if (options_.unix_socket) {
    endpoint_.unix_path = (fs::path(dir_) / "redis.sock").string();
  } else if (endpoint_.port == 0) {
    endpoint_.host = "127.0.0.1";
    endpoint_.port = FreeLoopbackPort();
    if (endpoint_.port == 0) return Status::IOError("no free loopback port for redis-server");
  }
  std::vector<std::string> args = {options_.binary,
                                   "--bind",
                                   "127.0.0.1",
                                   "--port",
                                   options_.unix_socket ? "0" : std::to_string(endpoint_.port),
                                   "--dir",
                                   dir_,
                                   "--logfile",
                                   (fs::path(dir_) / "redis.log").string(),
                                   "--daemonize",
                                   "no",
                                   "--save",
                                   "",
                                   "--protected-mode",
                                   "no"};
  if (options_.unix_socket) {
    args.insert(args.end(), {"--unixsocket", endpoint_.unix_path, "--unixsocketperm", "700"});
  }
  if (options_.persistence == RedisServerOptions::Persistence::kAofEverySec) {
    args.insert(args.end(), {"--appendonly", "yes", "--appendfsync", "everysec"});
  } else {
    args.insert(args.end(), {"--appendonly", "no"});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());

  // The child must die with kvlab (PR_SET_PDEATHSIG), but that signal fires when the *thread*
  // that forked it exits, and Start may run on a short-lived worker thread. So a guardian
  // thread forks the server and lives until the server is reaped.
  std::vector<char*> argv;  // built before fork: the child may only call async-signal-safe code
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  std::promise<pid_t> forked;
  release_guardian_ = false;
  guardian_ = std::thread([&] {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) _exit(1);
      ::setpgid(0, 0);  // a terminal's Ctrl-C reaches kvlab, which stops the server in order
      ::execvp(argv[0], argv.data());
      _exit(127);
    }
    forked.set_value(pid);
    std::unique_lock lock(guardian_mu_);
    guardian_cv_.wait(lock, [this] { return release_guardian_; });
  });
  const pid_t pid = forked.get_future().get();
  if (pid < 0) {
    ReleaseGuardian();
    return Status::IOError("fork for redis-server failed");
  }
  pid_ = pid;
  RedisClient probe(endpoint_, std::chrono::milliseconds(200));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int wstatus = 0;
    if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) {
      pid_ = -1;
      ReleaseGuardian();
      return Status::IOError("redis-server exited at start (" +
                             std::string(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127
                                             ? "is the redis-server package installed?"
                                             : "see its log") +
                             "): " + LogTail());
    }
    Reply pong;
    if (probe.Command({"PING"}, &pong).ok() && pong.type() == Reply::Type::kStatus) {
      return Status::OK();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill();
  return Status::IOError("redis-server did not answer PING within 10 s: " + LogTail());
}

void RedisServerProcess::ReleaseGuardian() {
  {
    std::lock_guard lock(guardian_mu_);
    release_guardian_ = true;
  }
  guardian_cv_.notify_all();
  if (guardian_.joinable()) guardian_.join();
}

void RedisServerProcess::Reap(int signal, int wait_ms) {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGCONT);  // a paused server cannot act on SIGTERM
  ::kill(pid_, signal);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  bool exited = false;
  while (!exited && std::chrono::steady_clock::now() < deadline) {
    exited = ::waitpid(pid_, nullptr, WNOHANG) == pid_;
    if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!exited) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
  ReleaseGuardian();
}

void RedisServerProcess::Stop() { Reap(SIGTERM, 5000); }

void RedisServerProcess::Kill() { Reap(SIGKILL, 5000); }

void RedisServerProcess::Pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServerProcess::Resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

}  // namespace kvlab::redis
