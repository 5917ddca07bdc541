#include "workloads/profile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>
#include <thread>

#include "engine/command_table.h"
#include "traces/trace_format.h"

namespace kvlab::workloads {

using engine::CommandTable;
using redis::RedisClient;
using resp::Reply;

namespace {

using Clock = std::chrono::steady_clock;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What the profile may send: read-only, non-blocking commands whose cost it bounds itself
// (SCAN and the *SCAN family with COUNT, LRANGE of a few items). Anything else is refused before
// it reaches the server, so a mistake in this file cannot write to a production Redis.
bool Allowed(const std::vector<std::string>& argv) {
  static const std::set<std::string> kAllowed = {"INFO",   "SELECT", "SCAN",  "TYPE",  "PTTL",
                                                 "STRLEN", "HLEN",   "ZCARD", "SCARD", "LLEN",
                                                 "HSCAN",  "ZSCAN",  "SSCAN", "LRANGE"};
  if (argv.empty()) return false;
  std::string name = argv[0];
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (name == "MEMORY") return argv.size() >= 3 && Lower(argv[1]) == "usage";
  if (!kAllowed.count(name)) return false;
  if (name.ends_with("SCAN")) {
    // Only with COUNT, so that one call's work is bounded.
    return std::any_of(argv.begin(), argv.end(),
                       [](const std::string& a) { return Lower(a) == "count"; });
  }
  if (name == "LRANGE") {
    // A few items from the head: LRANGE key 0 N with a small N.
    return argv.size() == 4 && argv[2] == "0" && argv[3].size() <= 3 && argv[3] != "-1";
  }
  return true;
}

// A connection that sends only allowed commands, within the profile's bounds and rate.
class ProfileClient {
 public:
  ProfileClient(const ProfileOptions& o, Clock::time_point start)
      : o_(o), client_(o.endpoint, std::chrono::milliseconds(5000)), start_(start) {}

  Status Connect() { return client_.Connect(); }

  // Whether a bound is reached: sets stopped_by.
  bool Exhausted(uint64_t next_commands) {
    if (o_.stop != nullptr && *o_.stop != 0) return Stop("interrupted");
    if (sent_ + next_commands > o_.max_commands) return Stop("max-commands");
    if (Seconds() >= o_.time_s) return Stop("time");
    return false;
  }
  double Seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Sends the commands as one pipeline, after waiting for the rate to allow them.
  // REQUIRES: !Exhausted(commands.size()).
  Status Send(const std::vector<std::vector<std::string>>& commands, std::vector<Reply>* replies) {
    for (const auto& argv : commands) {
      if (!Allowed(argv)) {
        return Status::Aborted("profile: refusing to send '" + argv[0] +
                               "': not on the read-only allow-list");
      }
    }
    // The rate: command number n (from 0) may leave at n / rate seconds; a pipeline leaves
    // when its last command may.
    const double last = static_cast<double>(sent_ + commands.size() - 1);
    std::this_thread::sleep_until(start_ + std::chrono::duration_cast<Clock::duration>(
                                               std::chrono::duration<double>(last / o_.rate)));
    sent_ += commands.size();
    return client_.Pipeline(commands, replies);
  }
  Status SendOne(const std::vector<std::string>& argv, Reply* reply) {
    std::vector<Reply> replies;
    KVLAB_RETURN_IF_ERROR(Send({argv}, &replies));
    *reply = std::move(replies.at(0));
    return Status::OK();
  }

  uint64_t sent() const { return sent_; }
  const std::string& stopped_by() const { return stopped_by_; }

 private:
  bool Stop(const char* why) {
    if (stopped_by_.empty()) stopped_by_ = why;
    return true;
  }

  const ProfileOptions& o_;
  RedisClient client_;
  Clock::time_point start_;
  uint64_t sent_ = 0;
  std::string stopped_by_;
};

// "name:value" lines of an INFO section.
std::map<std::string, std::string> InfoFields(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) out[line.substr(0, colon)] = line.substr(colon + 1);
  }
  return out;
}

// "a=1,b=2" -> the value of `key`, or 0.
uint64_t SubField(const std::string& s, const std::string& key) {
  std::istringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    const size_t eq = part.find('=');
    if (eq != std::string::npos && part.substr(0, eq) == key) {
      return std::strtoull(part.c_str() + eq + 1, nullptr, 10);
    }
  }
  return 0;
}

