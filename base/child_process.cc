#include "base/child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/run_to_completion.h"

namespace kvlab {
namespace {

constexpr auto kFirstBackoff = std::chrono::milliseconds(100);
constexpr auto kMaxBackoff = std::chrono::seconds(10);
constexpr auto kHealthyRun = std::chrono::seconds(60);

}  // namespace

std::string ExitStatusText(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

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

Status RunToCompletion(const std::vector<std::string>& argv, const std::string& output_path,
                       std::string* output, int* exit_code) {
  *exit_code = -1;
  // Everything the child needs is made before the fork: after it, the child of a threaded
  // process may only call async-signal-safe functions (no allocation) before exec.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2] = {-1, -1};
  int out_fd = -1;
  if (output_path.empty()) {
    if (pipe2(fds, O_CLOEXEC) != 0)
      return Status::IOError(std::string("pipe: ") + std::strerror(errno));
    out_fd = fds[1];
  } else {
    out_fd = ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
      return Status::IOError("cannot write " + output_path + ": " + std::strerror(errno));
    }
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(out_fd, STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  const int fork_errno = errno;
  ::close(out_fd);
  if (pid < 0) {
    if (fds[0] >= 0) ::close(fds[0]);
    return Status::IOError(std::string("fork: ") + std::strerror(fork_errno));
  }
  if (fds[0] >= 0) {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(fds[0], buf, sizeof(buf));
      if (n > 0) {
        output->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        break;
      }
    }
    ::close(fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::IOError(std::string("waitpid: ") + std::strerror(errno));
  }
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return Status::OK();
}

const char* ChildProcessStateName(ChildProcess::State state) {
  switch (state) {
    case ChildProcess::State::kNotStarted:
      return "not_started";
    case ChildProcess::State::kRunning:
      return "running";
    case ChildProcess::State::kRestarting:
      return "restarting";
    case ChildProcess::State::kStopped:
      return "stopped";
  }
  return "unknown";
}

ChildProcess::ChildProcess(ChildProcessOptions options, ChildProcessLauncher launcher)
    : options_(std::move(options)), launcher_(std::move(launcher)) {}

ChildProcess::~ChildProcess() { Stop(); }

ChildProcess::State ChildProcess::state() const {
  std::lock_guard lock(mu_);
  return state_;
}

pid_t ChildProcess::pid() const {
  std::lock_guard lock(mu_);
  return state_ == State::kRunning ? pid_ : -1;
}

std::string ChildProcess::LogTail() const { return launcher_.log_tail ? launcher_.log_tail() : ""; }

void ChildProcess::Event(const std::string& text) const {
  if (options_.on_event) options_.on_event(text);
}

Status ChildProcess::Start() {
  std::unique_lock lock(mu_);
  if (state_ == State::kRunning || state_ == State::kRestarting) return Status::OK();
  lock.unlock();
  if (monitor_.joinable()) monitor_.join();  // the previous run's monitor has finished
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

Status ChildProcess::Launch(int attempt, pid_t* pid) {
  std::vector<std::string> args;
  KVLAB_RETURN_IF_ERROR(launcher_.command(attempt, &args));
  std::vector<char*> argv;  // built before fork: the child may only call async-signal-safe code
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const char* output = options_.output_path.empty() ? nullptr : options_.output_path.c_str();
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child == 0) {
    if (output != nullptr) {
      const int fd = ::open(output, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (fd >= 0) {
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
      }
    }
    // Dies when the monitor thread (the thread that forked it) exits, which it does only after
    // this server has exited, or when kvlab dies.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) _exit(1);
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches kvlab, which stops the server in order
    ::execvp(argv[0], argv.data());
    _exit(127);
  }
  if (child < 0) return Status::IOError("fork for " + options_.name + " failed");
  {
    std::lock_guard lock(mu_);
    pid_ = child;
  }
  if (launcher_.launched) launcher_.launched(child);
  const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int wstatus = 0;
    if (::waitpid(child, &wstatus, WNOHANG) == child) {
      std::lock_guard lock(mu_);
      pid_ = -1;
      const bool not_found = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127;
      return Status::IOError(
          options_.name + " exited at start (" +
          (not_found && !options_.install_hint.empty() ? options_.install_hint : "see its log") +
          "): " + LogTail());
    }
    {
      std::lock_guard lock(mu_);
      if (stop_requested_) break;
    }
    if (launcher_.ready()) {
      *pid = child;
      return Status::OK();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  std::lock_guard lock(mu_);
  pid_ = -1;
  return Status::IOError(stop_requested_ ? "stopped while starting"
                                         : options_.name + " was not ready within " +
                                               std::to_string(options_.start_timeout.count()) +
                                               " ms: " + LogTail());
}

void ChildProcess::Monitor(std::promise<Status>* started) {
  pid_t pid = -1;
  Status s;
  // A restart keeps its address (attempt 0 only), so that clients find the server again.
  const int attempts = started_once_ ? 1 : std::max(1, options_.first_start_attempts);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    s = Launch(attempt, &pid);
    if (s.ok()) break;
  }
  {
    std::lock_guard lock(mu_);
    state_ = s.ok() ? State::kRunning : State::kStopped;
  }
  if (!s.ok()) {
    started->set_value(s);
    return;
  }
  started_once_ = true;
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
        Event(options_.name + " (pid " + std::to_string(pid) +
              ") exited: " + ExitStatusText(status));
      }
      return;
    }
    state_ = State::kRestarting;
    lock.unlock();
    if (std::chrono::steady_clock::now() - launched > kHealthyRun) backoff = kFirstBackoff;
    Event(options_.name + " (pid " + std::to_string(pid) + ") exited: " + ExitStatusText(status) +
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
      s = Launch(0, &pid);
      if (s.ok()) break;
      Event(options_.name + " did not restart: " + s.message() + "; retrying in " +
            std::to_string(backoff.count()) + " ms");
    }
    launched = std::chrono::steady_clock::now();
    restarts_.fetch_add(1);
    lock.lock();
    state_ = State::kRunning;
    cv_.notify_all();
    lock.unlock();
    Event(options_.name + " restarted (pid " + std::to_string(pid) + ")");
  }
}

void ChildProcess::Signal(int signal) {
  std::lock_guard lock(mu_);
  if (pid_ > 0) ::kill(pid_, signal);
}

void ChildProcess::StopWith(int signal) {
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

void ChildProcess::Stop() { StopWith(SIGTERM); }

void ChildProcess::Kill() { StopWith(SIGKILL); }

void ChildProcess::Crash() { Signal(SIGKILL); }

void ChildProcess::Pause() { Signal(SIGSTOP); }

void ChildProcess::Resume() { Signal(SIGCONT); }

}  // namespace kvlab
