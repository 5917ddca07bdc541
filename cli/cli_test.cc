// The command line of every kvlab subcommand, as a user meets it: build/kvlab in a child process.
// One exit-status convention (flags/conventions.h), --help per subcommand, the nearest option to a
// typo, conflicting or negative values refused, unusable directories refused before any work,
// and a Redis-tier version never run silently without its tier.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "backends/registry.h"
#include "encodings/key_codec.h"
#include "engine/engine.h"
#include "flags/conventions.h"
#include "testing/child_run.h"
#include "testing/kv_test_util.h"

namespace kvlab::cli {

using flags::kExitCannotRun;
using flags::kExitUsage;

namespace {

namespace fs = std::filesystem;

using testing::ChildRun;
using testing::Kvlab;
using testing::ReadFile;

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// kvlab's messages are its own words: no Status code names ("InvalidArgument: ...").
void ExpectNoStatusPrefix(const std::string& err, const std::vector<std::string>& args) {
  for (const char* code : {"InvalidArgument:", "NotFound:", "IOError:", "Corruption:",
                           "Unavailable:", "NotSupported:", "Aborted:", "Busy:", "NoSpace:"}) {
    EXPECT_FALSE(Has(err, code)) << ::testing::PrintToString(args) << "\n" << err;
  }
}

// Bad arguments exit 2 on every subcommand, whatever CLI11's own codes (104-109) were.
TEST(Cli, BadArgumentsExitTwoEverywhere) {
  testing::ScratchDir dir;
  const std::vector<std::vector<std::string>> bad = {
      {"nope"},
      {"serve", "--no-such-flag"},
      {"serve", "--port", "70000"},
      {"bench", "--no-such-flag"},
      {"bench", "run"},  // a workload is required
      {"bench", "run", "ycsb-a", "--backend", "leveldb"},
      {"bench", "run", "no-such-workload"},
      {"bench", "sweep", "volume"},
      {"bench", "show", "no-such-workload"},
      {"bench", "report", "/no/such/result.json"},
      {"conform", "--no-such-flag"},
      {"conform", "--backends", "leveldb"},
      {"conform", "--tier-states", "lukewarm"},
      {"gate", "--no-such-flag"},
      {"gate", "--baseline", "/no/such/baseline.json", "--current", "/no/such/current.json"},
      {"study", "--no-such-flag"},
      {"study", "--repetitions", "-1"},
      {"report", "/no/such/result.json"},
  };
  for (const auto& args : bad) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_FALSE(r.err.empty()) << ::testing::PrintToString(args);
    ExpectNoStatusPrefix(r.err, args);
  }
}

// An unknown subcommand is an error whatever follows it: not the main help and exit 0.
TEST(Cli, UnknownSubcommandIsAnErrorWhateverFollows) {
  testing::ScratchDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"nosuch"}, "kvlab: nosuch is not a subcommand of kvlab"},
      {{"nosuch", "--help"}, "kvlab: nosuch is not a subcommand of kvlab"},
      {{"nosuch", "--version"}, "kvlab: nosuch is not a subcommand of kvlab"},
      {{"--help", "nosuch"}, "kvlab: nosuch is not a subcommand of kvlab"},
      {{"bnech", "--help"}, "did you mean bench"},
      {{"bench", "nosuch", "--help"}, "kvlab bench: nosuch is not a subcommand of kvlab bench"},
      {{"trace", "nosuch"}, "kvlab trace: nosuch is not a subcommand of kvlab trace"},
      {{"gc", "extra", "--help"}, "kvlab gc: arguments not expected: extra"},
  };
  for (const auto& [args, message] : cases) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, message)) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << ::testing::PrintToString(args) << "\n" << r.out;
  }
  EXPECT_EQ(Kvlab({"bench", "--help"}, dir.path()).exit_code, 0);
  EXPECT_EQ(Kvlab({"--version"}, dir.path()).exit_code, 0);
}

