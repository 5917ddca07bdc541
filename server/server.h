// Server: kvlab's RESP2 server over libevent, in front of one Engine.
//
// Threads (docs/server.md says why):
// - the thread that calls Run() accepts connections (TCP on each bind address, and a unix
//   socket) and handles SIGINT/SIGTERM;
// - `threads` workers, each with its own libevent base, own the connections: the acceptor
//   hands each new connection to the next worker in turn, and from then on one worker reads
//   it, parses it (RequestParser), runs its commands on the engine and writes the replies.
// The engine is thread-safe and serializes commands on the same key across workers.
//
// Shutdown (SHUTDOWN, SIGINT, SIGTERM, or RequestShutdown): the listeners close; each worker
// stops reading, lets the commands it has started finish, writes out their replies (for at
// most kDrainTimeout), closes its connections and exits. Run() returns once every worker has
// exited; the engine and the store are then idle and the caller closes them.
//
// Bounds, per connection: the query buffer (client-query-buffer-limit, default 1 GB, as Redis)
// and a bulk argument (proto-max-bulk-len, 512 MB) bound what a client can make the server
// hold; the output buffer (client-output-buffer-limit, hard and soft) bounds the replies a
// client leaves unread: past it the connection is closed, checked after every reply. Across
// clients, maxmemory-clients bounds them all together, checked as each client's memory
// changes: the biggest clients are evicted first. Many idle connections cost a socket and a
// few hundred bytes each. maxclients bounds the connections.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "engine/engine.h"
#include "redis/migrate_sockets.h"
#include "server/blocked_clients.h"

struct event_base;
struct event;
struct evconnlistener;
struct sockaddr;

namespace kvlab::traces {
class TraceRecorder;
}

namespace kvlab::server {

class Connection;
class Worker;

struct ServerOptions {
  // TCP: listen on each address at `port`; port 0 means no TCP listener (as in Redis).
  std::vector<std::string> bind = {"127.0.0.1"};
  int port = 6379;
  // A unix socket to listen on as well ("" for none), and its permissions (0: the umask's).
  std::string unix_socket;
  uint32_t unix_socket_perm = 0;
  int threads = 2;  // worker threads
  uint64_t max_clients = 10000;
  uint64_t max_bulk_len = 512ull << 20;      // proto-max-bulk-len
  uint64_t query_buffer_limit = 1ull << 30;  // client-query-buffer-limit
  // client-output-buffer-limit of the normal class, as Redis: closed at once at the hard limit,
  // or after more than soft_seconds continuously at or over the soft limit. 0: none.
  uint64_t output_buffer_limit = 256ull << 20;
  uint64_t output_buffer_soft_limit = 0;
  uint64_t output_buffer_soft_seconds = 0;
  // group-commit-max-commands: the most consecutive write commands of one read of a client's
  // pipeline committed as one store write (Engine::ExecuteGroup); 0 or 1: each on its own.
  uint64_t group_commit_max_commands = 64;
  // maxmemory-clients: the most memory all clients together may hold (query buffers, arguments,
  // output buffers); past it the clients using the most are closed. 0: no bound.
  uint64_t max_client_memory = 0;
  // protected-mode: without requirepass, TCP clients from other than 127.0.0.1 and ::1 are
  // refused with Redis's DENIED text.
  bool protected_mode = true;
  // Whether SIGINT and SIGTERM shut the server down (the kvlab binary; not in-process tests).
  bool handle_signals = false;
  // Reported by INFO server.
  std::string version;
  std::string config_file;
  // `kvlab serve --record`: every command a client sends goes to it just before it runs
  // (traces/recorder.h). Null: no recording. REQUIRES: outlives the server.
  traces::TraceRecorder* recorder = nullptr;
};

class Server {
 public:
  // How long a shutdown waits for clients to read the replies of their last commands.
  static constexpr std::chrono::milliseconds kDrainTimeout{2000};

