// BZPOPMIN, BZPOPMAX and BZMPOP over the RESP server (server/blocked_clients.h): a zset created
// on a waited key by another connection (ZADD, ZINCRBY, the STORE forms, RENAME) serves the
// blocked client, first blocked first served; a key that becomes another type leaves it blocked,
// as in Redis (and a BLPOP too, when a zset appears on its key); timeouts, RESP3 and every
// encode-version. Every wait is on a condition (the server's count of blocked clients, or the
// bytes of a reply), never a fixed sleep.
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "encodings/registry.h"
#include "testing/server_test_util.h"

namespace kvlab::server {
namespace {

using testing::RawClient;
using testing::TestServer;

using testing::ReadReply;
using testing::WaitBlocked;

// A RESP2 bulk string.
std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

TEST(BlockingZset, ZaddFromAnotherConnectionServesEveryVersion) {
  // Every zset version of the registry (a list written here would skip a new one).
  for (const encodings::EncodingSpec* row :
       encodings::EncodingRegistry::Builtin().VersionsOf(encodings::KeyType::kZset)) {
    const std::string version(row->name);
    SCOPED_TRACE("zset version " + version);
    TestServer kvlab("memory", nullptr, {{"zset-encoding", version}});
    RawClient waiter(kvlab.socket_path());
    RawClient pusher(kvlab.socket_path());
    ASSERT_TRUE(waiter.Send("BZPOPMIN nokey z 0\r\n"));
    ASSERT_TRUE(WaitBlocked(kvlab, 1));
    EXPECT_EQ(pusher.Call("ZADD z 2 b 1 a\r\n"), ":2\r\n");
    const std::string min = "*3\r\n" + Bulk("z") + Bulk("a") + Bulk("1");
    EXPECT_EQ(ReadReply(waiter, min), min);
    // BZPOPMAX takes the highest; BZMPOP pops up to COUNT, nested under the key.
    ASSERT_TRUE(waiter.Send("BZPOPMAX y 0\r\n"));
    ASSERT_TRUE(WaitBlocked(kvlab, 1));
    EXPECT_EQ(pusher.Call("ZINCRBY y 7.5 m\r\n"), Bulk("7.5"));
    const std::string max = "*3\r\n" + Bulk("y") + Bulk("m") + Bulk("7.5");
    EXPECT_EQ(ReadReply(waiter, max), max);
    ASSERT_TRUE(waiter.Send("BZMPOP 0 2 x w MAX COUNT 2\r\n"));
    ASSERT_TRUE(WaitBlocked(kvlab, 1));
    EXPECT_EQ(pusher.Call("ZADD w 1 p 2 q 3 r\r\n"), ":3\r\n");
    const std::string mpop = "*2\r\n" + Bulk("w") + "*2\r\n*2\r\n" + Bulk("r") + Bulk("3") +
                             "*2\r\n" + Bulk("q") + Bulk("2");
    EXPECT_EQ(ReadReply(waiter, mpop), mpop);
    EXPECT_EQ(pusher.Call("ZRANGE w 0 -1\r\n"), "*1\r\n" + Bulk("p"));
    EXPECT_TRUE(WaitBlocked(kvlab, 0));
  }
}

TEST(BlockingZset, StoreFormsAndRenameServeTheBlockedClient) {
  TestServer kvlab;
  RawClient waiter(kvlab.socket_path());
  RawClient other(kvlab.socket_path());
  EXPECT_EQ(other.Call("ZADD src 1 a 2 b\r\n"), ":2\r\n");
  const std::string a = "*3\r\n" + Bulk("dst") + Bulk("a") + Bulk("1");
  const std::vector<std::string> creators = {"ZUNIONSTORE dst 1 src\r\n",
                                             "ZRANGESTORE dst src 0 0\r\n",
                                             "ZINTERSTORE dst 2 src src WEIGHTS 1 0\r\n"};
  for (const std::string& create : creators) {
    SCOPED_TRACE(create);
    ASSERT_TRUE(waiter.Send("BZPOPMIN dst 0\r\n"));
    ASSERT_TRUE(WaitBlocked(kvlab, 1));
    other.Call(create);
    EXPECT_EQ(ReadReply(waiter, a), a);
    other.Call("DEL dst\r\n");
  }
  // An empty result creates no key: the client stays blocked until a RENAME brings a zset.
  ASSERT_TRUE(waiter.Send("BZPOPMAX dst 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call("ZDIFFSTORE dst 2 src src\r\n"), ":0\r\n");
  EXPECT_EQ(kvlab.server().blocked().blocked(), 1u);
  EXPECT_EQ(other.Call("RENAME src dst\r\n"), "+OK\r\n");
  const std::string b = "*3\r\n" + Bulk("dst") + Bulk("b") + Bulk("2");
  EXPECT_EQ(ReadReply(waiter, b), b);
  EXPECT_TRUE(WaitBlocked(kvlab, 0));
}

TEST(BlockingZset, FirstBlockedIsFirstServed) {
  TestServer kvlab;
  RawClient first(kvlab.socket_path());
  RawClient second(kvlab.socket_path());
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(first.Send("BZPOPMIN z 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  ASSERT_TRUE(second.Send("BZMPOP 0 2 other z MIN COUNT 5\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 2));
  EXPECT_EQ(pusher.Call("ZADD z 1 a 2 b 3 c\r\n"), ":3\r\n");
  const std::string one = "*3\r\n" + Bulk("z") + Bulk("a") + Bulk("1");
  EXPECT_EQ(ReadReply(first, one), one);
  const std::string rest = "*2\r\n" + Bulk("z") + "*2\r\n*2\r\n" + Bulk("b") + Bulk("2") +
                           "*2\r\n" + Bulk("c") + Bulk("3");
  EXPECT_EQ(ReadReply(second, rest), rest);
  EXPECT_EQ(pusher.Call("EXISTS z\r\n"), ":0\r\n");
  EXPECT_TRUE(WaitBlocked(kvlab, 0));
}

// Redis serves a blocked client only from a key of the type it waits for: a list pushed on a
// BZPOPMIN's key, or a zset created on a BLPOP's, leaves it blocked (KeysReady runs the retry
// before the pusher's command returns, so the count is checked right after).
TEST(BlockingZset, AKeyOfAnotherTypeLeavesTheClientBlocked) {
  TestServer kvlab;
  RawClient zwaiter(kvlab.socket_path());
  RawClient lwaiter(kvlab.socket_path());
  RawClient other(kvlab.socket_path());
  ASSERT_TRUE(zwaiter.Send("BZPOPMIN k1 k2 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  ASSERT_TRUE(lwaiter.Send("BLPOP k2 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 2));
  EXPECT_EQ(other.Call("LPUSH k1 x\r\n"), ":1\r\n");
  EXPECT_EQ(kvlab.server().blocked().blocked(), 2u);
  // A zset on k2: the BZPOPMIN is served from it although k1 (before it) is a list; the BLPOP
  // waits on.
  EXPECT_EQ(other.Call("ZADD k2 4 m\r\n"), ":1\r\n");
  const std::string served = "*3\r\n" + Bulk("k2") + Bulk("m") + Bulk("4");
  EXPECT_EQ(ReadReply(zwaiter, served), served);
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call("ZADD k2 5 n\r\n"), ":1\r\n");
  EXPECT_EQ(kvlab.server().blocked().blocked(), 1u);
  EXPECT_EQ(other.Call("DEL k2\r\n"), ":1\r\n");
  EXPECT_EQ(other.Call("RPUSH k2 e\r\n"), ":1\r\n");
  const std::string listed = "*2\r\n" + Bulk("k2") + Bulk("e");
  EXPECT_EQ(ReadReply(lwaiter, listed), listed);
  EXPECT_TRUE(WaitBlocked(kvlab, 0));
  // Before blocking, a key of another type is Redis's WRONGTYPE, in key order.
  EXPECT_EQ(other.Call("BZPOPMIN nokey k1 0\r\n"),
            "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
}

TEST(BlockingZset, TimeoutsAndResp3) {
  TestServer kvlab;
  RawClient c(kvlab.socket_path());
  ASSERT_TRUE(c.Send("BZPOPMIN z 0.05\r\n"));
  EXPECT_EQ(ReadReply(c, "*-1\r\n"), "*-1\r\n");
  ASSERT_TRUE(c.Send("BZMPOP 0.01 2 a b MIN\r\n"));
  EXPECT_EQ(ReadReply(c, "*-1\r\n"), "*-1\r\n");
  EXPECT_EQ(c.Call("BZPOPMAX z -1\r\n"), "-ERR timeout is negative\r\n");
  EXPECT_EQ(c.Call("BZPOPMAX z x\r\n"), "-ERR timeout is not a float or out of range\r\n");
  EXPECT_EQ(c.Call("BZMPOP -1 0 z MIN\r\n"), "-ERR numkeys should be greater than 0\r\n");
  // RESP3: a null at the timeout, doubles for the scores.
  ASSERT_TRUE(c.Send("HELLO 3\r\n"));
  c.Read();
  ASSERT_TRUE(c.Send("BZPOPMAX z 0.01\r\n"));
  EXPECT_EQ(ReadReply(c, "_\r\n"), "_\r\n");
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(c.Send("BZMPOP 0 1 z MIN\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(pusher.Call("ZADD z 1.5 a 2 b\r\n"), ":2\r\n");
  const std::string nested = "*2\r\n" + Bulk("z") + "*1\r\n*2\r\n" + Bulk("a") + ",1.5\r\n";
  EXPECT_EQ(ReadReply(c, nested), nested);
  EXPECT_EQ(c.Call("BZPOPMIN z 0\r\n"), "*3\r\n" + Bulk("z") + Bulk("b") + ",2\r\n");
  EXPECT_EQ(kvlab.server().blocked().blocked(), 0u);
}

}  // namespace
}  // namespace kvlab::server
