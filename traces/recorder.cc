#include "traces/recorder.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace kvlab::traces {
namespace {

uint64_t SteadyMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint64_t UnixMicros() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

// SplitMix64's finalizer: spreads consecutive client ids over the whole range.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

TraceRecorder::TraceRecorder(RecorderOptions options)
    : options_(std::move(options)), start_us_(SteadyMicros()) {
  if (options_.anonymize) anonymizer_.emplace();
}

Status TraceRecorder::Open(RecorderOptions options, std::unique_ptr<TraceRecorder>* out) {
  if (!(options.sample > 0 && options.sample <= 1)) {
    return Status::InvalidArgument("--record-sample: a share of clients in (0, 1]");
  }
  std::unique_ptr<TraceRecorder> r(new TraceRecorder(std::move(options)));
  TraceHeader header;
  header.start_unix_us = UnixMicros();
  header.flags = r->options_.anonymize ? kTraceAnonymized : 0;
  char sample[32];
  std::snprintf(sample, sizeof(sample), "%g", r->options_.sample);
  header.context = "recorded-by: kvlab serve --record\nsample: " + std::string(sample) +
                   " of clients (per client)\n";
  if (r->options_.max_bytes > 0) {
    header.context += "max-bytes: " + std::to_string(r->options_.max_bytes) + "\n";
  }
  if (r->options_.anonymize) header.context += "anonymized: yes\n";
  header.context += r->options_.context;
  KVLAB_RETURN_IF_ERROR(r->writer_.Open(r->options_.path, header));
  r->bytes_ = r->writer_.bytes() + 1 + 30 + 4;  // the header and the end record to come
  r->thread_ = std::thread([p = r.get()] { p->WriterLoop(); });
  *out = std::move(r);
  return Status::OK();
}

TraceRecorder::~TraceRecorder() {
  Close().IgnoreError();  // a caller that cares closes first and reads the Status
}

bool TraceRecorder::Sampled(uint64_t client) const {
  if (options_.sample >= 1) return true;
  // The top 53 bits of the mixed id as a fraction in [0, 1).
  const double u = static_cast<double>(Mix(client) >> 11) * 0x1.0p-53;
  return u < options_.sample;
}

void TraceRecorder::Record(uint64_t client, uint32_t db, const std::vector<std::string>& argv) {
  if (argv.empty() || !Sampled(client)) return;
  // Outside the lock: anonymize and encode.
  std::string body;
  if (anonymizer_) {
    std::vector<std::string> copy = argv;
    std::vector<ArgKind> kinds;
    anonymizer_->Apply(&copy, &kinds);
    EncodeCommandBody(client, db, copy, kinds, &body);
  } else {
    EncodeCommandBody(client, db, argv, {}, &body);
  }
  const uint64_t now = SteadyMicros() - start_us_;
  std::lock_guard<std::mutex> lock(mu_);
  if (closing_) return;
  if (stopped_) {
    ++unrecorded_;
    return;
  }
  const uint64_t t = std::max(now, last_us_);
  std::string delta;
  PutVarint(t - last_us_, &delta);
  const uint64_t grows =
      delta.size() + body.size() + (block_commands_ == 0 ? TraceWriter::kBlockOverhead : 0);
  if (options_.max_bytes > 0 && bytes_ + grows > options_.max_bytes) {
    stopped_ = true;
    ++unrecorded_;
    if (options_.log) {
      options_.log("--record: stopped recording at " + std::to_string(bytes_) + " bytes after " +
                   std::to_string(recorded_) + " commands (--record-max-bytes " +
                   std::to_string(options_.max_bytes) + "); the trace stays valid");
    }
    return;
  }
  last_us_ = t;
  bytes_ += grows;
  block_ += delta;
  block_ += body;
  ++block_commands_;
  ++recorded_;
  if (block_.size() >= TraceWriter::kBlockBytes) {
    queue_.emplace_back(std::move(block_), block_commands_);
    block_.clear();
    block_commands_ = 0;
    cv_.notify_one();
  }
}

void TraceRecorder::WriterLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;  // closing, and everything is written
    auto [payload, commands] = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Status s = writer_.AddBlock(payload, commands);
    lock.lock();
    if (!s.ok() && write_error_.ok()) {
      write_error_ = s;
      if (options_.log) options_.log("--record: " + s.message() + "; recording stops");
      stopped_ = true;
    }
  }
}

Status TraceRecorder::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return write_error_;
    closed_ = true;
    if (block_commands_ > 0) queue_.emplace_back(std::move(block_), block_commands_);
    block_.clear();
    block_commands_ = 0;
    closing_ = true;
    cv_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  Status s =
      writer_.Close(stopped_ && write_error_.ok() ? kTraceStoppedAtSizeBound : 0, unrecorded_);
  if (write_error_.ok() && !s.ok()) write_error_ = s;
  return write_error_;
}

uint64_t TraceRecorder::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

}  // namespace kvlab::traces
