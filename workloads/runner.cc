#include "workloads/runner.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include "workloads/op_expander.h"
#include "workloads/trace_replay.h"

namespace kvlab::workloads {

using backends::PhysicalCounters;
using backends::SubtractPhysical;
using resp::Reply;

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

uint64_t Nanos(Clock::duration d) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

std::string Join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out.push_back(' ');
    out.append(a, 0, 64);
    if (a.size() > 64) out += "...";
    if (out.size() > 200) return out + " ...";
  }
  return out;
}

// The command names of a list of templates, each mapped to a slot of per-thread stats.
struct CommandSlots {
  std::vector<std::string> names;
  size_t SlotOf(const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return it - names.begin();
    names.push_back(name);
    return names.size() - 1;
  }
};

// What the workers of one phase share.
struct PhaseShared {
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::string error;  // the first failure
  Clock::time_point window_start;

  void Fail(std::string message) {
    std::lock_guard<std::mutex> lock(mu);
    if (error.empty()) error = std::move(message);
    failed.store(true);
  }
};

// One worker's part of a phase.
struct WorkerStats {
  std::vector<CallStats> commands;  // by command slot
  std::vector<CallStats> ops;       // by op index
  std::atomic<uint64_t> done{0};    // progress, warm-up included
  uint64_t recorded = 0;
  Clock::time_point end;
  OpenLoopRecord open_loop;  // open-loop or pipelined phases
};

class WorkloadRun {
 public:
  WorkloadRun(const Workload& w, Target& target, const RunOptions& options,
              WorkloadRunResult* result)
      : w_(w),
        target_(target),
        options_(options),
        result_(result),
        threads_(std::max(1, w.threads)),
        inserts_(w.keyspace.records),
        ticks_(static_cast<size_t>(threads_), 0) {}

  void Run() {
    *result_ = WorkloadRunResult();
    for (int t = 0; t < threads_; ++t) {
      std::unique_ptr<TargetConnection> c;
      Status s = target_.Connect(&c);
      if (!s.ok()) {
        result_->partial = true;
        result_->error = s.ToString();
        return;
      }
      connections_.push_back(std::move(c));
      expanders_.push_back(
          std::make_unique<OpExpander>(w_, static_cast<uint64_t>(t), t, threads_, &inserts_));
    }
    if (options_.load && !Load()) return;
    if (!options_.run_phases) return;
    if (options_.on_loaded) options_.on_loaded();
    for (const PhaseSpec& phase : w_.phases) {
      if (Stopped()) {
        result_->partial = true;
        return;
      }
      if (!(phase.probe ? RunProbedPhase(phase) : RunPhase(phase))) return;
    }
  }

 private:
  // A phase with probe samples: a sample, then `every` operations of the phase, then a sample,
  // ... until the phase's operations are done and a last sample is taken. The phase's warm-up
  // runs before its first chunk. Returns false when the run must end.
  bool RunProbedPhase(const PhaseSpec& phase) {
    PhaseSpec probe = phase;
    probe.name = phase.name + ".probe";
    probe.operations = phase.probe->operations;
    probe.warmup_operations = 0;
    probe.ops = phase.probe->ops;
    probe.probe.reset();
    PhaseSpec chunk = phase;
    chunk.probe.reset();
    for (uint64_t done = 0;; done += chunk.operations) {
      if (!RunPhase(probe, /*is_probe=*/true, done)) return false;
      if (done >= phase.operations) return true;
      if (Stopped()) {
        result_->partial = true;
        return false;
      }
      chunk.operations = std::min(phase.probe->every, phase.operations - done);
      chunk.warmup_operations = done == 0 ? phase.warmup_operations : 0;
      if (!RunPhase(chunk, /*is_probe=*/false, done)) return false;
    }
  }

  bool Stopped() const { return StopRequested(options_.stop); }

