#include "server/worker.h"

#include <event2/event.h>
#include <malloc.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "server/connection.h"
#include "server/server.h"

namespace kvlab::server {

namespace {

// A connection that held this much returns its memory to the system when it closes.
constexpr uint64_t kReturnMemoryAfterBytes = 1 << 20;

}  // namespace

Worker::Worker(Server* server, int index) : server_(server), index_(index) {}

Worker::~Worker() {
  // Connections first: they free their events on this base.
  connections_.clear();
  for (const Pending& p : inbox_) {
    ::close(p.fd);
    server_->OnConnectionClosed();
  }
  if (drain_timer_ != nullptr) event_free(drain_timer_);
  if (wake_event_ != nullptr) event_free(wake_event_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (base_ != nullptr) event_base_free(base_);
}

Status Worker::Init() {
  base_ = event_base_new();
  if (base_ == nullptr) return Status::IOError("cannot create an event base");
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return Status::IOError("cannot create an eventfd");
  wake_event_ = event_new(base_, wake_fd_, EV_READ | EV_PERSIST, &OnWake, this);
  drain_timer_ = evtimer_new(base_, &OnDrainTimeout, this);
  if (wake_event_ == nullptr || drain_timer_ == nullptr || event_add(wake_event_, nullptr) != 0) {
    return Status::IOError("cannot create the events of worker " + std::to_string(index_));
  }
  return Status::OK();
}

void Worker::Start() {
  thread_ = std::thread([this] { event_base_dispatch(base_); });
}

void Worker::Join() {
  if (thread_.joinable()) thread_.join();
}

void Worker::Adopt(int fd, std::string peer_address, std::string local_address, bool unix_socket) {
  {
    std::lock_guard lock(mu_);
    if (!stop_requested_) {
      inbox_.push_back({fd, std::move(peer_address), std::move(local_address), unix_socket});
      fd = -1;
    }
  }
  if (fd >= 0) {
    ::close(fd);
    server_->OnConnectionClosed();
    return;
  }
  const uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) {
    // The counter only overflows after 2^64 - 2 wake-ups; the worker is awake anyway.
  }
}

void Worker::Evict(uint64_t id) {
  {
    std::lock_guard lock(mu_);
    evictions_.push_back(id);
  }
  const uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) {
    // See Adopt.
  }
}

void Worker::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  const uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) {
    // See Adopt.
  }
}

void Worker::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_requested_ = true;
  }
  const uint64_t one = 1;
  if (::write(wake_fd_, &one, sizeof(one)) < 0) {
    // See Adopt.
  }
}

void Worker::CloseEvicted(const Connection* running) {
  std::vector<uint64_t> evictions;
  {
    std::lock_guard lock(mu_);
    evictions.swap(evictions_);
    const auto self = std::find(evictions.begin(), evictions.end(), running->id());
    if (self != evictions.end()) {
      evictions_.push_back(running->id());
      evictions.erase(self);
    }
  }
  CloseAll(evictions);
}

void Worker::CloseAll(const std::vector<uint64_t>& ids) {
  for (uint64_t id : ids) {
    for (auto& [raw, owned] : connections_) {
      if (raw->id() == id) {
        raw->Close();  // erases it from connections_: stop looking
        break;
      }
    }
  }
}

void Worker::OnWake(int fd, short, void* arg) {
  uint64_t count = 0;
  if (::read(fd, &count, sizeof(count)) < 0) {
    // EAGAIN: another wake-up already drained the counter; the inbox is checked regardless.
  }
  static_cast<Worker*>(arg)->HandleInbox();
}

void Worker::HandleInbox() {
  std::vector<Pending> pending;
  std::vector<uint64_t> evictions;
  std::vector<std::function<void()>> tasks;
  bool stop = false;
  {
    std::lock_guard lock(mu_);
    pending.swap(inbox_);
    evictions.swap(evictions_);
    tasks.swap(tasks_);
    stop = stop_requested_;
  }
  for (auto& task : tasks) task();
  CloseAll(evictions);
  for (Pending& p : pending) {
    auto connection = std::make_unique<Connection>(this, p.fd, std::move(p.peer_address),
                                                   std::move(p.local_address), p.unix_socket);
    Connection* raw = connection.get();
    connections_.emplace(raw, std::move(connection));
    if (!raw->Start()) {
      std::fprintf(stderr, "kvlab: worker %d cannot start a connection\n", index_);
      Destroy(raw);
    }
  }
  if (stop && !stopping_) BeginStop();
}

void Worker::BeginStop() {
  stopping_ = true;
  // Every command this worker started has finished: commands run inside read callbacks, and
  // this is one too. What is left is writing their replies.
  std::vector<Connection*> open;
  for (auto& [raw, owned] : connections_) open.push_back(raw);
  for (Connection* c : open) c->BeginClose();  // may destroy c
  if (connections_.empty()) {
    ExitIfIdle();
    return;
  }
  const timeval drain = {static_cast<time_t>(Server::kDrainTimeout.count() / 1000),
                         static_cast<suseconds_t>((Server::kDrainTimeout.count() % 1000) * 1000)};
  evtimer_add(drain_timer_, &drain);
}

void Worker::OnDrainTimeout(int, short, void* arg) {
  Worker* self = static_cast<Worker*>(arg);
  std::fprintf(stderr, "kvlab: closing %zu connections that did not read their last replies\n",
               self->connections_.size());
  std::vector<Connection*> open;
  for (auto& [raw, owned] : self->connections_) open.push_back(raw);
  for (Connection* c : open) c->Close();
}

void Worker::Destroy(Connection* connection) {
  const uint64_t held = connection->memory();
  connections_.erase(connection);
  // The buffers of a big client (one evicted, or closed at its output limit) go back to the
  // system now. Without this, glibc keeps them in this thread's arena, where only this worker
  // reuses them: the client that replaces it on another worker allocates its own, and the
  // process holds both, up to twice what maxmemory-clients allows.
  if (held >= kReturnMemoryAfterBytes) malloc_trim(0);
  if (stopping_) ExitIfIdle();
}

void Worker::ExitIfIdle() {
  if (connections_.empty()) event_base_loopbreak(base_);
}

}  // namespace kvlab::server
