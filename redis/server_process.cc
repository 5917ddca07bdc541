#include "redis/server_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <sstream>
#include <thread>

namespace kvlab::redis {

using resp::Reply;

namespace fs = std::filesystem;

namespace {

constexpr char kDirPrefix[] = "kvlab-redis-";
constexpr char kOwnerFile[] = "owner";
constexpr char kOwnerMagic[] = "kvlab-redis-owner-v1";
constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::seconds(10);
constexpr auto kHealthyRun = std::chrono::seconds(60);

// Field 22 of /proc/<pid>/stat: when the process started, in clock ticks since boot. With the
// pid, it names one process even after pids are reused. 0 when there is no such process.
uint64_t ProcessStartTime(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  // Fields 3.. follow the name; the start time is field 22.
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) return std::stoull(field);
  }
  return 0;
}

// Whether pid is a redis-server that has not exited (a zombie, which an init that does not reap
// may keep around, has exited).
bool IsLiveRedisServer(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const size_t open = stat.find('('), close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) {
    return false;
  }
  const char state = stat[close + 2];
  return stat.substr(open + 1, close - open - 1).starts_with("redis-server") && state != 'Z' &&
         state != 'X';
}

std::string RandomHex(size_t n) {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(n, '0');
  for (char& c : out) c = kHex[rd() % 16];
  return out;
}

std::string ExitText(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

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

const char* RedisServerStateName(RedisServerProcess::State state) {
  switch (state) {
    case RedisServerProcess::State::kNotStarted:
      return "not_started";
    case RedisServerProcess::State::kRunning:
      return "running";
    case RedisServerProcess::State::kRestarting:
      return "restarting";
    case RedisServerProcess::State::kStopped:
      return "stopped";
  }
  return "unknown";
}

int RemoveStaleRedisDirs(const std::string& temp_dir) {
  std::error_code ec;
  const fs::path root = temp_dir.empty() ? fs::temp_directory_path(ec) : fs::path(temp_dir);
  int removed = 0;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kDirPrefix)) continue;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) {
      continue;
    }
    std::ifstream owner(it->path() / kOwnerFile);
    std::string magic;
    long long kvlab_pid = 0, child_pid = 0;
    unsigned long long kvlab_start = 0;
    if (!(owner >> magic >> kvlab_pid >> kvlab_start >> child_pid) || magic != kOwnerMagic) {
      continue;  // not (yet) a well-formed directory of ours: leave it
    }
    const bool owner_alive = kvlab_pid > 0 && ProcessStartTime(static_cast<pid_t>(kvlab_pid)) ==
                                                  static_cast<uint64_t>(kvlab_start);
    const bool child_alive = child_pid > 0 && IsLiveRedisServer(static_cast<pid_t>(child_pid));
    if (owner_alive || child_alive) continue;
    std::error_code remove_ec;
    fs::remove_all(it->path(), remove_ec);
    if (!remove_ec) ++removed;
  }
  return removed;
}

RedisServerProcess::RedisServerProcess(RedisServerOptions options) : options_(std::move(options)) {}

RedisServerProcess::~RedisServerProcess() {
  Stop();
  std::error_code ec;
  if (own_dir_ && !dir_.empty()) fs::remove_all(dir_, ec);
  if (!runtime_dir_.empty()) fs::remove_all(runtime_dir_, ec);
}