  // Runs body(t, stats) on every worker thread while reporting progress; returns the phase's
  // merged stats in *phase.
  template <typename Body>
  void RunThreads(const std::string& stage, uint64_t total, double duration_s,
                  const CommandSlots& slots, size_t op_count, PhaseShared* shared, Body body,
                  PhaseResult* phase) {
    std::vector<std::unique_ptr<WorkerStats>> stats;
    for (int t = 0; t < threads_; ++t) {
      stats.push_back(std::make_unique<WorkerStats>());
      stats.back()->commands.resize(slots.names.size());
      stats.back()->ops.resize(op_count);
    }
    const PhysicalCounters counters_before = target_.StoreCounters();
    const Clock::time_point start = Clock::now();
    shared->window_start = start;
    std::mutex mu;
    std::condition_variable cv;
    int running = threads_;
    std::vector<std::thread> workers;
    for (int t = 0; t < threads_; ++t) {
      workers.emplace_back([&, t] {
        body(t, stats[t].get());
        stats[t]->end = Clock::now();
        std::lock_guard<std::mutex> lock(mu);
        --running;
        cv.notify_all();
      });
    }
    auto report = [&] {
      if (!options_.progress) return;
      Progress p;
      p.stage = stage;
      p.total = total;
      p.duration_s = duration_s;
      p.elapsed_s = Seconds(Clock::now() - start);
      for (const auto& s : stats) p.done += s->done.load(std::memory_order_relaxed);
      options_.progress(p);
    };
    {
      std::unique_lock<std::mutex> lock(mu);
      const auto interval = std::chrono::duration<double>(options_.progress_interval_s);
      while (!cv.wait_for(lock, interval, [&] { return running == 0; })) {
        lock.unlock();
        report();
        lock.lock();
      }
    }
    for (auto& th : workers) th.join();
    report();

    Clock::time_point end = shared->window_start;
    for (int t = 0; t < threads_; ++t) {
      WorkerStats& s = *stats[t];
      end = std::max(end, s.end);
      phase->operations += s.recorded;
      if (phase->open_loop) phase->open_loop->Merge(s.open_loop);
      for (size_t i = 0; i < slots.names.size(); ++i) {
        if (s.commands[i].calls > 0) phase->commands[slots.names[i]].Merge(s.commands[i]);
      }
    }
    phase->wall_seconds = Seconds(end - shared->window_start);
    phase->store_counters = SubtractPhysical(target_.StoreCounters(), counters_before);
    for (size_t op = 0; op < op_count; ++op) {
      CallStats merged;
      for (const auto& s : stats) merged.Merge(s->ops[op]);
      if (merged.calls > 0) phase->ops[op_names_[op]].Merge(merged);
    }
  }

  // Executes one command and records it. Returns false when the target failed.
  bool Execute(TargetConnection& c, const std::vector<std::string>& argv, CallStats* stats,
               CommandSample* sample, Reply* reply, uint64_t* nanos, PhaseShared* shared) {
    const Clock::time_point t0 = Clock::now();
    Status s = c.Execute(argv, reply, sample);
    const Clock::time_point t1 = Clock::now();
    if (!s.ok()) {
      shared->Fail("'" + Join(argv) + "': " + s.ToString());
      return false;
    }
    *nanos = Nanos(t1 - t0);
    if (stats != nullptr) stats->Add(*sample, *nanos, *reply);
    return true;
  }

  bool Load() {
    CommandSlots slots;
    std::vector<size_t> slot_of;
    for (const auto& c : w_.load.commands) slot_of.push_back(slots.SlotOf(c.name));
    op_names_.clear();
    PhaseResult phase;
    phase.name = "load";
    phase.is_load = true;
    const uint64_t elements = w_.keyspace.elements;
    const uint64_t from = options_.load_elements_from;
    const uint64_t batch = std::max<uint64_t>(1, w_.load.batch);
    // (record, batch) units per record: elements in batches; a record without elements (or a
    // string) gets one unit, which a later growth step does not repeat.
    const uint64_t units_per_record =
        elements > from ? (elements - from + batch - 1) / batch : (from == 0 ? 1 : 0);
    const uint64_t records = options_.load_records_to != 0
                                 ? std::min(options_.load_records_to, w_.keyspace.records)
                                 : w_.keyspace.records;
    const uint64_t first_record = std::min(options_.load_records_from, records);
    PhaseShared shared;
    auto body = [&](int t, WorkerStats* stats) {
      OpExpander& x = *expanders_[t];
      x.UseLoad();
      std::vector<std::string> argv;
      CommandSample sample;
      Reply reply;
      uint64_t nanos = 0;
      for (uint64_t r = first_record + static_cast<uint64_t>(t); r < records; r += threads_) {
        for (uint64_t u = 0; u < units_per_record; ++u) {
          if (Stopped() || shared.failed.load()) return;
          const uint64_t b = from + u * batch;
          x.BeginLoadOp(r, b, std::min(elements, b + batch));
          for (size_t i = 0; i < w_.load.commands.size(); ++i) {
            const CommandTemplate& c = w_.load.commands[i];
            if (r < c.records_from || r >= c.records_to) continue;  // another record range's
            x.Expand(c, &argv);
            if (!Execute(*connections_[t], argv, &stats->commands[slot_of[i]], &sample, &reply,
                         &nanos, &shared)) {
              return;
            }
            if (reply.is_error()) {
              shared.Fail("load: '" + Join(argv) + "' replied " + reply.Describe());
              return;
            }
          }
          ++stats->recorded;
          stats->done.fetch_add(1, std::memory_order_relaxed);
        }
      }
    };
    RunThreads("load", (records - first_record) * units_per_record, 0, slots, 0, &shared, body,
               &phase);
    return Finish(std::move(phase), shared);
  }

