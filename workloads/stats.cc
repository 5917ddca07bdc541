#include "workloads/stats.h"

namespace kvlab::workloads {

using resp::Reply;

void CallStats::Add(const CommandSample& sample, uint64_t nanos, const Reply& reply) {
  ++calls;
  latency_ns.Record(nanos);
  if (reply.is_error()) {
    ++errors;
    if (first_error.empty()) first_error = reply.str();
  }
  if (sample.has_kv) {
    kv += sample.kv;
  } else {
    has_kv = false;
  }
  for (const auto& [name, value] : sample.counters) counters[name] += value;
}

void CallStats::Merge(const CallStats& other) {
  if (other.calls == 0) return;
  calls += other.calls;
  errors += other.errors;
  latency_ns.Merge(other.latency_ns);
  intended_ns.Merge(other.intended_ns);
  has_kv = has_kv && other.has_kv;
  kv += other.kv;
  for (const auto& [name, value] : other.counters) counters[name] += value;
  if (first_error.empty()) first_error = other.first_error;
}

}  // namespace kvlab::workloads
