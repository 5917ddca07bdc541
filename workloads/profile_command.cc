#include "workloads/profile_command.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/version.h"
#include "flags/conventions.h"
#include "workloads/build_info.h"
#include "workloads/profile.h"

namespace kvlab::workloads {

using flags::InRange;
using flags::UsageError;

namespace {

struct ProfileFlags {
  std::string address;
  std::string user, password;
  bool tls = false;
  std::string cacert, cert, key;
  int db = 0;
  ProfileOptions options;
  ProfileWorkloadOptions workload;
  std::string out = "profile";
  std::string trace;  // the mix from this trace instead of INFO commandstats
  bool no_memory = false;
};

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return Status::IOError("cannot write '" + path + "'");
  f << text;
  f.close();
  if (!f) return Status::IOError("cannot write '" + path + "'");
  return Status::OK();
}

int Run(ProfileFlags& f) {
  if (f.tls || !f.cacert.empty() || !f.cert.empty() || !f.key.empty()) {
    // Debian's libhiredis (0.14) has no SSL support (hiredis_ssl came with 1.0), and kvlab
    // builds with Debian packages only.
    std::fprintf(stderr,
                 "kvlab profile: TLS is not built into this kvlab: Debian's hiredis 0.14 has no "
                 "SSL support. Profile through a TLS tunnel (stunnel, spiped) to a local port "
                 "instead\n");
    return flags::kExitCannotRun;
  }
  ProfileOptions o = f.options;
  Status s = redis::RedisEndpoint::Parse(f.address, &o.endpoint);
  if (!s.ok()) throw UsageError(s.message());
  if (!f.user.empty()) o.endpoint.user = f.user;
  if (!f.password.empty()) {
    o.endpoint.password = f.password;
  } else if (const char* env = std::getenv("REDISCLI_AUTH"); env != nullptr && *env != '\0') {
    o.endpoint.password = env;
  }
  if (!o.endpoint.user.empty() && o.endpoint.password.empty()) {
    throw UsageError("--user needs a password (--pass, -a or REDISCLI_AUTH)");
  }
  o.db = f.db;
  // The trace is read and checked before the server is asked anything: a bad trace is bad
  // input, and a production server should not be sampled for nothing.
  Profile from_trace;
  if (!f.trace.empty()) {
    s = MixFromTrace(f.trace, &from_trace);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab profile: --trace: %s\n", s.message().c_str());
      return flags::kExitUsage;
    }
  }
  o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  flags::InstallInterruptHandlers();
  o.stop = flags::InterruptFlag();
  const std::string started = UtcTimestamp();
  Profile p;
  s = RunProfile(o, &p);
  if (!s.ok()) {
    std::fprintf(stderr, "kvlab profile: %s\n", s.message().c_str());
    // Unreachable hosts, refused logins and empty databases are the user's input to fix;
    // a command refused by the allow-list is kvlab's own bug.
    return s.code() == Status::Code::kAborted ? flags::kExitFailed : flags::kExitUsage;
  }
  if (!f.trace.empty()) {
    std::fprintf(stderr,
                 "profile: the mix from %s (%llu data calls) instead of INFO commandstats "
                 "(%llu)\n",
                 f.trace.c_str(), static_cast<unsigned long long>(from_trace.mix_calls),
                 static_cast<unsigned long long>(p.mix_calls));
    p.mix = from_trace.mix;
    p.excluded = from_trace.excluded;
    p.mix_calls = from_trace.mix_calls;
    p.mix_source = from_trace.mix_source;
  }
  bool modelled_type = false;
  for (const char* t : {"string", "hash", "zset", "set", "list"}) {
    modelled_type = modelled_type || p.types.count(t) > 0;
  }
  if (!modelled_type) {
    std::fprintf(stderr,
                 "kvlab profile: no sampled key is a string, hash, zset, set or list: nothing "
                 "to make a workload of\n");
    return flags::kExitUsage;
  }
  const BuildInfo build = GetBuildInfo();
  const nlohmann::json context = {{"tool", "kvlab profile"},
                                  {"kvlab_version", kKvlabVersion},
                                  {"commit", build.commit},
                                  {"started", started},
                                  {"target", o.endpoint.ToString()},
                                  {"options",
                                   {{"db", o.db},
                                    {"time_s", o.time_s},
                                    {"max_commands", o.max_commands},
                                    {"sample", o.sample},
                                    {"rate", o.rate},
                                    {"scan_count", o.scan_count},
                                    {"members", o.members},
                                    {"memory_usage", o.memory_usage},
                                    {"trace", f.trace}}}};
  std::vector<std::string> notes;
  const std::string workload = ProfileWorkloadJson(p, f.workload, &notes);
  const std::string profile_path = f.out + ".profile.json";
  const std::string workload_path = f.out + ".workload.json";
  nlohmann::json profile = nlohmann::json::parse(ProfileJson(p, context.dump()));
  profile["workload"] = {{"file", workload_path}, {"notes", notes}};
  for (const auto& [path, text] :
       {std::pair{profile_path, profile.dump(2) + "\n"}, std::pair{workload_path, workload}}) {
    s = WriteFile(path, text);
    if (!s.ok()) {
      std::fprintf(stderr, "kvlab profile: %s\n", s.message().c_str());
      return flags::kExitUsage;
    }
  }
  for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
  std::printf("profile: %s\nworkload: %s (kvlab bench run %s)\n", profile_path.c_str(),
              workload_path.c_str(), workload_path.c_str());
  return p.stopped_by == "interrupted" ? flags::kExitInterrupted : flags::kExitOk;
}

}  // namespace

void AddProfileCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Profile a live Redis, read-only and bounded (INFO commandstats, SCAN-sampled keys), and "
      "write the profile and a workload made from it");
  auto f = std::make_shared<ProfileFlags>();
  cmd->add_option("address", f->address, "HOST:PORT, redis://[user:pass@]host:port or a socket")
      ->required();
  cmd->add_option("--user", f->user, "ACL user (with --pass)");
  cmd->add_option("-a,--pass", f->password, "Password (or REDISCLI_AUTH)");
  cmd->add_flag("--tls", f->tls, "Connect with TLS (not built: Debian's hiredis has no SSL)");
  cmd->add_option("--cacert", f->cacert, "TLS CA certificate");
  cmd->add_option("--cert", f->cert, "TLS client certificate");
  cmd->add_option("--key", f->key, "TLS client key");
  cmd->add_option("-n", f->db, "Database number")->check(InRange(0, 1 << 20));
  ProfileOptions& o = f->options;
  cmd->add_option("--time", o.time_s, "Seconds at most")
      ->check(flags::Positive())
      ->capture_default_str();
  cmd->add_option("--max-commands", o.max_commands, "Commands sent at most")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("--sample", o.sample, "Keys sampled at most")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("--rate", o.rate, "Commands per second at most")
      ->check(flags::Positive())
      ->capture_default_str();
  cmd->add_option("--scan-count", o.scan_count, "SCAN's COUNT")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("--members", o.members, "Members read per collection for their lengths")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_flag("--no-memory-usage", f->no_memory, "Do not send MEMORY USAGE");
  cmd->add_option("--trace", f->trace,
                  "Take the command mix from this trace (kvlab serve --record, kvlab trace "
                  "import) instead of INFO commandstats");
  ProfileWorkloadOptions& w = f->workload;
  cmd->add_option("--name", w.name, "The workload's name")->capture_default_str();
  cmd->add_option("--scale", w.scale,
                  "Keys of the workload: the database's times this (default: at most 10,000)")
      ->check(flags::Positive());
  cmd->add_option("--size-scale", w.size_scale, "Collection sizes times this")
      ->check(flags::Positive())
      ->capture_default_str();
  cmd->add_option("--operations", w.operations, "Operations of the workload's run phase")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("--warmup", w.warmup_operations, "Warm-up operations")
      ->check(flags::NonNegative())
      ->capture_default_str();
  cmd->add_option("-o,--out", f->out, "Output prefix: PREFIX.profile.json, PREFIX.workload.json")
      ->capture_default_str();
  cmd->final_callback([=] {
    f->options.memory_usage = !f->no_memory;
    *exit_code = Run(*f);
  });
}

}  // namespace kvlab::workloads
