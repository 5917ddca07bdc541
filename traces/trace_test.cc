// The trace format (round trip, size, truncation and corruption), MONITOR import (including a
// real redis-server's MONITOR output of binary arguments), anonymization and the recorder.
// Built into workloads' runner_test (workloads/CMakeLists.txt), to save a test executable.
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "redis/server_process.h"
#include "testing/kv_test_util.h"
#include "traces/anonymizer.h"
#include "traces/monitor_import.h"
#include "traces/recorder.h"
#include "traces/trace_format.h"

namespace kvlab::traces {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Reads every command of a trace; the first error's Status.
Status ReadAll(const std::string& path, std::vector<TraceCommand>* out, TraceEnd* end = nullptr) {
  out->clear();
  TraceReader r;
  KVLAB_RETURN_IF_ERROR(r.Open(path));
  for (;;) {
    TraceCommand c;
    bool done = false;
    KVLAB_RETURN_IF_ERROR(r.Next(&c, &done));
    if (done) break;
    out->push_back(std::move(c));
  }
  if (end != nullptr) *end = r.end();
  return Status::OK();
}

std::vector<std::vector<std::string>> SampleCommands(size_t n) {
  std::vector<std::vector<std::string>> out;
  for (size_t i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0:
        out.push_back({"HSET", "user:" + std::to_string(i % 97), "f" + std::to_string(i), "v"});
        break;
      case 1:
        out.push_back({"GET", std::string("bin\0\r\n\"key", 10)});
        break;
      case 2:
        out.push_back({"ZADD", "board", std::to_string(i), "player" + std::to_string(i)});
        break;
      default:
        out.push_back({"SET", "k" + std::to_string(i), std::string(300, 'x')});
    }
  }
  return out;
}

TEST(TraceFormatTest, RoundTripsCommandsTimesClientsAndDatabases) {
  testing::ScratchDir dir;
  const std::string path = dir.Sub("t.kvt");
  const auto commands = SampleCommands(5000);  // more than one 64 KB block
  TraceWriter w;
  TraceHeader h;
  h.start_unix_us = 1700000000000000;
  h.context = "recorded-by: test\n";
  ASSERT_TRUE(w.Open(path, h).ok());
  uint64_t arg_bytes = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    ASSERT_TRUE(w.Add(i * 37, i % 5 + 1, static_cast<uint32_t>(i % 3), commands[i]).ok());
    for (const auto& a : commands[i]) arg_bytes += a.size();
  }
  ASSERT_TRUE(w.Close().ok());
  std::vector<TraceCommand> read;
  TraceEnd end;
  Status s = ReadAll(path, &read, &end);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(read.size(), commands.size());
  EXPECT_EQ(end.commands, commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    EXPECT_EQ(read[i].argv, commands[i]) << i;
    EXPECT_EQ(read[i].time_us, i * 37);
    EXPECT_EQ(read[i].client, i % 5 + 1);
    EXPECT_EQ(read[i].db, i % 3);
  }
  // Compact: a few bytes per command beyond its arguments (delta, client, db, argc, lengths).
  const double overhead =
      (static_cast<double>(std::filesystem::file_size(path)) - static_cast<double>(arg_bytes)) /
      static_cast<double>(commands.size());
  EXPECT_LT(overhead, 10.0);
  TraceSummary summary;
  ASSERT_TRUE(SummarizeTrace(path, &summary).ok());
  EXPECT_EQ(summary.commands, 5000u);
  EXPECT_EQ(summary.clients, 5u);
  EXPECT_EQ(summary.dbs, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(summary.mix[0].second, 1250u);
}

TEST(TraceFormatTest, SyntheticValuesKeepTheirLengthAndNumbersStayNumbers) {
  testing::ScratchDir dir;
  const std::string path = dir.Sub("t.kvt");
  TraceWriter w;
  ASSERT_TRUE(w.Open(path, TraceHeader()).ok());
  ASSERT_TRUE(w.Add(0, 1, 0, {"SET", "k", std::string(1000, 's')},
                    {ArgKind::kLiteral, ArgKind::kLiteral, ArgKind::kValue})
                  .ok());
  ASSERT_TRUE(w.Add(1, 1, 0, {"SET", "n", "12345"},
                    {ArgKind::kLiteral, ArgKind::kLiteral, ArgKind::kNumber})
                  .ok());
  ASSERT_TRUE(w.Close().ok());
  EXPECT_LT(std::filesystem::file_size(path), 100u);  // the 1000 bytes were not stored
  std::vector<TraceCommand> read;
  ASSERT_TRUE(ReadAll(path, &read).ok());
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].argv[2].size(), 1000u);
  EXPECT_NE(read[0].argv[2], std::string(1000, 's'));
  EXPECT_EQ(read[0].kinds[2], ArgKind::kValue);
  EXPECT_EQ(read[1].argv[2], "10000");
}

