#include "workloads/trace_replay.h"

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/command_table.h"
#include "traces/trace_format.h"

namespace kvlab::workloads {

using engine::CommandSpec;
using engine::CommandTable;
using resp::Reply;
using traces::SummarizeTrace;
using traces::TraceCommand;
using traces::TraceReader;
using traces::TraceSummary;

namespace {

using Clock = std::chrono::steady_clock;

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// SHA-256 of a file, read in pieces (a trace may be larger than memory).
std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  std::string buf(1 << 16, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    EVP_DigestUpdate(ctx, buf.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx, digest, &length);
  EVP_MD_CTX_free(ctx);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 0xf]);
  }
  return out;
}

struct ClientConnection {
  std::unique_ptr<TargetConnection> connection;
  uint32_t db = 0;
};

// One replay thread's share: its clients' commands, its statistics.
struct ReplayWorker {
  std::map<uint64_t, ClientConnection> clients;
  std::map<std::string, CallStats> commands;  // by upper-case name
  std::map<std::string, PhaseResult::NotReplayed> not_replayed;
  std::atomic<uint64_t> done{0};
  uint64_t recorded = 0;
  std::string error;
  Clock::time_point end;
};

}  // namespace

std::string NotReplayedReason(const std::string& name) {
  const std::string lower = Lower(name);
  const CommandSpec* spec = CommandTable::Get().Find(lower);
  if (spec == nullptr) return "not a command kvlab serves";
  if ((spec->flags & engine::kCmdBlocking) != 0) {
    return "blocking: in a replay it could wait for ever for a key no later command fills";
  }
  if (lower == "shutdown") return "would stop the server";
  if (lower == "quit") return "would close the replay's connection";
  if (lower == "hello" || lower == "auth") {
    return "would change the replay connection's protocol or credentials";
  }
  return "";
}

Status TraceWorkload(const std::string& path, Workload* out) {
  TraceSummary summary;
  KVLAB_RETURN_IF_ERROR(SummarizeTrace(path, &summary));
  if (summary.commands == 0) {
    return Status::InvalidArgument("trace '" + path + "': holds no commands");
  }
  Workload w;
  w.name = "trace-" + std::filesystem::path(path).stem().string();
  w.description = "Replay of the trace " + path + ": " + std::to_string(summary.commands) +
                  " commands of " + std::to_string(summary.clients) + " clients over " +
                  std::to_string(summary.duration_us / 1000) + " ms";
  w.keyspace.type = KeyspaceSpec::Type::kString;
  w.keyspace.records = 1;  // unused: a trace loads nothing
  PhaseSpec phase;
  phase.name = "replay";
  phase.operations = summary.commands;
  for (const auto& [name, count] : summary.mix) {
    OpSpec op;
    op.name = name;
    op.weight = static_cast<double>(count);
    op.expect_errors = true;  // a trace's error replies are part of it
    CommandTemplate c;
    c.name = Upper(name);
    c.text = c.name;
    op.commands.push_back(std::move(c));
    phase.ops.push_back(std::move(op));
  }
  w.phases.push_back(std::move(phase));
  w.trace = TraceSpec{path, summary.commands, 0};
  w.source = "trace:" + path;
  w.source_sha256 = FileSha256(path);
  *out = std::move(w);
  return Status::OK();
}

