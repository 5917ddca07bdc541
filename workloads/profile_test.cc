// `kvlab profile` against real redis-servers: the round trip (a known dataset and mix are
// profiled; the workload made from the profile is loaded and run on a second server, which is
// profiled again), what it sends (nothing but reads), what it writes (no source key, field or
// value), bad input; and the workload format's synthetic collections the profile relies on.
#include "workloads/profile.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "redis/server_process.h"
#include "traces/trace_format.h"
#include "workloads/op_expander.h"
#include "workloads/runner.h"
#include "workloads/target.h"
#include "workloads/workload.h"

namespace kvlab::workloads {
namespace {

using redis::RedisClient;
using redis::RedisServerProcess;
using resp::Reply;

// Distinctive strings of the source dataset: none may appear in the profile's outputs.
constexpr const char* kKeyTag = "SRCKEYzq";
constexpr const char* kFieldTag = "SRCFIELDzq";
constexpr const char* kValueTag = "SRCVALUEzq";

std::string Padded(const std::string& head, size_t length) {
  std::string s = head;
  while (s.size() < length) s.push_back(static_cast<char>('a' + s.size() % 26));
  return s;
}

void Send(RedisClient& c, const std::vector<std::vector<std::string>>& cmds) {
  std::vector<Reply> replies;
  ASSERT_TRUE(c.Pipeline(cmds, &replies).ok());
  for (const Reply& r : replies) ASSERT_FALSE(r.is_error()) << r.Describe();
}

std::string Info(RedisClient& c, const std::string& section) {
  Reply r;
  EXPECT_TRUE(c.Command({"INFO", section}, &r).ok());
  return r.str();
}

std::string InfoValue(RedisClient& c, const std::string& section, const std::string& field) {
  std::istringstream in(Info(c, section));
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(field + ":")) return line.substr(field.size() + 1);
  }
  ADD_FAILURE() << "no " << field << " in INFO " << section;
  return "";
}

// The dataset: sizes per type, as loaded (for the expected quantiles).
struct Dataset {
  std::map<std::string, Samples> sizes;
  std::map<std::string, uint64_t> keys;
};

// Loads hashes, zsets, sets, lists and strings of known sizes, every name and value tagged.
void LoadSource(RedisClient& c, Dataset* d) {
  std::vector<std::vector<std::string>> cmds;
  auto key = [](const char* type, int i) {
    return std::string(kKeyTag) + type + std::to_string(i);
  };
  for (int i = 0; i < 400; ++i) {
    const int n = 1 + (i * 37) % 100;
    std::vector<std::string> hset = {"HSET", key("h", i)};
    for (int j = 0; j < n; ++j) {
      hset.push_back(Padded(kFieldTag + std::to_string(j) + "_", 12 + (j * 7) % 20));
      hset.push_back(Padded(kValueTag, 16 + (i + j) % 80));
    }
    cmds.push_back(hset);
    d->sizes["hash"].values.push_back(n);
  }
  for (int i = 0; i < 150; ++i) {
    const int n = 1 + (i * 13) % 300;
    std::vector<std::string> zadd = {"ZADD", key("z", i)};
    for (int j = 0; j < n; ++j) {
      zadd.push_back(std::to_string(j));
      zadd.push_back(Padded(kFieldTag + std::to_string(j) + "_", 20));
    }
    cmds.push_back(zadd);
    d->sizes["zset"].values.push_back(n);
  }
  for (int i = 0; i < 100; ++i) {
    const int n = 1 + i % 20;
    std::vector<std::string> sadd = {"SADD", key("s", i)};
    for (int j = 0; j < n; ++j) sadd.push_back(kFieldTag + std::to_string(j));
    cmds.push_back(sadd);
    d->sizes["set"].values.push_back(n);
  }
  for (int i = 0; i < 50; ++i) {
    const int n = 1 + i % 30;
    std::vector<std::string> rpush = {"RPUSH", key("l", i)};
    for (int j = 0; j < n; ++j) rpush.push_back(Padded(kValueTag, 10 + j));
    cmds.push_back(rpush);
    d->sizes["list"].values.push_back(n);
  }
  for (int i = 0; i < 300; ++i) {
    std::vector<std::string> set = {"SET", key("str", i), Padded(kValueTag, 10 + (i * 11) % 190)};
    if (i % 2 == 0) set.insert(set.end(), {"EX", "3600"});
    cmds.push_back(set);
  }
  Send(c, cmds);
  for (auto& [type, s] : d->sizes) {
    s.Sort();
    d->keys[type] = s.values.size();
  }
  d->keys["string"] = 300;
}

