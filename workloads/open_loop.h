// Open-loop load (`kvlab bench --rate N`), as wrk2 and memtier users expect, and pipelining
// (`--pipeline N`).
//
// Closed loop (the default) sends a client's next request when its previous reply arrives: a
// server that stalls for a second holds every client back, so the requests that would have
// been sent during the stall are never sent and their latency is never measured (coordinated
// omission, Gil Tene): the stall shows as one slow request. Open loop sends requests on a
// schedule, whatever the replies, and measures each request's latency from its *intended*
// start, the time the schedule gave it: a stalled server then delays every request due during
// the stall, and the percentiles show it, as they would for users arriving at that rate.
//
// - The schedule: `rate` operations per second in total, each of the phase's clients a share
//   of rate / clients at constant intervals (as wrk2), the clients staggered evenly over one
//   interval, starting when the recorded window starts. A client that falls behind (the target
//   was slower than the schedule) sends the requests it owes at once, one after the other,
//   until it is back on schedule; their latency counts from their intended start.
// - With a pipeline of P, the schedule is of batches of P operations (a batch every
//   P x clients / rate seconds per client); every command of a batch is sent before any reply
//   is read, and every operation of a batch has the batch's intended start.
// - Measured per command and per operation: the service time (from the request's actual send
//   to its reply: what a closed-loop run measures, CallStats::latency_ns) and the latency from
//   the intended start (CallStats::intended_ns: the service time plus how late the request was
//   sent). For the second command of a multi-command operation, its own service time plus its
//   operation's lateness.
// - The warm-up runs closed loop (it is not recorded). A phase bounded by its duration sends
//   the requests due before its end; the ones the client still owed at the end (it was behind)
//   are counted as unsent, never dropped silently.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace CLI {
class App;
}

namespace kvlab::workloads {

struct WorkloadRunResult;

struct OpenLoopOptions {
  double rate_per_s = 0;  // operations per second over all clients; 0: closed loop
  uint32_t pipeline = 1;  // operations sent together before their replies are read (>= 1)

  bool open() const { return rate_per_s > 0; }
  // Whether the runner takes the batched path (open loop or a pipeline) rather than the
  // closed loop of one command at a time.
  bool paced_or_pipelined() const { return open() || pipeline > 1; }
};

// What an open-loop (or pipelined) phase recorded beside its call statistics.
struct OpenLoopRecord {
  bool open = false;  // false: a closed-loop phase with a pipeline
  double rate_per_s = 0;
  uint32_t pipeline = 1;
  int clients = 1;
  uint64_t unsent = 0;       // requests due before the end that were not sent (behind schedule)
  uint64_t max_lag_ns = 0;   // the latest a batch was sent after its intended start
  uint64_t late_starts = 0;  // batches sent more than 1 ms after their intended start

  void Merge(const OpenLoopRecord& other);
};

// The intended start times of one client's batches: constant intervals.
class OpenLoopSchedule {
 public:
  using Clock = std::chrono::steady_clock;
  // REQUIRES: rate_per_s > 0, 0 <= client < clients, pipeline >= 1.
  OpenLoopSchedule(double rate_per_s, int client, int clients, uint32_t pipeline,
                   Clock::time_point start);
  // The intended start of batch k (0-based) of this client.
  Clock::time_point At(uint64_t k) const;
  // How many batches fall before `end` (the k with At(k) < end).
  uint64_t CountBefore(Clock::time_point end) const;
  // Seconds between two batches of this client.
  double interval_s() const { return interval_s_; }

 private:
  Clock::time_point start_;
  double offset_s_;
  double interval_s_;
};

// Sleeps until `t`, waking at least every 50 ms to look at *stop. Returns false when *stop was
// set (stop may be null).
bool SleepUntil(std::chrono::steady_clock::time_point t, const volatile std::sig_atomic_t* stop);

// One line describing the load model, for the terminal and the result: "open loop: 1,000
// ops/s in total over 4 clients (250 ops/s each, constant intervals), pipeline 1; latency is
// measured from each request's intended start (coordinated omission corrected, as wrk2), with
// the service time beside it". Empty for a closed loop of one command at a time.
std::string DescribeLoadModel(const OpenLoopOptions& options, int clients);

// What a finished open-loop cell says on its progress line: the run phases' achieved rate
// against the asked one, the p99 from the intended start and the service time's p99, and the
// unsent requests. Empty when no phase was open loop.
std::string OpenLoopOutcome(const WorkloadRunResult& run);

// The result's context.load_model (docs/results-schema.md): "closed" or "open", the rate, the
// schedule, the pipeline, and which latency member is measured from where.
nlohmann::json LoadModelJson(const OpenLoopOptions& options);
// A phase's "open_loop" member.
nlohmann::json OpenLoopRecordJson(const OpenLoopRecord& record);

// `kvlab bench`'s --rate, -c/--clients and -P/--pipeline, on `app`, with their checks (a rate
// is a finite number more than 0; clients 1-256; pipeline 1-10000). Whether they fit the
// targets is checked once the command line is parsed.
void AddOpenLoopFlags(CLI::App* app, double* rate, int* clients, uint32_t* pipeline);

// "1,234,567".
std::string WithThousands(uint64_t n);

}  // namespace kvlab::workloads
