// MIGRATE between `kvlab serve` and real redis-servers, each started by the test on a free
// loopback port.
//
// Differential: the same script runs with kvlab as the source and with a redis-server as the
// source, each migrating to the same (flushed) target redis-server; every reply (the source's
// and the target's) must be Redis's, byte for byte: OK, NOKEY, COPY, REPLACE, BUSYKEY and the
// keys it leaves, AUTH and AUTH2, the argument errors, a closed port and a target that never
// answers (IOERR). Then keys of every type, in each of Redis's encodings, move both ways:
// kvlab -> redis-server with kvlab's MIGRATE, redis-server -> kvlab with Redis's.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "redis/client.h"
#include "redis/server_process.h"
#include "testing/server_test_util.h"

namespace kvlab::server {

using redis::FreeLoopbackPort;
using redis::RedisClient;
using redis::RedisEndpoint;
using redis::RedisServerProcess;
using resp::Reply;
using testing::TestServer;

namespace {

RedisEndpoint Tcp(int port) {
  RedisEndpoint e;
  e.host = "127.0.0.1";
  e.port = port;
  return e;
}

// A TCP listener that accepts nothing and never answers: connects succeed (the backlog), replies
// never come.
class SilentListener {
 public:
  SilentListener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), len) == 0 && ::listen(fd_, 8) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
  }
  ~SilentListener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Keys of every type, small and large enough for each of Redis's encodings (listpack and
// hashtable, intset, listpack and quicklist with several nodes, embstr/int/raw strings).
std::vector<std::vector<std::string>> FillCommands(const std::string& p) {
  std::vector<std::vector<std::string>> out = {
      {"SET", p + "str", "hello"},
      {"SET", p + "int", "12345"},
      {"SET", p + "raw", std::string(300, 'x') + "tail"},
      {"HSET", p + "hash", "a", "1", "b", "2", "c", "3"},
      {"ZADD", p + "zset", "1.5", "a", "-2", "b", "inf", "c"},
      {"SADD", p + "intset", "1", "2", "-3"},
      {"SADD", p + "set", "a", "b", "c"},
      {"RPUSH", p + "list", "a", "b", "c", "1"},
      {"SET", p + "ttl", "v"},
      {"PEXPIRE", p + "ttl", "100000"},
  };
  std::vector<std::string> bighash = {"HSET", p + "bighash"}, bigzset = {"ZADD", p + "bigzset"},
                           bigset = {"SADD", p + "bigset"}, biglist = {"RPUSH", p + "biglist"};
  for (int i = 0; i < 600; ++i) {
    const std::string n = std::to_string(i);
    bighash.insert(bighash.end(), {"f" + n, std::string(i % 90, 'v') + n});
    bigzset.insert(bigzset.end(), {std::to_string(i * 0.25), "m" + n});
    bigset.push_back("e" + n);
    biglist.push_back(std::string(i % 70, 'l') + n);
  }
  out.insert(out.end(), {bighash, bigzset, bigset, biglist});
  return out;
}

const std::vector<std::string> kKeys = {"str",     "int",    "raw",    "hash", "zset",
                                        "intset",  "set",    "list",   "ttl",  "bighash",
                                        "bigzset", "bigset", "biglist"};

Reply Call(RedisClient& c, const std::vector<std::string>& argv) {
  Reply r;
  const Status s = c.Command(argv, &r);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return r;
}

// A key's type and whole value, in an order that does not depend on the server's.
std::string Snapshot(RedisClient& c, const std::string& key) {
  const std::string type = Call(c, {"TYPE", key}).str();
  Reply v;
  if (type == "string") v = Call(c, {"GET", key});
  if (type == "list") v = Call(c, {"LRANGE", key, "0", "-1"});
  if (type == "zset") v = Call(c, {"ZRANGE", key, "0", "-1", "WITHSCORES"});
  std::vector<std::string> items;
  if (type == "hash" || type == "set") {
    const Reply all = Call(c, {type == "hash" ? "HGETALL" : "SMEMBERS", key});
    for (size_t i = 0; i < all.elements().size(); i += (type == "hash" ? 2 : 1)) {
      items.push_back(all.elements()[i].str() +
                      (type == "hash" ? "=" + all.elements()[i + 1].str() : ""));
    }
    std::sort(items.begin(), items.end());
  }
  std::string out = type + ":" + v.Describe();
  for (const std::string& i : items) out += " " + i;
  return out;
}

// The script, run once with kvlab and once with a redis-server as S; T is the target.
struct Step {
  char who;  // 'S' source, 'T' target
  std::vector<std::string> argv;
};