// The mix, exactly: 2000 calls.
const std::map<std::string, int> kMix = {{"hget", 600},      {"hset", 200},   {"get", 500},
                                         {"set", 100},       {"zscore", 200}, {"zrevrange", 100},
                                         {"sismember", 100}, {"lrange", 100}, {"hgetall", 100}};

void RunMix(RedisClient& c) {
  std::vector<std::vector<std::string>> cmds;
  const std::string k = kKeyTag;
  for (const auto& [command, calls] : kMix) {
    for (int i = 0; i < calls; ++i) {
      if (command == "hget") cmds.push_back({"HGET", k + "h" + std::to_string(i % 400), "f"});
      if (command == "hset")
        cmds.push_back(
            {"HSET", k + "h" + std::to_string(i % 400), kFieldTag + std::string("0_"), kValueTag});
      if (command == "get") cmds.push_back({"GET", k + "str" + std::to_string(i % 300)});
      if (command == "set") cmds.push_back({"SET", k + "str" + std::to_string(i % 300), kValueTag});
      if (command == "zscore") cmds.push_back({"ZSCORE", k + "z" + std::to_string(i % 150), "m"});
      if (command == "zrevrange")
        cmds.push_back({"ZREVRANGE", k + "z" + std::to_string(i % 150), "0", "9"});
      if (command == "sismember")
        cmds.push_back({"SISMEMBER", k + "s" + std::to_string(i % 100), "m"});
      if (command == "lrange")
        cmds.push_back({"LRANGE", k + "l" + std::to_string(i % 50), "0", "9"});
      if (command == "hgetall") cmds.push_back({"HGETALL", k + "h" + std::to_string(i % 400)});
    }
  }
  Send(c, cmds);
}

ProfileOptions FastOptions(const redis::RedisEndpoint& e) {
  ProfileOptions o;
  o.endpoint = e;
  o.rate = 1e7;  // a private test server: no throttle
  o.sample = 100000;
  o.max_commands = 1000000;
  return o;
}

double ShareOf(const Profile& p, const std::string& command) {
  for (const CommandShare& c : p.mix) {
    if (c.command == command) return c.share;
  }
  return 0;
}

void ExpectQuantilesClose(const Samples& expected, const Samples& got, const std::string& what) {
  ASSERT_FALSE(got.values.empty()) << what;
  for (double p : {0.5, 0.9, 0.99}) {
    const double e = expected.Quantile(p);
    EXPECT_NEAR(got.Quantile(p), e, 0.1 * e) << what << " p" << p * 100;
  }
}