Status ReplyError(const std::string& what, const Reply& r) {
  const std::string& text = r.str();
  if (text.starts_with("NOAUTH") || text.starts_with("WRONGPASS") || text.starts_with("NOPERM")) {
    return Status::InvalidArgument(what + ": " + text +
                                   " (give --user/--pass, -a, or REDISCLI_AUTH)");
  }
  return Status::InvalidArgument(what + " replied " + r.Describe());
}

// The size command of a type, or "" for types the profile does not size.
const char* SizeCommand(const std::string& type) {
  if (type == "string") return "STRLEN";
  if (type == "hash") return "HLEN";
  if (type == "zset") return "ZCARD";
  if (type == "set") return "SCARD";
  if (type == "list") return "LLEN";
  return "";
}

// Measures a batch of keys: TYPE and PTTL, then sizes, memory and a few members.
Status MeasureKeys(ProfileClient& c, const ProfileOptions& o, const std::vector<std::string>& keys,
                   Profile* out) {
  std::vector<std::vector<std::string>> cmds;
  for (const std::string& k : keys) {
    cmds.push_back({"TYPE", k});
    cmds.push_back({"PTTL", k});
  }
  std::vector<Reply> replies;
  if (c.Exhausted(cmds.size())) return Status::OK();
  KVLAB_RETURN_IF_ERROR(c.Send(cmds, &replies));
  std::vector<std::string> types(keys.size());
  std::vector<int64_t> ttls(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    types[i] = replies[2 * i].str();
    ttls[i] = replies[2 * i + 1].integer();
  }
  cmds.clear();
  std::vector<size_t> live;  // keys that still exist, in cmds order
  const std::string count = std::to_string(o.members);
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& t = types[i];
    if (t == "none") continue;  // expired or deleted since SCAN returned it
    live.push_back(i);
    const std::string size = SizeCommand(t);
    // Three commands per key, "TYPE" as a cheap filler where a type has nothing to ask, so
    // that replies line up.
    cmds.push_back(size.empty() ? std::vector<std::string>{"TYPE", keys[i]}
                                : std::vector<std::string>{size, keys[i]});
    if (o.memory_usage) cmds.push_back({"MEMORY", "USAGE", keys[i], "SAMPLES", "5"});
    if (t == "hash") {
      cmds.push_back({"HSCAN", keys[i], "0", "COUNT", count});
    } else if (t == "zset") {
      cmds.push_back({"ZSCAN", keys[i], "0", "COUNT", count});
    } else if (t == "set") {
      cmds.push_back({"SSCAN", keys[i], "0", "COUNT", count});
    } else if (t == "list") {
      cmds.push_back(
          {"LRANGE", keys[i], "0", std::to_string(std::max<uint64_t>(1, o.members) - 1)});
    } else {
      cmds.push_back({"TYPE", keys[i]});
    }
  }
  if (cmds.empty() || c.Exhausted(cmds.size())) return Status::OK();
  KVLAB_RETURN_IF_ERROR(c.Send(cmds, &replies));
  const size_t per = o.memory_usage ? 3 : 2;
  for (size_t j = 0; j < live.size(); ++j) {
    const size_t i = live[j];
    const std::string& t = types[i];
    const Reply& size = replies[per * j];
    const Reply& members = replies[per * j + per - 1];
    if (size.is_error()) continue;  // the key changed type in between: skip it
    TypeProfile& tp = out->types[t];
    ++tp.keys;
    ++out->keys_sampled;
    tp.key_lengths.values.push_back(static_cast<double>(keys[i].size()));
    if (ttls[i] >= 0) {
      ++tp.with_ttl;
      tp.ttl_ms.values.push_back(static_cast<double>(ttls[i]));
    }
    if (o.memory_usage && replies[per * j + 1].type() == Reply::Type::kInteger) {
      tp.memory_bytes.values.push_back(static_cast<double>(replies[per * j + 1].integer()));
    }
    if (t == "string") {
      tp.sizes.values.push_back(1);
      tp.value_lengths.values.push_back(static_cast<double>(size.integer()));
      continue;
    }
    if (SizeCommand(t)[0] == '\0') continue;
    tp.sizes.values.push_back(static_cast<double>(size.integer()));
    // *SCAN: [cursor, [elements]]; a hash's are field, value; a zset's member, score.
    const std::vector<Reply>* elems = &members.elements();
    if (t != "list") {
      if (members.elements().size() != 2) continue;
      elems = &members.elements()[1].elements();
    }
    const size_t step = t == "hash" || t == "zset" ? 2 : 1;
    for (size_t e = 0; e < elems->size() && e / step < o.members; e += step) {
      tp.member_lengths.values.push_back(static_cast<double>((*elems)[e].str().size()));
      if (t == "hash" && e + 1 < elems->size()) {
        tp.value_lengths.values.push_back(static_cast<double>((*elems)[e + 1].str().size()));
      }
    }
  }
  return Status::OK();
}

}  // namespace