std::vector<Step> Script(int target, int closed, int silent) {
  const std::string t = std::to_string(target), c = std::to_string(closed),
                    q = std::to_string(silent), h = "127.0.0.1";
  return {
      {'S', {"SET", "k", "v"}},
      {'S', {"RPUSH", "l", "a", "b"}},
      {'S', {"MIGRATE", h, t, "nokey", "0", "5000"}},
      {'S', {"MIGRATE", h, t, "", "0", "5000", "KEYS", "no1", "no2", "no1"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "COPY"}},
      {'S', {"EXISTS", "k"}},
      {'T', {"GET", "k"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "COPY"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "REPLACE"}},
      {'S', {"EXISTS", "k"}},
      {'T', {"GET", "k"}},
      // Partly busy: the acknowledged keys go, the busy one stays.
      {'S', {"MSET", "a", "1", "b", "2", "c", "3"}},
      {'T', {"SELECT", "2"}},
      {'T', {"SET", "b", "busy"}},
      {'S', {"MIGRATE", h, t, "", "2", "5000", "KEYS", "a", "b", "c", "a"}},
      {'S', {"EXISTS", "a", "b", "c"}},
      {'T', {"MGET", "a", "b", "c"}},
      // The database is SELECTed again after an error.
      {'S', {"MIGRATE", h, t, "b", "2", "5000", "REPLACE"}},
      {'T', {"GET", "b"}},
      {'S', {"MIGRATE", h, t, "l", "-1", "5000"}},
      {'S', {"MIGRATE", h, t, "l", "9", "5000"}},
      {'T', {"SELECT", "9"}},
      {'T', {"LRANGE", "l", "0", "-1"}},
      // Arguments, in Redis's order of checks.
      {'S', {"SET", "k", "v"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "FOO"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "AUTH"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "AUTH2", "u"}},
      {'S', {"MIGRATE", h, t, "k", "0", "5000", "KEYS", "k"}},
      {'S', {"MIGRATE", h, t, "k", "x", "y"}},
      {'S', {"MIGRATE", h, t, "k", "x", "5000"}},
      {'S', {"MIGRATE", h, t, "k", "0", "-5", "COPY", "REPLACE"}},
      // Nobody listening; nobody answering.
      {'S', {"MIGRATE", h, c, "k", "0", "1000"}},
      {'S', {"MIGRATE", h, q, "k", "0", "200"}},
      {'S', {"EXISTS", "k"}},
      // A target with a password.
      {'T', {"CONFIG", "SET", "requirepass", "secret"}},
      {'T', {"AUTH", "secret"}},
      {'S', {"MIGRATE", h, t, "k", "3", "5000", "COPY", "AUTH", "secret"}},
      {'S', {"MIGRATE", h, t, "k", "4", "5000", "AUTH2", "default", "secret"}},
      {'T', {"CONFIG", "SET", "requirepass", ""}},
      {'T', {"SELECT", "3"}},
      {'T', {"GET", "k"}},
      {'T', {"SELECT", "4"}},
      {'T', {"GET", "k"}},
      {'S', {"EXISTS", "k"}},
  };
}

class MigrateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis::RedisServerOptions options;
    source_ = std::make_unique<RedisServerProcess>(options);
    target_ = std::make_unique<RedisServerProcess>(options);
    for (auto* r : {source_.get(), target_.get()}) {
      const Status s = r->Start();
      if (!s.ok()) GTEST_SKIP() << "no redis-server: " << s.ToString();
    }
    kvlab_port_ = FreeLoopbackPort();
    kvlab_ = std::make_unique<TestServer>([this](ServerOptions* o) { o->port = kvlab_port_; });
  }

  std::unique_ptr<RedisServerProcess> source_, target_;
  int kvlab_port_ = 0;
  std::unique_ptr<TestServer> kvlab_;
};

