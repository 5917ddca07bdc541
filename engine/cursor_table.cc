#include "engine/cursor_table.h"

#include <random>

namespace kvlab::engine {
namespace {

constexpr int kSeqBits = 47;
constexpr uint64_t kSeqMask = (uint64_t{1} << kSeqBits) - 1;

uint64_t RandomEpoch() {
  std::random_device rd;
  const uint64_t e = (static_cast<uint64_t>(rd()) ^ (static_cast<uint64_t>(rd()) << 16)) & 0xffff;
  return e == 0 ? 1 : e;
}

}  // namespace

CursorTable::CursorTable(CursorLimits limits) : limits_(limits), epoch_(RandomEpoch()) {}

Status CursorTable::Issue(uint64_t owner, std::string position, uint64_t* cursor) {
  const size_t cost = Cost(position);
  if (cost > limits_.max_bytes) {
    return Status::InvalidArgument(
        "cannot keep a cursor position of " + std::to_string(position.size()) +
        " bytes: the cursor memory limit is " + std::to_string(limits_.max_bytes) + " bytes");
  }
  std::lock_guard lock(mu_);
  while (!entries_.empty() &&
         (entries_.size() + 1 > limits_.max_cursors || bytes_ + cost > limits_.max_bytes)) {
    EvictOne();
  }
  const uint64_t seq = next_seq_;
  next_seq_ = next_seq_ == kSeqMask ? 1 : next_seq_ + 1;
  const uint64_t id = (epoch_ << kSeqBits) | seq;
  // After 2^47 cursors the numbers wrap: an entry still holding this id is replaced.
  if (auto old = entries_.find(id); old != entries_.end()) {
    Owner& o = owners_[old->second.owner];
    by_usage_.erase({o.bytes, old->second.owner});
    o.bytes -= Cost(old->second.position);
    bytes_ -= Cost(old->second.position);
    std::erase(o.ids, id);
    if (o.ids.empty()) {
      owners_.erase(old->second.owner);
    } else {
      by_usage_.insert({o.bytes, old->second.owner});
    }
    entries_.erase(old);
  }
  Owner& o = owners_[owner];
  by_usage_.erase({o.bytes, owner});
  o.ids.push_back(id);
  o.bytes += cost;
  by_usage_.insert({o.bytes, owner});
  bytes_ += cost;
  entries_.emplace(id, Entry{owner, std::move(position)});
  *cursor = id;
  return Status::OK();
}

void CursorTable::EvictOne() {
  const uint64_t owner = by_usage_.rbegin()->second;
  Owner& o = owners_[owner];
  by_usage_.erase({o.bytes, owner});
  const uint64_t id = o.ids.front();
  o.ids.pop_front();
  auto it = entries_.find(id);
  const size_t cost = Cost(it->second.position);
  o.bytes -= cost;
  bytes_ -= cost;
  entries_.erase(it);
  ++evicted_;
  if (o.ids.empty()) {
    owners_.erase(owner);
  } else {
    by_usage_.insert({o.bytes, owner});
  }
}

CursorTable::Found CursorTable::Lookup(uint64_t cursor, std::string* position) const {
  const uint64_t seq = cursor & kSeqMask;
  if ((cursor >> kSeqBits) != epoch_ || seq == 0) return Found::kUnknown;
  std::lock_guard lock(mu_);
  auto it = entries_.find(cursor);
  if (it != entries_.end()) {
    *position = it->second.position;
    return Found::kPosition;
  }
  return seq < next_seq_ ? Found::kExpired : Found::kUnknown;
}

size_t CursorTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

size_t CursorTable::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

uint64_t CursorTable::evicted() const {
  std::lock_guard lock(mu_);
  return evicted_;
}

}  // namespace kvlab::engine
