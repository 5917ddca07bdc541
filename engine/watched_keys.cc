#include "engine/watched_keys.h"

#include <algorithm>

namespace kvlab::engine {

std::string WatchedKeys::Id(uint8_t db, std::string_view key) {
  std::string id(1, static_cast<char>(db));
  id.append(key);
  return id;
}

void WatchedKeys::Watcher::Add(uint8_t db, std::string_view key, int64_t expire_ms) {
  std::string id = Id(db, key);
  for (const Key& k : keys_) {
    if (k.id == id) return;
  }
  {
    std::lock_guard lock(registry_->mu_);
    auto [it, inserted] = registry_->watchers_.try_emplace(id);
    it->second.push_back(this);
    if (inserted) registry_->watched_.fetch_add(1, std::memory_order_relaxed);
  }
  keys_.push_back({std::move(id), expire_ms});
}

void WatchedKeys::Watcher::Clear() {
  if (!keys_.empty()) {
    std::lock_guard lock(registry_->mu_);
    for (const Key& k : keys_) {
      auto it = registry_->watchers_.find(k.id);
      if (it == registry_->watchers_.end()) continue;
      auto& list = it->second;
      list.erase(std::remove(list.begin(), list.end(), this), list.end());
      if (list.empty()) {
        registry_->watchers_.erase(it);
        registry_->watched_.fetch_sub(1, std::memory_order_relaxed);
      }
    }
  }
  keys_.clear();
  modified_.store(false, std::memory_order_relaxed);
}

bool WatchedKeys::Watcher::Modified(int64_t now_ms) const {
  if (modified_.load(std::memory_order_acquire)) return true;
  return std::any_of(keys_.begin(), keys_.end(),
                     [now_ms](const Key& k) { return k.expire_ms >= 0 && now_ms > k.expire_ms; });
}

void WatchedKeys::Touch(uint8_t db, std::string_view key) {
  std::lock_guard lock(mu_);
  auto it = watchers_.find(Id(db, key));
  if (it == watchers_.end()) return;
  for (Watcher* w : it->second) w->modified_.store(true, std::memory_order_release);
}

std::vector<std::pair<uint8_t, std::string>> WatchedKeys::WatchedIn(int db) const {
  std::vector<std::pair<uint8_t, std::string>> out;
  std::lock_guard lock(mu_);
  for (const auto& [id, watchers] : watchers_) {
    const auto d = static_cast<uint8_t>(id[0]);
    if (db < 0 || d == db) out.emplace_back(d, id.substr(1));
  }
  return out;
}

}  // namespace kvlab::engine