  // is_probe, at: PhaseResult's (a part of a probed phase); at unset for a whole phase.
  bool RunPhase(const PhaseSpec& spec, bool is_probe = false,
                std::optional<uint64_t> at = std::nullopt) {
    CommandSlots slots;
    std::vector<std::vector<size_t>> slot_of(spec.ops.size());
    std::vector<double> cumulative;
    op_names_.clear();
    double sum = 0;
    for (size_t o = 0; o < spec.ops.size(); ++o) {
      for (const auto& c : spec.ops[o].commands) slot_of[o].push_back(slots.SlotOf(c.name));
      sum += spec.ops[o].weight;
      cumulative.push_back(sum);
      op_names_.push_back(spec.ops[o].name);
    }
    PhaseResult phase;
    phase.name = spec.name;
    phase.is_probe = is_probe;
    phase.at = at;
    phase.warmup_operations = spec.warmup_operations;
    const OpenLoopOptions& paced = options_.open_loop;
    if (paced.paced_or_pipelined()) {
      phase.open_loop = OpenLoopRecord{.open = paced.open(),
                                       .rate_per_s = paced.rate_per_s,
                                       .pipeline = paced.pipeline,
                                       .clients = threads_};
    }
    PhaseShared shared;
    const int64_t clock_start = w_.ClockStart();
    std::barrier warmed_up(threads_, [&shared]() noexcept { shared.window_start = Clock::now(); });
    auto share = [&](uint64_t n, int t) {
      return n / threads_ + (static_cast<uint64_t>(t) < n % threads_ ? 1 : 0);
    };
    auto body = [&](int t, WorkerStats* stats) {
      OpExpander& x = *expanders_[t];
      x.UsePhase(spec);
      std::vector<std::string> argv;
      CommandSample sample;
      Reply reply;
      uint64_t nanos = 0;
      // One operation; returns false when the target failed.
      auto run_op = [&](bool record) {
        if (options_.before_operation) options_.before_operation();
        // The logical clock: unique per operation across threads, in order within a thread.
        x.BeginRunOp(clock_start + static_cast<int64_t>(ticks_[t]++ * threads_ + t));
        const size_t op = x.PickOp(cumulative);
        CommandSample op_sample;
        uint64_t op_nanos = 0;
        Reply op_reply = Reply::Ok();
        for (size_t i = 0; i < spec.ops[op].commands.size(); ++i) {
          x.Expand(spec.ops[op].commands[i], &argv);
          CallStats* cs = record ? &stats->commands[slot_of[op][i]] : nullptr;
          if (!Execute(*connections_[t], argv, cs, &sample, &reply, &nanos, &shared)) {
            return false;
          }
          op_nanos += nanos;
          op_sample.has_kv = i == 0 ? sample.has_kv : op_sample.has_kv && sample.has_kv;
          op_sample.kv += sample.kv;
          op_sample.counters.insert(op_sample.counters.end(), sample.counters.begin(),
                                    sample.counters.end());
          if (reply.is_error() && !op_reply.is_error()) op_reply = reply;
        }
        if (x.inserted_id()) inserts_.Acknowledge(*x.inserted_id());
        if (record) {
          stats->ops[op].Add(op_sample, op_nanos, op_reply);
          ++stats->recorded;
        }
        stats->done.fetch_add(1, std::memory_order_relaxed);
        return true;
      };
      const uint64_t warmup = share(spec.warmup_operations, t);
      for (uint64_t i = 0; i < warmup && !Stopped() && !shared.failed.load(); ++i) {
        if (!run_op(false)) break;
      }
      warmed_up.arrive_and_wait();
      const uint64_t ops = share(spec.operations, t);
      const bool bounded_by_ops = spec.operations > 0;
      const auto deadline =
          spec.duration_s > 0
              ? shared.window_start + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(spec.duration_s))
              : Clock::time_point::max();
      if (paced.paced_or_pipelined()) {
        RunPacedOps(t, spec, slot_of, cumulative, bounded_by_ops ? ops : UINT64_MAX, deadline,
                    &shared, stats);
        return;
      }
      for (uint64_t i = 0; !bounded_by_ops || i < ops; ++i) {
        if (Stopped() || shared.failed.load() || Clock::now() >= deadline) break;
        if (!run_op(true)) break;
      }
    };
    // A phase bounded only by its duration has no operation total: its progress is its time.
    const uint64_t total = spec.operations > 0 ? spec.operations + spec.warmup_operations : 0;
    RunThreads(spec.name, total, spec.duration_s, slots, spec.ops.size(), &shared, body, &phase);
    if (!shared.failed.load()) CheckErrorRate(spec, phase, &shared);
    return Finish(std::move(phase), shared);
  }

  // Worker t's recorded operations of an open-loop or pipelined phase (workloads/open_loop.h):
  // batches of options_.open_loop.pipeline operations, each sent at its intended start (open
  // loop) or as soon as the previous one is done, until `ops` are done (UINT64_MAX: none) or
  // the deadline.
  void RunPacedOps(int t, const PhaseSpec& spec, const std::vector<std::vector<size_t>>& slot_of,
                   const std::vector<double>& cumulative, uint64_t ops, Clock::time_point deadline,
                   PhaseShared* shared, WorkerStats* stats) {
    const OpenLoopOptions& paced = options_.open_loop;
    OpExpander& x = *expanders_[t];
    const int64_t clock_start = w_.ClockStart();
    std::optional<OpenLoopSchedule> schedule;
    if (paced.open()) {
      schedule.emplace(paced.rate_per_s, t, threads_, paced.pipeline, shared->window_start);
    }
    std::vector<std::vector<std::string>> argvs;
    std::vector<size_t> op_of;  // per command: its operation's place in the batch
    std::vector<size_t> picked;
    std::vector<size_t> first_command;  // per operation of the batch: its first command
    std::vector<Reply> replies;
    std::vector<CommandSample> samples;
    std::vector<std::optional<uint64_t>> inserted;
    std::vector<std::string> argv;
    uint64_t sent = 0;
    for (uint64_t k = 0; sent < ops; ++k) {
      if (Stopped() || shared->failed.load()) return;
      const uint64_t n = std::min<uint64_t>(paced.pipeline, ops - sent);
      std::optional<Clock::time_point> due;
      if (schedule) {
        due = schedule->At(k);
        if (*due >= deadline) return;
        if (!SleepUntil(*due, options_.stop)) return;
      }
      if (Clock::now() >= deadline) {
        // Behind schedule at the end: what was due and not sent is counted, not dropped.
        if (schedule) {
          const uint64_t owed = (schedule->CountBefore(deadline) - k) * paced.pipeline;
          stats->open_loop.unsent += std::min(owed, ops - sent);
        }
        return;
      }
      argvs.clear();
      op_of.clear();
      picked.clear();
      first_command.clear();
      inserted.clear();
      for (uint64_t j = 0; j < n; ++j) {
        if (options_.before_operation) options_.before_operation();
        x.BeginRunOp(clock_start + static_cast<int64_t>(ticks_[t]++ * threads_ + t));
        const size_t op = x.PickOp(cumulative);
        picked.push_back(op);
        first_command.push_back(argvs.size());
        for (const CommandTemplate& c : spec.ops[op].commands) {
          x.Expand(c, &argv);
          argvs.push_back(argv);
          op_of.push_back(j);
        }
        inserted.push_back(x.inserted_id());
      }
      const Clock::time_point t0 = Clock::now();
      const uint64_t lag = due && t0 > *due ? Nanos(t0 - *due) : 0;
      stats->open_loop.max_lag_ns = std::max(stats->open_loop.max_lag_ns, lag);
      if (lag > 1'000'000) ++stats->open_loop.late_starts;
      // Each command's service time: its own round trip, or the batch's when pipelined.
      std::vector<uint64_t> nanos(argvs.size(), 0);
      if (paced.pipeline == 1) {
        replies.resize(argvs.size());
        samples.resize(argvs.size());
        for (size_t i = 0; i < argvs.size(); ++i) {
          const Clock::time_point c0 = Clock::now();
          Status s = connections_[t]->Execute(argvs[i], &replies[i], &samples[i]);
          nanos[i] = Nanos(Clock::now() - c0);
          if (!s.ok()) {
            shared->Fail("'" + Join(argvs[i]) + "': " + s.ToString());
            return;
          }
        }
      } else {
        Status s = connections_[t]->ExecuteBatch(argvs, &replies, &samples);
        const uint64_t batch_nanos = Nanos(Clock::now() - t0);
        if (!s.ok()) {
          shared->Fail("pipeline of " + std::to_string(argvs.size()) + " commands, '" +
                       Join(argvs[0]) + "', ...: " + s.ToString());
          return;
        }
        nanos.assign(argvs.size(), batch_nanos);
      }
      // Record every command, then every operation (service time and, open loop, the time
      // from the intended start: the service time plus the batch's lag).
      std::vector<CommandSample> op_samples(n);
      std::vector<uint64_t> op_nanos(n, 0);
      std::vector<Reply> op_replies(n, Reply::Ok());
      for (size_t i = 0; i < argvs.size(); ++i) {
        const size_t j = op_of[i];
        const size_t op = picked[j];
        const size_t nth = i - first_command[j];  // the command's place in its operation
        CallStats& cs = stats->commands[slot_of[op][nth]];
        cs.Add(samples[i], nanos[i], replies[i]);
        if (schedule) cs.AddIntended(lag + nanos[i]);
        CommandSample& os = op_samples[j];
        os.has_kv = nth == 0 ? samples[i].has_kv : os.has_kv && samples[i].has_kv;
        os.kv += samples[i].kv;
        os.counters.insert(os.counters.end(), samples[i].counters.begin(),
                           samples[i].counters.end());
        op_nanos[j] = paced.pipeline == 1 ? op_nanos[j] + nanos[i] : nanos[i];
        if (replies[i].is_error() && !op_replies[j].is_error()) op_replies[j] = replies[i];
      }
      for (uint64_t j = 0; j < n; ++j) {
        if (inserted[j]) inserts_.Acknowledge(*inserted[j]);
        CallStats& os = stats->ops[picked[j]];
        os.Add(op_samples[j], op_nanos[j], op_replies[j]);
        if (schedule) os.AddIntended(lag + op_nanos[j]);
        ++stats->recorded;
        stats->done.fetch_add(1, std::memory_order_relaxed);
      }
      sent += n;
    }
  }

  // Fails the run when a command of the phase replied errors to more than kMaxErrorRate of its
  // calls and no operation that runs it expects errors: a malformed workload line ("LRANGE
  // {key} 0") or a command the target lacks must not end in a throughput. Names the line and
  // the first error reply.
  static void CheckErrorRate(const PhaseSpec& spec, const PhaseResult& phase, PhaseShared* shared) {
    for (const auto& [name, st] : phase.commands) {
      if (st.calls == 0 || static_cast<double>(st.errors) <= kMaxErrorRate * st.calls) continue;
      const OpSpec* op = nullptr;
      const CommandTemplate* line = nullptr;
      bool expected = false;
      for (const OpSpec& o : spec.ops) {
        for (const CommandTemplate& c : o.commands) {
          if (c.name != name) continue;
          expected = expected || o.expect_errors;
          if (line == nullptr) {
            op = &o;
            line = &c;
          }
        }
      }
      if (expected || line == nullptr) continue;
      char rate[32];
      std::snprintf(rate, sizeof(rate), "%.1f%%",
                    100.0 * static_cast<double>(st.errors) / static_cast<double>(st.calls));
      shared->Fail("phase '" + spec.name + "', operation '" + op->name + "': '" + line->text +
                   "' replied an error to " + std::to_string(st.errors) + " of " +
                   std::to_string(st.calls) + " calls (" + rate + ", more than " +
                   std::to_string(static_cast<int>(kMaxErrorRate * 100)) +
                   "%); the first: " + st.first_error +
                   " (a workload whose operation expects errors says \"expect_errors\": true)");
      return;
    }
  }

  // Stores the phase; returns false when the run must end (failure or stop).
  bool Finish(PhaseResult phase, const PhaseShared& shared) {
    const bool failed = shared.failed.load();
    phase.interrupted = failed || Stopped();
    result_->phases.push_back(std::move(phase));
    if (failed) {
      result_->partial = true;
      result_->error = shared.error;
      return false;
    }
    if (Stopped()) {
      result_->partial = true;
      return false;
    }
    return true;
  }

  const Workload& w_;
  Target& target_;
  const RunOptions& options_;
  WorkloadRunResult* result_;
  const int threads_;
  InsertCounter inserts_;
  std::vector<std::unique_ptr<TargetConnection>> connections_;
  std::vector<std::unique_ptr<OpExpander>> expanders_;
  // Operations each worker has started, across phases (the logical clock).
  std::vector<uint64_t> ticks_;
  std::vector<std::string> op_names_;  // of the current phase
};

}  // namespace

void RunWorkload(const Workload& workload, Target& target, const RunOptions& options,
                 WorkloadRunResult* result) {
  if (workload.trace) return ReplayTrace(workload, target, options, result);
  WorkloadRun(workload, target, options, result).Run();
}

}  // namespace kvlab::workloads