TEST(Profile, RoundTripKeepsTheMixAndTheSizesAndWritesNoSourceData) {
  RedisServerProcess source;
  ASSERT_TRUE(source.Start().ok());
  RedisClient c(source.endpoint());
  Dataset d;
  LoadSource(c, &d);
  Reply r;
  ASSERT_TRUE(c.Command({"CONFIG", "RESETSTAT"}, &r).ok());
  RunMix(c);
  const std::string changes_before = InfoValue(c, "persistence", "rdb_changes_since_last_save");

  Profile p;
  ASSERT_TRUE(RunProfile(FastOptions(source.endpoint()), &p).ok());
  EXPECT_TRUE(p.complete);
  EXPECT_EQ(p.keys, 1000u);
  EXPECT_EQ(p.keys_sampled, 1000u);
  EXPECT_EQ(p.mix_calls, 2000u);
  // The mix, within 2 percentage points per command (it is exact here).
  for (const auto& [command, calls] : kMix) {
    EXPECT_NEAR(ShareOf(p, command), calls / 2000.0, 0.02) << command;
  }
  // Shares of keys per type, sizes, TTLs.
  for (const auto& [type, n] : d.keys) EXPECT_EQ(p.types[type].keys, n) << type;
  for (const auto& [type, s] : d.sizes) ExpectQuantilesClose(s, p.types[type].sizes, type);
  // Every other string was set with a TTL, and the mix's SETs cleared it on 50 of them.
  EXPECT_EQ(p.types["string"].with_ttl, 100u);
  EXPECT_NEAR(p.types["string"].ttl_ms.Quantile(0.5), 3600e3, 60e3);
  EXPECT_EQ(p.types["hash"].key_lengths.Quantile(0), std::string(kKeyTag).size() + 2);

  // It wrote nothing: the server's change counter did not move; every command it sent is on
  // the read-only list, and the mix's commands have no call more than the test's.
  EXPECT_EQ(InfoValue(c, "persistence", "rdb_changes_since_last_save"), changes_before);
  const std::set<std::string> reads = {"info",  "scan",  "type",  "pttl",   "strlen",
                                       "hlen",  "zcard", "scard", "llen",   "memory|usage",
                                       "hscan", "zscan", "sscan", "lrange", "config|resetstat"};
  std::istringstream stats(Info(c, "commandstats"));
  for (std::string line; std::getline(stats, line);) {
    if (!line.starts_with("cmdstat_")) continue;
    const std::string command = line.substr(8, line.find(':') - 8);
    const uint64_t calls = std::stoull(line.substr(line.find("calls=") + 6));
    if (kMix.count(command) && command != "lrange") {
      EXPECT_EQ(calls, static_cast<uint64_t>(kMix.at(command))) << command;
    } else {
      EXPECT_TRUE(reads.count(command)) << "the profile sent " << command;
    }
  }

  // The outputs hold no source key, field or value.
  std::vector<std::string> notes;
  const std::string workload_text = ProfileWorkloadJson(p, {}, &notes);
  const std::string profile_text = ProfileJson(p, R"({"tool": "test"})");
  for (const std::string& out : {workload_text, profile_text}) {
    for (const char* tag : {"SRC", kKeyTag, kFieldTag, kValueTag}) {
      EXPECT_EQ(out.find(tag), std::string::npos) << tag;
    }
  }
  const nlohmann::json pj = nlohmann::json::parse(profile_text);
  EXPECT_EQ(pj["schema_version"], 1);
  EXPECT_EQ(pj["types"]["hash"]["keys_sampled"], 400);

  // The workload runs: loaded and run on a second server, whose profile matches the first.
  Workload w;
  Status s = ParseWorkload(workload_text, "profile", &w);
  ASSERT_TRUE(s.ok()) << s.ToString() << "\n" << workload_text;
  w.phases[0].operations = 20000;
  w.phases[0].warmup_operations = 0;
  RedisServerProcess copy;
  ASSERT_TRUE(copy.Start().ok());
  RedisClient cc(copy.endpoint());
  RespTarget target(copy.endpoint());
  RunOptions ro;
  // Between the load and the run: the data's profile, then commandstats cleared for the mix.
  Profile loaded;
  ro.on_loaded = [&] {
    ASSERT_TRUE(RunProfile(FastOptions(copy.endpoint()), &loaded).ok());
    Reply reset;
    ASSERT_TRUE(cc.Command({"CONFIG", "RESETSTAT"}, &reset).ok());
  };
  WorkloadRunResult result;
  RunWorkload(w, target, ro, &result);
  ASSERT_TRUE(result.error.empty()) << result.error;
  for (const auto& [type, n] : d.keys) {
    EXPECT_NEAR(static_cast<double>(loaded.types[type].keys) / loaded.keys_sampled,
                static_cast<double>(n) / p.keys_sampled, 0.02)
        << type;
  }
  for (const char* type : {"hash", "zset", "set", "list"}) {
    ExpectQuantilesClose(p.types[type].sizes, loaded.types[type].sizes,
                         std::string(type) + " sizes");
    ExpectQuantilesClose(p.types[type].member_lengths, loaded.types[type].member_lengths,
                         std::string(type) + " member lengths");
  }
  ExpectQuantilesClose(p.types["hash"].value_lengths, loaded.types["hash"].value_lengths,
                       "hash value lengths");
  EXPECT_NEAR(static_cast<double>(loaded.types["string"].with_ttl) / loaded.types["string"].keys,
              1.0 / 3, 0.02);
  Profile q;
  ASSERT_TRUE(RunProfile(FastOptions(copy.endpoint()), &q).ok());
  for (const auto& [command, calls] : kMix) {
    EXPECT_NEAR(ShareOf(q, command), ShareOf(p, command), 0.02) << command;
  }
}

