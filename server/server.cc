#include "server/server.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "engine/command_table.h"
#include "server/connection.h"
#include "server/worker.h"

namespace kvlab::server {

using engine::Engine;
using engine::kRedisVersion;

namespace {

constexpr int kBacklog = 511;  // Redis's tcp-backlog
constexpr char kMaxClientsError[] = "-ERR max number of clients reached\r\n";
// Redis 7.0's words, to the byte (networking.c, clientAcceptHandler).
constexpr char kProtectedModeError[] =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no "
    "password is set for the default user. In this mode connections are only accepted from the "
    "loopback interface. If you want to connect from external computers to Redis you may adopt "
    "one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG "
    "SET protected-mode no' from the loopback interface by connecting to Redis from the same "
    "host the server is running, however MAKE SURE Redis is not publicly accessible from "
    "internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively "
    "you can just disable the protected mode by editing the Redis configuration file, and "
    "setting the protected mode option to 'no', and then restarting the server. 3) If you "
    "started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need "
    "to do one of the above things in order for the server to start accepting connections from "
    "the outside.\r\n";

// Whether a TCP peer is the loopback interface as Redis 7.0 counts it: exactly 127.0.0.1 or ::1
// (127.0.0.2 is not).
bool IsLoopbackPeer(const sockaddr* sa) {
  if (sa->sa_family == AF_INET) {
    return reinterpret_cast<const sockaddr_in*>(sa)->sin_addr.s_addr == htonl(INADDR_LOOPBACK);
  }
  if (sa->sa_family == AF_INET6) {
    return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr);
  }
  return false;
}

// Best effort, as Redis: the socket is new, so its buffer has room.
void SendAndClose(int fd, const char* text, size_t length) {
  if (::send(fd, text, length, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
    // The client is gone already.
  }
  ::close(fd);
}

bool IsLoopbackAddress(const std::string& address) {
  return address == "localhost" || address.starts_with("127.") || address == "::1" ||
         address == "-::1" || address.starts_with("-127.");
}

std::string RandomRunId() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(40, '0');
  for (char& c : id) c = kHex[rng() % 16];
  return id;
}

// "1.2.3.4:5", "[::1]:5", as Redis's anetFormatAddr writes them.
std::string FormatAddress(const sockaddr* sa) {
  char ip[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
    return std::string(ip) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
    return "[" + std::string(ip) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "?:0";
}

// Lets the process hold maxclients sockets (plus a margin for the store's files), as Redis
// does at startup. Only ever raises the soft limit.
void RaiseOpenFileLimit(uint64_t max_clients) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(max_clients) + 256;
  if (limit.rlim_cur >= wanted) return;
  const rlim_t target = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  if (target <= limit.rlim_cur) return;
  limit.rlim_cur = target;
  setrlimit(RLIMIT_NOFILE, &limit);
}

}  // namespace

struct Server::Listener {
  Server* server = nullptr;
  evconnlistener* listener = nullptr;
  bool unix_socket = false;
  std::string address;  // as reported: "127.0.0.1:6379" or the socket path

  ~Listener() {
    if (listener != nullptr) evconnlistener_free(listener);
    if (unix_socket) ::unlink(address.c_str());
  }
};

Server::Server(Engine* engine, ServerOptions options)
    : engine_(engine),
      options_(std::move(options)),
      query_limit_(options_.query_buffer_limit),
      output_limit_(options_.output_buffer_limit),
      output_soft_limit_(options_.output_buffer_soft_limit),
      output_soft_seconds_(options_.output_buffer_soft_seconds),
      max_clients_(options_.max_clients),
      protected_mode_(options_.protected_mode),
      group_commit_max_(options_.group_commit_max_commands),
      max_client_memory_(options_.max_client_memory),
      max_client_memory_text_(std::to_string(options_.max_client_memory)),
      start_time_(std::chrono::steady_clock::now()),
      run_id_(RandomRunId()) {
  engine_->set_proto_max_bulk_len(options_.max_bulk_len);
  RegisterConfig();
}