void ReplayTrace(const Workload& w, Target& target, const RunOptions& options,
                 WorkloadRunResult* result) {
  *result = WorkloadRunResult();
  if (options.open_loop.paced_or_pipelined()) {
    // A trace has its own schedule (--pace); a rate or a pipeline would silently replace it.
    result->partial = true;
    result->error = "--rate and --pipeline do not apply to a trace replay (its pace: --pace)";
    return;
  }
  if (!options.run_phases) return;
  if (options.on_loaded) options.on_loaded();
  const PhaseSpec& spec = w.phases.at(0);
  const int threads = std::max(1, w.threads);
  const uint64_t warmup = spec.warmup_operations;
  const uint64_t limit = spec.operations > 0 ? warmup + spec.operations : UINT64_MAX;
  const double pace = w.trace->pace;
  std::vector<std::unique_ptr<ReplayWorker>> workers;
  for (int t = 0; t < threads; ++t) workers.push_back(std::make_unique<ReplayWorker>());
  std::atomic<bool> failed{false};
  const backends::PhysicalCounters counters_before = target.StoreCounters();
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      spec.duration_s > 0 ? start + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(spec.duration_s))
                          : Clock::time_point::max();

  auto body = [&](int t) {
    ReplayWorker& me = *workers[t];
    auto fail = [&](std::string message) {
      me.error = std::move(message);
      failed.store(true);
    };
    TraceReader reader;
    Status s = reader.Open(w.trace->path);
    if (!s.ok()) return fail(s.ToString());
    TraceCommand c;
    Reply reply;
    CommandSample sample;
    uint64_t first_us = 0;
    for (uint64_t index = 0; index < limit; ++index) {
      if (StopRequested(options.stop) || failed.load() || Clock::now() >= deadline) return;
      bool done = false;
      s = reader.Next(&c, &done);
      if (!s.ok()) return fail(s.ToString());
      if (done) return;
      if (index == 0) first_us = c.time_us;
      if (c.client % static_cast<uint64_t>(threads) != static_cast<uint64_t>(t)) continue;
      const bool record = index >= warmup;
      const std::string reason = NotReplayedReason(c.argv[0]);
      if (!reason.empty()) {
        if (record) {
          PhaseResult::NotReplayed& n = me.not_replayed[Lower(c.argv[0])];
          ++n.count;
          n.reason = reason;
        }
        me.done.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      ClientConnection& client = me.clients[c.client];
      if (client.connection == nullptr) {
        s = target.Connect(&client.connection);
        if (!s.ok()) return fail("trace client " + std::to_string(c.client) + ": " + s.ToString());
      }
      if (client.db != c.db) {
        s = client.connection->Execute({"SELECT", std::to_string(c.db)}, &reply, &sample);
        if (!s.ok() || reply.is_error()) {
          return fail("cannot SELECT database " + std::to_string(c.db) + " for trace client " +
                      std::to_string(c.client) + ": " + (s.ok() ? reply.Describe() : s.ToString()));
        }
        client.db = c.db;
      }
      if (pace > 0) {
        const auto due = start + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double, std::micro>(
                                         static_cast<double>(c.time_us - first_us) / pace));
        std::this_thread::sleep_until(std::min(due, deadline));
        if (Clock::now() >= deadline) return;
      }
      if (options.before_operation) options.before_operation();
      const Clock::time_point t0 = Clock::now();
      s = client.connection->Execute(c.argv, &reply, &sample);
      const Clock::time_point t1 = Clock::now();
      if (!s.ok()) {
        return fail("trace command " + std::to_string(index) + " (" + c.argv[0] +
                    "): " + s.ToString());
      }
      if (Lower(c.argv[0]) == "select" && !reply.is_error() && c.argv.size() == 2) {
        client.db = static_cast<uint32_t>(std::strtoul(c.argv[1].c_str(), nullptr, 10));
      }
      if (record) {
        const auto nanos = static_cast<uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
        me.commands[Upper(c.argv[0])].Add(sample, nanos, reply);
        ++me.recorded;
      }
      me.done.fetch_add(1, std::memory_order_relaxed);
    }
  };

  std::mutex mu;
  std::condition_variable cv;
  int running = threads;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      body(t);
      workers[t]->end = Clock::now();
      std::lock_guard<std::mutex> lock(mu);
      --running;
      cv.notify_all();
    });
  }
  const uint64_t total = std::min(limit, w.trace->commands);
  auto report = [&] {
    if (!options.progress) return;
    Progress p;
    p.stage = spec.name;
    p.total = total;
    p.duration_s = spec.duration_s;
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
    // Every thread reads the whole trace; done counts the commands of its own clients.
    for (const auto& wk : workers) p.done += wk->done.load(std::memory_order_relaxed);
    options.progress(p);
  };
  {
    std::unique_lock<std::mutex> lock(mu);
    const auto interval = std::chrono::duration<double>(options.progress_interval_s);
    while (!cv.wait_for(lock, interval, [&] { return running == 0; })) {
      lock.unlock();
      report();
      lock.lock();
    }
  }
  for (std::thread& th : pool) th.join();
  report();

  PhaseResult phase;
  phase.name = spec.name;
  phase.warmup_operations = warmup;
  Clock::time_point end = start;
  for (const auto& wk : workers) {
    end = std::max(end, wk->end);
    phase.operations += wk->recorded;
    for (const auto& [name, st] : wk->commands) {
      phase.commands[name].Merge(st);
      phase.ops[Lower(name)].Merge(st);
    }
    for (const auto& [name, n] : wk->not_replayed) {
      phase.not_replayed[name].count += n.count;
      phase.not_replayed[name].reason = n.reason;
    }
    if (!wk->error.empty() && result->error.empty()) result->error = wk->error;
  }
  phase.wall_seconds = std::chrono::duration<double>(end - start).count();
  phase.store_counters = backends::SubtractPhysical(target.StoreCounters(), counters_before);
  phase.interrupted = failed.load() || StopRequested(options.stop);
  result->partial = phase.interrupted;
  result->phases.push_back(std::move(phase));
}

}  // namespace kvlab::workloads