  // Registers the server's CONFIG parameters (port, bind, maxclients, ...) in the engine's
  // table, so that a config file applied before Start() can set them; proto-max-bulk-len is the
  // engine's own, set here from options.max_bulk_len.
  // REQUIRES: engine outlives the server.
  Server(engine::Engine* engine, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the listeners and starts the workers. Fails (and binds nothing) when an address is
  // taken or invalid.
  Status Start();
  // Accepts connections until a shutdown; returns when every worker has stopped.
  // REQUIRES: Start() succeeded. Called once.
  void Run();
  // Starts a shutdown. Thread-safe; returns at once.
  void RequestShutdown();

  // Where the server listens: "127.0.0.1:6379", "/tmp/kvlab.sock".
  std::vector<std::string> Addresses() const;
  const ServerOptions& options() const { return options_; }
  engine::Engine* engine() const { return engine_; }

  // The limits that CONFIG SET can change while the server runs.
  // proto-max-bulk-len is the engine's parameter (it also bounds the strings commands build).
  uint64_t max_bulk_len() const { return engine_->proto_max_bulk_len(); }
  uint64_t query_buffer_limit() const { return query_limit_.load(std::memory_order_relaxed); }
  uint64_t output_buffer_limit() const { return output_limit_.load(std::memory_order_relaxed); }
  uint64_t output_buffer_soft_limit() const {
    return output_soft_limit_.load(std::memory_order_relaxed);
  }
  uint64_t output_buffer_soft_seconds() const {
    return output_soft_seconds_.load(std::memory_order_relaxed);
  }
  bool protected_mode() const { return protected_mode_.load(std::memory_order_relaxed); }
  uint64_t group_commit_max_commands() const {
    return group_commit_max_.load(std::memory_order_relaxed);
  }

  // For connections: the client registry behind CLIENT LIST, and INFO's server sections.
  uint64_t NewClientId() { return next_client_id_.fetch_add(1, std::memory_order_relaxed); }
  // REQUIRES: connection->id() is set.
  void Register(Connection* connection);
  void Unregister(uint64_t id);
  // Every accepted socket is closed exactly once, and says so here (maxclients counts them).
  void OnConnectionClosed() { open_connections_.fetch_sub(1, std::memory_order_relaxed); }
  // maxmemory-clients. Adds a client's change in memory to the total; returns true when the
  // total is over the bound.
  bool AddClientMemory(int64_t delta);
  // Closes the clients that use the most memory until the total is under the bound: those of
  // other workers through their worker, the caller by returning true (it then closes itself).
  bool EvictClients(Connection* caller);
  uint64_t client_memory() const { return client_memory_.load(std::memory_order_relaxed); }
  uint64_t max_client_memory() const { return max_client_memory_.load(); }
  std::string ListClients(const std::vector<uint64_t>* ids);
  // The clients blocked on keys (BLPOP, BLMOVE, ...).
  BlockedClients& blocked() { return blocked_; }
  void AppendInfo(std::string_view section, std::string* out);
  // MIGRATE's connections to target servers, shared by every connection (as Redis's
  // migrate_cached_sockets); the acceptor thread closes idle ones every second.
  redis::MigrateSockets& migrate_sockets() { return migrate_sockets_; }

 private:
  struct Listener;
  void RegisterConfig();
  Status Listen(const std::string& address, bool unix_socket);
  void Accept(int fd, bool unix_socket, bool loopback_peer, std::string peer_address,
              std::string local_address);
  void BeginShutdown();
  static void OnAccept(evconnlistener* listener, int fd, ::sockaddr* addr, int len, void* arg);
  static void OnAcceptError(evconnlistener* listener, void* arg);
  static void OnWake(int fd, short what, void* arg);
  static void OnSignal(int signal, short what, void* arg);
  static void OnResumeAccept(int fd, short what, void* arg);
  static void OnCron(int fd, short what, void* arg);

  engine::Engine* const engine_;
  ServerOptions options_;
  bool started_ = false;
  std::atomic<uint64_t> query_limit_;
  std::atomic<uint64_t> output_limit_;
  std::atomic<uint64_t> output_soft_limit_;
  std::atomic<uint64_t> output_soft_seconds_;
  std::atomic<uint64_t> max_clients_;
  std::atomic<bool> protected_mode_;
  std::atomic<uint64_t> group_commit_max_;
  std::atomic<uint64_t> max_client_memory_;
  std::string max_client_memory_text_;  // as set ("25%", "1gb"), for CONFIG GET; under clients_mu_
  std::atomic<uint64_t> client_memory_{0};
  std::atomic<uint64_t> evicted_clients_{0};
  const std::chrono::steady_clock::time_point start_time_;
  const std::string run_id_;

  event_base* base_ = nullptr;
  int wake_fd_ = -1;  // eventfd: RequestShutdown from any thread
  event* wake_event_ = nullptr;
  std::vector<event*> signal_events_;
  event* resume_accept_event_ = nullptr;
  event* cron_event_ = nullptr;  // every second: MIGRATE's idle connections
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::unique_ptr<Worker>> workers_;
  size_t next_worker_ = 0;
  std::atomic<bool> shutting_down_{false};

  BlockedClients blocked_;
  redis::MigrateSockets migrate_sockets_;

  // Every open connection, by id. Connections register from their worker thread.
  std::mutex clients_mu_;
  std::map<uint64_t, Connection*> clients_;
  std::atomic<uint64_t> next_client_id_{1};
  std::atomic<uint64_t> open_connections_{0};
  std::atomic<uint64_t> connections_received_{0};
  std::atomic<uint64_t> connections_rejected_{0};
};

// The warning `kvlab serve` prints when it listens beyond loopback without a password, or ""
// when it does not. bind: the addresses listened on ("*", "0.0.0.0", "::", an interface's).
std::string ExposureWarning(const std::vector<std::string>& bind, bool auth_required,
                            bool protected_mode);

}  // namespace kvlab::server
