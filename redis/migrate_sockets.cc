#include "redis/migrate_sockets.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace kvlab::redis {

namespace {

using Clock = std::chrono::steady_clock;

// Waits until fd is ready for `events` or the deadline. Returns 1 ready, 0 timed out, -1 error.
int WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n;
    return 1;
  }
}

// connSocketBlockingConnect: a socket whose connect was started, or -1 when no address could
// even start one (the only case Redis reports as "error or timeout connecting"). As in Redis,
// the wait for the connection (at most timeout_ms) does not look at its outcome: a refused or
// unfinished connection is found by the first write, and reported as a write error.
int Connect(const std::string& host, const std::string& port, int64_t timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  // Redis reads the port with atoi: "abc" is port 0, which no connect reaches.
  const std::string service = std::to_string(std::atoi(port.c_str()));
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0) return -1;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno == EINPROGRESS) {
        WaitFor(fd, POLLOUT, deadline);
      } else {
        ::close(fd);
        fd = -1;
      }
    }
  }
  ::freeaddrinfo(found);
  if (fd >= 0) {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // connEnableTcpNoDelay
  }
  return fd;
}

void AppendBulk(std::string* out, std::string_view s) {
  out->push_back('$');
  out->append(std::to_string(s.size()));
  out->append("\r\n");
  out->append(s);
  out->append("\r\n");
}

void AppendCommand(std::string* out, const std::vector<std::string_view>& argv) {
  out->push_back('*');
  out->append(std::to_string(argv.size()));
  out->append("\r\n");
  for (std::string_view a : argv) AppendBulk(out, a);
}

// One attempt's socket I/O, with Redis's synchronous calls' semantics: every wait is bounded by
// the timeout, and a timeout is told from other failures (Redis retries only the latter).
class SyncIo {
 public:
  SyncIo(int fd, int64_t timeout_ms) : fd_(fd), timeout_(timeout_ms) {}

  // connSyncWrite of one chunk: all of it within the timeout.
  bool WriteAll(std::string_view bytes) {
    const Clock::time_point deadline = Clock::now() + timeout_;
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        const int w = WaitFor(fd_, POLLOUT, deadline);
        if (w == 1) continue;
        timed_out_ = w == 0;
      }
      return false;
    }
    return true;
  }

  // connSyncReadLine: one line, without its CR LF, within the timeout. False on a timeout, an
  // error, a closed connection, or an empty line (Redis's "<= 0").
  bool ReadLine(std::string* line) {
    const Clock::time_point deadline = Clock::now() + timeout_;
    for (;;) {
      const size_t eol = buffer_.find('\n');
      if (eol != std::string::npos) {
        line->assign(buffer_, 0, eol);
        buffer_.erase(0, eol + 1);
        if (!line->empty() && line->back() == '\r') line->pop_back();
        return !line->empty();
      }
      char chunk[4096];
      const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n > 0) {
        buffer_.append(chunk, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        const int w = WaitFor(fd_, POLLIN, deadline);
        if (w == 1) continue;
        timed_out_ = w == 0;
      }
      return false;  // 0: the target closed the connection
    }
  }

  bool timed_out() const { return timed_out_; }
  // Bytes read past the last line (none after a well-formed exchange).
  bool leftover() const { return !buffer_.empty(); }

 private:
  const int fd_;
  const std::chrono::milliseconds timeout_;
  std::string buffer_;
  bool timed_out_ = false;
};

}  // namespace

MigrateSockets::~MigrateSockets() {
  for (auto& [name, c] : cache_) ::close(c.fd);
}

size_t MigrateSockets::cached() const {
  std::lock_guard lock(mu_);
  return cache_.size();
}

void MigrateSockets::CloseIdle() {
  std::lock_guard lock(mu_);
  const Clock::time_point now = Clock::now();
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (!it->second.busy && now - it->second.last_use > kIdleTtl) {
      ::close(it->second.fd);
      it = cache_.erase(it);
    } else {
      ++it;
    }
  }
}

MigrateSockets::Lease MigrateSockets::Acquire(const std::string& name, const MigrateTransfer& t) {
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(name);
    if (it != cache_.end() && !it->second.busy) {
      it->second.busy = true;
      it->second.last_use = Clock::now();
      return Lease{it->second.fd, it->second.last_db, true};
    }
  }
  Lease lease;
  lease.fd = Connect(t.host, t.port, t.timeout_ms);
  if (lease.fd < 0) return lease;
  std::lock_guard lock(mu_);
  if (cache_.count(name) != 0) return lease;  // busy: this one is the transfer's own
  if (cache_.size() >= kMaxCached) {
    // Too many: drop one that is not in use (Redis drops one at random).
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (!it->second.busy) {
        ::close(it->second.fd);
        cache_.erase(it);
        break;
      }
    }
  }
  if (cache_.size() < kMaxCached) {
    cache_[name] = Cached{lease.fd, -1, Clock::now(), true};
    lease.cached = true;
  }
  return lease;
}

