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

}  // namespace

const char* RedisServerStateName(RedisServerProcess::State state) {
  return ChildProcessStateName(state);
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

RedisServerProcess::RedisServerProcess(RedisServerOptions options)
    : options_(std::move(options)),
      process_(ChildProcessOptions{.name = "redis-server",
                                   .install_hint = "is the redis-server package installed?",
                                   .supervise = options_.supervise,
                                   .on_event = options_.on_event,
                                   // A first start picks a free port; if another process takes it
                                   // before the server binds it, pick another.
                                   .first_start_attempts = options_.unix_socket ? 1 : 5},
               ChildProcessLauncher{.command =
                                        [this](int attempt, std::vector<std::string>* args) {
                                          return Command(attempt, args);
                                        },
                                    .launched = [this](pid_t child) { WriteOwnerFile(child); },
                                    .ready = [this] { return Ready(); },
                                    .log_tail = [this] { return LogTail(); }}) {}

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
  if (process_.running()) return Status::OK();
  KVLAB_RETURN_IF_ERROR(Prepare());
  return process_.Start();
}

Status RedisServerProcess::Command(int attempt, std::vector<std::string>* args) {
  if (attempt > 0) endpoint_.port = 0;  // the last port was taken: pick another
  if (!options_.unix_socket && endpoint_.port == 0) {
    endpoint_.host = "127.0.0.1";
    endpoint_.port = FreeLoopbackPort();
    if (endpoint_.port == 0) return Status::IOError("no free loopback port for redis-server");
  }
  *args = Args();
  return Status::OK();
}

bool RedisServerProcess::Ready() const {
  // Ready once it answers: PONG, or NOAUTH from a server with a password this probe does not
  // know (extra_args); not while it loads its data (LOADING).
  RedisClient probe(endpoint_, std::chrono::milliseconds(200));
  Reply pong;
  return probe.Command({"PING"}, &pong).ok() &&
         (pong.type() == Reply::Type::kStatus ||
          (pong.is_error() && pong.str().starts_with("NOAUTH")));
}

void RedisServerProcess::Stop() { process_.Stop(); }

void RedisServerProcess::Kill() { process_.Kill(); }

void RedisServerProcess::Crash() { process_.Crash(); }

void RedisServerProcess::Pause() { process_.Pause(); }

void RedisServerProcess::Resume() { process_.Resume(); }

}  // namespace kvlab::redis