// Numeric options say "not a number" for text, in kvlab's words on every subcommand (not
// CLI11's "Value abc not in range 1 to 18446744073709551615").
TEST(Cli, NumbersAreCheckedInWords) {
  testing::ScratchDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "run", "ycsb-a", "--operations", "abc"}, "not a number (got abc)"},
      {{"bench", "run", "ycsb-a", "--warmup", "x1"}, "not a number (got x1)"},
      {{"bench", "run", "ycsb-a", "--threads", "many"}, "not a number (got many)"},
      {{"bench", "run", "ycsb-a", "--duration", "long"}, "not a number (got long)"},
      {{"bench", "run", "ycsb-a", "--operations", "0"}, "must be at least 1 (got 0)"},
      {{"bench", "run", "ycsb-a", "--operations", "1.5"}, "must be a whole number (got 1.5)"},
      {{"bench", "run", "ycsb-a", "--threads", "300"}, "must be from 1 to 256 (got 300)"},
      {{"bench", "run", "ycsb-a", "--records", "-3"}, "must not be negative (got -3)"},
      {{"study", "--threads", "two"}, "not a number (got two)"},
      {{"serve", "--port", "http"}, "not a number (got http)"},
      {{"serve", "--port", "70000"}, "must be from 0 to 65535 (got 70000)"},
      {{"conform", "--resp", "127.0.0.1:1", "--resp-timeout", "soon"}, "not a number (got soon)"},
      {{"gc", "--dir", dir.path(), "--rate", "fast"}, "not a number (got fast)"},
  };
  for (const auto& [args, message] : cases) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, message)) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_FALSE(Has(r.err, "not in range")) << ::testing::PrintToString(args) << "\n" << r.err;
  }
}

// A switch and its negation are two help lines, each with what it does, never CLI11's
// "--gc-at-end,--no-gc-at-end{false}"; giving both is refused.
TEST(Cli, BooleanFlagsReadAsSwitches) {
  testing::ScratchDir dir;
  const std::vector<std::vector<std::string>> helps = {{"bench", "--help"},
                                                       {"bench", "run", "--help"}};
  for (const std::vector<std::string>& args : helps) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(Has(r.out, "{false}")) << r.out;
    EXPECT_FALSE(Has(r.out, "{true}")) << r.out;
    EXPECT_TRUE(Has(r.out, "--no-gc-at-end")) << r.out;
    EXPECT_TRUE(Has(r.out, "run no GC pass at its end")) << r.out;
  }
  const ChildRun r = Kvlab({"bench", "run", "ycsb-a", "--gc-at-end", "--no-gc-at-end"}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_TRUE(Has(r.err, "excludes")) << r.err;
}

// One name for the address of a RESP server to test: --resp, on bench and conform alike;
// conform's older --serve, --serve-only and --serve-timeout still work as its aliases.
TEST(Cli, OneNameForTheRespServer) {
  testing::ScratchDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "run", "ycsb-a", "--resp-only"}, "--resp-only needs --resp"},
      {{"conform", "--resp-only"}, "--resp-only needs --resp"},
      {{"conform", "--serve-only"}, "--resp-only needs --resp"},
      {{"conform", "--serve-timeout", "5"}, "--resp-timeout needs --resp"},
      {{"conform", "--resp", "127.0.0.1:1", "--resp-only", "--backends", "memory"},
       "--resp-only tests only the --resp server"},
      {{"conform", "--serve", "127.0.0.1:1", "--serve-only", "--backends", "memory"},
       "--resp-only tests only the --resp server"},
  };
  for (const auto& [args, message] : cases) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, message)) << ::testing::PrintToString(args) << "\n" << r.err;
  }
  const std::vector<std::vector<std::string>> helps = {{"bench", "run", "--help"},
                                                       {"conform", "--help"}};
  for (const std::vector<std::string>& args : helps) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_TRUE(Has(r.out, "  --resp")) << r.out;
  }
}

// One report command: `kvlab report`. `kvlab bench` lists no second one; the old `kvlab bench
// report` is out of its help and points to `kvlab report`.
TEST(Cli, OneReportCommand) {
  testing::ScratchDir dir;
  ChildRun r = Kvlab({"bench", "--help"}, dir.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_FALSE(Has(r.out, "  report ")) << r.out;
  EXPECT_TRUE(Has(r.out, "  run ")) << r.out;
  r = Kvlab({"--help"}, dir.path());
  EXPECT_TRUE(Has(r.out, "  report ")) << r.out;
  r = Kvlab({"bench", "report", "--help"}, dir.path());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Has(r.out, "use kvlab report instead")) << r.out;
}