TEST(TraceFormatTest, TruncationAndCorruptionAreReportedWithTheirOffset) {
  testing::ScratchDir dir;
  const std::string path = dir.Sub("t.kvt");
  TraceWriter w;
  ASSERT_TRUE(w.Open(path, TraceHeader()).ok());
  for (const auto& c : SampleCommands(3000)) ASSERT_TRUE(w.Add(0, 1, 0, c).ok());
  ASSERT_TRUE(w.Close().ok());
  const std::string bytes = ReadFile(path);
  const std::string bad = dir.Sub("bad.kvt");
  std::vector<TraceCommand> read;
  // Every cut is detected: in the magic, the header, a block, the end record.
  for (size_t cut : {size_t{0}, size_t{5}, size_t{12}, size_t{40}, size_t{70000}, bytes.size() / 2,
                     bytes.size() - 5, bytes.size() - 1}) {
    WriteFile(bad, bytes.substr(0, cut));
    Status s = ReadAll(bad, &read);
    ASSERT_FALSE(s.ok()) << cut;
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
    if (cut > 16) {
      EXPECT_NE(s.message().find("truncated"), std::string::npos) << cut << ": " << s.message();
      EXPECT_NE(s.message().find("at byte"), std::string::npos) << s.message();
    }
  }
  // A flipped byte inside a block: its checksum.
  std::string flipped = bytes;
  flipped[bytes.size() / 3] ^= 0x20;
  WriteFile(bad, flipped);
  Status s = ReadAll(bad, &read);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("corrupt"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("at byte"), std::string::npos) << s.message();
  // Bytes after the end record.
  WriteFile(bad, bytes + "x");
  s = ReadAll(bad, &read);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("follow the end record"), std::string::npos) << s.message();
  // Not a trace at all.
  WriteFile(bad, "1339518083.107412 [0 127.0.0.1:60866] \"set\" \"k\" \"v\"\n");
  s = ReadAll(bad, &read);
  EXPECT_NE(s.message().find("not a kvlab trace"), std::string::npos) << s.message();
}

TEST(MonitorImportTest, ParsesRedisQuoting) {
  MonitorLine m;
  Status s = ParseMonitorLine(
      R"(1339518083.107412 [3 127.0.0.1:60866] "set" "a \"q\" \\ b" "\n\r\t\a\b\x00\xff\x7F")", &m);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(m.time_us, 1339518083107412u);
  EXPECT_EQ(m.db, 3u);
  EXPECT_EQ(m.client, "127.0.0.1:60866");
  ASSERT_EQ(m.argv.size(), 3u);
  EXPECT_EQ(m.argv[1], "a \"q\" \\ b");
  EXPECT_EQ(m.argv[2], std::string("\n\r\t\a\b\0\xff\x7f", 8));
  ASSERT_TRUE(ParseMonitorLine(R"(1.5 [0 lua] "ping")", &m).ok());
  EXPECT_EQ(m.time_us, 1500000u);
  EXPECT_EQ(m.client, "lua");

  s = ParseMonitorLine(R"(1339518083.107412 [0 127.0.0.1:1] "set" "key "value")", &m);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unbalanced quotes"), std::string::npos) << s.message();
  s = ParseMonitorLine(R"(1339518083.107412 [0 127.0.0.1:1] "get" "k\)", &m);
  EXPECT_FALSE(s.ok());
  s = ParseMonitorLine(R"(1339518083.107412 [0 127.0.0.1:1] "get" "\xZZ")", &m);
  EXPECT_FALSE(s.ok());
  s = ParseMonitorLine("garbage", &m);
  EXPECT_FALSE(s.ok());
}