double Samples::Quantile(double p) const {
  const auto n = static_cast<double>(values.size());
  const size_t rank = static_cast<size_t>(std::max(1.0, std::ceil(p * n)));
  return values[std::min(values.size(), rank) - 1];
}

void Samples::Sort() { std::sort(values.begin(), values.end()); }

bool IsAdministrativeCommand(const std::string& command) {
  static const std::set<std::string> kAdmin = {
      "info",     "config",  "client",   "ping",      "hello",   "auth",         "select",
      "command",  "memory",  "slowlog",  "latency",   "debug",   "monitor",      "dbsize",
      "acl",      "cluster", "module",   "save",      "bgsave",  "bgrewriteaof", "lastsave",
      "shutdown", "role",    "replconf", "psync",     "sync",    "time",         "echo",
      "quit",     "reset",   "wait",     "failover",  "multi",   "exec",         "discard",
      "watch",    "unwatch", "flushall", "flushdb",   "swapdb",  "readonly",     "readwrite",
      "asking",   "object",  "lolwut",   "replicaof", "slaveof", "waitaof"};
  const std::string base = command.substr(0, command.find('|'));
  return kAdmin.count(base) > 0;
}

void SetMix(const std::vector<std::pair<std::string, uint64_t>>& calls, const std::string& source,
            Profile* out) {
  out->mix.clear();
  out->excluded.clear();
  out->mix_calls = 0;
  out->mix_source = source;
  for (const auto& [command, n] : calls) {
    if (n == 0) continue;
    CommandShare s;
    s.command = command;
    s.calls = n;
    const std::string base = s.command.substr(0, s.command.find('|'));
    s.served = CommandTable::Get().Find(base) != nullptr;
    if (IsAdministrativeCommand(s.command)) {
      out->excluded.push_back(s);
    } else {
      out->mix_calls += s.calls;
      out->mix.push_back(s);
    }
  }
  for (CommandShare& s : out->mix) {
    s.share = static_cast<double>(s.calls) / static_cast<double>(out->mix_calls);
  }
  auto by_calls = [](const CommandShare& a, const CommandShare& b) {
    return a.calls != b.calls ? a.calls > b.calls : a.command < b.command;
  };
  std::sort(out->mix.begin(), out->mix.end(), by_calls);
  std::sort(out->excluded.begin(), out->excluded.end(), by_calls);
}

Status MixFromTrace(const std::string& path, Profile* out) {
  traces::TraceSummary t;
  KVLAB_RETURN_IF_ERROR(traces::SummarizeTrace(path, &t));
  uint64_t data = 0;
  for (const auto& [command, n] : t.mix) data += IsAdministrativeCommand(command) ? 0 : n;
  if (data == 0) {
    return Status::InvalidArgument("trace " + path + " (" + std::to_string(t.commands) +
                                   " commands) holds no data command: no mix to take from it");
  }
  SetMix(t.mix, "trace " + path, out);
  return Status::OK();
}

