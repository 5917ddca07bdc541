#include "base/status.h"

namespace kvlab {

std::string Status::ToString() const {
  const char* name = "OK";
  switch (code_) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      name = "NotFound";
      break;
    case Code::kInvalidArgument:
      name = "InvalidArgument";
      break;
    case Code::kCorruption:
      name = "Corruption";
      break;
    case Code::kIOError:
      name = "IOError";
      break;
    case Code::kBusy:
      name = "Busy";
      break;
    case Code::kNotSupported:
      name = "NotSupported";
      break;
    case Code::kUnavailable:
      name = "Unavailable";
      break;
    case Code::kAborted:
      name = "Aborted";
      break;
    case Code::kNoSpace:
      name = "NoSpace";
      break;
  }
  if (msg_.empty()) return name;
  return std::string(name) + ": " + msg_;
}

}  // namespace kvlab
