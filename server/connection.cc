#include "server/connection.h"

#include <event2/event.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <span>
#include <utility>

#include "engine/command_table.h"
#include "server/server.h"
#include "server/worker.h"
#include "traces/recorder.h"

namespace kvlab::server {

using engine::CommandSpec;
using engine::Engine;
using resp::Reply;
using resp::RequestParser;

namespace {

// A turn of one client ends once its commands have produced this many bytes of replies (see
// connection.h): far more than a read's pipeline of small replies produces, so those are not
// split, and tens of microseconds of copying, so that the worker's other clients wait little
// and the memory all of a worker's clients add in one pass stays small.
constexpr size_t kTurnOutputBytes = 256 * 1024;
// A serialized reply buffer larger than this is not kept for the next reply.
constexpr size_t kKeepSerializedCapacity = 64 * 1024;
// A group of pipelined writes runs once its commands' arguments reach this many bytes, whatever
// group-commit-max-commands allows: the gain is in the number of store writes, not their size,
// and a bounded group keeps the batch within what every store takes in one write.
constexpr size_t kGroupMaxArgumentBytes = 256 * 1024;

size_t ArgumentBytes(const std::vector<std::string>& argv) {
  size_t n = 0;
  for (const std::string& a : argv) n += a.size();
  return n;
}

// CLIENT LIST's cmd: the command's table name, "container|subcommand" for CONFIG, CLIENT and
// COMMAND, and NULL for a command kvlab does not know (as Redis, whose lastcmd is then NULL).
std::string CommandName(const Engine& engine, const std::vector<std::string>& argv) {
  const CommandSpec* spec = engine.FindCommand(argv[0]);
  if (spec == nullptr) return "NULL";
  std::string name(spec->name);
  if (argv.size() >= 2 && (name == "config" || name == "client" || name == "command")) {
    name += '|';
    for (char c : argv[1].substr(0, 32)) {
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return name;
}

}  // namespace

Connection::Connection(Worker* worker, int fd, std::string peer_address, std::string local_address,
                       bool unix_socket)
    : worker_(worker),
      server_(worker->server()),
      engine_(worker->server()->engine()),
      recorder_(worker->server()->options().recorder),
      fd_(fd),
      peer_address_(std::move(peer_address)),
      local_address_(std::move(local_address)),
      created_(std::chrono::steady_clock::now()) {
  session_.host = this;
  snapshot_.last_interaction = created_;
}

Connection::~Connection() {
  if (waiter_ != nullptr) {
    server_->blocked().Remove(waiter_.get());  // waits out a retry running on another thread
    waiter_->connection = nullptr;
  }
  if (block_timer_ != nullptr) event_free(block_timer_);
  if (resume_event_ != nullptr) event_free(resume_event_);
  if (session_.id != 0) server_->Unregister(session_.id);
  server_->AddClientMemory(-static_cast<int64_t>(memory_.load()));
  server_->OnConnectionClosed();
  if (read_event_ != nullptr) event_free(read_event_);
  if (write_event_ != nullptr) event_free(write_event_);
  // Closing a socket with unread input makes the kernel reset the connection, which can drop
  // replies still on their way to the client. Send FIN after the replies, and discard what the
  // client sent that will not be run, so that the close is orderly.
  ::shutdown(fd_, SHUT_WR);
  char discard[4096];
  for (int i = 0; i < 256 && ::recv(fd_, discard, sizeof(discard), MSG_DONTWAIT) > 0; ++i) {
  }
  ::close(fd_);
}

bool Connection::Start() {
  read_event_ = event_new(worker_->base(), fd_, EV_READ | EV_PERSIST, &OnReadable, this);
  write_event_ = event_new(worker_->base(), fd_, EV_WRITE | EV_PERSIST, &OnWritable, this);
  resume_event_ = evtimer_new(worker_->base(), &OnResume, this);
  if (read_event_ == nullptr || write_event_ == nullptr || resume_event_ == nullptr) return false;
  session_.id = server_->NewClientId();
  // As Redis decides when a client connects: without a password the client is in.
  session_.authenticated = !engine_->AuthRequired();
  server_->Register(this);
  if (event_add(read_event_, nullptr) != 0) return false;
  reading_ = true;
  Publish(nullptr);
  return true;
}

void Connection::OnReadable(int, short, void* arg) { static_cast<Connection*>(arg)->HandleRead(); }

void Connection::OnWritable(int, short, void* arg) {
  auto* self = static_cast<Connection*>(arg);
  if (self->Flush() && self->AccountMemory()) self->Publish(nullptr);
}

void Connection::OnResume(int, short, void* arg) {
  auto* self = static_cast<Connection*>(arg);
  if (!self->yielded_) return;
  self->yielded_ = false;
  self->Turn();
}

void Connection::Turn() {
  turn_output_ = 0;
  // Published after the send, once per turn, not per command: CLIENT LIST's omem and tot-mem
  // are what is left unsent, and what it shows of other clients may be a turn behind (a client
  // listing itself publishes first: ListClients).
  const std::vector<std::string>* last = nullptr;
  if (RunCommands(&last) && Flush() && AccountMemory()) Publish(last);
}

void Connection::HandleRead() {
  size_t room = 0;
  char* buffer = parser_.ReceiveBuffer(&room);
  // The buffer may just have grown (a big argument arriving): counted before it is filled, so
  // that maxmemory-clients can evict before the memory is used.
  if (!AccountMemory(/*arguments=*/false)) return;
  const ssize_t n = ::recv(fd_, buffer, room, 0);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (n <= 0) return Close();  // the client closed, or the socket failed
  parser_.Received(static_cast<size_t>(n));
  worker_->stats().net_input_bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  if (parser_.pending_bytes() > server_->query_buffer_limit()) {
    // Redis closes such a client without a reply, and logs it.
    std::fprintf(stderr, "kvlab: closing client %s: query buffer of %zu bytes is over the limit\n",
                 peer_address_.c_str(), parser_.pending_bytes());
    worker_->stats().query_buffer_closes.fetch_add(1, std::memory_order_relaxed);
    return Close();
  }
  Turn();
}

bool Connection::AccountMemory(bool arguments) {
  if (arguments) {
    size_t bytes = serialized_.capacity();
    for (const std::string& a : argv_) bytes += a.capacity();
    for (const std::vector<std::string>& command : group_) {
      for (const std::string& a : command) bytes += a.capacity();
    }
    arguments_memory_ = bytes;
  }
  const uint64_t now =
      parser_.memory() + output_.memory() + output_.spare_memory() + arguments_memory_;
  const uint64_t before = memory_.exchange(now, std::memory_order_relaxed);
  if (now == before) return true;
  if (!server_->AddClientMemory(static_cast<int64_t>(now) - static_cast<int64_t>(before))) {
    return true;  // under the limit
  }
  if (server_->EvictClients(this)) {
    Close();
    return false;
  }
  // The clients of this worker chosen go now, not on the worker's next pass: meanwhile the
  // others would keep growing while their memory is no longer counted against the bound.
  worker_->CloseEvicted(this);
  return true;
}

bool Connection::RunCommands(const std::vector<std::string>** last) {
  WorkerStats& stats = worker_->stats();
  size_t grouped = 0;      // group_[0, grouped) wait to run
  size_t group_bytes = 0;  // their arguments' bytes
  const size_t group_max = server_->group_commit_max_commands();
  // A blocked client's later commands wait, unread from the parser, until it unblocks.
  while (!close_after_reply_ && waiter_ == nullptr) {
    if (turn_output_ >= kTurnOutputBytes) {
      // The turn's budget is spent: the rest waits for the next pass of the event loop, and
      // so does reading (what is buffered is enough to run meanwhile).
      if (grouped > 0 && !RunGroup(std::exchange(grouped, 0))) return false;
      if (!yielded_) {
        yielded_ = true;
        StopReading();
        const timeval now = {0, 0};
        evtimer_add(resume_event_, &now);
      }
      break;
    }
    const RequestParser::Result result = parser_.Next(server_->max_bulk_len(), &argv_);
    if (result == RequestParser::Result::kNeedMore) {
      StartReading();
      break;
    }
    if (result == RequestParser::Result::kProtocolError) {
      if (grouped > 0 && !RunGroup(std::exchange(grouped, 0))) return false;
      output_.Append("-ERR " + parser_.error() + "\r\n");
      stats.protocol_errors.fetch_add(1, std::memory_order_relaxed);
      close_after_reply_ = true;
      break;
    }
    if (group_max > 1 && engine_->Groupable(session_, argv_)) {
      // Swapped, not moved: argv_ takes over an older command's buffers for the next parse.
      if (group_.size() == grouped) group_.emplace_back();
      group_[grouped].swap(argv_);
      *last = &group_[grouped++];
      group_bytes += ArgumentBytes(**last);
      if (grouped >= group_max || group_bytes >= kGroupMaxArgumentBytes) {
        group_bytes = 0;
        if (!RunGroup(std::exchange(grouped, 0))) return false;
      }
      continue;
    }
    // The commands gathered before this one run (and reply) first.
    group_bytes = 0;
    if (grouped > 0 && !RunGroup(std::exchange(grouped, 0))) return false;
    *last = &argv_;
    if (recorder_ != nullptr) recorder_->Record(session_.id, session_.db, argv_);
    Reply reply = engine_->Execute(session_, argv_);
    stats.commands.fetch_add(1, std::memory_order_relaxed);
    if (shutdown_requested_) {
      // SHUTDOWN gets no reply; the replies before it still go out.
      close_after_reply_ = true;
      break;
    }
    if (block_request_) {
      // The command blocked: its reply comes later (Unblock).
      StartBlocking(argv_);
      break;
    }
    if (!AppendReply(reply)) return false;
  }
  if (grouped > 0 && !RunGroup(grouped)) return false;
  if (close_after_reply_) StopReading();
  return true;
}

bool Connection::RunGroup(size_t n) {
  worker_->stats().commands.fetch_add(n, std::memory_order_relaxed);
  if (recorder_ != nullptr) {
    for (size_t i = 0; i < n; ++i) recorder_->Record(session_.id, session_.db, group_[i]);
  }
  if (n == 1) return AppendReply(engine_->Execute(session_, group_[0]));
  // The group's writes are in the store when ExecuteGroup returns: its replies go out after.
  for (const Reply& reply : engine_->ExecuteGroup(
           session_, std::span<const std::vector<std::string>>(group_.data(), n))) {
    if (!AppendReply(reply)) return false;
  }
  return true;
}

bool Connection::AppendReply(const Reply& reply) {
  // A big bulk string (GET of a large value) is serialized into a buffer of its size, which
  // the output buffer then takes over without a copy.
  if (reply.type() == Reply::Type::kBulk && reply.str().size() >= OutputBuffer::kBlockBytes) {
    serialized_.reserve(reply.str().size() + 32);
  }
  reply.AppendResp(&serialized_, session_.resp);
  turn_output_ += serialized_.size();
  output_.Take(&serialized_);
  if (serialized_.capacity() > kKeepSerializedCapacity) std::string().swap(serialized_);
  if (OverOutputLimit()) {
    std::fprintf(stderr,
                 "kvlab: closing client %s: %zu bytes of unread replies (in %zu bytes of "
                 "buffers) are over the client-output-buffer-limit\n",
                 peer_address_.c_str(), output_.pending(), output_.memory());
    worker_->stats().output_buffer_closes.fetch_add(1, std::memory_order_relaxed);
    Close();
    return false;
  }
  // Evicted by a client of another worker: go now, before adding more.
  if (evicting_.load(std::memory_order_relaxed)) {
    Close();
    return false;
  }
  return AccountMemory(/*arguments=*/false);
}

bool Connection::OverOutputLimit() {
  const size_t used = output_.memory();
  const uint64_t hard = server_->output_buffer_limit();
  if (hard != 0 && used >= hard) return true;
  const uint64_t soft = server_->output_buffer_soft_limit();
  if (soft == 0 || used < soft) {
    soft_limit_since_.reset();
    return false;
  }
  const auto now = std::chrono::steady_clock::now();
  if (!soft_limit_since_) {
    soft_limit_since_ = now;  // the first time: the seconds start counting
    return false;
  }
  return now - *soft_limit_since_ > std::chrono::seconds(server_->output_buffer_soft_seconds());
}

bool Connection::Flush() {
  while (!output_.empty()) {
    const ssize_t n = output_.SendTo(fd_);
    if (n > 0) {
      worker_->stats().net_output_bytes.fetch_add(static_cast<uint64_t>(n),
                                                  std::memory_order_relaxed);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!writing_) {
        event_add(write_event_, nullptr);
        writing_ = true;
      }
      return true;
    }
    Close();
    return false;
  }
  if (writing_) {
    event_del(write_event_);
    writing_ = false;
  }
  if (close_after_reply_) {
    Close();
    return false;
  }
  return true;
}

void Connection::StopReading() {
  if (!reading_) return;
  event_del(read_event_);
  reading_ = false;
}

void Connection::StartReading() {
  // Not once the connection is closing (QUIT, a protocol error, the server stopping).
  if (reading_ || close_after_reply_) return;
  if (event_add(read_event_, nullptr) == 0) reading_ = true;
}

void Connection::BeginClose() {
  close_after_reply_ = true;
  StopReading();
  Flush();
}

void Connection::Close() { worker_->Destroy(this); }

void Connection::Publish(const std::vector<std::string>* command) {
  std::lock_guard lock(snapshot_mu_);
  if (command != nullptr) snapshot_.command = CommandName(*engine_, *command);
  if (snapshot_.name != session_.name) snapshot_.name = session_.name;
  snapshot_.db = session_.db;
  snapshot_.resp = session_.resp;
  snapshot_.last_interaction = std::chrono::steady_clock::now();
  snapshot_.qbuf = parser_.buffered();
  snapshot_.qbuf_free = parser_.free_space();
  snapshot_.output_memory = output_.memory();
  snapshot_.output_blocks = output_.blocks();
  snapshot_.total_memory = memory();
  snapshot_.writing = writing_;
}

std::string Connection::Describe() const {
  std::lock_guard lock(snapshot_mu_);
  const auto now = std::chrono::steady_clock::now();
  const auto seconds = [&](std::chrono::steady_clock::time_point since) {
    return static_cast<long long>(
        std::chrono::duration_cast<std::chrono::seconds>(now - since).count());
  };
  const size_t qbuf_total = snapshot_.qbuf + snapshot_.qbuf_free;
  char line[512];
  std::snprintf(line, sizeof(line),
                " age=%lld idle=%lld flags=%s db=%d sub=0 psub=0 ssub=0 multi=-1 qbuf=%zu "
                "qbuf-free=%zu argv-mem=0 multi-mem=0 rbs=%zu rbp=%zu obl=0 oll=%zu omem=%zu "
                "tot-mem=%zu events=%s cmd=",
                seconds(created_), seconds(snapshot_.last_interaction),
                no_evict_.load() ? "e" : "N",  // Redis's CLIENT_NO_EVICT letter
                snapshot_.db, snapshot_.qbuf, snapshot_.qbuf_free, qbuf_total, qbuf_total,
                snapshot_.output_blocks, snapshot_.output_memory, snapshot_.total_memory,
                snapshot_.writing ? "rw" : "r");
  return "id=" + std::to_string(session_.id) + " addr=" + peer_address_ +
         " laddr=" + local_address_ + " fd=" + std::to_string(fd_) + " name=" + snapshot_.name +
         line + snapshot_.command + " user=default redir=-1 resp=" + std::to_string(snapshot_.resp);
}

std::string Connection::ListClients(const std::vector<uint64_t>* ids) {
  // This runs inside the current command: argv_ is that command (CLIENT INFO shows
  // cmd=client|info, as Redis does).
  Publish(&argv_);
  return server_->ListClients(ids);
}

bool Connection::Block(engine::BlockRequest request) {
  block_request_ = std::move(request);
  return true;
}

bool Connection::UnblockClient(uint64_t id, bool with_error) {
  const Reply error = Reply::Error("UNBLOCKED client unblocked via CLIENT UNBLOCK");
  return server_->blocked().Unblock(id, with_error ? &error : nullptr);
}

void Connection::KeysReady(uint8_t db, const std::vector<std::string>& keys) {
  server_->blocked().KeysReady(db, keys);
}

void Connection::StartBlocking(const std::vector<std::string>& argv) {
  engine::BlockRequest request = std::move(*block_request_);
  block_request_.reset();  // before Add: from then on retries on other threads set it
  auto waiter = std::make_shared<Waiter>();
  waiter->client_id = session_.id;
  waiter->db = session_.db;
  for (std::string& key : request.keys) {
    if (std::find(waiter->keys.begin(), waiter->keys.end(), key) == waiter->keys.end()) {
      waiter->keys.push_back(std::move(key));
    }
  }
  waiter->connection = this;
  waiter->timeout_reply = std::move(request.timeout_reply);
  // A retry runs on whichever thread drains the ready keys, while this connection's worker
  // runs nothing for it (it is blocked): it alone uses the session then.
  waiter->retry = [this, argv](Reply* reply) {
    session_.retrying_block = true;  // a key of another type is not ready (LoadWaitedKey)
    *reply = engine_->Execute(session_, argv);
    session_.retrying_block = false;
    if (!block_request_) return true;
    block_request_.reset();  // still nothing to serve: keep waiting
    return false;
  };
  Worker* worker = worker_;
  waiter->deliver = [worker](std::shared_ptr<Waiter> self, Reply reply) {
    // `connection` is cleared on this worker's thread when the client unblocks or closes, so
    // the task, on the same thread, never reaches a closed connection.
    worker->Post([self = std::move(self), reply = std::move(reply)]() mutable {
      if (self->connection != nullptr) self->connection->Unblock(std::move(reply));
    });
  };
  waiter_ = waiter;
  if (request.deadline_ms != 0) {
    if (block_timer_ == nullptr) block_timer_ = evtimer_new(worker_->base(), &OnBlockTimeout, this);
    const int64_t now = engine_->clock().NowMillis();
    const int64_t left = std::max<int64_t>(request.deadline_ms - now, 0);
    const timeval tv = {static_cast<time_t>(left / 1000),
                        static_cast<suseconds_t>((left % 1000) * 1000)};
    evtimer_add(block_timer_, &tv);
  }
  server_->blocked().Add(waiter);
}

void Connection::OnBlockTimeout(int, short, void* arg) {
  auto* self = static_cast<Connection*>(arg);
  if (self->waiter_ == nullptr) return;
  // False: a retry served the client just now, and its reply is on its way.
  if (self->server_->blocked().Remove(self->waiter_.get())) {
    Reply reply = self->waiter_->timeout_reply;
    self->Unblock(std::move(reply));
  }
}

void Connection::Unblock(Reply reply) {
  if (waiter_ == nullptr) return;
  waiter_->connection = nullptr;
  waiter_.reset();
  if (block_timer_ != nullptr) evtimer_del(block_timer_);
  if (AppendReply(reply)) Turn();
}

Status Connection::RequestShutdown() {
  shutdown_requested_ = true;
  server_->RequestShutdown();
  return Status::OK();
}

void Connection::AppendInfo(std::string_view section, std::string* out) {
  server_->AppendInfo(section, out);
}

bool Connection::Migrate(const redis::MigrateTransfer& transfer, redis::MigrateOutcome* outcome) {
  *outcome = server_->migrate_sockets().Transfer(transfer);
  return true;
}

}  // namespace kvlab::server
