// Worker: one thread with its own libevent base, owning a share of the connections.
//
// The acceptor hands a connection over with Adopt() (a locked inbox and an eventfd to wake
// the worker); from then on everything about the connection happens on the worker's thread.
// A command runs to completion inside the worker's read callback, so a worker that has seen
// Stop() has no command in flight.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/status.h"

struct event_base;
struct event;

namespace kvlab::server {

class Connection;
class Server;

// Counters of one worker, written by its thread only, summed by INFO.
struct WorkerStats {
  std::atomic<uint64_t> commands{0};
  std::atomic<uint64_t> net_input_bytes{0};
  std::atomic<uint64_t> net_output_bytes{0};
  std::atomic<uint64_t> protocol_errors{0};
  std::atomic<uint64_t> query_buffer_closes{0};   // closed at client-query-buffer-limit
  std::atomic<uint64_t> output_buffer_closes{0};  // closed at client-output-buffer-limit
};

class Worker {
 public:
  Worker(Server* server, int index);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates the event base and the wake-up event.
  Status Init();
  void Start();
  // Gives a freshly accepted, non-blocking socket to this worker. Thread-safe. After Stop(),
  // the socket is closed instead.
  void Adopt(int fd, std::string peer_address, std::string local_address, bool unix_socket);
  // Asks the worker to close its connection `id` now (maxmemory-clients). Thread-safe.
  void Evict(uint64_t id);
  // Closes the connections Evict() named so far, except `running` (the connection whose
  // command is on the stack, which another worker may have named meanwhile: it stays named,
  // and goes at its next reply or when the worker handles its inbox). Worker thread only.
  void CloseEvicted(const Connection* running);
  // Runs `task` on the worker's thread, soon (a blocked client's reply). Thread-safe. Tasks
  // posted after Stop() are dropped.
  void Post(std::function<void()> task);
  // Asks the worker to close its connections and exit. Thread-safe; returns at once.
  void Stop();
  void Join();

  // Worker thread only.
  event_base* base() const { return base_; }
  Server* server() const { return server_; }
  WorkerStats& stats() { return stats_; }
  // Frees a connection that has closed its socket.
  void Destroy(Connection* connection);

 private:
  struct Pending {
    int fd;
    std::string peer_address;
    std::string local_address;
    bool unix_socket;
  };
  static void OnWake(int fd, short what, void* arg);
  static void OnDrainTimeout(int fd, short what, void* arg);
  void HandleInbox();
  // Closes this worker's connections of these ids (those already closed are skipped).
  void CloseAll(const std::vector<uint64_t>& ids);
  void BeginStop();
  void ExitIfIdle();

  Server* const server_;
  const int index_;
  event_base* base_ = nullptr;
  int wake_fd_ = -1;
  event* wake_event_ = nullptr;
  event* drain_timer_ = nullptr;
  std::thread thread_;
  WorkerStats stats_;

  std::mutex mu_;
  std::vector<Pending> inbox_;
  std::vector<uint64_t> evictions_;
  std::vector<std::function<void()>> tasks_;
  bool stop_requested_ = false;

  bool stopping_ = false;  // worker thread only
  std::unordered_map<Connection*, std::unique_ptr<Connection>> connections_;
};

}  // namespace kvlab::server
