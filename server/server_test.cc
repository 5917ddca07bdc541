// The server's connection-level commands, CONFIG parameters, shutdown, and per-key
// serialization across connections, in-process over a private unix socket.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "engine/command_table.h"
#include "redis/client.h"
#include "redis/server_process.h"
#include "testing/engine_test_util.h"
#include "testing/server_test_util.h"

namespace kvlab::server {

using backends::OpenedStore;
using backends::OpenStore;
using backends::StoreSpec;
using engine::CommandTable;
using engine::Engine;
using engine::EngineOptions;
using engine::Session;
using redis::FreeLoopbackPort;
using redis::RedisClient;
using redis::RedisEndpoint;
using resp::Reply;

namespace {

using testing::RawClient;
using testing::TestServer;

RedisEndpoint Unix(const std::string& path) {
  RedisEndpoint e;
  e.unix_path = path;
  return e;
}

TEST(Server, ClientCommandsSeeOtherConnections) {
  TestServer kvlab;
  RawClient alice(kvlab.socket_path());
  RawClient bob(kvlab.socket_path());
  // Ids are given as the workers take the connections: read them rather than assume.
  const std::string alice_reply = alice.Call("CLIENT SETNAME alice\r\nSELECT 3\r\nCLIENT ID\r\n");
  ASSERT_EQ(alice_reply.rfind("+OK\r\n+OK\r\n:", 0), 0u) << alice_reply;
  const std::string alice_id = alice_reply.substr(11, alice_reply.size() - 13);
  const std::string bob_reply = bob.Call("CLIENT ID\r\n");
  const std::string bob_id = bob_reply.substr(1, bob_reply.size() - 3);
  ASSERT_NE(alice_id, bob_id);
  EXPECT_TRUE((alice_id == "1" && bob_id == "2") || (alice_id == "2" && bob_id == "1"));

  const std::string list = bob.Call("CLIENT LIST\r\n");
  const std::string alice_line = "id=" + alice_id + " addr=" + kvlab.socket_path() +
                                 ":0 laddr=" + kvlab.socket_path() + ":0 fd=";
  ASSERT_NE(list.find(alice_line), std::string::npos) << list;
  const std::string alice_rest = list.substr(list.find(alice_line));
  EXPECT_NE(alice_rest.find(" name=alice age="), std::string::npos) << list;
  EXPECT_NE(alice_rest.find(" db=3 "), std::string::npos) << list;
  EXPECT_NE(alice_rest.find("cmd=client|id user=default redir=-1 resp=2\n"), std::string::npos)
      << list;
  EXPECT_NE(list.find("id=" + bob_id + " "), std::string::npos) << list;
  EXPECT_NE(list.find("cmd=client|list user=default redir=-1 resp=2\n"), std::string::npos);

  const std::string own = alice.Call("CLIENT INFO\r\n");
  EXPECT_EQ(own.rfind("$", 0), 0u);
  EXPECT_NE(own.find("\r\nid=" + alice_id + " addr="), std::string::npos) << own;
  EXPECT_NE(own.find("cmd=client|info user=default redir=-1 resp=2\n\r\n"), std::string::npos);
  EXPECT_EQ(own.find("id=" + bob_id + " "), std::string::npos);

  const std::string only_bob = alice.Call("CLIENT LIST ID " + bob_id + " 99\r\n");
  EXPECT_NE(only_bob.find("id=" + bob_id + " "), std::string::npos);
  EXPECT_EQ(only_bob.find("id=" + alice_id + " "), std::string::npos);
  EXPECT_EQ(alice.Call("CLIENT LIST TYPE pubsub\r\n"), "$0\r\n\r\n");
}

TEST(Server, InfoSections) {
  TestServer kvlab;
  RawClient c(kvlab.socket_path());
  c.Call("SET s v\r\nSET t v\r\nPEXPIRE t 100000\r\nHSET h a 1 b 2\r\nSELECT 2\r\nSET x y\r\n");
  const std::string info = c.Call("INFO\r\n");
  for (const char* part :
       {"# Server\r\nredis_version:7.0.15\r\nkvlab_version:test\r\n",
        "\r\n\r\n# Clients\r\nconnected_clients:1\r\n", "# Stats\r\n",
        "# Replication\r\nrole:master\r\n", "# Cluster\r\ncluster_enabled:0\r\n",
        "# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=", "\r\ndb2:keys=1,expires=0,avg_ttl=0\r\n",
        "# Kvlab\r\nbackend:memory\r\n", "\r\nkvstat_hset:calls=1,usec="}) {
    EXPECT_NE(info.find(part), std::string::npos) << part << "\n" << info;
  }
  EXPECT_EQ(info.find("# Commandstats"), std::string::npos);
  // The kvlab section carries each command's exact KV operations: HSET of two new fields on
  // hash v0 reads the key-meta and both fields and writes one batch of three records.
  EXPECT_NE(info.find("kvstat_hset:"), std::string::npos);
  const size_t hset = info.find("kvstat_hset:");
  const std::string line = info.substr(hset, info.find("\r\n", hset) - hset);
  EXPECT_NE(line.find(",batches=1,batch_records=3,"), std::string::npos) << line;

  const std::string some = c.Call("INFO keyspace COMMANDSTATS\r\n");
  EXPECT_EQ(some.find("# Server"), std::string::npos);
  EXPECT_NE(some.find("# Commandstats\r\ncmdstat_"), std::string::npos) << some;
  EXPECT_NE(some.find("cmdstat_set:calls=3,usec="), std::string::npos) << some;
  EXPECT_LT(some.find("# Commandstats"), some.find("# Keyspace"));  // Redis's order
  EXPECT_NE(c.Call("INFO everything\r\n").find("# Commandstats"), std::string::npos);
}

TEST(Server, ConfigParameters) {
  TestServer kvlab;
  RawClient c(kvlab.socket_path());
  EXPECT_EQ(c.Call("CONFIG GET port\r\n"), "*2\r\n$4\r\nport\r\n$1\r\n0\r\n");
  EXPECT_EQ(c.Call("CONFIG SET port 7000\r\n"),
            "-ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable "
            "config\r\n");
  EXPECT_EQ(c.Call("CONFIG GET worker-threads\r\n"), "*2\r\n$14\r\nworker-threads\r\n$1\r\n2\r\n");
  EXPECT_EQ(c.Call("CONFIG GET client-output-buffer-limit\r\n"),
            "*2\r\n$26\r\nclient-output-buffer-limit\r\n$20\r\nnormal 268435456 0 0\r\n");
  EXPECT_EQ(c.Call("CONFIG SET client-output-buffer-limit \"normal 10mb 0 0 pubsub 32mb 8mb "
                   "60\"\r\nCONFIG GET client-output-buffer-limit\r\n"),
            "+OK\r\n*2\r\n$26\r\nclient-output-buffer-limit\r\n$19\r\nnormal 10485760 0 0\r\n");
  // The soft limit and its seconds, as Redis's.
  EXPECT_EQ(c.Call("CONFIG SET client-output-buffer-limit \"normal 2mb 1mb 10\"\r\n"
                   "CONFIG GET client-output-buffer-limit\r\n"),
            "+OK\r\n*2\r\n$26\r\nclient-output-buffer-limit\r\n$25\r\nnormal 2097152 1048576 "
            "10\r\n");
  EXPECT_EQ(c.Call("CONFIG SET client-output-buffer-limit \"normal 1mb 1mb -1\"\r\n"),
            "-ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - "
            "Error in hard, soft or soft_seconds setting in buffer limit configuration.\r\n");
  EXPECT_EQ(c.Call("CONFIG SET appendonly yes\r\n").rfind("-ERR CONFIG SET failed", 0), 0u);
  // proto-max-bulk-len applies to the next request.
  EXPECT_EQ(c.Call("CONFIG SET proto-max-bulk-len 1mb\r\n"), "+OK\r\n");
  RawClient big(kvlab.socket_path());
  EXPECT_EQ(big.Call("*2\r\n$4\r\nECHO\r\n$1048577\r\n"),
            "-ERR Protocol error: invalid bulk length\r\n");
  // The engine's own parameters are in the same table.
  EXPECT_EQ(c.Call("CONFIG GET hash-encoding\r\n"), "*2\r\n$13\r\nhash-encoding\r\n$1\r\n0\r\n");
}

TEST(Server, ShutdownCommandStopsAfterThePipelineBeforeIt) {
  TestServer kvlab;
  RawClient c(kvlab.socket_path());
  // SHUTDOWN gets no reply; the replies before it are written; nothing after it runs.
  c.Send("SET a 1\r\nSHUTDOWN NOSAVE\r\nSET b 2\r\n");
  EXPECT_EQ(c.Read(SIZE_MAX, std::chrono::milliseconds(5000)), "+OK\r\n");
  EXPECT_TRUE(c.Closed());
  ASSERT_TRUE(kvlab.WaitStopped());
  Session session;
  EXPECT_EQ(kvlab.engine().Execute(session, {"GET", "a"}).Describe(), "\"1\"");
  EXPECT_EQ(kvlab.engine().Execute(session, {"GET", "b"}).Describe(), "(nil)");
}

// Clients pipeline increments while the server shuts down: every increment that ran had its
// reply delivered, and every delivered reply is in the store.
TEST(Server, ShutdownFinishesInFlightCommandsAndLosesNothing) {
  TestServer kvlab("lmdb");
  constexpr int kClients = 4;
  std::atomic<int64_t> acknowledged{0};
  std::atomic<int> started{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&] {
      RawClient c(kvlab.socket_path());
      std::string batch;
      for (int j = 0; j < 50; ++j) batch += "HINCRBY h f 1\r\n";
      started.fetch_add(1);
      for (;;) {
        if (!c.Send(batch)) break;
        const std::string replies = c.Read(SIZE_MAX, std::chrono::milliseconds(3000));
        int64_t n = 0;
        for (char ch : replies) n += ch == ':';
        acknowledged.fetch_add(n);
        if (n < 50) break;  // the server stopped reading
      }
    });
  }
  while (started.load() < kClients) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kvlab.Stop();
  for (auto& t : clients) t.join();
  Session session;
  const Reply value = kvlab.engine().Execute(session, {"HGET", "h", "f"});
  ASSERT_EQ(value.type(), Reply::Type::kBulk);
  EXPECT_GT(acknowledged.load(), 0);
  EXPECT_EQ(std::stoll(value.str()), acknowledged.load());
}

