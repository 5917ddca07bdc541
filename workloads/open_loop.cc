#include "workloads/open_loop.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>

#include "flags/conventions.h"
#include "workloads/stats.h"

namespace kvlab::workloads {

void OpenLoopRecord::Merge(const OpenLoopRecord& other) {
  unsent += other.unsent;
  max_lag_ns = std::max(max_lag_ns, other.max_lag_ns);
  late_starts += other.late_starts;
}

OpenLoopSchedule::OpenLoopSchedule(double rate_per_s, int client, int clients, uint32_t pipeline,
                                   Clock::time_point start)
    : start_(start),
      // Client t's batches fall t / clients of an interval after client 0's, so that together
      // the clients send at even intervals of pipeline / rate.
      offset_s_(static_cast<double>(client) * pipeline / rate_per_s),
      interval_s_(static_cast<double>(clients) * pipeline / rate_per_s) {}

OpenLoopSchedule::Clock::time_point OpenLoopSchedule::At(uint64_t k) const {
  // From k each time rather than by adding intervals: no drift over millions of batches.
  const double s = offset_s_ + static_cast<double>(k) * interval_s_;
  return start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

uint64_t OpenLoopSchedule::CountBefore(Clock::time_point end) const {
  const double s = std::chrono::duration<double>(end - start_).count();
  if (s <= offset_s_) return 0;
  uint64_t n = static_cast<uint64_t>(std::ceil((s - offset_s_) / interval_s_));
  // Rounding of the division: settle on the exact count by At's own arithmetic.
  while (n > 0 && At(n - 1) >= end) --n;
  while (At(n) < end) ++n;
  return n;
}

bool SleepUntil(std::chrono::steady_clock::time_point t, const volatile std::sig_atomic_t* stop) {
  constexpr auto kSlice = std::chrono::milliseconds(50);
  for (;;) {
    if (stop != nullptr && *stop != 0) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now >= t) return true;
    std::this_thread::sleep_until(std::min(t, now + kSlice));
  }
}

std::string WithThousands(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

namespace {

std::string Number(double v) {
  char buf[48];
  if (v >= 100 || v == static_cast<double>(static_cast<uint64_t>(v))) {
    return WithThousands(static_cast<uint64_t>(v + 0.5));
  }
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

std::string Millis(uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

std::string DescribeLoadModel(const OpenLoopOptions& options, int clients) {
  if (!options.paced_or_pipelined()) return "";
  const std::string pipeline = "pipeline " + std::to_string(options.pipeline);
  if (!options.open()) {
    return "closed loop over " + std::to_string(clients) + " client(s), " + pipeline +
           ": a client sends its next batch of " + std::to_string(options.pipeline) +
           " when the previous one's replies are in; latency is each batch's round trip";
  }
  return "open loop: " + Number(options.rate_per_s) + " ops/s in total over " +
         std::to_string(clients) + " client(s) (" + Number(options.rate_per_s / clients) +
         " ops/s each, constant intervals), " + pipeline +
         "; latency is measured from each request's intended start (coordinated omission "
         "corrected, as wrk2), with the service time beside it";
}

nlohmann::json LoadModelJson(const OpenLoopOptions& options) {
  nlohmann::json j = {{"kind", options.open() ? "open" : "closed"}, {"pipeline", options.pipeline}};
  if (options.open()) {
    j["rate_per_s"] = options.rate_per_s;
    j["schedule"] = "constant-interval";
    j["reported_latency"] = "intended_latency_ns";
    j["coordinated_omission_corrected"] = true;
    j["latency"] =
        "intended_latency_ns: from each request's intended start on the schedule to its reply "
        "(coordinated omission corrected, as wrk2); latency_ns: the service time, from the "
        "request's actual send to its reply";
  } else {
    j["rate_per_s"] = nullptr;
    j["reported_latency"] = "latency_ns";
    j["coordinated_omission_corrected"] = false;
    j["latency"] = options.pipeline > 1
                       ? "latency_ns: each batch's round trip, from its send to its last reply"
                       : "latency_ns: from each request's send to its reply (closed loop)";
  }
  return j;
}

nlohmann::json OpenLoopRecordJson(const OpenLoopRecord& r) {
  nlohmann::json j = {
      {"open", r.open},     {"pipeline", r.pipeline},     {"clients", r.clients},
      {"unsent", r.unsent}, {"max_lag_ns", r.max_lag_ns}, {"late_starts", r.late_starts}};
  j["rate_per_s"] = r.open ? nlohmann::json(r.rate_per_s) : nlohmann::json(nullptr);
  return j;
}

std::string OpenLoopOutcome(const WorkloadRunResult& run) {
  std::string out;
  for (const PhaseResult& p : run.phases) {
    if (!p.open_loop || !p.open_loop->open || p.is_load) continue;
    CallStats all;
    for (const auto& [name, st] : p.ops) all.Merge(st);
    const double achieved = p.wall_seconds > 0 ? p.operations / p.wall_seconds : 0;
    out += (out.empty() ? "" : "; ") + p.name + ": " + Number(achieved) + " of " +
           Number(p.open_loop->rate_per_s) + " ops/s asked, p99 " +
           Millis(all.intended_ns.Percentile(0.99)) +
           " from intended start (CO-corrected; service time p99 " +
           Millis(all.latency_ns.Percentile(0.99)) + ")";
    if (p.open_loop->unsent > 0) {
      out += ", " + WithThousands(p.open_loop->unsent) +
             " requests due were never sent: the target could not keep up";
    }
  }
  return out;
}

void AddOpenLoopFlags(CLI::App* app, double* rate, int* clients, uint32_t* pipeline) {
  const CLI::Validator rate_check(
      [](std::string& text) -> std::string {
        double d = 0;
        if (!CLI::detail::lexical_cast(text, d) || !std::isfinite(d) || !(d > 0) || d > 1e9) {
          return "must be a number of operations per second, more than 0 and at most "
                 "1000000000 (got " +
                 text + ")";
        }
        return "";
      },
      "OPS/S");
  app->add_option("--rate", *rate,
                  "Open loop: operations per second over all clients, each client a share at "
                  "constant intervals; latency is measured from each request's intended start "
                  "(coordinated omission corrected, as wrk2), the service time beside it")
      ->check(rate_check);
  app->add_option("-c,--clients", *clients,
                  "RESP clients, a connection (and a thread) each (with --resp)")
      ->check(flags::InRange(1, 256));
  app->add_option("-P,--pipeline", *pipeline,
                  "Operations each RESP client sends before reading their replies (with --resp "
                  "--resp-only)")
      ->check(flags::InRange(uint32_t{1}, uint32_t{10000}));
}

}  // namespace kvlab::workloads