TEST(MonitorImportTest, AnErrorNamesTheLine) {
  testing::ScratchDir dir;
  std::istringstream in(
      "OK\n1.000001 [0 127.0.0.1:1] \"set\" \"k\" \"v\"\n1.000002 [0 127.0.0.1:1] \"get\" \"k\n");
  ImportStats stats;
  Status s = ImportMonitor(in, "m.txt", dir.Sub("t.kvt"), nullptr, &stats);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("m.txt:3: unbalanced quotes"), std::string::npos) << s.message();
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("t.kvt")));
}

// A real redis-server's MONITOR output of arguments with quotes, newlines, backslashes and
// bytes outside ASCII, imported: every argument comes back exactly.
TEST(MonitorImportTest, ImportsARealRedisServersMonitorOutput) {
  redis::RedisServerProcess server;
  Status s = server.Start();
  ASSERT_TRUE(s.ok()) << s.ToString();
  const redis::RedisEndpoint& e = server.endpoint();
  redisContext* monitor = redisConnect(e.host.c_str(), e.port);
  redisContext* client = redisConnect(e.host.c_str(), e.port);
  ASSERT_TRUE(monitor != nullptr && monitor->err == 0);
  ASSERT_TRUE(client != nullptr && client->err == 0);
  auto* ok = static_cast<redisReply*>(redisCommand(monitor, "MONITOR"));
  ASSERT_NE(ok, nullptr);
  freeReplyObject(ok);
  std::string binary;
  for (int b = 0; b < 256; ++b) binary.push_back(static_cast<char>(b));
  const std::vector<std::vector<std::string>> sent = {
      {"SET", "plain", "value"},
      {"SET", "quote\"d key", "line\nbreak\r\ttab \\ back"},
      {"HSET", "h", "f", binary},
      {"SELECT", "2"},
      {"RPUSH", "list", std::string("\0\x01\x7f\x80\xfe", 5), "\a\b"},
  };
  for (const auto& argv : sent) {
    std::vector<const char*> p;
    std::vector<size_t> n;
    for (const auto& a : argv) {
      p.push_back(a.data());
      n.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
        redisCommandArgv(client, static_cast<int>(argv.size()), p.data(), n.data()));
    ASSERT_NE(r, nullptr);
    freeReplyObject(r);
  }
  std::string output = "OK\n";  // as redis-cli MONITOR prints it first
  for (size_t i = 0; i < sent.size(); ++i) {
    void* reply = nullptr;
    ASSERT_EQ(redisGetReply(monitor, &reply), REDIS_OK);
    auto* r = static_cast<redisReply*>(reply);
    output += std::string(r->str, r->len) + "\n";
    freeReplyObject(r);
  }
  redisFree(monitor);
  redisFree(client);
  testing::ScratchDir dir;
  std::istringstream in(output);
  ImportStats stats;
  s = ImportMonitor(in, "monitor", dir.Sub("t.kvt"), nullptr, &stats);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << output;
  std::vector<TraceCommand> read;
  ASSERT_TRUE(ReadAll(dir.Sub("t.kvt"), &read).ok());
  ASSERT_EQ(read.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    std::vector<std::string> lower = sent[i];
    for (char& c : lower[0]) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::vector<std::string> got = read[i].argv;
    for (char& c : got[0]) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(got, lower) << i;
    EXPECT_EQ(read[i].client, 1u);
  }
  EXPECT_EQ(read[4].db, 2u);  // after SELECT 2
  EXPECT_GE(read[4].time_us, read[0].time_us);
}