// The value of an INFO field, or "" when absent.
std::string InfoField(const std::string& info, const std::string& name) {
  const size_t at = info.find("\r\n" + name + ":");
  if (at == std::string::npos) return "";
  const size_t begin = at + 2 + name.size() + 1;
  return info.substr(begin, info.find("\r\n", begin) - begin);
}

// A pipeline whose writes commit in groups answers byte for byte as one whose commands each
// commit alone: the same replies in the same order, errors included, with the commands that
// run alone (reads, SELECT, MULTI/EXEC, a wrong arity) between groups.
TEST(Server, PipelinedWritesCommitInGroupsWithTheSameReplies) {
  std::string pipeline;
  for (int i = 0; i < 100; ++i)
    pipeline += "SET k" + std::to_string(i) + " " + std::to_string(i) + "\r\n";
  pipeline +=
      "SET a 1\r\nINCR a\r\nHSET h f v\r\nLPUSH a x\r\nGET a\r\nZADD z 1 m 2 n\r\n"
      "ZADD z nan m\r\nSET a\r\nSELECT 1\r\nSET a 2\r\nSELECT 0\r\nMULTI\r\nSET q 1\r\n"
      "EXEC\r\nDEL h k1 k2\r\nHSET h2 f v\r\nMGET a k3 h2\r\nRPUSH l 1 2 3\r\nLPOP l\r\n";
  std::string alone;
  {
    TestServer kvlab("rocksdb", {}, {{"group-commit-max-commands", "0"}});
    RawClient c(kvlab.socket_path());
    alone = c.Call(pipeline);
    EXPECT_EQ(InfoField(c.Call("INFO kvlab\r\n"), "group_commits"), "0");
  }
  ASSERT_NE(alone.find("-WRONGTYPE"), std::string::npos) << alone;
  TestServer kvlab("rocksdb");
  RawClient c(kvlab.socket_path());
  ASSERT_TRUE(c.Send(pipeline));
  EXPECT_EQ(c.Read(alone.size(), std::chrono::milliseconds(300), std::chrono::milliseconds(5000)),
            alone);
  const std::string info = c.Call("INFO kvlab\r\n");
  EXPECT_NE(InfoField(info, "group_commits"), "0") << info;
  EXPECT_NE(InfoField(info, "group_commits"), "") << info;
  EXPECT_EQ(c.Call("CONFIG GET group-commit-max-commands\r\n"),
            "*2\r\n$25\r\ngroup-commit-max-commands\r\n$2\r\n64\r\n");
}

