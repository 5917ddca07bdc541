// Access control as Redis 7.0 has it, compared byte for byte with a real redis-server started
// beside kvlab with the same settings: requirepass with AUTH and HELLO AUTH, protected mode,
// and rename-command to take CONFIG, FLUSHALL or SHUTDOWN away from clients.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <fstream>
#include <string>
#include <vector>

#include "redis/server_process.h"
#include "testing/server_test_util.h"

namespace kvlab::server {

using redis::FreeLoopbackPort;
using redis::RedisServerOptions;
using redis::RedisServerProcess;

namespace {

using testing::RawClient;
using testing::ScratchDir;
using testing::TestServer;

// Sends `request`, half-closes, and reads everything until the server closes.
std::string Exchange(const std::string& socket_path, const std::string& request) {
  RawClient client(socket_path);
  EXPECT_TRUE(client.connected());
  client.Send(request);
  client.HalfClose();
  return client.Read(SIZE_MAX, std::chrono::milliseconds(5000));
}

// Connects from `source` (a loopback address) to 127.0.0.1:port, sends `request`, and reads
// until the server closes or stays quiet.
std::string TcpExchange(const char* source, int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &from.sin_addr);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof(from)), 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0) {
    ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buf[4096];
    for (;;) {
      // Generous until the first byte; then a reply line that ended and stays quiet is whole.
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, out.ends_with("\r\n") ? 200 : 5000) <= 0) break;
      const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 200)) {
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Replies without ids or addresses, so equal on both servers.
const std::vector<std::string> kAuthCases = {
    "PING\r\n",
    "GET k\r\n",
    "SET k v\r\n",
    "CONFIG GET requirepass\r\n",
    "CLIENT ID\r\n",
    "COMMAND COUNT\r\n",
    "FLUSHALL\r\n",
    "SHUTDOWN\r\n",
    "INFO\r\n",
    // Unknown commands and wrong arity are reported before authentication.
    "NOSUCH a\r\n",
    "GET\r\n",
    "CLIENT\r\n",
    // AUTH.
    "AUTH wrong\r\nPING\r\n",
    "AUTH secret\r\nPING\r\n",
    "AUTH default secret\r\nGET k\r\n",
    "AUTH default wrong\r\nPING\r\n",
    "AUTH bob secret\r\nPING\r\n",
    "AUTH \"\"\r\n",
    "AUTH\r\n",
    "AUTH a b c\r\n",
    "AUTH secret x\r\n",
    // A failed AUTH does not undo an earlier success.
    "AUTH secret\r\nAUTH wrong\r\nPING\r\n",
    // HELLO: options run in order; authentication is checked after them.
    "HELLO\r\n",
    "HELLO 2\r\n",
    "HELLO 3\r\n",
    "HELLO 2 SETNAME x\r\nAUTH secret\r\nCLIENT GETNAME\r\n",
    "HELLO 2 AUTH default wrong\r\nPING\r\n",
    "HELLO 2 AUTH bob secret\r\n",
    "HELLO 2 AUTH default\r\n",
    "HELLO 4 AUTH default secret\r\n",
    "HELLO 1 AUTH default secret\r\n",
    "HELLO foo\r\n",
    "HELLO 2 AUTH default secret foo\r\n",
    "hello 2 auth default secret setname \"a b\"\r\nPING\r\n",
    "HELLO 2 SETNAME \"a b\" AUTH default wrong\r\n",
    "HELLO 2 AUTH default wrong SETNAME \"a b\"\r\n",
    "QUIT\r\nPING\r\n",
    // RESET runs unauthenticated, de-authenticates (a password is set), ends MULTI, selects
    // database 0 and clears the name.
    "RESET\r\nPING\r\n",
    "RESET x\r\n",
    "AUTH secret\r\nRESET\r\nPING\r\n",
    "AUTH secret\r\nCLIENT SETNAME x\r\nSELECT 2\r\nSET r2 v\r\nMULTI\r\nSET r0 v\r\n"
    "RESET\r\nAUTH secret\r\nEXEC\r\nCLIENT GETNAME\r\nGET r2\r\nEXISTS r0\r\nSELECT 2\r\n"
    "GET r2\r\n",
    "AUTH secret\r\nMULTI\r\nRESET x\r\nRESET\r\nEXEC\r\n",
};

TEST(Auth, RequirepassAnswersAsRedisDoes) {
  RedisServerOptions redis_options;
  redis_options.unix_socket = true;
  redis_options.extra_args = {"--requirepass", "secret"};
  RedisServerProcess redis(redis_options);
  Status s = redis.Start();
  if (!s.ok()) GTEST_SKIP() << "no redis-server: " << s.ToString();
  TestServer kvlab("memory", nullptr, {{"requirepass", "secret"}});
  for (const std::string& request : kAuthCases) {
    const std::string want = Exchange(redis.endpoint().unix_path, request);
    const std::string got = Exchange(kvlab.socket_path(), request);
    EXPECT_EQ(got, want) << "request: " << Escape(request) << "\nredis: " << Escape(want)
                         << "\nkvlab: " << Escape(got);
  }
}

TEST(Auth, HelloAuthAuthenticatesAndSetsTheName) {
  TestServer kvlab("memory", nullptr, {{"requirepass", "secret"}});
  RawClient c(kvlab.socket_path());
  const std::string hello = c.Call("HELLO 2 AUTH default secret SETNAME app\r\n");
  EXPECT_TRUE(hello.starts_with("*14\r\n$6\r\nserver\r\n")) << hello;
  EXPECT_EQ(c.Call("CLIENT GETNAME\r\n"), "$3\r\napp\r\n");
  EXPECT_EQ(c.Call("SET k v\r\n"), "+OK\r\n");
  // Once authenticated, HELLO 3 switches to RESP3 (a map reply).
  const std::string resp3 = c.Call("HELLO 3\r\n");
  EXPECT_TRUE(resp3.starts_with("%7\r\n$6\r\nserver\r\n")) << resp3;
  // RESET: back to RESP2 (a null is $-1 again, not RESP3's _), the name cleared, and
  // authenticated again only by AUTH. CLIENT NO-EVICT stays on, as in Redis 7.0.15.
  EXPECT_EQ(c.Call("CLIENT NO-EVICT on\r\n"), "+OK\r\n");
  const std::string before = c.Call("CLIENT INFO\r\n");
  EXPECT_NE(before.find(" flags=e "), std::string::npos) << before;
  EXPECT_EQ(c.Call("GET nosuch\r\n"), "_\r\n");
  EXPECT_EQ(c.Call("RESET\r\n"), "+RESET\r\n");
  EXPECT_EQ(c.Call("GET nosuch\r\n"), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(c.Call("AUTH secret\r\n"), "+OK\r\n");
  EXPECT_EQ(c.Call("GET nosuch\r\n"), "$-1\r\n");
  EXPECT_EQ(c.Call("CLIENT GETNAME\r\n"), "$-1\r\n");
  const std::string info = c.Call("CLIENT INFO\r\n");
  EXPECT_NE(info.find(" flags=e "), std::string::npos) << info;
  EXPECT_NE(info.find(" name= "), std::string::npos) << info;
}

TEST(Auth, ClientsConnectedBeforeAPasswordIsSetStayIn) {
  TestServer kvlab;
  RawClient before(kvlab.socket_path());
  ASSERT_EQ(before.Call("CONFIG SET requirepass secret\r\n"), "+OK\r\n");
  EXPECT_EQ(before.Call("PING\r\n"), "+PONG\r\n");  // as in Redis
  RawClient after(kvlab.socket_path());
  EXPECT_EQ(after.Call("PING\r\n"), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(after.Call("AUTH secret\r\n"), "+OK\r\n");
  EXPECT_EQ(after.Call("PING\r\n"), "+PONG\r\n");
  // An unauthenticated client cannot lift limits or lock others out.
  RawClient stranger(kvlab.socket_path());
  EXPECT_EQ(stranger.Call("CONFIG SET maxclients 1\r\n"), "-NOAUTH Authentication required.\r\n");
  EXPECT_EQ(after.Call("CONFIG GET maxclients\r\n"), "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
  // Without a password again, the stranger may run commands (Redis checks the default user's
  // nopass flag), but HELLO still wants it authenticated, as in Redis 7.0.
  EXPECT_EQ(after.Call("CONFIG SET requirepass \"\"\r\n"), "+OK\r\n");
  EXPECT_EQ(stranger.Call("PING\r\n"), "+PONG\r\n");
  EXPECT_TRUE(stranger.Call("HELLO 2\r\n").starts_with("-NOAUTH HELLO must be called"));
}

// Protected mode: without a password only 127.0.0.1 (and ::1, and unix sockets) may connect;
// 127.0.0.2 is not the loopback interface for Redis, which lets the test use it as a remote
// host without leaving loopback.
TEST(Auth, ProtectedModeRefusesOtherHostsAsRedisDoes) {
  RedisServerOptions redis_options;
  redis_options.extra_args = {"--protected-mode", "yes"};
  RedisServerProcess redis(redis_options);
  Status s = redis.Start();
  if (!s.ok()) GTEST_SKIP() << "no redis-server: " << s.ToString();
  const int port = FreeLoopbackPort();
  TestServer kvlab([port](ServerOptions* o) { o->port = port; });
  const std::string want = TcpExchange("127.0.0.2", redis.endpoint().port, "PING\r\n");
  ASSERT_TRUE(want.starts_with("-DENIED Redis is running in protected mode")) << want;
  EXPECT_EQ(TcpExchange("127.0.0.2", port, "PING\r\n"), want);
  EXPECT_EQ(TcpExchange("127.0.0.1", port, "PING\r\n"), "+PONG\r\n");
  // Off, or with a password, other hosts may connect (and must authenticate).
  RawClient admin(kvlab.socket_path());
  ASSERT_EQ(admin.Call("CONFIG SET requirepass secret\r\n"), "+OK\r\n");
  EXPECT_EQ(TcpExchange("127.0.0.2", port, "PING\r\n"), "-NOAUTH Authentication required.\r\n");
  ASSERT_EQ(admin.Call("CONFIG SET requirepass \"\"\r\n"), "+OK\r\n");
  ASSERT_EQ(admin.Call("CONFIG SET protected-mode no\r\n"), "+OK\r\n");
  EXPECT_EQ(TcpExchange("127.0.0.2", port, "PING\r\n"), "+PONG\r\n");
  EXPECT_EQ(admin.Call("CONFIG GET protected-mode\r\n"),
            "*2\r\n$14\r\nprotected-mode\r\n$2\r\nno\r\n");
}

TEST(Auth, RenameCommandTakesCommandsAwayAsRedisDoes) {
  RedisServerOptions redis_options;
  redis_options.unix_socket = true;
  redis_options.extra_args = {"--rename-command", "FLUSHALL", "",
                              "--rename-command", "CONFIG",   "cfg-9f2e",
                              "--rename-command", "SHUTDOWN", ""};
  RedisServerProcess redis(redis_options);
  Status s = redis.Start();
  if (!s.ok()) GTEST_SKIP() << "no redis-server: " << s.ToString();
  ScratchDir dir;
  const std::string conf = dir.Sub("kvlab.conf");
  std::ofstream(conf) << "# clients may not flush, configure or stop this server\n"
                         "rename-command FLUSHALL \"\"\n"
                         "rename-command CONFIG cfg-9f2e\n"
                         "rename-command SHUTDOWN \"\"\n";
  TestServer kvlab;
  // The config file is read before serving; a running engine is not renamed under clients.
  ASSERT_TRUE(kvlab.engine().config().LoadFile(conf).ok());
  for (const std::string request :
       {"FLUSHALL\r\n", "flushall async\r\n", "CONFIG GET maxclients\r\n", "SHUTDOWN\r\n",
        "cfg-9f2e SET save \"\"\r\n", "CFG-9F2E GET appendonly\r\n", "cfg-9f2e NOSUCH\r\n",
        "cfg-9f2e GET\r\n"}) {
    const std::string want = Exchange(redis.endpoint().unix_path, request);
    const std::string got = Exchange(kvlab.socket_path(), request);
    EXPECT_EQ(got, want) << "request: " << Escape(request) << "\nredis: " << Escape(want)
                         << "\nkvlab: " << Escape(got);
  }
  EXPECT_FALSE(kvlab.engine().RenameCommand("NOSUCH", "x").ok());
  EXPECT_FALSE(kvlab.engine().RenameCommand("GET", "set").ok());
}

TEST(Auth, ListeningBeyondLoopbackWithoutAPasswordWarns) {
  EXPECT_EQ(ExposureWarning({"127.0.0.1", "::1"}, false, true), "");
  EXPECT_EQ(ExposureWarning({"0.0.0.0"}, true, true), "");
  const std::string guarded = ExposureWarning({"127.0.0.1", "0.0.0.0"}, false, true);
  EXPECT_NE(guarded.find("listening on 0.0.0.0 without a password"), std::string::npos);
  EXPECT_NE(guarded.find("protected mode refuses"), std::string::npos);
  const std::string open = ExposureWarning({"*"}, false, false);
  EXPECT_NE(open.find("any host that reaches this port can run every command"), std::string::npos);
}

}  // namespace
}  // namespace kvlab::server
