// TraceRecorder: what `kvlab serve --record FILE` records with (docs/traces.md, "Recording").
//
// The server's worker threads call Record() for every command they are about to run. A call
// decides sampling, anonymizes and encodes the command outside any lock, then appends the
// encoded bytes to the open block under a mutex held only for that append; a full block goes to
// a writer thread, which writes it to the file. So the server's threads never wait on the disk,
// only on a memcpy.
//
// Sampling is per client: a client is recorded whole or not at all, chosen by a hash of its
// id, so a sampled client's transactions (MULTI ... EXEC), SELECTs and reads of its own writes
// stay intact. The order of commands in the file is the order in which the workers took the
// recorder's mutex: for one client, its order; across clients running on the same key at the
// same time, the order may differ from the one the engine's key locks imposed.
//
// The size bound: when the file would pass max_bytes, recording stops (the trace stays valid,
// its end record says why and how many commands went unrecorded) and `log` says so once.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "traces/anonymizer.h"
#include "traces/trace_format.h"

namespace kvlab::traces {

struct RecorderOptions {
  std::string path;
  double sample = 1;       // the share of clients recorded, in (0, 1]
  uint64_t max_bytes = 0;  // 0: no bound
  bool anonymize = false;
  std::string context;                          // extra "key: value" lines for the header
  std::function<void(const std::string&)> log;  // one line, no newline; may be null
};

class TraceRecorder {
 public:
  // Creates the file and starts the writer thread.
  static Status Open(RecorderOptions options, std::unique_ptr<TraceRecorder>* out);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  // Records one command of client `client` (the server's client id) in database `db`.
  // Thread-safe.
  void Record(uint64_t client, uint32_t db, const std::vector<std::string>& argv);
  // Whether a client is in the sample.
  bool Sampled(uint64_t client) const;

  // Writes what is buffered and the end record, stops the writer thread. The first write error
  // (also one met while recording) is returned. Called once; the destructor calls it when not.
  Status Close();

  uint64_t recorded() const;

 private:
  explicit TraceRecorder(RecorderOptions options);
  void WriterLoop();

  const RecorderOptions options_;
  std::optional<Anonymizer> anonymizer_;
  const uint64_t start_us_;  // steady-clock microseconds at the start

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string block_;  // encoded commands (time delta + body) not yet handed to the writer
  uint64_t block_commands_ = 0;
  std::deque<std::pair<std::string, uint64_t>> queue_;  // blocks for the writer thread
  uint64_t last_us_ = 0;
  uint64_t recorded_ = 0;
  uint64_t bytes_ = 0;       // what the file will hold once the queue is written
  uint64_t unrecorded_ = 0;  // after the size bound stopped recording
  bool stopped_ = false;     // the size bound was reached
  bool closing_ = false;
  bool closed_ = false;
  Status write_error_;

  TraceWriter writer_;  // the writer thread's, and Close's after it has stopped
  std::thread thread_;
};

}  // namespace kvlab::traces