void MigrateSockets::Release(const std::string& name, const Lease& lease, bool healthy,
                             int64_t last_db) {
  if (!lease.cached) {
    ::close(lease.fd);
    return;
  }
  std::lock_guard lock(mu_);
  auto it = cache_.find(name);
  if (it == cache_.end() || it->second.fd != lease.fd) {  // cannot happen: a busy entry stays
    ::close(lease.fd);
    return;
  }
  if (!healthy) {
    ::close(lease.fd);
    cache_.erase(it);
    return;
  }
  it->second.busy = false;
  it->second.last_db = last_db;
  it->second.last_use = Clock::now();
}

MigrateOutcome MigrateSockets::Transfer(const MigrateTransfer& t) {
  MigrateOutcome out;
  out.acknowledged.assign(t.keys.size(), false);
  const std::string name = t.host + ":" + t.port;
  bool may_retry = true;
  for (;;) {
    Lease lease = Acquire(name, t);
    if (lease.fd < 0) {
      out.error = "IOERR error or timeout connecting to the client";
      return out;
    }
    std::string cmd;
    if (t.password) {
      if (t.username) {
        AppendCommand(&cmd, {"AUTH", *t.username, *t.password});
      } else {
        AppendCommand(&cmd, {"AUTH", *t.password});
      }
    }
    const bool select = lease.last_db != t.db;
    const std::string db = std::to_string(t.db);
    if (select) AppendCommand(&cmd, {"SELECT", db});
    for (const MigrateTransfer::Key& k : t.keys) {
      const std::string ttl = std::to_string(k.ttl_ms);
      std::vector<std::string_view> argv = {"RESTORE", k.key, ttl, k.payload};
      if (t.replace) argv.push_back("REPLACE");
      AppendCommand(&cmd, argv);
    }

    SyncIo io(lease.fd, t.timeout_ms);
    bool write_error = false, socket_error = false, error_from_target = false;
    size_t j = 0;
    std::string auth_reply, select_reply, restore_reply;
    // The query goes in 64 KiB chunks, each within the timeout.
    for (size_t pos = 0; pos < cmd.size() && !write_error; pos += 64 * 1024) {
      write_error = !io.WriteAll(std::string_view(cmd).substr(pos, 64 * 1024));
    }
    bool failed = write_error || (t.password && !io.ReadLine(&auth_reply)) ||
                  (select && !io.ReadLine(&select_reply));
    int64_t last_db = lease.last_db;
    if (!failed) {
      for (j = 0; j < t.keys.size(); ++j) {
        if (!io.ReadLine(&restore_reply)) {
          socket_error = true;
          break;
        }
        const bool auth_failed = t.password && auth_reply[0] == '-';
        const bool select_failed = select && select_reply[0] == '-';
        if (auth_failed || select_failed || restore_reply[0] == '-') {
          if (!error_from_target) {
            last_db = -1;  // on an error, SELECT again next time
            const std::string& e =
                auth_failed ? auth_reply : (select_failed ? select_reply : restore_reply);
            out.error = "ERR Target instance replied with error: " + e.substr(1);
            error_from_target = true;
          }
        } else {
          out.acknowledged[j] = true;
        }
      }
      // Nothing was processed and the first reply never came: retry on a new connection
      // (a cached one the target closed), unless the target is just slow.
      if (!error_from_target && socket_error && j == 0 && may_retry && !io.timed_out()) {
        failed = true;
      } else if (!error_from_target && socket_error) {
        Release(name, lease, false, -1);
        out.error = "IOERR error or timeout reading to target instance";
        return out;
      } else {
        if (!error_from_target) last_db = t.db;
        Release(name, lease, !socket_error && !io.leftover(), last_db);
        return out;
      }
    }
    // socket_err: close the connection, and retry once unless it timed out.
    Release(name, lease, false, -1);
    if (!io.timed_out() && may_retry) {
      may_retry = false;
      continue;
    }
    out.error = std::string("IOERR error or timeout ") + (write_error ? "writing" : "reading") +
                " to target instance";
    return out;
  }
}

}  // namespace kvlab::redis