// `kvlab trace` and a trace workload: MONITOR output imported, summarised and replayed; a
// MONITOR line with unbalanced quotes and a truncated or corrupt trace exit 2 naming the line or
// the byte offset.
TEST(Cli, TracesImportSummariseReplayAndRefuseBadInput) {
  testing::ScratchDir dir;
  const std::string good = dir.Sub("monitor.txt");
  std::ofstream(good) << "OK\n"
                      << "1700000000.000001 [0 127.0.0.1:5000] \"hset\" \"h\" \"f\" \"v\\n\"\n"
                      << "1700000000.000500 [0 127.0.0.1:5001] \"hget\" \"h\" \"f\"\n"
                      << "1700000000.001000 [0 127.0.0.1:5000] \"xadd\" \"s\" \"*\" \"a\" \"1\"\n";
  const std::string trace = dir.Sub("t.kvt");
  ChildRun r = Kvlab({"trace", "import", good, "-o", trace}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Kvlab({"trace", "info", trace}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.out, "commands 3, clients 2")) << r.out;
  EXPECT_TRUE(Has(r.out, "hset")) << r.out;
  r = Kvlab({"bench", "run", "trace:" + trace, "--backend", "memory", "--hash-versions", "0",
             "--repetitions", "1", "--results", dir.Sub("results")},
            dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;

  const std::string unbalanced = dir.Sub("bad.txt");
  std::ofstream(unbalanced) << "1700000000.000001 [0 127.0.0.1:5000] \"get\" \"k\"\n"
                            << "1700000000.000002 [0 127.0.0.1:5000] \"set\" \"k \"v\"\n";
  r = Kvlab({"trace", "import", unbalanced, "-o", dir.Sub("bad.kvt")}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Has(r.err, "bad.txt:2: unbalanced quotes")) << r.err;

  std::string bytes = ReadFile(trace);
  const std::string truncated = dir.Sub("truncated.kvt");
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() - 4);
  const std::string corrupt = dir.Sub("corrupt.kvt");
  bytes[bytes.size() / 2] ^= 0x01;
  std::ofstream(corrupt, std::ios::binary) << bytes;
  for (const std::string& bad : {truncated, corrupt}) {
    r = Kvlab({"trace", "info", bad}, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << bad;
    EXPECT_TRUE(Has(r.err, "at byte")) << r.err;
    r = Kvlab({"bench", "run", "trace:" + bad, "--backend", "memory"}, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << bad << "\n" << r.err;
  }
  r = Kvlab({"bench", "run", "ycsb-a", "--pace", "recorded"}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Has(r.err, "--pace applies to trace workloads")) << r.err;
  r = Kvlab({"serve", "--anonymize"}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage);
}

// "-5" is no way to say "not given": negative numbers are refused, not read as the default.
TEST(Cli, NegativeNumbersAreRefused) {
  testing::ScratchDir dir;
  const std::vector<std::vector<std::string>> negative = {
      {"bench", "run", "ycsb-a", "--operations", "-5"},
      {"bench", "run", "ycsb-a", "--seed", "-1"},
      {"bench", "run", "ycsb-a", "--records", "-3"},
      {"bench", "run", "ycsb-a", "--warmup", "-1"},
      {"bench", "run", "ycsb-a", "--elements", "-1"},
      {"bench", "run", "ycsb-a", "--duration", "-2"},
      {"bench", "run", "ycsb-a", "--rtt-us", "-100"},
      {"bench", "run", "ycsb-a", "--cache-mb", "-1"},
      {"bench", "sweep", "size", "--calls", "-1"},
      {"bench", "sweep", "size", "--sizes", "10,-100"},
      {"bench", "sweep", "rtt", "--rtts", "-5"},
      {"conform", "--random", "--seed", "-1"},
      {"conform", "--random", "--max-shrinks", "-1"},
  };
  for (const auto& args : negative) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
  }
  const ChildRun r = Kvlab({"bench", "run", "ycsb-a", "--operations", "-5"}, dir.path());
  EXPECT_TRUE(Has(r.err, "must not be negative")) << r.err;
}

// Each subcommand's --help lists its own options, the shared ones included.
TEST(Cli, HelpPerSubcommand) {
  testing::ScratchDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"bench", "run", "--help"}, {"--backends", "--operations", "--hash-versions", "--results"}},
      {{"bench", "sweep", "--help"}, {"--max-size", "--backends", "--repetitions", "--calls"}},
      {{"bench", "--help"}, {"--backends", "--repetitions", "run", "sweep"}},
      {{"conform", "--help"}, {"--random", "--allow-flush", "--deviations"}},
      {{"serve", "--help"}, {"--port", "--allow-degraded", "--cache-redis"}},
      {{"--help"}, {"bench", "conform", "serve", "Exit status"}},
  };
  for (const auto& [args, expected] : cases) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, 0) << ::testing::PrintToString(args);
    for (const std::string& e : expected) {
      EXPECT_TRUE(Has(r.out, e)) << ::testing::PrintToString(args) << " lacks " << e << "\n"
                                 << r.out;
    }
  }
}