TEST(Profile, BadInputIsRefusedClearly) {
  // Nothing listens on port 1.
  ProfileOptions o;
  ASSERT_TRUE(redis::RedisEndpoint::Parse("127.0.0.1:1", &o.endpoint).ok());
  Profile p;
  Status s = RunProfile(o, &p);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();

  // A server without keys.
  RedisServerProcess empty;
  ASSERT_TRUE(empty.Start().ok());
  s = RunProfile(FastOptions(empty.endpoint()), &p);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("holds no keys in database 0"), std::string::npos) << s.message();

  // A server that wants a password, asked without one.
  redis::RedisServerOptions with_password;
  with_password.generate_password = true;
  RedisServerProcess locked(with_password);
  ASSERT_TRUE(locked.Start().ok());
  redis::RedisEndpoint no_password = locked.endpoint();
  no_password.password.clear();
  s = RunProfile(FastOptions(no_password), &p);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("NOAUTH"), std::string::npos) << s.message();
  no_password.password = "wrong";
  s = RunProfile(FastOptions(no_password), &p);
  EXPECT_FALSE(s.ok());

  o.rate = 0;
  EXPECT_EQ(RunProfile(o, &p).code(), Status::Code::kInvalidArgument);
}

TEST(Profile, BoundsStopItAndItSaysSo) {
  RedisServerProcess server;
  ASSERT_TRUE(server.Start().ok());
  RedisClient c(server.endpoint());
  std::vector<std::vector<std::string>> cmds;
  for (int i = 0; i < 500; ++i) cmds.push_back({"SET", "k" + std::to_string(i), "v"});
  Send(c, cmds);
  ProfileOptions o = FastOptions(server.endpoint());
  o.max_commands = 200;
  o.scan_count = 20;
  Profile p;
  ASSERT_TRUE(RunProfile(o, &p).ok());
  EXPECT_FALSE(p.complete);
  EXPECT_EQ(p.stopped_by, "max-commands");
  EXPECT_LE(p.commands_sent, 200u);
  EXPECT_GT(p.keys_sampled, 0u);
  o = FastOptions(server.endpoint());
  o.sample = 50;
  ASSERT_TRUE(RunProfile(o, &p).ok());
  EXPECT_EQ(p.keys_sampled, 50u);
  EXPECT_TRUE(p.complete);
}

