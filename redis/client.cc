#include "redis/client.h"

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>

#include <ctime>

namespace kvlab::redis {

using resp::Reply;

namespace {

// hiredis writes with write(2): on a connection the server has closed (a redis-server that died
// or restarted), that raises SIGPIPE, which would kill the process. This blocks SIGPIPE on the
// calling thread while it is in scope and discards one raised meanwhile, so the write just
// fails with EPIPE; the process's own handling of SIGPIPE is left alone.
class SigpipeGuard {
 public:
  SigpipeGuard() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    already_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeGuard() {
    if (!already_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero = {0, 0};
        sigtimedwait(&pipe_, nullptr, &zero);
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeGuard(const SigpipeGuard&) = delete;
  SigpipeGuard& operator=(const SigpipeGuard&) = delete;

 private:
  sigset_t pipe_;
  sigset_t old_;
  bool already_pending_ = false;
};

Reply Convert(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STATUS:
      return Reply::Status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return Reply::Error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER:
      return Reply::Integer(r->integer);
    case REDIS_REPLY_STRING:
      return Reply::Bulk(std::string(r->str, r->len));
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> elements;
      elements.reserve(r->elements);
      for (size_t i = 0; i < r->elements; ++i) elements.push_back(Convert(r->element[i]));
      return Reply::Array(std::move(elements));
    }
    default:
      return Reply::Nil();
  }
}

timeval ToTimeval(std::chrono::milliseconds ms) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

}  // namespace

Status RedisEndpoint::Parse(const std::string& url, RedisEndpoint* out) {
  *out = RedisEndpoint();
  std::string rest = url;
  if (rest.starts_with("unix://")) {
    out->unix_path = rest.substr(7);
  } else if (rest.starts_with("/")) {
    out->unix_path = rest;
  } else {
    if (rest.starts_with("redis://")) rest = rest.substr(8);
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    if (const size_t at = rest.rfind('@'); at != std::string::npos) {
      const std::string login = rest.substr(0, at);
      rest = rest.substr(at + 1);
      const size_t colon = login.find(':');
      if (colon == std::string::npos) {
        return Status::InvalidArgument(
            "bad Redis address: expected [user]:password@ before "
            "the host");
      }
      out->user = login.substr(0, colon);
      out->password = login.substr(colon + 1);
    }
    const size_t colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return Status::InvalidArgument("bad Redis address '" + rest +
                                     "' (expected host:port, redis://host:port or unix:///path)");
    }
    out->host = rest.substr(0, colon);
    try {
      size_t used = 0;
      out->port = std::stoi(rest.substr(colon + 1), &used);
      if (used != rest.size() - colon - 1 || out->port <= 0 || out->port > 65535) throw 0;
    } catch (...) {
      return Status::InvalidArgument("bad port in Redis address '" + rest + "'");
    }
  }
  if (out->host.empty() && out->unix_path.empty()) {
    return Status::InvalidArgument("bad Redis address '" + out->ToString() + "'");
  }
  return Status::OK();
}

std::string RedisEndpoint::ToString() const {
  if (!label.empty()) return label;
  return unix_path.empty() ? host + ":" + std::to_string(port) : "unix://" + unix_path;
}

RedisClient::RedisClient(RedisEndpoint endpoint, std::chrono::milliseconds timeout)
    : endpoint_(std::move(endpoint)), timeout_(timeout) {}

RedisClient::~RedisClient() { Disconnect(); }

void RedisClient::Disconnect() {
  if (context_ != nullptr) redisFree(context_);
  context_ = nullptr;
}