Server::~Server() {
  listeners_.clear();
  for (auto& w : workers_) {
    w->Stop();
    w->Join();
  }
  workers_.clear();
  for (event* e : signal_events_) event_free(e);
  if (resume_accept_event_ != nullptr) event_free(resume_accept_event_);
  if (cron_event_ != nullptr) event_free(cron_event_);
  if (wake_event_ != nullptr) event_free(wake_event_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (base_ != nullptr) event_base_free(base_);
}

Status Server::Start() {
  if (started_) return Status::InvalidArgument("the server is already started");
  if (options_.threads < 1) return Status::InvalidArgument("the server needs a worker thread");
  if (options_.port == 0 && options_.unix_socket.empty()) {
    return Status::InvalidArgument("nothing to listen on: port 0 and no unix socket");
  }
  RaiseOpenFileLimit(max_clients_.load());
  base_ = event_base_new();
  if (base_ == nullptr) return Status::IOError("cannot create an event base");
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status::IOError(std::string("eventfd: ") + std::strerror(errno));
  wake_event_ = event_new(base_, wake_fd_, EV_READ | EV_PERSIST, &OnWake, this);
  resume_accept_event_ = evtimer_new(base_, &OnResumeAccept, this);
  cron_event_ = event_new(base_, -1, EV_PERSIST, &OnCron, this);
  const timeval second = {1, 0};
  if (wake_event_ == nullptr || resume_accept_event_ == nullptr || cron_event_ == nullptr ||
      event_add(wake_event_, nullptr) != 0 || event_add(cron_event_, &second) != 0) {
    return Status::IOError("cannot create the server's events");
  }

  if (options_.port != 0) {
    for (const std::string& address : options_.bind) {
      Status s = Listen(address, /*unix_socket=*/false);
      if (!s.ok()) {
        listeners_.clear();
        return s;
      }
    }
  }
  if (!options_.unix_socket.empty()) {
    Status s = Listen(options_.unix_socket, /*unix_socket=*/true);
    if (!s.ok()) {
      listeners_.clear();
      return s;
    }
  }
  for (int i = 0; i < options_.threads; ++i) {
    auto worker = std::make_unique<Worker>(this, i);
    Status s = worker->Init();
    if (!s.ok()) {
      listeners_.clear();
      return s;
    }
    workers_.push_back(std::move(worker));
  }
  // Started before the workers, so that they see every option as final.
  started_ = true;
  for (auto& w : workers_) w->Start();
  return Status::OK();
}

Status Server::Listen(const std::string& address, bool unix_socket) {
  auto listener = std::make_unique<Listener>();
  listener->server = this;
  listener->unix_socket = unix_socket;
  sockaddr_storage storage{};
  int length = sizeof(storage);
  if (unix_socket) {
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    if (address.size() >= sizeof(un.sun_path)) {
      return Status::InvalidArgument("unix socket path too long: " + address);
    }
    std::memcpy(un.sun_path, address.c_str(), address.size() + 1);
    ::unlink(address.c_str());  // a stale socket of an earlier run, as Redis does
    std::memcpy(&storage, &un, sizeof(un));
    length = sizeof(un);
    listener->address = address;
  } else {
    std::string host = address == "*" ? "0.0.0.0" : address;
    const bool v6 = host.find(':') != std::string::npos;
    const std::string spec = (v6 ? "[" + host + "]" : host) + ":" + std::to_string(options_.port);
    if (evutil_parse_sockaddr_port(spec.c_str(), reinterpret_cast<sockaddr*>(&storage), &length) !=
        0) {
      return Status::InvalidArgument("invalid bind address '" + address + "'");
    }
    listener->address = spec;
  }
  unsigned flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC;
  if (!unix_socket) flags |= LEV_OPT_REUSEABLE;
  // "::" means IPv6 only, as in Redis, where "*" and "::" are bound separately.
  if (storage.ss_family == AF_INET6) flags |= LEV_OPT_BIND_IPV6ONLY;
  listener->listener = evconnlistener_new_bind(base_, &OnAccept, listener.get(), flags, kBacklog,
                                               reinterpret_cast<sockaddr*>(&storage), length);
  if (listener->listener == nullptr) {
    const int error = errno;
    listener->unix_socket = false;  // nothing of ours to unlink
    return Status::IOError("cannot listen on " + listener->address + ": " + std::strerror(error));
  }
  evconnlistener_set_error_cb(listener->listener, &OnAcceptError);
  if (unix_socket && options_.unix_socket_perm != 0) {
    ::chmod(address.c_str(), static_cast<mode_t>(options_.unix_socket_perm));
  }
  listeners_.push_back(std::move(listener));
  return Status::OK();
}

std::vector<std::string> Server::Addresses() const {
  std::vector<std::string> out;
  for (const auto& l : listeners_) out.push_back(l->address);
  return out;
}

void Server::Run() {
  if (options_.handle_signals) {
    for (int signal : {SIGINT, SIGTERM}) {
      event* e = evsignal_new(base_, signal, &OnSignal, this);
      if (e != nullptr && evsignal_add(e, nullptr) == 0) signal_events_.push_back(e);
    }
  }
  event_base_dispatch(base_);
  for (auto& w : workers_) w->Join();
  for (event* e : signal_events_) event_free(e);  // restores the signals' default handling
  signal_events_.clear();
}

void Server::RequestShutdown() {
  const uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) {
    // Only fails when the counter would overflow: a wake-up is pending anyway.
  }
}