TEST(Profile, TheMixCanComeFromATrace) {
  const std::string path =
      ::testing::TempDir() + "profile-mix-" + std::to_string(getpid()) + ".kvt";
  traces::TraceWriter w;
  ASSERT_TRUE(w.Open(path, {}).ok());
  uint64_t t = 0;
  auto add = [&](int n, const std::vector<std::string>& argv) {
    for (int i = 0; i < n; ++i) ASSERT_TRUE(w.Add(++t, 1 + i % 3, 0, argv).ok());
  };
  add(60, {"HGET", "h", "f"});
  add(30, {"set", "s", "v"});
  add(10, {"ZADD", "z", "1", "m"});
  add(7, {"PING"});
  add(3, {"CONFIG", "GET", "maxmemory"});
  add(5, {"XADD", "x", "*", "f", "v"});
  ASSERT_TRUE(w.Close().ok());

  Profile p;
  p.mix_source = "INFO commandstats";
  p.mix = {{"get", 1000, 1, true}};
  ASSERT_TRUE(MixFromTrace(path, &p).ok());
  EXPECT_EQ(p.mix_source, "trace " + path);
  EXPECT_EQ(p.mix_calls, 105u);
  ASSERT_EQ(p.mix.size(), 4u);
  EXPECT_EQ(p.mix[0].command, "hget");
  EXPECT_DOUBLE_EQ(p.mix[0].share, 60.0 / 105);
  EXPECT_EQ(p.mix[1].command, "set");
  EXPECT_EQ(p.mix[3].command, "xadd");
  EXPECT_FALSE(p.mix[3].served);
  ASSERT_EQ(p.excluded.size(), 2u);
  EXPECT_EQ(p.excluded[0].command, "ping");
  EXPECT_EQ(p.excluded[1].command, "config");
  EXPECT_EQ(ShareOf(p, "get"), 0);  // commandstats' mix is replaced, not added to
  // The workload made from it runs the trace's mix, and says where it came from.
  p.keys = p.keys_sampled = 2;
  p.types["hash"].keys = 1;
  p.types["string"].keys = 1;
  for (TypeProfile* tp : {&p.types["hash"], &p.types["string"]}) {
    for (Samples* x : {&tp->sizes, &tp->member_lengths, &tp->value_lengths}) x->values = {4};
  }
  std::vector<std::string> notes;
  const nlohmann::json wj = nlohmann::json::parse(ProfileWorkloadJson(p, {}, &notes));
  EXPECT_NE(wj["description"].get<std::string>().find("(trace " + path + ")"), std::string::npos)
      << wj["description"];
  std::map<std::string, double> weights;
  for (const auto& op : wj["run"][0]["ops"]) weights[op["name"]] = op["weight"];
  EXPECT_NEAR(weights["hget"], 100 * 60.0 / 105, 1e-9);
  EXPECT_NEAR(weights["set"], 100 * 30.0 / 105, 1e-9);

  // A trace cut short, or one without a data command, is refused by name.
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes.substr(0, bytes.size() - 6);
  }
  Status s = MixFromTrace(path, &p);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.message();
  traces::TraceWriter pings;
  ASSERT_TRUE(pings.Open(path, {}).ok());
  ASSERT_TRUE(pings.Add(1, 1, 0, {"PING"}).ok());
  ASSERT_TRUE(pings.Close().ok());
  s = MixFromTrace(path, &p);
  EXPECT_NE(s.message().find("holds no data command"), std::string::npos) << s.message();
  std::remove(path.c_str());
}

// The workload format's synthetic collections ---------------------------------------------------

TEST(SyntheticCollection, SizesOfConsecutiveKeysFollowTheDistribution) {
  EmpiricalDistribution size, length;
  ASSERT_TRUE(
      EmpiricalDistribution::Make({{0, 1}, {0.5, 10}, {0.9, 100}, {0.99, 1000}, {1, 2000}}, &size)
          .ok());
  ASSERT_TRUE(EmpiricalDistribution::Make({{0, 3}, {0.5, 8}, {1, 30}}, &length).ok());
  Samples sizes;
  for (int i = 200; i < 1200; ++i) {
    sizes.values.push_back(
        static_cast<double>(SyntheticCollection("k:" + std::to_string(i), size, length).size()));
  }
  sizes.Sort();
  EXPECT_NEAR(sizes.Quantile(0.5), 10, 1);
  EXPECT_NEAR(sizes.Quantile(0.9), 100, 10);
  EXPECT_NEAR(sizes.Quantile(0.99), 1000, 100);
  // Members: distinct, of the drawn lengths (never shorter than their digits), the same for
  // the same key every time.
  const SyntheticCollection a("k:7", size, length), b("k:7", size, length);
  std::set<std::string> names;
  Samples lengths;
  for (uint64_t i = 0; i < 1000; ++i) {
    const std::string m = a.Member(i);
    EXPECT_EQ(m, b.Member(i));
    EXPECT_TRUE(names.insert(m).second) << m;
    EXPECT_GE(m.size(), std::to_string(i).size());
    lengths.values.push_back(static_cast<double>(m.size()));
  }
  lengths.Sort();
  EXPECT_NEAR(lengths.Quantile(0.5), 8, 1);
}

