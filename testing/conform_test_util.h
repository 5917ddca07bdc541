// Test-only targets for the conformance tests: a fault-injecting wrapper (the honesty
// self-test), a counting wrapper, a fake Redis-tier control, and an engine subject whose
// target is wrapped. Never linked into kvlab.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/registry.h"
#include "conformance/differential.h"
#include "conformance/subjects.h"
#include "engine/engine.h"

namespace kvlab::testing {

// Alters chosen replies of the target it wraps: `alter` sees every command (with its 0-based
// position among the commands sent) and the true reply, and returns the reply to hand back.
class FaultInjectingTarget final : public conformance::ReplyTarget {
 public:
  using Alter = std::function<resp::Reply(size_t position, const std::vector<std::string>& argv,
                                          resp::Reply reply)>;
  FaultInjectingTarget(conformance::ReplyTarget* inner, Alter alter)
      : inner_(inner), alter_(std::move(alter)) {}
  std::string name() const override { return inner_->name() + "+faults"; }
  resp::Reply Execute(const std::vector<std::string>& argv) override {
    return alter_(position_++, argv, inner_->Execute(argv));
  }
  std::string TakeTransportFailure() override { return inner_->TakeTransportFailure(); }

 private:
  conformance::ReplyTarget* inner_;
  Alter alter_;
  size_t position_ = 0;
};

// A reply that differs from `r` in a way no comparison rule can forgive: an integer plus 1,
// a bulk string with a byte appended, an array with an element appended, an error with other
// text, a status or nil turned into a bulk.
inline resp::Reply Corrupt(const resp::Reply& r) {
  switch (r.type()) {
    case resp::Reply::Type::kInteger:
      return resp::Reply::Integer(r.integer() + 1);
    case resp::Reply::Type::kBulk:
      return resp::Reply::Bulk(r.str() + "!");
    case resp::Reply::Type::kArray: {
      std::vector<resp::Reply> e = r.elements();
      e.push_back(resp::Reply::Bulk("injected"));
      return resp::Reply::Array(std::move(e));
    }
    case resp::Reply::Type::kError:
      return resp::Reply::Error(r.str() + " (injected)");
    default:
      return resp::Reply::Bulk("injected");
  }
}

// Counts the commands sent through it, by lower-case name.
class CountingTarget final : public conformance::ReplyTarget {
 public:
  explicit CountingTarget(conformance::ReplyTarget* inner) : inner_(inner) {}
  std::string name() const override { return inner_->name(); }
  resp::Reply Execute(const std::vector<std::string>& argv) override {
    std::string cmd = argv[0];
    for (char& c : cmd) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ++counts_[cmd];
    return inner_->Execute(argv);
  }
  std::string TakeTransportFailure() override { return inner_->TakeTransportFailure(); }
  size_t count(const std::string& cmd) const {
    auto it = counts_.find(cmd);
    return it == counts_.end() ? 0 : it->second;
  }
  size_t total() const {
    size_t n = 0;
    for (const auto& [cmd, count] : counts_) n += count;
    return n;
  }

 private:
  conformance::ReplyTarget* inner_;
  std::map<std::string, size_t> counts_;
};

// A Redis-tier control that only counts, and fails when told to.
class FakeTierControl final : public conformance::RedisTierControl {
 public:
  Status FlushCache() override {
    ++flushes;
    return fail ? Status::Unavailable("cache redis down (fake)") : Status::OK();
  }
  int flushes = 0;
  bool fail = false;
};

// An engine over a fresh memory store, with its own session.
class EngineOnMemory {
 public:
  explicit EngineOnMemory(engine::EngineOptions options = {}) {
    backends::StoreSpec spec;
    Status s = backends::OpenStore(spec, &store_);
    if (!s.ok()) ADD_FAILURE() << s.ToString();
    engine_ = std::make_unique<engine::Engine>(store_->store(), options);
    target_ = std::make_unique<conformance::EngineReplyTarget>(engine_.get());
  }
  engine::Engine& engine() { return *engine_; }
  conformance::EngineReplyTarget& target() { return *target_; }

 private:
  std::unique_ptr<backends::OpenedStore> store_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<conformance::EngineReplyTarget> target_;
};

// An engine subject whose every session's target goes through a FaultInjectingTarget.
class FaultySubject final : public conformance::Subject {
 public:
  FaultySubject(std::unique_ptr<conformance::Subject> inner, FaultInjectingTarget::Alter alter)
      : inner_(std::move(inner)), alter_(std::move(alter)) {}
  std::string name() const override { return inner_->name() + "+faults"; }
  bool Serves(std::string_view command) const override { return inner_->Serves(command); }
  std::map<std::string, std::vector<std::string>> Versions() override { return inner_->Versions(); }
  bool UsesTier(const encodings::EncodingProfile& p) const override { return inner_->UsesTier(p); }
  Status Open(const conformance::Profile& profile,
              std::unique_ptr<conformance::SubjectSession>* out) override {
    std::unique_ptr<conformance::SubjectSession> inner;
    KVLAB_RETURN_IF_ERROR(inner_->Open(profile, &inner));
    *out = std::make_unique<Session>(std::move(inner), alter_);
    return Status::OK();
  }

 private:
  class Session final : public conformance::SubjectSession {
   public:
    Session(std::unique_ptr<conformance::SubjectSession> inner, FaultInjectingTarget::Alter alter)
        : inner_(std::move(inner)), faulty_(&inner_->target(), std::move(alter)) {}
    conformance::ReplyTarget& target() override { return faulty_; }
    conformance::RedisTierControl* tier_control() override { return inner_->tier_control(); }
    Status Reconnect() override { return inner_->Reconnect(); }

   private:
    std::unique_ptr<conformance::SubjectSession> inner_;
    FaultInjectingTarget faulty_;
  };

  std::unique_ptr<conformance::Subject> inner_;
  FaultInjectingTarget::Alter alter_;
};

}  // namespace kvlab::testing