TEST(AnonymizerTest, HashesKeysAndMembersConsistentlyAndKeepsOnlyValueLengths) {
  Anonymizer a("secret");
  auto apply = [&](std::vector<std::string> argv, std::vector<ArgKind>* kinds) {
    a.Apply(&argv, kinds);
    return argv;
  };
  std::vector<ArgKind> k;
  const auto hset = apply({"HSET", "user:1", "name", "alice", "age", "42"}, &k);
  EXPECT_EQ(hset[1], a.Hash("user:1"));
  EXPECT_EQ(hset[2], a.Hash("name"));
  EXPECT_EQ(hset[3], "alice");  // kept in argv, marked: the writer stores its length only
  EXPECT_EQ(k[3], ArgKind::kValue);
  EXPECT_EQ(k[5], ArgKind::kNumber);
  EXPECT_EQ(k[2], ArgKind::kLiteral);
  // The same key in another command hashes the same; a member equal to a key name too.
  EXPECT_EQ(apply({"HGET", "user:1", "name"}, &k)[1], hset[1]);
  EXPECT_EQ(apply({"SADD", "users", "user:1"}, &k)[2], hset[1]);
  // Keys from the command table's key specs: ZUNIONSTORE dst 2 a b WEIGHTS 1 2.
  const auto z = apply({"ZUNIONSTORE", "dst", "2", "a", "b", "WEIGHTS", "1", "2"}, &k);
  EXPECT_EQ(z[1], a.Hash("dst"));
  EXPECT_EQ(z[2], "2");
  EXPECT_EQ(z[3], a.Hash("a"));
  EXPECT_EQ(z[5], "WEIGHTS");
  // ZADD: options and scores kept, members hashed.
  const auto zadd = apply({"ZADD", "board", "NX", "CH", "1.5", "bob", "2", "eve"}, &k);
  EXPECT_EQ(zadd[2], "NX");
  EXPECT_EQ(zadd[4], "1.5");
  EXPECT_EQ(zadd[5], a.Hash("bob"));
  EXPECT_EQ(zadd[7], a.Hash("eve"));
  // SET's options stay; its value is a length.
  const auto set = apply({"SET", "s", "secret value", "EX", "100"}, &k);
  EXPECT_EQ(k[2], ArgKind::kValue);
  EXPECT_EQ(set[3], "EX");
  EXPECT_EQ(set[4], "100");
  // Lex bounds: the bracket and the infinities kept.
  const auto lex = apply({"ZRANGEBYLEX", "z", "[abc", "+"}, &k);
  EXPECT_EQ(lex[2], "[" + a.Hash("abc"));
  EXPECT_EQ(lex[3], "+");
  // A command the table does not describe: everything but numbers hashed.
  const auto unknown = apply({"XADD", "stream", "*", "field", "7"}, &k);
  EXPECT_EQ(unknown[1], a.Hash("stream"));
  EXPECT_EQ(unknown[3], a.Hash("field"));
  EXPECT_EQ(unknown[4], "7");
  // Short names get 16 characters; long ones keep their length. Another secret, another hash.
  EXPECT_EQ(a.Hash("k").size(), 16u);
  EXPECT_EQ(a.Hash(std::string(100, 'k')).size(), 100u);
  EXPECT_NE(Anonymizer("other").Hash("user:1"), a.Hash("user:1"));
}

TEST(RecorderTest, SamplesWholeClientsAndStopsAtItsSizeBound) {
  testing::ScratchDir dir;
  RecorderOptions o;
  o.path = dir.Sub("s.kvt");
  o.sample = 0.25;
  std::unique_ptr<TraceRecorder> r;
  ASSERT_TRUE(TraceRecorder::Open(o, &r).ok());
  for (uint64_t client = 1; client <= 400; ++client) {
    for (int i = 0; i < 3; ++i) r->Record(client, 0, {"INCR", "c" + std::to_string(client)});
  }
  ASSERT_TRUE(r->Close().ok());
  std::vector<TraceCommand> read;
  ASSERT_TRUE(ReadAll(o.path, &read).ok());
  std::map<uint64_t, int> per_client;
  for (const auto& c : read) ++per_client[c.client];
  for (const auto& [client, n] : per_client) EXPECT_EQ(n, 3) << client;  // whole clients
  EXPECT_GT(per_client.size(), 60u);
  EXPECT_LT(per_client.size(), 140u);

  o.path = dir.Sub("b.kvt");
  o.sample = 1;
  o.max_bytes = 4000;
  std::vector<std::string> logged;
  o.log = [&](const std::string& line) { logged.push_back(line); };
  ASSERT_TRUE(TraceRecorder::Open(o, &r).ok());
  for (int i = 0; i < 1000; ++i) r->Record(1, 0, {"SET", "k" + std::to_string(i), "v"});
  ASSERT_TRUE(r->Close().ok());
  TraceEnd end;
  ASSERT_TRUE(ReadAll(o.path, &read, &end).ok());
  EXPECT_LE(std::filesystem::file_size(o.path), 4000u);
  EXPECT_GT(read.size(), 100u);
  EXPECT_EQ(end.flags & kTraceStoppedAtSizeBound, kTraceStoppedAtSizeBound);
  EXPECT_EQ(end.unrecorded + read.size(), 1000u);
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("--record-max-bytes"), std::string::npos);
}

}  // namespace
}  // namespace kvlab::traces