class SerializationTest : public ::testing::TestWithParam<std::string> {};

// Many connections, on different worker threads, increment the same field: no increment is
// lost, so the engine's per-key serialization holds across connections.
TEST_P(SerializationTest, SameFieldFromManyConnections) {
  TestServer kvlab(GetParam(), [](ServerOptions* o) { o->threads = 4; });
  constexpr int kClients = 8, kRounds = 50, kPipeline = 10;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      RedisClient client(Unix(kvlab.socket_path()));
      const std::vector<std::string> incr = {"HINCRBY", "h", "f", "1"};
      for (int r = 0; r < kRounds; ++r) {
        std::vector<std::vector<std::string>> commands(kPipeline, incr);
        commands.push_back(
            {"HSET", "fields", "c" + std::to_string(i) + "r" + std::to_string(r), "x"});
        std::vector<Reply> replies;
        if (!client.Pipeline(commands, &replies).ok()) failures.fetch_add(1);
        for (const Reply& reply : replies) failures.fetch_add(reply.is_error());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  RedisClient client(Unix(kvlab.socket_path()));
  Reply reply;
  ASSERT_TRUE(client.Command({"HGET", "h", "f"}, &reply).ok());
  EXPECT_EQ(reply.Describe(), "\"" + std::to_string(kClients * kRounds * kPipeline) + "\"");
  ASSERT_TRUE(client.Command({"HLEN", "fields"}, &reply).ok());
  EXPECT_EQ(reply.integer(), kClients * kRounds);
}

INSTANTIATE_TEST_SUITE_P(Backends, SerializationTest,
                         ::testing::Values("memory", "lmdb", "rocksdb", "wiredtiger"));

TEST(Server, ListensOnTcp) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = FreeLoopbackPort();
    {
      StoreSpec spec;
      std::unique_ptr<OpenedStore> store;
      ASSERT_TRUE(OpenStore(spec, &store).ok());
      Engine engine(store->store(), EngineOptions());
      ServerOptions options;
      options.port = port;
      options.threads = 1;
      Server server(&engine, options);
      Status s = server.Start();
      if (!s.ok()) continue;  // the port was taken meanwhile
      EXPECT_EQ(server.Addresses(), std::vector<std::string>{"127.0.0.1:" + std::to_string(port)});
      std::thread run([&] { server.Run(); });
      RedisEndpoint endpoint;
      endpoint.host = "127.0.0.1";
      endpoint.port = port;
      RedisClient client(endpoint);
      Reply reply;
      EXPECT_TRUE(client.Command({"PING"}, &reply).ok());
      EXPECT_EQ(reply.Describe(), "PONG");
      EXPECT_TRUE(client.Command({"CLIENT", "INFO"}, &reply).ok());
      EXPECT_NE(reply.str().find(" laddr=127.0.0.1:" + std::to_string(port) + " "),
                std::string::npos)
          << reply.str();
      server.RequestShutdown();
      run.join();
      return;
    }
  }
  FAIL() << "no free port";
}