TEST(Cli, TyposGetTheNearestName) {
  testing::ScratchDir dir;
  ChildRun r = Kvlab({"bench", "run", "ycsb-a", "--backned", "memory"}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Has(r.err, "did you mean --backend")) << r.err;
  EXPECT_TRUE(Has(r.err, "kvlab bench run --help")) << r.err;
  r = Kvlab({"bnech"}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Has(r.err, "did you mean bench")) << r.err;
  r = Kvlab({"conform", "--radnom"}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage);
  EXPECT_TRUE(Has(r.err, "did you mean --random")) << r.err;
  r = Kvlab({"bench", "sweep", "size", "--max-szie", "100"}, dir.path());
  EXPECT_TRUE(Has(r.err, "did you mean --max-size")) << r.err;
}

// Flags that contradict each other are refused with what to do, never resolved silently.
TEST(Cli, ConflictingFlagsAreRefused) {
  testing::ScratchDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", "run", "ycsb-a", "--backends", "memory,lmdb", "--backend", "rocksdb"},
       "--backend and --backends were both given"},
      {{"bench", "run", "ycsb-a", "--hash-encoding", "1", "--hash-versions", "0"},
       "--hash-encoding and --hash-versions were both given"},
      {{"bench", "run", "leaderboard", "--zset-encoding", "1", "--zset-versions", "0"},
       "--zset-encoding and --zset-versions were both given"},
      {{"bench", "run", "ycsb-a", "--resp-only"}, "--resp-only needs --resp"},
      {{"bench", "sweep", "rtt", "--rtt-us", "100"}, "--rtt-us does not apply"},
      {{"bench", "sweep", "size", "--rtts", "0,100"}, "--rtts does not apply"},
      {{"bench", "--threads", "2", "sweep", "size"}, "--threads does not apply to sweeps"},
      {{"bench", "sweep", "size", "--sizes", "10,100", "--max-size", "1000"},
       "--max-size and --sizes were both given"},
      {{"conform", "--seed", "42"}, "--seed needs --random"},
      {{"conform", "--sequences", "2"}, "--sequences needs --random"},
      {{"conform", "--allow-flush"}, "--allow-flush needs --resp"},
      {{"conform", "--random", "--cases", "x.txt"}, "--cases with --random needs --corpus"},
  };
  for (const auto& [args, message] : cases) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, message)) << ::testing::PrintToString(args) << "\n" << r.err;
  }
}

// The etcd backend's flags are checked before any store is opened or any connection made, on
// every subcommand that takes them; the password never comes from the command line.
TEST(Cli, EtcdFlagsAreChecked) {
  testing::ScratchDir dir;
  std::ofstream(dir.Sub("ca.pem")) << "-----BEGIN CERTIFICATE-----\n";
  std::ofstream(dir.Sub("empty-password"));
  ::unsetenv("KVLAB_ETCD_PASSWORD");
  const std::string ca = dir.Sub("ca.pem");
  const std::vector<std::string> cluster = {"--backend", "etcd", "--etcd-endpoints", "127.0.0.1:1"};
  auto with = [&](std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {with({"serve"}, with(cluster, {"--etcd-max-txn-ops", "0"})), "greater than 0 (got 0)"},
      {with({"bench", "run", "ycsb-a"}, with(cluster, {"--etcd-max-txn-ops", "-3"})),
       "greater than 0 (got -3)"},
      {{"conform", "--backends", "etcd", "--etcd-max-txn-ops", "0"}, "greater than 0 (got 0)"},
      {{"serve", "--backend", "etcd", "--etcd-cacert", ca},
       "--etcd-cacert requires --etcd-endpoints"},
      {{"serve", "--backend", "etcd", "--etcd-user", "bob"},
       "--etcd-user requires --etcd-endpoints"},
      {with({"serve"}, with(cluster, {"--etcd-cacert", dir.Sub("missing.pem")})),
       "File does not exist"},
      {with({"serve"}, with(cluster, {"--etcd-cacert", ca, "--etcd-cert", ca})),
       "--etcd-cert requires --etcd-key"},
      {with({"serve"}, with(cluster, {"--etcd-cacert", ca, "--etcd-key", ca})),
       "--etcd-key requires --etcd-cert"},
      {with({"serve"}, with(cluster, {"--etcd-cert", ca, "--etcd-key", ca})),
       "--etcd-cert requires --etcd-cacert"},
      {with({"serve"}, with(cluster, {"--etcd-password-file", ca})),
       "--etcd-password-file requires --etcd-user"},
      {with({"serve"}, with(cluster, {"--etcd-user", "bob"})),
       "--etcd-user bob needs its password: set KVLAB_ETCD_PASSWORD or give --etcd-password-file"},
      {{"conform", "--backends", "etcd", "--etcd-endpoints", "127.0.0.1:1", "--etcd-user", "bob"},
       "--etcd-user bob needs its password"},
      {with({"serve"}, with(cluster, {"--etcd-user", "bob", "--etcd-password-file",
                                      dir.Sub("empty-password")})),
       "--etcd-password-file " + dir.Sub("empty-password") + ": empty"},
  };
  for (const auto& [args, message] : cases) {
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, message)) << ::testing::PrintToString(args) << "\n" << r.err;
  }
  const ChildRun help = Kvlab({"serve", "--help"}, dir.path());
  EXPECT_TRUE(Has(help.out, "never from the command line")) << help.out;
  EXPECT_TRUE(Has(help.out, "--etcd-max-txn-ops")) << help.out;
}

