// Connection: one client, on one worker thread. It reads requests into its RequestParser, runs
// each command on the engine with the connection's Session, and writes the replies back.
//
// Replies of all the commands parsed from one read go out in one send, so a pipeline of N
// commands costs one read and one write, not N of each. A reply the socket does not take at
// once waits in the output buffer (OutputBuffer) until the socket is writable; while it waits,
// further input is still read and run (as Redis does).
//
// Memory, as Redis bounds it: after every reply appended, the output buffer is checked against
// client-output-buffer-limit (past the hard limit, or past the soft limit for longer than its
// seconds, the client is closed at once) and the client's memory (query buffer, arguments,
// output buffer) is added to the server's total, which may evict the biggest clients
// (maxmemory-clients). Query buffer growth is accounted before the read that fills it.
//
// Fairness: one turn of a client (a read, or a resumption) runs its buffered commands until
// they have produced kTurnOutputBytes (256 KB) of replies; then the worker stops running that
// client's commands, stops reading its socket (the commands it has are enough), and goes back to
// its other clients, resuming this one on the next pass of its event loop. A pipeline of GETs of
// large values thus never holds a worker for more than a few replies, and a
// client that never reads grows its buffer a turn at a time, checked as it grows, until a limit
// closes it.
//
// A Connection is its Session's SessionHost: QUIT, CLIENT, SHUTDOWN and INFO reach the server
// through it. Only its worker thread touches it, except Describe(), which CLIENT LIST calls
// from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/session_host.h"
#include "resp/resp_parser.h"
#include "server/blocked_clients.h"
#include "server/output_buffer.h"

struct event;

namespace kvlab::traces {
class TraceRecorder;
}

namespace kvlab::server {

class Server;
class Worker;

class Connection final : public engine::SessionHost {
 public:
  // Takes ownership of fd (non-blocking).
  Connection(Worker* worker, int fd, std::string peer_address, std::string local_address,
             bool unix_socket);
  ~Connection() override;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Registers with the server and starts reading. Returns false when the connection could not
  // start; the caller then destroys it.
  bool Start();
  // The server is stopping: read nothing more, and close once the pending replies are written.
  void BeginClose();
  // Closes the socket now and frees the connection (through the worker).
  void Close();

  uint64_t id() const { return session_.id; }
  Worker* worker() const { return worker_; }
  // The memory this client holds (query buffer, arguments, output buffer), as last accounted.
  // Thread-safe.
  uint64_t memory() const { return memory_.load(std::memory_order_relaxed); }
  // Marked by the server when it decides to evict this client (maxmemory-clients).
  std::atomic<bool>& evicting() { return evicting_; }
  // CLIENT NO-EVICT: set on the worker thread, read by any thread that evicts clients.
  std::atomic<bool>& no_evict() { return no_evict_; }
  void SetNoEvict(bool on) override { no_evict_.store(on); }
  // This client's CLIENT LIST line, without the newline. Thread-safe.
  std::string Describe() const;

  // SessionHost.
  void CloseAfterReply() override { close_after_reply_ = true; }
  // The current command blocks (BLPOP on empty lists): recorded here, registered with the
  // server's BlockedClients once the command returns. Also called by retries, from the thread
  // that drains ready keys, while the worker runs nothing for this connection.
  bool Block(engine::BlockRequest request) override;
  bool UnblockClient(uint64_t id, bool with_error) override;
  void KeysReady(uint8_t db, const std::vector<std::string>& keys) override;

  // The blocked command's reply (served or timed out): write it and go on with the commands
  // that queued up meanwhile. Worker thread only.
  void Unblock(resp::Reply reply);
  std::string ListClients(const std::vector<uint64_t>* ids) override;
  Status RequestShutdown() override;
  void AppendInfo(std::string_view section, std::string* out) override;
  // On the server's shared MIGRATE connections; blocks this worker for the transfer.
  bool Migrate(const redis::MigrateTransfer& transfer, redis::MigrateOutcome* outcome) override;