Status RedisClient::Connect() {
  if (context_ != nullptr) return Status::OK();
  SigpipeGuard no_sigpipe;  // the AUTH below writes
  const timeval tv = ToTimeval(timeout_);
  context_ = endpoint_.unix_path.empty()
                 ? redisConnectWithTimeout(endpoint_.host.c_str(), endpoint_.port, tv)
                 : redisConnectUnixWithTimeout(endpoint_.unix_path.c_str(), tv);
  if (context_ == nullptr || context_->err) {
    std::string why = context_ != nullptr ? context_->errstr : "out of memory";
    Disconnect();
    return Status::Unavailable("redis " + endpoint_.ToString() + ": " + why);
  }
  redisSetTimeout(context_, tv);
  if (!endpoint_.password.empty()) {
    auto* r = static_cast<redisReply*>(
        endpoint_.user.empty()
            ? redisCommand(context_, "AUTH %b", endpoint_.password.data(),
                           endpoint_.password.size())
            : redisCommand(context_, "AUTH %b %b", endpoint_.user.data(), endpoint_.user.size(),
                           endpoint_.password.data(), endpoint_.password.size()));
    const bool ok = r != nullptr && r->type == REDIS_REPLY_STATUS;
    std::string why = r == nullptr ? (context_->err ? context_->errstr : "no reply")
                                   : std::string(r->str != nullptr ? r->str : "", r->len);
    if (r != nullptr) freeReplyObject(r);
    if (!ok) {
      Disconnect();
      return Status::Unavailable("redis " + endpoint_.ToString() + ": AUTH failed: " + why);
    }
  }
  return Status::OK();
}

Status RedisClient::Command(const std::vector<std::string>& argv, Reply* reply) {
  std::vector<Reply> replies;
  KVLAB_RETURN_IF_ERROR(Pipeline({argv}, &replies));
  *reply = std::move(replies[0]);
  return Status::OK();
}

Status RedisClient::Pipeline(const std::vector<std::vector<std::string>>& commands,
                             std::vector<Reply>* replies) {
  replies->clear();
  if (commands.empty()) return Status::OK();
  KVLAB_RETURN_IF_ERROR(Connect());
  SigpipeGuard no_sigpipe;
  ++round_trips_;
  size_t arguments = 0;
  for (const auto& cmd : commands) arguments += cmd.size();
  // A big call waits longer (see the header); the socket goes back to the base timeout after.
  const bool scaled = arguments > kArgumentsInBaseTimeout;
  if (scaled) {
    const auto extra = std::chrono::duration_cast<std::chrono::milliseconds>(
        kTimeoutPerArgument * (arguments - kArgumentsInBaseTimeout));
    redisSetTimeout(context_, ToTimeval(timeout_ + extra));
  }
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& cmd : commands) {
    argv.clear();
    lens.clear();
    for (const std::string& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    if (redisAppendCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lens.data()) !=
        REDIS_OK) {
      break;
    }
  }
  replies->reserve(commands.size());
  for (size_t i = 0; i < commands.size() && context_->err == 0; ++i) {
    void* raw = nullptr;
    if (redisGetReply(context_, &raw) != REDIS_OK || raw == nullptr) break;
    replies->push_back(Convert(static_cast<redisReply*>(raw)));
    freeReplyObject(raw);
  }
  if (scaled && context_->err == 0) redisSetTimeout(context_, ToTimeval(timeout_));
  if (context_->err != 0 || replies->size() != commands.size()) {
    Status s = Status::Unavailable("redis " + endpoint_.ToString() + ": " +
                                   (context_->err ? context_->errstr : "short reply"));
    Disconnect();  // the stream is out of step; start over on the next call
    return s;
  }
  return Status::OK();
}

Status RequireEmptyServer(RedisClient& client, const std::string& who) {
  for (int db = 0; db < 16; ++db) {
    Reply selected, size;
    KVLAB_RETURN_IF_ERROR(client.Command({"SELECT", std::to_string(db)}, &selected));
    if (selected.is_error()) break;  // fewer databases
    KVLAB_RETURN_IF_ERROR(client.Command({"DBSIZE"}, &size));
    if (size.type() != Reply::Type::kInteger || size.integer() != 0) {
      return Status::InvalidArgument(client.endpoint().ToString() + " holds keys in database " +
                                     std::to_string(db) + "; " + who +
                                     " (pass --allow-flush to allow that)");
    }
  }
  Reply ignored;
  return client.Command({"SELECT", "0"}, &ignored);
}

}  // namespace kvlab::redis
