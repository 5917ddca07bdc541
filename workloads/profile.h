// `kvlab profile`: measures a live Redis, read-only and bounded, and turns what it measured into
// a workload that `kvlab bench` and `kvlab study` run (docs/workloads.md, "Profiling a live
// Redis").
//
// What it sends is checked against a fixed allow-list of read-only, non-blocking commands of
// bounded cost (ProfileClient): INFO, SELECT, SCAN with COUNT, TYPE, PTTL, STRLEN, HLEN, ZCARD,
// SCARD, LLEN, MEMORY USAGE, and HSCAN/ZSCAN/SSCAN with COUNT or LRANGE of a few items for the
// members' lengths. Never KEYS, never a write, never a blocking command. It stops at whichever
// bound comes first: --time, --max-commands, --sample keys, and it never sends more than --rate
// commands per second.
//
// What it keeps of the source is numbers: lengths, sizes, TTLs, counts. No key, field, member
// or value leaves this module: the profile JSON and the workload hold synthetic names only
// (profile_test.cc greps both for the source's strings).
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "redis/client.h"

namespace kvlab::workloads {

struct ProfileOptions {
  redis::RedisEndpoint endpoint;  // host, port, user, password
  int db = 0;
  double time_s = 60;             // wall-clock bound
  uint64_t max_commands = 50000;  // commands sent, INFO and SCAN included
  uint64_t sample = 2000;         // keys sampled (SCAN stops there)
  double rate = 1000;             // commands per second at most
  uint64_t scan_count = 100;      // SCAN's COUNT
  uint64_t members = 16;          // members (items) read per collection for their lengths
  bool memory_usage = true;       // MEMORY USAGE per sampled key
  // Told of progress, one line at a time (stderr in `kvlab profile`). May be empty.
  std::function<void(const std::string&)> progress;
  // Checked between batches: non-zero stops the profile early (Ctrl-C). May be null.
  const volatile std::sig_atomic_t* stop = nullptr;
};

// Sorted samples of one quantity.
struct Samples {
  std::vector<double> values;
  // Nearest-rank quantile of the sorted values (Hyndman & Fan type 1). REQUIRES: not empty.
  double Quantile(double p) const;
  void Sort();
};

// What was measured of the keys of one Redis type.
struct TypeProfile {
  uint64_t keys = 0;       // sampled keys of the type
  uint64_t with_ttl = 0;   // of which with a TTL
  Samples sizes;           // elements (a string: 1)
  Samples key_lengths;     // bytes
  Samples member_lengths;  // fields, members, list items (not strings)
  Samples value_lengths;   // hash values; a string's value
  Samples memory_bytes;    // MEMORY USAGE
  Samples ttl_ms;          // PTTL of the keys that have one
};

struct CommandShare {
  std::string command;  // lower case, as INFO commandstats names it ("hget", "config|get")
  uint64_t calls = 0;
  double share = 0;     // of the mix's calls (administrative commands excluded)
  bool served = false;  // kvlab runs it (engine/command_table.cc)
};

struct Profile {
  std::string server_version;  // redis_version from INFO server
  int db = 0;
  uint64_t keys = 0;     // in the database (INFO keyspace)
  uint64_t expires = 0;  // of which with a TTL
  uint64_t mix_calls = 0;
  std::string mix_source;                    // "INFO commandstats", or "trace FILE"
  std::vector<CommandShare> mix;             // by calls, descending
  std::vector<CommandShare> excluded;        // administrative commands: not part of the mix
  std::map<std::string, TypeProfile> types;  // "string", "hash", "zset", "set", "list", others
  uint64_t keys_sampled = 0;
  uint64_t commands_sent = 0;
  double seconds = 0;
  bool complete = true;    // the sample, or every key, was reached
  std::string stopped_by;  // when not complete: "time", "max-commands", "interrupted"
};

// Administrative and connection commands (INFO, CONFIG, CLIENT, PING, AUTH, SELECT, MULTI...):
// they are not the application's data traffic, and a profile's own INFO and SCAN calls of an
// earlier run must not dominate the next one's mix.
bool IsAdministrativeCommand(const std::string& command);

// Connects, measures, fills *out. Errors: Unavailable (cannot connect, authentication refused,
// or the connection broke), InvalidArgument (an error reply such as NOAUTH, no keys in the
// database, bad options).
Status RunProfile(const ProfileOptions& options, Profile* out);

// The mix from (command, calls) pairs, lower case as commandstats names them: administrative
// commands set apart, the rest sorted by calls with their shares. Replaces any mix in *out.
void SetMix(const std::vector<std::pair<std::string, uint64_t>>& calls, const std::string& source,
            Profile* out);

// Replaces the mix with the commands of a trace (docs/traces.md; `kvlab profile --trace`): the
// calls an application made over the trace's time, where commandstats has every call since the
// server started or since CONFIG RESETSTAT, the profiler's own and other tools' included.
// Errors: InvalidArgument for an unreadable, truncated or corrupt trace, or one without a data
// command.
Status MixFromTrace(const std::string& path, Profile* out);

inline constexpr double kDefaultProfileKeys = 10000;

// What the workload made from a profile looks like.
struct ProfileWorkloadOptions {
  std::string name = "profile";
  // Keys: the database's keys times this (at least 1 per type sampled); 0: scaled down to at
  // most kDefaultProfileKeys, so that a production database gives a workload a study can run.
  double scale = 0;
  double size_scale = 1;  // collection sizes times this (at least 1)
  uint64_t operations = 50000;
  uint64_t warmup_operations = 1000;
};

// The profile as JSON (docs/workloads.md, "The profile file"): schema version, context, mix,
// types. `context` is merged into its context block (kvlab's version, the time, the options).
std::string ProfileJson(const Profile& p, const std::string& context_json);

// The workload file: synthetic keys k:<n> in one range of records per type (load commands
// with "records"), collections drawn from the measured distributions ({fields:...},
// {members:...}, {scored:...}), TTLs on the measured share of each type's keys, and one run
// operation per command of the mix that kvlab serves and this module models, weighted by its
// share. `notes` gets a line per command of the mix left out, with why.
// REQUIRES: p.keys_sampled > 0.
std::string ProfileWorkloadJson(const Profile& p, const ProfileWorkloadOptions& o,
                                std::vector<std::string>* notes);

}  // namespace kvlab::workloads