void Server::OnWake(int fd, short, void* arg) {
  uint64_t count = 0;
  if (::read(fd, &count, sizeof(count)) < 0) {
    // Nothing to read: a shutdown is already under way.
  }
  static_cast<Server*>(arg)->BeginShutdown();
}

void Server::OnSignal(int signal, short, void* arg) {
  std::fprintf(stderr, "kvlab: received %s, shutting down\n", strsignal(signal));
  static_cast<Server*>(arg)->BeginShutdown();
}

void Server::BeginShutdown() {
  if (shutting_down_.exchange(true)) return;
  listeners_.clear();  // no new connections; the unix socket file goes away
  for (auto& w : workers_) w->Stop();
  event_base_loopbreak(base_);
}

void Server::OnAccept(evconnlistener*, int fd, sockaddr* address, int, void* arg) {
  auto* listener = static_cast<Listener*>(arg);
  Server* self = listener->server;
  std::string peer, local;
  const bool loopback = !listener->unix_socket && IsLoopbackPeer(address);
  if (listener->unix_socket) {
    peer = local = listener->address + ":0";
  } else {
    peer = FormatAddress(address);
    sockaddr_storage own{};
    socklen_t own_length = sizeof(own);
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&own), &own_length) == 0) {
      local = FormatAddress(reinterpret_cast<sockaddr*>(&own));
    }
  }
  self->Accept(fd, listener->unix_socket, loopback, peer, local);
}