// Unusable directories are found before the first cell, with the OS's reason.
TEST(Cli, DirectoriesAreCheckedBeforeAnyWork) {
  testing::ScratchDir dir;
  std::ofstream(dir.Sub("a-file")) << "x";
  fs::create_directories(dir.Sub("store"));
  std::ofstream(dir.Sub("store/KVLAB_STORE")) << "kvlab-store 1\nbackend memory\n";
  fs::create_directories(dir.Sub("full"));
  std::ofstream(dir.Sub("full/something")) << "x";
  const std::vector<std::string> run = {"bench",
                                        "run",
                                        "session-store",
                                        "--backend",
                                        "memory",
                                        "--records",
                                        "10",
                                        "--operations",
                                        "10",
                                        "--no-report",
                                        "--allow-invalid-timing"};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--dir", dir.Sub("a-file")}, "not a directory"},
      {{"--dir", dir.Sub("store")}, "is a kvlab store"},
      {{"--dir", dir.Sub("full")}, "is not empty"},
      {{"--results", dir.Sub("a-file")}, "not a directory"},
      {{"--results", dir.Sub("a-file") + "/sub"}, "Not a directory"},
      {{"--results", "/sys/kvlab-results"}, "cannot create it: Operation not permitted"},
      {{"--dir", "/sys/kvlab-stores"},
       "--dir /sys/kvlab-stores: cannot create it: Operation not permitted"},
  };
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> args = run;
    args.insert(args.end(), extra.begin(), extra.end());
    if (extra[0] != "--results") args.insert(args.end(), {"--results", dir.Sub("results")});
    const ChildRun r = Kvlab(args, dir.path());
    EXPECT_EQ(r.exit_code, kExitUsage) << ::testing::PrintToString(args) << "\n" << r.err;
    EXPECT_TRUE(Has(r.err, message)) << ::testing::PrintToString(args) << "\n" << r.err;
    // Once, before anything ran: no progress line, no result.
    EXPECT_FALSE(Has(r.err, "[1/")) << r.err;
  }
  const ChildRun r = Kvlab({"conform", "--out", dir.Sub("a-file")}, dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_TRUE(Has(r.err, "--out " + dir.Sub("a-file") + ": not a directory")) << r.err;
}

// `serve` with a Redis-tier version whose tier cannot be reached refuses to start, naming the
// version, the server and the reason (or starts degraded with --allow-degraded).
TEST(Cli, ServeRefusesATierVersionWithoutItsTier) {
  testing::ScratchDir dir;
  const std::vector<std::string> serve = {"serve", "--port", "0", "--unixsocket",
                                          dir.Sub("kvlab.sock")};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = serve;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  ChildRun r = Kvlab(with({"--hash-encoding", "2", "--cache-redis", "127.0.0.1:1"}), dir.path());
  EXPECT_EQ(r.exit_code, kExitCannotRun) << r.err;
  EXPECT_TRUE(Has(r.err,
                  "--hash-encoding 2: hash encode-version 2 needs its Redis tier: the "
                  "Redis cache (127.0.0.1:1) cannot be reached"))
      << r.err;
  r = Kvlab(with({"--zset-encoding", "1", "--cache-redis", "bogus"}), dir.path());
  EXPECT_EQ(r.exit_code, kExitCannotRun) << r.err;
  EXPECT_TRUE(Has(r.err, "the Redis cache (bogus) cannot be reached")) << r.err;
  // No redis-server on the PATH: the private cache cannot start.
  r = Kvlab(with({"--hash-encoding", "3"}), dir.path(), "/nonexistent");
  EXPECT_EQ(r.exit_code, kExitCannotRun) << r.err;
  EXPECT_TRUE(Has(r.err, "cannot start the private redis-server")) << r.err;
}