std::string RedisServerProcess::LogTail() const {
  std::ifstream in(fs::path(dir_) / "redis.log");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

RedisServerProcess::State RedisServerProcess::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

pid_t RedisServerProcess::pid() const {
  std::lock_guard lock(mu_);
  return state_ == State::kRunning ? pid_ : -1;
}

Status RedisServerProcess::Prepare() {
  if (!runtime_dir_.empty()) return Status::OK();
  RemoveStaleRedisDirs();
  std::error_code ec;
  std::string templ =
      (fs::temp_directory_path(ec) / (kDirPrefix + std::to_string(::getpid()) + "-XXXXXX"))
          .string();
  if (::mkdtemp(templ.data()) == nullptr) {  // mode 0700: only this user may enter
    return Status::IOError(std::string("cannot create a directory for redis-server: ") +
                           std::strerror(errno));
  }
  runtime_dir_ = templ;
  WriteOwnerFile(-1);
  if (options_.dir.empty()) {
    dir_ = runtime_dir_;
    own_dir_ = true;
  } else {
    dir_ = options_.dir;
    fs::create_directories(dir_, ec);
  }
  if (options_.unix_socket) endpoint_.unix_path = (fs::path(runtime_dir_) / "redis.sock").string();
  if (options_.generate_password) {
    endpoint_.password = RandomHex(32);
    const std::string conf = (fs::path(runtime_dir_) / "redis.conf").string();
    std::ofstream out(conf);
    out << "requirepass " << endpoint_.password << "\n";
    if (!out) return Status::IOError("cannot write " + conf);
    ::chmod(conf.c_str(), 0600);
  }
  return Status::OK();
}

void RedisServerProcess::WriteOwnerFile(pid_t child) {
  const fs::path dir(runtime_dir_);
  const fs::path tmp = dir / "owner.tmp";
  {
    std::ofstream out(tmp);
    out << kOwnerMagic << ' ' << ::getpid() << ' ' << ProcessStartTime(::getpid()) << ' ' << child
        << '\n';
  }
  std::error_code ec;
  fs::rename(tmp, dir / kOwnerFile, ec);
}

std::vector<std::string> RedisServerProcess::Args() const {
  std::vector<std::string> args = {options_.binary};
  if (options_.generate_password) args.push_back((fs::path(runtime_dir_) / "redis.conf").string());
  args.insert(args.end(), {"--bind", "127.0.0.1", "--port",
                           options_.unix_socket ? "0" : std::to_string(endpoint_.port), "--dir",
                           dir_, "--logfile", (fs::path(dir_) / "redis.log").string(),
                           "--daemonize", "no", "--save", "", "--protected-mode", "no"});
  if (options_.unix_socket) {
    args.insert(args.end(), {"--unixsocket", endpoint_.unix_path, "--unixsocketperm", "700"});
  }
  if (options_.persistence == RedisServerOptions::Persistence::kAofEverySec) {
    args.insert(args.end(), {"--appendonly", "yes", "--appendfsync", "everysec"});
  } else {
    args.insert(args.end(), {"--appendonly", "no"});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  return args;
}

Status RedisServerProcess::Start() {
  std::unique_lock lock(mu_);
  if (state_ == State::kRunning || state_ == State::kRestarting) return Status::OK();
  lock.unlock();
  if (monitor_.joinable()) monitor_.join();  // the previous run's monitor has finished
  KVLAB_RETURN_IF_ERROR(Prepare());
  lock.lock();
  stop_requested_ = false;
  lock.unlock();
  std::promise<Status> started;
  std::future<Status> result = started.get_future();
  monitor_ = std::thread([this, &started] { Monitor(&started); });
  Status s = result.get();
  if (!s.ok() && monitor_.joinable()) monitor_.join();
  return s;
}

Status RedisServerProcess::Launch(pid_t* pid) {
  if (!options_.unix_socket && endpoint_.port == 0) {
    endpoint_.host = "127.0.0.1";
    endpoint_.port = FreeLoopbackPort();
    if (endpoint_.port == 0) return Status::IOError("no free loopback port for redis-server");
  }
  std::vector<std::string> args = Args();
  std::vector<char*> argv;  // built before fork: the child may only call async-signal-safe code
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    // Dies when the monitor thread (the thread that forked it) exits, which it does only after
    // this server has exited, or when kvlab dies.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) _exit(1);
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches kvlab, which stops the server in order
    ::execvp(argv[0], argv.data());
    _exit(127);
  }
  if (child < 0) return Status::IOError("fork for redis-server failed");
  {
    std::lock_guard lock(mu_);
    pid_ = child;
  }
  WriteOwnerFile(child);
  RedisClient probe(endpoint_, std::chrono::milliseconds(200));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    int wstatus = 0;
    if (::waitpid(child, &wstatus, WNOHANG) == child) {
      std::lock_guard lock(mu_);
      pid_ = -1;
      return Status::IOError("redis-server exited at start (" +
                             std::string(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127
                                             ? "is the redis-server package installed?"
                                             : "see its log") +
                             "): " + LogTail());
    }
    {
      std::lock_guard lock(mu_);
      if (stop_requested_) break;
    }
    // Ready once it answers: PONG, or NOAUTH from a server with a password this probe does not
    // know (extra_args); not while it loads its data (LOADING).
    Reply pong;
    if (probe.Command({"PING"}, &pong).ok() &&
        (pong.type() == Reply::Type::kStatus ||
         (pong.is_error() && pong.str().starts_with("NOAUTH")))) {
      *pid = child;
      return Status::OK();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  std::lock_guard lock(mu_);
  pid_ = -1;
  return Status::IOError(stop_requested_
                             ? "stopped while starting"
                             : "redis-server did not answer PING within 10 s: " + LogTail());
}

void RedisServerProcess::Monitor(std::promise<Status>* started) {
  auto event = [this](const std::string& text) {
    if (options_.on_event) options_.on_event(text);
  };
  pid_t pid = -1;
  Status s;
  // A first start picks a free port; if another process takes it before the server binds it,
  // pick another. A restart keeps its address, so clients find the server again.
  for (int attempt = 0; attempt < 5; ++attempt) {
    s = Launch(&pid);
    if (s.ok() || address_fixed_ || options_.unix_socket) break;
    endpoint_.port = 0;
  }
  {
    std::lock_guard lock(mu_);
    state_ = s.ok() ? State::kRunning : State::kStopped;
  }
  if (!s.ok()) {
    started->set_value(s);
    return;
  }
  address_fixed_ = true;
  started->set_value(Status::OK());  // `started` is gone after this

  auto backoff = std::chrono::milliseconds(kFirstBackoff);
  auto launched = std::chrono::steady_clock::now();
  for (;;) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::unique_lock lock(mu_);
    pid_ = -1;
    if (stop_requested_ || !options_.supervise) {
      state_ = State::kStopped;
      cv_.notify_all();
      if (!stop_requested_) {
        lock.unlock();
        event("redis-server (pid " + std::to_string(pid) + ") exited: " + ExitText(status));
      }
      return;
    }
    state_ = State::kRestarting;
    lock.unlock();
    if (std::chrono::steady_clock::now() - launched > kHealthyRun) backoff = kFirstBackoff;
    event("redis-server (pid " + std::to_string(pid) + ") exited: " + ExitText(status) +
          "; restarting in " + std::to_string(backoff.count()) + " ms");
    for (;;) {
      lock.lock();
      if (cv_.wait_for(lock, backoff, [this] { return stop_requested_; })) {
        state_ = State::kStopped;
        cv_.notify_all();
        return;
      }
      lock.unlock();
      backoff = std::min<std::chrono::milliseconds>(backoff * 2, kMaxBackoff);
      s = Launch(&pid);
      if (s.ok()) break;
      event("redis-server did not restart: " + s.message() + "; retrying in " +
            std::to_string(backoff.count()) + " ms");
    }
    launched = std::chrono::steady_clock::now();
    restarts_.fetch_add(1);
    lock.lock();
    state_ = State::kRunning;
    cv_.notify_all();
    lock.unlock();
    event("redis-server restarted (pid " + std::to_string(pid) + ")");
  }
}

void RedisServerProcess::Signal(int signal) {
  std::lock_guard lock(mu_);
  if (pid_ > 0) ::kill(pid_, signal);
}

void RedisServerProcess::StopWith(int signal) {
  std::unique_lock lock(mu_);
  if (!monitor_.joinable()) return;
  stop_requested_ = true;
  if (pid_ > 0) {
    ::kill(pid_, SIGCONT);  // a paused server cannot act on SIGTERM
    ::kill(pid_, signal);
  }
  cv_.notify_all();
  if (!cv_.wait_for(lock, std::chrono::seconds(5), [this] { return state_ == State::kStopped; })) {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
  }
  lock.unlock();
  monitor_.join();
}

void RedisServerProcess::Stop() { StopWith(SIGTERM); }

void RedisServerProcess::Kill() { StopWith(SIGKILL); }

void RedisServerProcess::Crash() { Signal(SIGKILL); }

void RedisServerProcess::Pause() { Signal(SIGSTOP); }

void RedisServerProcess::Resume() { Signal(SIGCONT); }

}  // namespace kvlab::redis
