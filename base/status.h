// Status: the one error type of kvlab, from the backends up to the engine.
//
// A Status is either OK or carries a code and a human-readable message. Functions that can fail
// return a Status; values come back through out-parameters. The message of a backend error
// always names the backend ("rocksdb: ...") so that a user can tell which layer failed.
//
// The codes are kvlab's own: no backend's error type crosses the KV interface. A Status must not
// be dropped silently ([[nodiscard]]); see IgnoreError().
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace kvlab {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound,         // the key or object does not exist (not an error for Get)
    kInvalidArgument,  // the caller passed something the callee cannot accept
    kCorruption,       // stored bytes do not decode
    kIOError,          // the operating system or the storage engine failed
    kBusy,             // the resource is held by another process (a lock)
    kNotSupported,     // the backend lacks the capability (e.g. reverse scan)
    kUnavailable,      // a remote tier (a Redis server) cannot be reached
    kAborted,          // stopped on request before the work was done
    kNoSpace,          // the store's disk is full (or at its reserve): writes are refused
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status NotFound(std::string msg = "") { return Status(Code::kNotFound, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  static Status NotSupported(std::string msg) {
    return Status(Code::kNotSupported, std::move(msg));
  }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status Aborted(std::string msg) { return Status(Code::kAborted, std::move(msg)); }
  static Status NoSpace(std::string msg) { return Status(Code::kNoSpace, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsNotSupported() const { return code_ == Code::kNotSupported; }
  bool IsUnavailable() const { return code_ == Code::kUnavailable; }
  bool IsAborted() const { return code_ == Code::kAborted; }
  bool IsNoSpace() const { return code_ == Code::kNoSpace; }

  Code code() const { return code_; }
  const std::string& message() const { return msg_; }

  // "OK", or "<code name>: <message>".
  std::string ToString() const;

  // Status is [[nodiscard]]: a caller handles it, or says with this call (and a comment why)
  // that ignoring it is right, e.g. best-effort cleanup whose failure changes nothing.
  void IgnoreError() const {}

 private:
  Status(Code code, std::string msg) : code_(code), msg_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string msg_;
};

}  // namespace kvlab

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define KVLAB_RETURN_IF_ERROR(expr)      \
  do {                                   \
    ::kvlab::Status _kvlab_s = (expr);   \
    if (!_kvlab_s.ok()) return _kvlab_s; \
  } while (0)