TEST_F(MigrateTest, RepliesAsRedisDoes) {
  const int closed = FreeLoopbackPort();
  SilentListener silent;
  ASSERT_NE(silent.port(), 0);
  std::map<std::string, std::vector<std::string>> transcripts;
  for (const std::string source : {"redis", "kvlab"}) {
    SCOPED_TRACE(source);
    RedisClient s(source == "kvlab" ? Tcp(kvlab_port_) : source_->endpoint());
    RedisClient t(target_->endpoint());
    ASSERT_TRUE(s.Connect().ok());
    ASSERT_TRUE(t.Connect().ok());
    Call(t, {"FLUSHALL"});
    for (const Step& step : Script(target_->endpoint().port, closed, silent.port())) {
      std::string line;
      for (const auto& a : step.argv) line += a + " ";
      const Reply r = Call(step.who == 'S' ? s : t, step.argv);
      transcripts[source].push_back(std::string(1, step.who) + " " + line + "-> " + r.Describe());
    }
  }
  ASSERT_EQ(transcripts["kvlab"].size(), transcripts["redis"].size());
  for (size_t i = 0; i < transcripts["kvlab"].size(); ++i) {
    EXPECT_EQ(transcripts["kvlab"][i], transcripts["redis"][i]);
  }
  // Redis's counts of cached connections (INFO stats): one to the target (the one to the
  // silent listener was closed on its timeout).
  RedisClient k(Tcp(kvlab_port_));
  EXPECT_NE(Call(k, {"INFO", "stats"}).str().find("\r\nmigrate_cached_sockets:1\r\n"),
            std::string::npos);
}

TEST_F(MigrateTest, MovesEveryTypeBothWays) {
  RedisClient k(Tcp(kvlab_port_));
  RedisClient r(source_->endpoint());
  ASSERT_TRUE(k.Connect().ok());
  ASSERT_TRUE(r.Connect().ok());
  std::vector<std::string> keys_k = {
      "MIGRATE", "127.0.0.1", std::to_string(source_->endpoint().port), "", "0", "5000", "KEYS"};
  std::vector<std::string> keys_r = {"MIGRATE", "127.0.0.1", std::to_string(kvlab_port_), "", "5",
                                     "5000",    "KEYS"};
  std::map<std::string, std::string> want;
  for (const auto& argv : FillCommands("k_")) Call(k, argv);
  for (const auto& argv : FillCommands("r_")) Call(r, argv);
  for (const std::string& key : kKeys) {
    want["k_" + key] = Snapshot(k, "k_" + key);
    want["r_" + key] = Snapshot(r, "r_" + key);
    EXPECT_EQ(want["k_" + key], want["r_" + key]) << key;  // the same data on both
    keys_k.push_back("k_" + key);
    keys_r.push_back("r_" + key);
  }
  // kvlab -> redis-server.
  EXPECT_EQ(Call(k, keys_k), Reply::Ok());
  // redis-server -> kvlab (database 5), with Redis's own MIGRATE.
  EXPECT_EQ(Call(r, keys_r), Reply::Ok());
  Call(k, {"SELECT", "5"});
  for (const std::string& key : kKeys) {
    SCOPED_TRACE(key);
    EXPECT_EQ(Snapshot(r, "k_" + key), want["k_" + key]);
    EXPECT_EQ(Snapshot(k, "r_" + key), want["r_" + key]);
    EXPECT_EQ(Call(r, {"EXISTS", "r_" + key}), Reply::Integer(0));
  }
  const int64_t ttl_r = Call(r, {"PTTL", "k_ttl"}).integer();
  const int64_t ttl_k = Call(k, {"PTTL", "r_ttl"}).integer();
  EXPECT_TRUE(ttl_r > 0 && ttl_r <= 100000) << ttl_r;
  EXPECT_TRUE(ttl_k > 0 && ttl_k <= 100000) << ttl_k;
  EXPECT_EQ(Call(r, {"PTTL", "k_str"}), Reply::Integer(-1));
  Call(k, {"SELECT", "0"});
  EXPECT_EQ(Call(k, {"DBSIZE"}), Reply::Integer(0));
}

// An in-process engine has no connection to reach another server: a clear error, and the key
// stays.
TEST(Migrate, InProcessEngineSaysItCannot) {
  testing::ScratchDir dir;
  backends::StoreSpec spec;
  spec.backend = "memory";
  spec.options.dir = dir.Sub("store");
  std::unique_ptr<backends::OpenedStore> store;
  ASSERT_TRUE(backends::OpenStore(spec, &store).ok());
  engine::Engine e(store->store(), {});
  engine::Session session;
  e.Execute(session, {"SET", "k", "v"});
  EXPECT_EQ(e.Execute(session, {"MIGRATE", "127.0.0.1", "1", "missing", "0", "100"}),
            Reply::Status("NOKEY"));
  const Reply r = e.Execute(session, {"MIGRATE", "127.0.0.1", "1", "k", "0", "100"});
  EXPECT_TRUE(r.is_error());
  EXPECT_NE(r.str().find("in-process"), std::string::npos) << r.str();
  EXPECT_EQ(e.Execute(session, {"EXISTS", "k"}), Reply::Integer(1));
}

}  // namespace
}  // namespace kvlab::server