TEST(Server, StartFailsClearly) {
  StoreSpec spec;
  std::unique_ptr<OpenedStore> store;
  ASSERT_TRUE(OpenStore(spec, &store).ok());
  Engine engine(store->store(), EngineOptions());
  ServerOptions options;
  options.bind = {"not-an-address"};
  options.port = 6399;
  Server server(&engine, options);
  Status s = server.Start();
  EXPECT_EQ(s.ToString(), "InvalidArgument: invalid bind address 'not-an-address'");
}

// The engine without a server: the commands that need one say so; the rest work.
TEST(Server, InProcessEngineHasNoHost) {
  testing::EngineHarness e;
  EXPECT_EQ(e.Run("CLIENT LIST"),
            "(error) ERR CLIENT LIST needs a server connection; this engine runs in-process");
  EXPECT_EQ(e.Run("CLIENT INFO"),
            "(error) ERR CLIENT INFO needs a server connection; this engine runs in-process");
  EXPECT_EQ(e.Run("SHUTDOWN"),
            "(error) ERR SHUTDOWN needs a server connection; this engine runs in-process");
  EXPECT_EQ(e.Run("QUIT"), "OK");
  EXPECT_EQ(e.Run("CLIENT SETNAME w1"), "OK");
  EXPECT_EQ(e.Run("CLIENT GETNAME"), "\"w1\"");
  EXPECT_EQ(e.Run("COMMAND COUNT"),
            "(integer) " + std::to_string(CommandTable::Get().all().size()));
  const std::string info = e.Exec("INFO").str();
  EXPECT_EQ(info.find("# Server"), std::string::npos);
  EXPECT_EQ(info.rfind("# Replication\r\n", 0), 0u) << info;
  EXPECT_NE(info.find("# Kvlab\r\nbackend:memory\r\n"), std::string::npos);
}

}  // namespace
}  // namespace kvlab::server
