#include "engine/compaction_policy.h"

#include <string>
#include <vector>

#include "encodings/key_meta.h"

namespace kvlab::engine {

using encodings::KeyMeta;
using encodings::SubKeyTag;

KeyMetaCompactionPolicy::KeyMetaCompactionPolicy(CompactionPolicyOptions options)
    : options_(std::move(options)), codec_(options_.keys) {}

CompactionDrops KeyMetaCompactionPolicy::drops() const {
  return {examined_.load(std::memory_order_relaxed),
          dropped_sub_keys_.load(std::memory_order_relaxed),
          dropped_metas_.load(std::memory_order_relaxed)};
}

// One compaction's dropper. Sub-keys of one key are adjacent in a compaction's input, so the
// last key-meta read is kept: a key's sub-keys cost one meta read per compaction, not one each.
class MetaCheckingDropper final : public backends::RecordDropper {
 public:
  explicit MetaCheckingDropper(const KeyMetaCompactionPolicy* policy)
      : policy_(policy),
        store_(policy->store_.load(std::memory_order_acquire)),
        clock_(policy->options_.clock != nullptr ? policy->options_.clock : &policy->system_clock_),
        lazy_tags_(policy->options_.registry->LazySubKeyTags()) {}

  bool Drop(std::string_view key, std::string_view value) override {
    if (store_ == nullptr || key.size() < 2 || key[1] != '#') return false;
    policy_->examined_.fetch_add(1, std::memory_order_relaxed);
    // Expired more than the grace period ago: judged against a clock set back by it.
    const int64_t judged_at = clock_->NowMillis() - policy_->options_.grace_ms;
    if (key[0] == 'm') {
      KeyMeta meta;
      if (!KeyMeta::Decode(value, *policy_->options_.registry, &meta).ok()) return false;
      // An Ardb key's records have no key-version to orphan them by: they must go with the
      // meta (the reap deletes both), so its meta is left to the reap.
      if (!meta.ExpiredAt(judged_at) || meta.ardb_layout()) return false;
      policy_->dropped_metas_.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
    SubKeyTag tag{};
    bool lazy = false;
    for (SubKeyTag t : lazy_tags_) {
      if (static_cast<char>(t) == key[0]) {
        tag = t;
        lazy = true;
      }
    }
    // The database byte follows the tag and the namespace prefix (key_codec.h).
    const size_t db_at = 2 + policy_->options_.keys.ns_prefix.size();
    if (!lazy || key.size() <= db_at) return false;
    const auto db = static_cast<uint8_t>(key[db_at]);
    std::string owner;
    uint64_t version = 0;
    size_t prefix_bytes = 0;
    if (!policy_->codec_.DecodeSubKey(tag, db, key, &owner, &version, &prefix_bytes)) return false;
    std::string meta_key = policy_->codec_.MetaKey(db, owner);
    if (meta_key != cached_meta_key_) {
      cached_meta_key_.clear();
      std::string bytes;
      const Status s = store_->Get(meta_key, &bytes);
      if (s.IsNotFound()) {
        cached_state_ = State::kAbsent;
      } else if (!s.ok() ||
                 !KeyMeta::Decode(bytes, *policy_->options_.registry, &cached_meta_).ok()) {
        return false;  // not judged: kept, and not cached
      } else {
        cached_state_ = State::kPresent;
      }
      cached_meta_key_ = std::move(meta_key);
    }
    const bool garbage = cached_state_ == State::kAbsent || cached_meta_.key_version != version ||
                         cached_meta_.ExpiredAt(judged_at);
    if (garbage) policy_->dropped_sub_keys_.fetch_add(1, std::memory_order_relaxed);
    return garbage;
  }

 private:
  enum class State { kAbsent, kPresent };

  const KeyMetaCompactionPolicy* const policy_;
  backends::KvStore* const store_;
  const encodings::Clock* const clock_;
  const std::vector<SubKeyTag> lazy_tags_;
  std::string cached_meta_key_;  // empty: nothing cached
  State cached_state_ = State::kAbsent;
  KeyMeta cached_meta_;
};

std::unique_ptr<backends::RecordDropper> KeyMetaCompactionPolicy::NewDropper() const {
  return std::make_unique<MetaCheckingDropper>(this);
}

}  // namespace kvlab::engine