void Server::Accept(int fd, bool unix_socket, bool loopback_peer, std::string peer,
                    std::string local) {
  connections_received_.fetch_add(1, std::memory_order_relaxed);
  if (open_connections_.load(std::memory_order_relaxed) >= max_clients_.load()) {
    SendAndClose(fd, kMaxClientsError, sizeof(kMaxClientsError) - 1);
    connections_rejected_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Protected mode, after maxclients as in Redis: no password, so only this host may connect.
  if (!unix_socket && !loopback_peer && protected_mode_.load() && !engine_->AuthRequired()) {
    SendAndClose(fd, kProtectedModeError, sizeof(kProtectedModeError) - 1);
    connections_rejected_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  open_connections_.fetch_add(1, std::memory_order_relaxed);
  if (!unix_socket) {
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  }
  Worker* worker = workers_[next_worker_++ % workers_.size()].get();
  worker->Adopt(fd, std::move(peer), std::move(local), unix_socket);
}

void Server::OnAcceptError(evconnlistener* listener, void* arg) {
  auto* self = static_cast<Listener*>(arg)->server;
  const int error = EVUTIL_SOCKET_ERROR();
  std::fprintf(stderr, "kvlab: accept failed: %s\n", evutil_socket_error_to_string(error));
  if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
    // Out of descriptors or memory: accepting again at once would spin. Pause every listener
    // for a moment; connections wait in the backlog meanwhile.
    for (auto& l : self->listeners_) evconnlistener_disable(l->listener);
    const timeval pause = {0, 100 * 1000};
    evtimer_add(self->resume_accept_event_, &pause);
  }
}

void Server::OnResumeAccept(int, short, void* arg) {
  auto* self = static_cast<Server*>(arg);
  for (auto& l : self->listeners_) evconnlistener_enable(l->listener);
}

void Server::OnCron(int, short, void* arg) {
  static_cast<Server*>(arg)->migrate_sockets_.CloseIdle();
}

bool Server::AddClientMemory(int64_t delta) {
  const uint64_t total =
      client_memory_.fetch_add(static_cast<uint64_t>(delta)) + static_cast<uint64_t>(delta);
  const uint64_t limit = max_client_memory_.load(std::memory_order_relaxed);
  return limit != 0 && delta > 0 && total > limit;
}

bool Server::EvictClients(Connection* caller) {
  const uint64_t limit = max_client_memory_.load();
  std::vector<std::pair<uint64_t, Connection*>> candidates;
  std::lock_guard lock(clients_mu_);
  uint64_t total = client_memory_.load();
  for (const auto& [id, c] : clients_) {
    if (c->evicting().load()) {
      total -= std::min(total, c->memory());  // on its way out already
    } else if (c->memory() > 0 && !c->no_evict().load()) {
      // CLIENT NO-EVICT ON: its memory counts, but it is never the one closed (as in Redis).
      candidates.emplace_back(c->memory(), c);
    }
  }
  // The biggest first, as Redis's client eviction takes the clients of its largest buckets.
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  bool self = false;
  for (const auto& [memory, c] : candidates) {
    if (limit == 0 || total <= limit) break;
    total -= memory;
    c->evicting().store(true);
    evicted_clients_.fetch_add(1, std::memory_order_relaxed);
    std::fprintf(stderr,
                 "kvlab: evicting client id=%llu: it holds %llu bytes, and all clients together "
                 "are over maxmemory-clients (%llu bytes)\n",
                 static_cast<unsigned long long>(c->id()), static_cast<unsigned long long>(memory),
                 static_cast<unsigned long long>(limit));
    if (c == caller) {
      self = true;
    } else {
      c->worker()->Evict(c->id());
    }
  }
  return self;
}

void Server::Register(Connection* connection) {
  std::lock_guard lock(clients_mu_);
  clients_[connection->id()] = connection;
}

void Server::Unregister(uint64_t id) {
  std::lock_guard lock(clients_mu_);
  clients_.erase(id);
}

std::string Server::ListClients(const std::vector<uint64_t>* ids) {
  std::string out;
  std::lock_guard lock(clients_mu_);
  if (ids == nullptr) {
    for (const auto& [id, connection] : clients_) out += connection->Describe() + "\n";
  } else {
    for (uint64_t id : *ids) {
      auto it = clients_.find(id);
      if (it != clients_.end()) out += it->second->Describe() + "\n";
    }
  }
  return out;
}

void Server::AppendInfo(std::string_view section, std::string* out) {
  auto line = [out](std::string_view name, const std::string& value) {
    out->append(name);
    out->push_back(':');
    out->append(value);
    out->append("\r\n");
  };
  if (section == "server") {
    utsname uts{};
    uname(&uts);
    std::error_code ec;
    const auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::steady_clock::now() - start_time_)
                            .count();
    const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    line("redis_version", kRedisVersion);
    line("kvlab_version", options_.version);
    line("redis_mode", "standalone");
    line("os", std::string(uts.sysname) + " " + uts.release + " " + uts.machine);
    line("arch_bits", std::to_string(sizeof(void*) * 8));
    line("multiplexing_api", event_base_get_method(base_));
    line("libevent_version", event_get_version());
    line("process_id", std::to_string(::getpid()));
    line("run_id", run_id_);
    line("tcp_port", std::to_string(options_.port));
    line("server_time_usec", std::to_string(now_us));
    line("uptime_in_seconds", std::to_string(uptime));
    line("uptime_in_days", std::to_string(uptime / 86400));
    line("executable", std::filesystem::read_symlink("/proc/self/exe", ec).string());
    line("config_file", options_.config_file);
    line("worker_threads", std::to_string(workers_.size()));
  } else if (section == "clients") {
    size_t connected = 0;
    {
      std::lock_guard lock(clients_mu_);
      connected = clients_.size();
    }
    line("connected_clients", std::to_string(connected));
    line("maxclients", std::to_string(max_clients_.load()));
    // Redis has these in its memory section, which kvlab does not have.
    line("mem_clients_normal", std::to_string(client_memory_.load()));
    line("maxmemory_clients", std::to_string(max_client_memory_.load()));
    line("blocked_clients", std::to_string(blocked_.blocked()));
  } else if (section == "stats") {
    uint64_t commands = 0, input = 0, output = 0, protocol = 0, query = 0, reply = 0;
    for (const auto& w : workers_) {
      WorkerStats& s = w->stats();
      commands += s.commands.load(std::memory_order_relaxed);
      input += s.net_input_bytes.load(std::memory_order_relaxed);
      output += s.net_output_bytes.load(std::memory_order_relaxed);
      protocol += s.protocol_errors.load(std::memory_order_relaxed);
      query += s.query_buffer_closes.load(std::memory_order_relaxed);
      reply += s.output_buffer_closes.load(std::memory_order_relaxed);
    }
    line("total_connections_received", std::to_string(connections_received_.load()));
    line("total_commands_processed", std::to_string(commands));
    line("total_net_input_bytes", std::to_string(input));
    line("total_net_output_bytes", std::to_string(output));
    line("rejected_connections", std::to_string(connections_rejected_.load()));
    line("total_protocol_errors", std::to_string(protocol));
    line("client_query_buffer_limit_disconnections", std::to_string(query));
    line("client_output_buffer_limit_disconnections", std::to_string(reply));
    line("evicted_clients", std::to_string(evicted_clients_.load()));
    line("migrate_cached_sockets", std::to_string(migrate_sockets_.cached()));
  }
}

std::string ExposureWarning(const std::vector<std::string>& bind, bool auth_required,
                            bool protected_mode) {
  if (auth_required) return "";
  std::string exposed;
  for (const std::string& a : bind) {
    if (!IsLoopbackAddress(a)) exposed += (exposed.empty() ? "" : ", ") + a;
  }
  if (exposed.empty()) return "";
  if (protected_mode) {
    return "WARNING: listening on " + exposed +
           " without a password (requirepass): protected mode refuses every client that is "
           "not on this host. Set requirepass to serve other hosts.";
  }
  return "WARNING: listening on " + exposed +
         " without a password and with protected mode off: any host that reaches this port can "
         "run every command, FLUSHALL, CONFIG and SHUTDOWN included. Set requirepass.";
}

}  // namespace kvlab::server
