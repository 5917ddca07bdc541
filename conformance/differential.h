// Running one command stream against two targets and comparing every reply.
//
// A target is anything that answers Redis commands: a real redis-server (through hiredis), the
// engine in-process, or `kvlab serve` end to end. The reference is always the real Redis.
#pragma once

#include <string>
#include <vector>

#include "conformance/case_file.h"
#include "conformance/compare.h"
#include "engine/engine.h"
#include "redis/client.h"
#include "redis/reply.h"

namespace kvlab {

class ReplyTarget {
 public:
  virtual ~ReplyTarget() = default;
  virtual std::string name() const = 0;
  virtual Reply Execute(const std::vector<std::string>& argv) = 0;
};

// The engine, in-process, through one session.
class EngineTarget final : public ReplyTarget {
 public:
  explicit EngineTarget(Engine* engine) : engine_(engine) {}
  std::string name() const override { return "kvlab"; }
  Reply Execute(const std::vector<std::string>& argv) override {
    return engine_->Execute(session_, argv);
  }

 private:
  Engine* engine_;
  Session session_;
};

// A redis-server (or `kvlab serve`) over one connection. A transport failure becomes an error
// reply that names it, so that it shows as a mismatch rather than passing silently.
class RedisTarget final : public ReplyTarget {
 public:
  RedisTarget(std::string name, RedisClient* client) : name_(std::move(name)), client_(client) {}
  std::string name() const override { return name_; }
  Reply Execute(const std::vector<std::string>& argv) override;

 private:
  std::string name_;
  RedisClient* client_;
};

struct Mismatch {
  std::string case_name;
  int line = 0;
  std::vector<std::string> argv;
  std::string explanation;
  Reply redis;  // what the reference replied
  Reply kvlab;  // what the subject replied
};

struct CaseOutcome {
  std::string name;
  size_t commands = 0;
  std::vector<Mismatch> mismatches;
};

// Runs a case on a fresh keyspace (FLUSHALL and SELECT 0 on both sides first). SCAN-family
// commands are run as whole iterations on each side and compared as sets.
CaseOutcome RunCase(const CaseFile& c, ReplyTarget& reference, ReplyTarget& subject,
                    const CompareOptions& options);

}  // namespace kvlab