Status RunProfile(const ProfileOptions& o, Profile* out) {
  *out = Profile();
  if (!(o.rate > 0) || o.max_commands < 10 || o.sample == 0 || !(o.time_s > 0) ||
      o.scan_count == 0 || o.members == 0) {
    return Status::InvalidArgument(
        "profile: --rate and --time must be more than 0, --max-commands at least 10, --sample, "
        "--scan-count and --members at least 1");
  }
  const Clock::time_point start = Clock::now();
  ProfileClient c(o, start);
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };
  KVLAB_RETURN_IF_ERROR(c.Connect());
  out->db = o.db;
  Reply r;
  if (o.db != 0) {
    KVLAB_RETURN_IF_ERROR(c.SendOne({"SELECT", std::to_string(o.db)}, &r));
    if (r.is_error()) return ReplyError("SELECT " + std::to_string(o.db), r);
  }
  // Commandstats first: what the profile sends after it is not in it.
  KVLAB_RETURN_IF_ERROR(c.SendOne({"INFO", "commandstats"}, &r));
  if (r.is_error()) return ReplyError("INFO commandstats", r);
  std::vector<std::pair<std::string, uint64_t>> calls;
  for (const auto& [name, value] : InfoFields(r.str())) {
    if (name.starts_with("cmdstat_")) calls.emplace_back(name.substr(8), SubField(value, "calls"));
  }
  SetMix(calls, "INFO commandstats", out);

  KVLAB_RETURN_IF_ERROR(c.SendOne({"INFO", "server"}, &r));
  if (r.is_error()) return ReplyError("INFO server", r);
  out->server_version = InfoFields(r.str())["redis_version"];
  KVLAB_RETURN_IF_ERROR(c.SendOne({"INFO", "keyspace"}, &r));
  if (r.is_error()) return ReplyError("INFO keyspace", r);
  const std::string db_line = InfoFields(r.str())["db" + std::to_string(o.db)];
  out->keys = SubField(db_line, "keys");
  out->expires = SubField(db_line, "expires");
  if (out->keys == 0) {
    return Status::InvalidArgument("redis " + o.endpoint.ToString() +
                                   " holds no keys in database " + std::to_string(o.db) +
                                   ": nothing to profile (is -n the right database?)");
  }
  say("profile: redis " + out->server_version + ", database " + std::to_string(o.db) + ": " +
      std::to_string(out->keys) + " keys, " + std::to_string(out->mix_calls) +
      " calls in INFO commandstats; sampling up to " + std::to_string(o.sample) + " keys");

  std::string cursor = "0";
  std::set<std::string> seen;  // SCAN may return a key twice
  double next_progress = 1;
  do {
    if (c.Exhausted(1)) break;
    KVLAB_RETURN_IF_ERROR(c.SendOne({"SCAN", cursor, "COUNT", std::to_string(o.scan_count)}, &r));
    if (r.is_error() || r.elements().size() != 2) return ReplyError("SCAN", r);
    cursor = r.elements()[0].str();
    std::vector<std::string> batch;
    for (const Reply& k : r.elements()[1].elements()) {
      if (seen.size() >= o.sample) break;
      if (seen.insert(k.str()).second) batch.push_back(k.str());
    }
    if (!batch.empty()) KVLAB_RETURN_IF_ERROR(MeasureKeys(c, o, batch, out));
    if (c.Seconds() >= next_progress) {
      next_progress = c.Seconds() + 1;
      say("profile: " + std::to_string(out->keys_sampled) + " keys sampled, " +
          std::to_string(c.sent()) + " commands sent, " +
          std::to_string(static_cast<int>(c.Seconds())) + " s");
    }
  } while (cursor != "0" && seen.size() < o.sample && c.stopped_by().empty());
  // The measurement of the last batch may have been cut by a bound.
  out->stopped_by = c.stopped_by();
  out->complete = out->stopped_by.empty();
  out->commands_sent = c.sent();
  out->seconds = c.Seconds();
  for (auto& [type, tp] : out->types) {
    for (Samples* s : {&tp.sizes, &tp.key_lengths, &tp.member_lengths, &tp.value_lengths,
                       &tp.memory_bytes, &tp.ttl_ms}) {
      s->Sort();
    }
  }
  say("profile: " + std::to_string(out->keys_sampled) + " keys sampled with " +
      std::to_string(out->commands_sent) + " commands in " +
      std::to_string(static_cast<int>(std::lround(out->seconds))) + " s" +
      (out->complete ? "" : " (stopped by " + out->stopped_by + ")"));
  if (out->keys_sampled == 0) {
    return Status::InvalidArgument(
        "profile: no key could be sampled within the bounds (" +
        (out->stopped_by.empty() ? std::string("keys vanished") : "stopped by " + out->stopped_by) +
        ")");
  }
  return Status::OK();
}

}  // namespace kvlab::workloads
