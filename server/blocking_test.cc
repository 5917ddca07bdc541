// Blocking commands over the RESP server (server/blocked_clients.h): clients blocked on keys are
// woken by pushes from other connections, first blocked first served; timeouts, chained
// BLMOVEs, wrong types, disconnects and pipelined commands behind a blocked one. Every wait is
// on a condition (the server's count of blocked clients, or the bytes of a reply), never a
// fixed sleep.
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "engine/engine.h"
#include "testing/engine_test_util.h"
#include "testing/server_test_util.h"

namespace kvlab::server {
namespace {

using testing::RawClient;
using testing::TestServer;

constexpr auto kPatience = std::chrono::seconds(20);

// Polls `done` until it holds or kPatience passes.
bool WaitFor(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

using testing::ReadReply;
using testing::WaitBlocked;

// A group of pipelined writes (docs/server.md, group commit) that pushes to a list serves a
// client blocked on it once the group has committed.
TEST(Blocking, AGroupOfPipelinedWritesServesTheBlockedClient) {
  TestServer kvlab;
  RawClient waiter(kvlab.socket_path());
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(waiter.Send("BLPOP q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(pusher.Call("SET x 1\r\nLPUSH q v\r\nSET y 2\r\n"), "+OK\r\n:1\r\n+OK\r\n");
  const std::string popped = "*2\r\n$1\r\nq\r\n$1\r\nv\r\n";
  EXPECT_EQ(ReadReply(waiter, popped), popped);
  EXPECT_EQ(pusher.Call("INFO kvlab\r\n").find("group_commits:0\r\n"), std::string::npos);
}

TEST(Blocking, PushFromAnotherConnectionServesTheBlockedClient) {
  TestServer kvlab;
  RawClient waiter(kvlab.socket_path());
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(waiter.Send("BLPOP q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  // As in Redis: the push replies the length it made; the blocked client then takes the
  // element before any later command runs.
  EXPECT_EQ(pusher.Call("RPUSH q x\r\n"), ":1\r\n");
  const std::string served = "*2\r\n$1\r\nq\r\n$1\r\nx\r\n";
  EXPECT_EQ(ReadReply(waiter, served), served);
  EXPECT_EQ(pusher.Call("EXISTS q\r\n"), ":0\r\n");
  EXPECT_TRUE(WaitBlocked(kvlab, 0));
}

TEST(Blocking, FirstBlockedIsFirstServed) {
  TestServer kvlab;
  RawClient first(kvlab.socket_path());
  RawClient second(kvlab.socket_path());
  RawClient third(kvlab.socket_path());
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(first.Send("BRPOP q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  ASSERT_TRUE(second.Send("BLPOP other q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 2));
  ASSERT_TRUE(third.Send("BLPOP q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 3));
  // One element: the first one gets it, the others keep waiting.
  EXPECT_EQ(pusher.Call("LPUSH q a\r\n"), ":1\r\n");
  EXPECT_EQ(ReadReply(first, "*2\r\n$1\r\nq\r\n$1\r\na\r\n"), "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
  ASSERT_TRUE(WaitBlocked(kvlab, 2));
  // Two elements: the second and the third, in that order.
  EXPECT_EQ(pusher.Call("RPUSH q b c\r\n"), ":2\r\n");
  EXPECT_EQ(ReadReply(second, "*2\r\n$1\r\nq\r\n$1\r\nb\r\n"), "*2\r\n$1\r\nq\r\n$1\r\nb\r\n");
  EXPECT_EQ(ReadReply(third, "*2\r\n$1\r\nq\r\n$1\r\nc\r\n"), "*2\r\n$1\r\nq\r\n$1\r\nc\r\n");
  EXPECT_TRUE(WaitBlocked(kvlab, 0));
}

TEST(Blocking, TimeoutsReplyNil) {
  TestServer kvlab;
  RawClient c(kvlab.socket_path());
  // Fractional seconds; a list reply's nil is a null array, a move's a null bulk.
  ASSERT_TRUE(c.Send("BLPOP q 0.05\r\n"));
  EXPECT_EQ(ReadReply(c, "*-1\r\n"), "*-1\r\n");
  ASSERT_TRUE(c.Send("BLMOVE q d LEFT LEFT 0.01\r\n"));
  EXPECT_EQ(ReadReply(c, "$-1\r\n"), "$-1\r\n");
  ASSERT_TRUE(c.Send("BLMPOP 0.01 2 a b LEFT\r\n"));
  EXPECT_EQ(ReadReply(c, "*-1\r\n"), "*-1\r\n");
  // RESP3: null.
  ASSERT_TRUE(c.Send("HELLO 3\r\n"));
  c.Read();
  ASSERT_TRUE(c.Send("BRPOP q 0.01\r\n"));
  EXPECT_EQ(ReadReply(c, "_\r\n"), "_\r\n");
  EXPECT_EQ(kvlab.server().blocked().blocked(), 0u);
  EXPECT_EQ(c.Call("BLPOP q -1\r\n"), "-ERR timeout is negative\r\n");
}

// Redis rounds a timeout up to the next millisecond (ceill): 0.001 s, which parses to a hair
// under 1 ms, and 0.0001 s wait 1 ms instead of for ever (0).
TEST(Blocking, SubMillisecondTimeoutsStillTimeOut) {
  TestServer kvlab;
  RawClient c(kvlab.socket_path());
  for (const char* command :
       {"BLPOP q 0.001\r\n", "BRPOP q 0.0001\r\n", "BLMPOP 0.001 1 q LEFT\r\n",
        "BZPOPMIN z 0.001\r\n", "BZMPOP 0.001 1 z MIN\r\n"}) {
    SCOPED_TRACE(command);
    ASSERT_TRUE(c.Send(command));
    EXPECT_EQ(ReadReply(c, "*-1\r\n"), "*-1\r\n");
  }
  for (const char* command : {"BLMOVE q d LEFT LEFT 0.001\r\n", "BRPOPLPUSH q d 0.001\r\n"}) {
    SCOPED_TRACE(command);
    ASSERT_TRUE(c.Send(command));
    EXPECT_EQ(ReadReply(c, "$-1\r\n"), "$-1\r\n");
  }
  EXPECT_EQ(kvlab.server().blocked().blocked(), 0u);
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: the client gets its timeout reply, or Redis's UNBLOCKED
// error, and runs its next command; a client that is not blocked gives 0.
TEST(Blocking, ClientUnblockEndsTheWait) {
  TestServer kvlab;
  RawClient waiter(kvlab.socket_path());
  RawClient other(kvlab.socket_path());
  const std::string id = waiter.Call("CLIENT ID\r\n").substr(1, std::string::npos);
  const std::string unblock = "CLIENT UNBLOCK " + id.substr(0, id.size() - 2);
  ASSERT_TRUE(waiter.Send("BLPOP q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call(unblock + "\r\n"), ":1\r\n");
  EXPECT_EQ(ReadReply(waiter, "*-1\r\n"), "*-1\r\n");
  ASSERT_TRUE(waiter.Send("BLMOVE q d LEFT LEFT 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call(unblock + " timeout\r\n"), ":1\r\n");
  EXPECT_EQ(ReadReply(waiter, "$-1\r\n"), "$-1\r\n");
  ASSERT_TRUE(waiter.Send("BZPOPMAX z 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call(unblock + " ERROR\r\n"), ":1\r\n");
  const std::string error = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n";
  EXPECT_EQ(ReadReply(waiter, error), error);
  EXPECT_EQ(other.Call(unblock + "\r\n"), ":0\r\n");  // not blocked now
  EXPECT_EQ(other.Call("CLIENT UNBLOCK 999999\r\n"), ":0\r\n");
  EXPECT_EQ(other.Call("CLIENT UNBLOCK asd\r\n"),
            "-ERR value is not an integer or out of range\r\n");
  EXPECT_EQ(other.Call(unblock + " later\r\n"),
            "-ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR\r\n");
  EXPECT_EQ(other.Call(unblock + " error x\r\n"),
            "-ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT "
            "HELP.\r\n");
  // The client is whole: it blocks and is served again.
  ASSERT_TRUE(waiter.Send("BLPOP q 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call("LPUSH q foo\r\n"), ":1\r\n");
  const std::string served = "*2\r\n$1\r\nq\r\n$3\r\nfoo\r\n";
  EXPECT_EQ(ReadReply(waiter, served), served);
}

// SWAPDB makes the keys it brings into a database ready for the clients blocked on them there
// (Redis's scanDatabaseForReadyKeys).
TEST(Blocking, SwapdbServesClientsBlockedOnTheKeysItBrings) {
  TestServer kvlab;
  RawClient waiter(kvlab.socket_path());
  RawClient other(kvlab.socket_path());
  EXPECT_EQ(other.Call("SELECT 1\r\nRPUSH k hello\r\nZADD z 1 m\r\n"), "+OK\r\n:1\r\n:1\r\n");
  ASSERT_TRUE(waiter.Send("SELECT 9\r\nBRPOP k 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call("SWAPDB 1 9\r\n"), "+OK\r\n");
  const std::string served = "+OK\r\n*2\r\n$1\r\nk\r\n$5\r\nhello\r\n";
  EXPECT_EQ(ReadReply(waiter, served), served);
  // A client blocked on a key that SWAPDB brings with another type stays blocked, as in Redis.
  EXPECT_EQ(other.Call("SWAPDB 1 9\r\n"), "+OK\r\n");  // z back to database 1
  ASSERT_TRUE(waiter.Send("BLPOP z 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call("SWAPDB 1 9\r\n"), "+OK\r\n");  // zset z into database 9
  EXPECT_EQ(other.Call("SELECT 9\r\nDEL z\r\nRPUSH z x\r\n"), "+OK\r\n:1\r\n:1\r\n");
  const std::string popped = "*2\r\n$1\r\nz\r\n$1\r\nx\r\n";
  EXPECT_EQ(ReadReply(waiter, popped), popped);
}

TEST(Blocking, MovesChainAndServeEachOther) {
  TestServer kvlab;
  RawClient mover(kvlab.socket_path());
  RawClient popper(kvlab.socket_path());
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(mover.Send("BRPOPLPUSH s1 s2 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  ASSERT_TRUE(popper.Send("BLMPOP 0 2 s3 s2 RIGHT COUNT 5\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 2));
  // The push serves the mover, whose push to s2 serves the popper.
  EXPECT_EQ(pusher.Call("RPUSH s1 x\r\n"), ":1\r\n");
  EXPECT_EQ(ReadReply(mover, "$1\r\nx\r\n"), "$1\r\nx\r\n");
  const std::string popped = "*2\r\n$2\r\ns2\r\n*1\r\n$1\r\nx\r\n";
  EXPECT_EQ(ReadReply(popper, popped), popped);
  EXPECT_EQ(pusher.Call("EXISTS s1 s2\r\n"), ":0\r\n");
}

TEST(Blocking, WrongDestinationTypeUnblocksWithTheErrorAndLeavesTheSource) {
  TestServer kvlab;
  RawClient mover(kvlab.socket_path());
  RawClient other(kvlab.socket_path());
  EXPECT_EQ(other.Call("SET target nolist\r\n"), "+OK\r\n");
  ASSERT_TRUE(mover.Send("BRPOPLPUSH blist target 0\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(other.Call("RPUSH blist a b c\r\n"), ":3\r\n");
  const std::string wrongtype =
      "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
  EXPECT_EQ(ReadReply(mover, wrongtype), wrongtype);
  EXPECT_EQ(other.Call("LRANGE blist 0 -1\r\n"), "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n");
}

TEST(Blocking, ClosedClientStopsWaiting) {
  TestServer kvlab;
  RawClient pusher(kvlab.socket_path());
  {
    RawClient gone(kvlab.socket_path());
    ASSERT_TRUE(gone.Send("BLPOP q 0\r\n"));
    ASSERT_TRUE(WaitBlocked(kvlab, 1));
  }
  ASSERT_TRUE(WaitBlocked(kvlab, 0));
  EXPECT_EQ(pusher.Call("RPUSH q a\r\n"), ":1\r\n");
  EXPECT_EQ(pusher.Call("LLEN q\r\n"), ":1\r\n");
}

TEST(Blocking, CommandsPipelinedBehindABlockedOneWaitForIt) {
  TestServer kvlab;
  RawClient waiter(kvlab.socket_path());
  RawClient pusher(kvlab.socket_path());
  ASSERT_TRUE(waiter.Send("BLPOP q 0\r\nLLEN q\r\nPING\r\n"));
  ASSERT_TRUE(WaitBlocked(kvlab, 1));
  EXPECT_EQ(pusher.Call("RPUSH q a b\r\n"), ":2\r\n");
  const std::string all = "*2\r\n$1\r\nq\r\n$1\r\na\r\n:1\r\n+PONG\r\n";
  EXPECT_EQ(ReadReply(waiter, all), all);
}

TEST(Blocking, ManyClientsEachGetOneElement) {
  TestServer kvlab;
  constexpr int kClients = 8;
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<RawClient>(kvlab.socket_path()));
    ASSERT_TRUE(clients.back()->Send("BRPOP jobs 0\r\n"));
    ASSERT_TRUE(WaitBlocked(kvlab, i + 1));
  }
  RawClient pusher(kvlab.socket_path());
  for (int i = 0; i < kClients; ++i) {
    EXPECT_EQ(pusher.Call("LPUSH jobs j" + std::to_string(i) + "\r\n"), ":1\r\n");
  }
  for (int i = 0; i < kClients; ++i) {
    const std::string job = "j" + std::to_string(i);
    const std::string want = "*2\r\n$4\r\njobs\r\n$2\r\n" + job + "\r\n";
    EXPECT_EQ(ReadReply(*clients[i], want), want) << "client " << i;
  }
  EXPECT_TRUE(WaitBlocked(kvlab, 0));
}

TEST(Blocking, InProcessEngineSaysItNeedsAServer) {
  testing::EngineHarness e("memory");
  EXPECT_EQ(e.Run("RPUSH q a"), "(integer) 1");
  EXPECT_EQ(e.Run("BLPOP q 0"), "[\"q\", \"a\"]");  // served at once: no need to block
  EXPECT_EQ(e.Run("BLPOP q 0"),
            "(error) ERR BLPOP would block, and only a server can block a client: this engine "
            "runs in-process (run it over kvlab serve)");
}

}  // namespace
}  // namespace kvlab::server