// A store whose KVLAB_STORE marker was edited to name another backend than its files: `serve`
// refuses it as an unusable --dir (exit 2), naming both, and creates no file.
TEST(Cli, ServeRefusesAStoreWhoseMarkerContradictsItsFiles) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  {
    backends::StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = store;
    std::unique_ptr<backends::OpenedStore> opened;
    ASSERT_TRUE(backends::OpenStore(spec, &opened).ok());
    ASSERT_TRUE(opened->store()->Put("k", "v").ok());
  }
  std::ofstream(store + "/KVLAB_STORE", std::ios::trunc) << "kvlab-store 2\nbackend lmdb\n";
  auto names = [&] {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(store)) out.insert(e.path().filename().string());
    return out;
  };
  const std::set<std::string> before = names();
  const ChildRun r = Kvlab({"serve", "--backend", "lmdb", "--dir", store, "--port", "0",
                            "--unixsocket", dir.Sub("kvlab.sock")},
                           dir.path());
  EXPECT_EQ(r.exit_code, kExitUsage) << r.err;
  EXPECT_TRUE(Has(r.err, "lmdb: " + store +
                             ": the directory holds RocksDB files (CURRENT, IDENTITY) but its "
                             "KVLAB_STORE marker names lmdb"))
      << r.err;
  ExpectNoStatusPrefix(r.err, {"serve"});
  EXPECT_EQ(names(), before);
}

// `serve --dir D` without --backend opens the store its marker names, and says which protocols
// it speaks (RESP3 after HELLO 3 as well as RESP2).
TEST(Cli, ServeReadsTheMarkerAndNamesItsProtocols) {
  testing::ScratchDir dir;
  const std::string store = dir.Sub("store");
  {
    backends::StoreSpec spec;
    spec.backend = "rocksdb";
    spec.options.dir = store;
    spec.format = encodings::StoreFormatRecord(engine::EngineOptions().keys);  // as kvlab's
    std::unique_ptr<backends::OpenedStore> opened;
    ASSERT_TRUE(backends::OpenStore(spec, &opened).ok());
  }
  const pid_t pid = testing::SpawnKvlab(
      {"serve", "--dir", store, "--port", "0", "--unixsocket", dir.Sub("kvlab.sock")}, dir.path());
  // Waits for the line that says it serves (or for the process to end, on an error).
  std::string err;
  int status = 0;
  bool exited = false;
  for (int i = 0; i < 3000 && !Has(err, "serving") && !exited; ++i) {
    exited = waitpid(pid, &status, WNOHANG) == pid;
    usleep(10'000);
    err = ReadFile(dir.Sub("stderr"));
  }
  EXPECT_TRUE(Has(err, "kvlab: serving RESP2 and RESP3 (HELLO 3) on " + dir.Sub("kvlab.sock")))
      << err;
  EXPECT_TRUE(Has(err, "rocksdb store")) << err;
  if (!exited) {
    kill(pid, SIGTERM);
    testing::Wait(pid);
  }
}

// What users read cites nothing outside the repository, and no placeholder of work since done.
TEST(UserFacingText, IsSelfContained) {
  std::vector<std::string> files = {"README.md", "conformance/README.md", "docs/deviations.json"};
  for (const auto& e : fs::directory_iterator(std::string(KVLAB_SOURCE_DIR) + "/docs")) {
    if (e.path().extension() == ".md") {
      files.push_back("docs/" + e.path().filename().string());
    }
  }
  for (const std::string& file : files) {
    const std::string text = ReadFile(std::string(KVLAB_SOURCE_DIR) + "/" + file);
    ASSERT_FALSE(text.empty()) << file;
    for (const char* outside : {"../shared/", "/work/"}) {
      EXPECT_FALSE(Has(text, outside)) << file << " cites " << outside;
    }
    for (const char* stale :
         {"when the Redis tier lands", "until that is wired", "Until that is wired",
          "join when they land", "and its parser land"}) {
      EXPECT_FALSE(Has(text, stale)) << file << " still says '" << stale << "'";
    }
  }
}

}  // namespace
}  // namespace kvlab::cli