TEST(SyntheticCollection, WorkloadFilesCheckTheirDistributionsAndRanges) {
  const std::string head = R"({"name": "p", "keyspace": {"type": "string", "records": 10},
    "distributions": {"n": {"quantiles": [[0, 1], [1, 5]]}, "l": {"quantiles": [[0, 2], [1, 6]]}},)";
  const std::string run =
      R"("run": [{"operations": 5, "ops": [{"commands": ["HGET k:{int:0:4} {member:n:l}"]}]}]})";
  Workload w;
  Status s = ParseWorkload(
      head +
          R"("load": {"commands": [{"records": [0, 5], "command": "HSET k:{key_id} {fields:n:l:l}"}]},)" +
          run,
      "t", &w);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(w.load.commands[0].records_to, 5u);
  // Canonical JSON keeps the range and the distributions.
  Workload again;
  ASSERT_TRUE(ParseWorkload(w.ToJson(), "t", &again).ok());
  EXPECT_EQ(again.ToJson(), w.ToJson());
  // Expansion: a key's collection, then a member of it.
  OpExpander x(w, 0, 0, 1, nullptr);
  x.BeginLoadOp(3, 0, 0);
  std::vector<std::string> argv;
  x.Expand(w.load.commands[0], &argv);
  const SyntheticCollection coll("k:3", w.distributions.at("n"), w.distributions.at("l"));
  ASSERT_EQ(argv.size(), 2 + 2 * coll.size());
  EXPECT_EQ(argv[1], "k:3");
  x.BeginRunOp(0);
  x.Expand(w.phases[0].ops[0].commands[0], &argv);
  const SyntheticCollection other(argv[1], w.distributions.at("n"), w.distributions.at("l"));
  bool found = false;
  for (uint64_t i = 0; i < other.size(); ++i) found = found || other.Member(i) == argv[2];
  EXPECT_TRUE(found) << argv[2];

  auto error = [&](const std::string& text) {
    Workload bad;
    Status st = ParseWorkload(text, "t", &bad);
    EXPECT_FALSE(st.ok()) << text;
    return st.message();
  };
  EXPECT_NE(error(head + R"("load": {"commands": ["HSET k:{key_id} {fields:n:l:nope}"]},)" + run)
                .find("names distribution 'nope'"),
            std::string::npos);
  EXPECT_NE(
      error(head + R"("load": {"commands": [{"records": [5, 5], "command": "SET a b"}]},)" + run)
          .find("from < to"),
      std::string::npos);
  EXPECT_NE(error(head + R"("load": {"commands": ["HSET {members:n:l} x"]},)" + run)
                .find("first argument"),
            std::string::npos);
  EXPECT_NE(error(head + R"("load": {"commands": ["HSET k x{fields:n:l:l}"]},)" + run)
                .find("whole argument"),
            std::string::npos);
  EXPECT_NE(error(R"({"name": "p", "distributions": {"n": {"quantiles": [[0, 5], [1, 1]]}},
                     "run": [{"operations": 5, "ops": [{"commands": ["GET a"]}]}]})")
                .find("workload.distributions.n: point 1: values must not decrease"),
            std::string::npos);
}

}  // namespace
}  // namespace kvlab::workloads
