#include "server/blocked_clients.h"

#include <algorithm>
#include <set>

namespace kvlab::server {

void BlockedClients::Add(const std::shared_ptr<Waiter>& waiter) {
  std::unique_lock lock(mu_);
  ++blocked_;
  for (const std::string& key : waiter->keys) {
    waiting_[{waiter->db, key}].push_back(waiter);
    ready_.emplace_back(waiter->db, key);
  }
  if (!draining_) Drain(lock);
}

void BlockedClients::KeysReady(uint8_t db, const std::vector<std::string>& keys) {
  std::unique_lock lock(mu_);
  bool any = false;
  for (const std::string& key : keys) {
    Key k{db, key};
    if (waiting_.count(k) == 0) continue;  // nobody waits: the common case, one map lookup
    ready_.push_back(std::move(k));
    any = true;
  }
  if (any && !draining_) Drain(lock);
}

void BlockedClients::Drain(std::unique_lock<std::mutex>& lock) {
  draining_ = true;
  while (!ready_.empty()) {
    const Key key = std::move(ready_.front());
    ready_.pop_front();
    // Each waiter of the key in the order they blocked, until one cannot be served. The list
    // is read again after every retry: retries may add or remove waiters.
    while (true) {
      auto it = waiting_.find(key);
      if (it == waiting_.end()) break;
      std::shared_ptr<Waiter> next;
      for (const auto& w : it->second) {
        if (w->state == Waiter::State::kWaiting) {
          next = w;
          break;
        }
      }
      if (next == nullptr) break;
      next->state = Waiter::State::kServing;
      lock.unlock();
      resp::Reply reply;
      const bool served = next->retry(&reply);
      lock.lock();
      if (served) {
        Unlink(next.get());
        next->state = Waiter::State::kDone;
        next->deliver(next, std::move(reply));
      } else {
        next->state = Waiter::State::kWaiting;
      }
      served_cv_.notify_all();
      if (!served) break;
    }
  }
  draining_ = false;
}

void BlockedClients::Unlink(Waiter* waiter) {
  for (const std::string& key : waiter->keys) {
    auto it = waiting_.find({waiter->db, key});
    if (it == waiting_.end()) continue;
    auto& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const std::shared_ptr<Waiter>& w) { return w.get() == waiter; }),
               list.end());
    if (list.empty()) waiting_.erase(it);
  }
  --blocked_;
}

bool BlockedClients::Remove(Waiter* waiter) {
  std::unique_lock lock(mu_);
  served_cv_.wait(lock, [&] { return waiter->state != Waiter::State::kServing; });
  if (waiter->state == Waiter::State::kDone) return false;
  Unlink(waiter);
  waiter->state = Waiter::State::kDone;
  return true;
}

bool BlockedClients::Unblock(uint64_t client_id, const resp::Reply* reply) {
  std::unique_lock lock(mu_);
  std::shared_ptr<Waiter> found;
  for (const auto& [key, list] : waiting_) {
    for (const auto& w : list) {
      if (w->client_id == client_id) found = w;
    }
    if (found != nullptr) break;
  }
  if (found == nullptr) return false;
  served_cv_.wait(lock, [&] { return found->state != Waiter::State::kServing; });
  if (found->state == Waiter::State::kDone) return false;
  Unlink(found.get());
  found->state = Waiter::State::kDone;
  resp::Reply out = reply != nullptr ? *reply : found->timeout_reply;
  found->deliver(found, std::move(out));
  return true;
}

size_t BlockedClients::blocked() const {
  std::lock_guard lock(mu_);
  return blocked_;
}

}  // namespace kvlab::server