 private:
  static void OnReadable(int fd, short what, void* arg);
  static void OnWritable(int fd, short what, void* arg);
  static void OnBlockTimeout(int fd, short what, void* arg);
  static void OnResume(int fd, short what, void* arg);
  // A turn: runs the buffered commands (up to the turn's budget), sends what the socket takes,
  // accounts memory and publishes the CLIENT LIST line.
  void Turn();
  // Registers the command that just asked to block (block_request_) and arms its timer.
  void StartBlocking(const std::vector<std::string>& argv);
  void HandleRead();
  // Runs every complete command in the parser. Consecutive write commands that may share a
  // store write (Engine::Groupable) are gathered, up to group-commit-max-commands, and run as
  // one group (Engine::ExecuteGroup); every other command runs alone, after the group before
  // it. *last: the last command parsed, for CLIENT LIST. Returns false when the connection
  // closed.
  bool RunCommands(const std::vector<std::string>** last);
  // Runs group_[0, n) (one command alone through Execute) and appends the replies. Returns
  // false when the connection closed.
  bool RunGroup(size_t n);
  // Appends a reply to the output, then checks client-output-buffer-limit and maxmemory-clients;
  // closes the client (and returns false) when either says so.
  bool AppendReply(const resp::Reply& reply);
  // Whether the output buffer is past client-output-buffer-limit: the hard limit, or the soft
  // limit continuously for more than its seconds (Redis's checkClientOutputBufferLimits).
  bool OverOutputLimit();
  // Sends what the socket takes; arms the write event for the rest. Returns false when the
  // connection closed.
  bool Flush();
  void StopReading();
  void StartReading();
  // Reports this client's memory to the server's total, and lets the server evict clients when
  // the total passes maxmemory-clients. Returns false when this connection was closed.
  // `arguments`: count the parsed arguments' buffers again (a walk over the command group);
  // false reuses the count of the last call, for the check after each reply.
  bool AccountMemory(bool arguments = true);
  // Copies what CLIENT LIST shows into the locked snapshot. `command` is the command last run
  // or running (nullptr: keep the one published before).
  void Publish(const std::vector<std::string>* command);

  Worker* const worker_;
  Server* const server_;
  engine::Engine* const engine_;
  traces::TraceRecorder* const recorder_;  // --record; null when off
  const int fd_;
  event* read_event_ = nullptr;
  event* write_event_ = nullptr;
  bool reading_ = false;
  bool writing_ = false;

  engine::Session session_;
  resp::RequestParser parser_;
  std::vector<std::string> argv_;
  // The write commands gathered for a group commit (RunCommands); kept between reads so that
  // their argument buffers are reused.
  std::vector<std::vector<std::string>> group_;
  OutputBuffer output_;
  std::string serialized_;       // a reply being serialized, before it goes to output_
  size_t arguments_memory_ = 0;  // the parsed arguments' buffers, as last counted
  // Replies appended in the current turn; past kTurnOutputBytes the turn ends.
  size_t turn_output_ = 0;
  // The turn ended on its budget: reading is paused and resume_event_ is armed.
  bool yielded_ = false;
  event* resume_event_ = nullptr;
  // When the output buffer was first seen over the soft limit, in this run of being over it.
  std::optional<std::chrono::steady_clock::time_point> soft_limit_since_;
  bool close_after_reply_ = false;   // QUIT, a protocol error, or the server stopping
  bool shutdown_requested_ = false;  // SHUTDOWN: close without a reply
  // Blocking commands (server/blocked_clients.h): the request of the command that just ran,
  // and, while the client is blocked, its registration and its timeout.
  std::optional<engine::BlockRequest> block_request_;
  std::shared_ptr<Waiter> waiter_;
  event* block_timer_ = nullptr;
  std::atomic<uint64_t> memory_{0};
  std::atomic<bool> evicting_{false};
  std::atomic<bool> no_evict_{false};

  // What CLIENT LIST shows, published by the worker thread for readers on other threads.
  struct Snapshot {
    std::string name;
    int db = 0;
    int resp = 2;
    std::string command = "NULL";
    std::chrono::steady_clock::time_point last_interaction;
    size_t qbuf = 0;
    size_t qbuf_free = 0;
    size_t output_memory = 0;  // omem
    size_t output_blocks = 0;  // oll
    size_t total_memory = 0;   // tot-mem
    bool writing = false;
  };
  const std::string peer_address_;
  const std::string local_address_;
  const std::chrono::steady_clock::time_point created_;
  mutable std::mutex snapshot_mu_;
  Snapshot snapshot_;
};

}  // namespace kvlab::server
