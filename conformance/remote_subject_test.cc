// A RESP server as the subject, end to end over hiredis. `kvlab serve` is built elsewhere, so a
// second real redis-server stands in for it: the corpus must pass on it without a single
// deviation, and an injected fault on that path must still fail. A tiny proxy in front of it
// (DroppingProxy) closes the connection on a chosen command, or never answers it, as servers
// under test do: conform must name that command, reconnect and go on.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "conformance/matrix.h"
#include "conformance/report.h"
#include "redis/server_process.h"
#include "resp/resp_parser.h"
#include "testing/conform_test_util.h"

namespace kvlab::conformance {

using redis::FreeLoopbackPort;
using redis::RedisClient;
using redis::RedisEndpoint;
using redis::RedisServerProcess;
using resp::Reply;

namespace {

class RemoteSubjectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = reference_server_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = served_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    client_ = std::make_unique<RedisClient>(reference_server_.endpoint());
    reference_ = std::make_unique<RedisTarget>("redis", client_.get());
    s = LoadCaseDirectory(KVLAB_SOURCE_DIR "/conformance/cases", &plan_.corpus);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = DeviationCatalogue::Load(DefaultDeviationCataloguePath(),
                                 encodings::EncodingRegistry::Builtin(), &catalogue_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    plan_.catalogue = &catalogue_;
  }

  RedisServerProcess reference_server_;
  RedisServerProcess served_;
  std::unique_ptr<RedisClient> client_;
  std::unique_ptr<RedisTarget> reference_;
  MatrixPlan plan_;
  DeviationCatalogue catalogue_;
};

TEST_F(RemoteSubjectTest, ARealRedisAsTheSubjectPassesTheWholeCorpus) {
  RemoteSubject remote(served_.endpoint());
  ASSERT_TRUE(remote.CheckEmpty().ok());
  EXPECT_TRUE(remote.Versions().empty());  // a plain Redis takes no encode-versions
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(*reference_, {&remote}, plan_, nullptr, &r).ok());
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].profile.Label(), "as configured");
  // Named by what it is (INFO server), never "kvlab".
  EXPECT_TRUE(r.subjects[0].starts_with("redis 7.")) << r.subjects[0];
  EXPECT_TRUE(r.subjects[0].ends_with(" at " + served_.endpoint().ToString())) << r.subjects[0];
  EXPECT_TRUE(r.skipped.empty());  // a Redis serves every command of the corpus
  EXPECT_TRUE(r.disconnects.empty());
  EXPECT_GT(r.totals.pass, 500u);
  EXPECT_EQ(r.totals.deviation, 0u);
  for (const FailureRecord& f : r.failures) {
    ADD_FAILURE() << f.source << ":" << f.line << ": " << f.command_line << "\n  " << f.explanation;
  }
}

TEST_F(RemoteSubjectTest, RefusesAServerThatHoldsKeys) {
  RedisClient served(served_.endpoint());
  Reply r;
  ASSERT_TRUE(served.Command({"SELECT", "3"}, &r).ok());
  ASSERT_TRUE(served.Command({"SET", "precious", "data"}, &r).ok());
  RemoteSubject remote(served_.endpoint());
  const Status s = remote.CheckEmpty();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("database 3"), std::string::npos) << s.ToString();
}

TEST_F(RemoteSubjectTest, FaultsOnTheRemotePathFail) {
  testing::FaultySubject faulty(
      std::make_unique<RemoteSubject>(served_.endpoint()), [](size_t, const auto& argv, Reply r) {
        return LowerCommand(argv[0]) == "hgetall" ? testing::Corrupt(r) : r;
      });
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(*reference_, {&faulty}, plan_, nullptr, &r).ok());
  EXPECT_GT(r.totals.fail, 0u);
  for (const FailureRecord& f : r.failures) EXPECT_EQ(f.command_line.substr(0, 7), "HGETALL");
}

TEST_F(RemoteSubjectTest, AnUnreachableServerIsAnError) {
  RedisEndpoint nowhere;
  ASSERT_TRUE(
      RedisEndpoint::Parse("127.0.0.1:" + std::to_string(FreeLoopbackPort()), &nowhere).ok());
  RemoteSubject remote(nowhere);
  MatrixResult r;
  EXPECT_FALSE(RunMatrix(*reference_, {&remote}, plan_, nullptr, &r).ok());
}

// A RESP proxy on a loopback port in front of a real redis-server: every command is forwarded,
// except that the connection is closed without a reply on `close_on`, and `hang_on` is never
// answered (until the client gives up). One thread per connection.
class DroppingProxy {
 public:
  DroppingProxy(RedisEndpoint backend, std::string close_on, std::string hang_on = "")
      : backend_(std::move(backend)), close_on_(std::move(close_on)), hang_on_(std::move(hang_on)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(listener_, 16) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "proxy: cannot listen";
    }
    port_ = ntohs(addr.sin_port);
    accepter_ = std::thread([this] { Accept(); });
  }
  ~DroppingProxy() {
    stop_ = true;
    accepter_.join();
    close(listener_);
    std::lock_guard<std::mutex> lock(mu_);
    for (std::thread& t : connections_) t.join();
  }
  RedisEndpoint endpoint() const {
    RedisEndpoint e;
    e.host = "127.0.0.1";
    e.port = port_;
    return e;
  }
  int dropped() const { return dropped_; }

 private:
  void Accept() {
    while (!stop_) {
      pollfd p{listener_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> lock(mu_);
      connections_.emplace_back([this, fd] { Serve(fd); });
    }
  }
  void Serve(int fd) {
    RedisClient backend(backend_);
    resp::RequestParser parser;
    std::vector<std::string> argv;
    bool open = true;
    while (open && !stop_) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      size_t room = 0;
      char* buf = parser.ReceiveBuffer(&room);
      const ssize_t n = read(fd, buf, room);
      if (n <= 0) break;
      parser.Received(static_cast<size_t>(n));
      while (open && parser.Next(resp::kDefaultMaxBulkLen, &argv) ==
                         resp::RequestParser::Result::kCommand) {
        const std::string command = LowerCommand(argv[0]);
        if (command == close_on_) {
          ++dropped_;
          open = false;
        } else if (command == hang_on_) {
          // Never answers: waits until the client closes the connection (its timeout).
          char ignored[256];
          while (!stop_) {
            pollfd q{fd, POLLIN, 0};
            if (poll(&q, 1, 20) > 0 && read(fd, ignored, sizeof(ignored)) <= 0) break;
          }
          open = false;
        } else {
          Reply reply;
          if (!backend.Command(argv, &reply).ok()) reply = Reply::Error("proxy: backend failed");
          const std::string out = reply.ToResp();
          if (write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) open = false;
        }
      }
    }
    close(fd);
  }

  const RedisEndpoint backend_;
  const std::string close_on_, hang_on_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> dropped_{0};
  std::thread accepter_;
  std::mutex mu_;
  std::vector<std::thread> connections_;
};

// A server that closes the connection on a command: that command is one failing row that says
// so, the rest of its case is not run (and not judged), and the next cases run and pass.
TEST_F(RemoteSubjectTest, ALostConnectionIsOneRowAndTheRunGoesOn) {
  DroppingProxy proxy(served_.endpoint(), "echo");
  RemoteSubject remote(proxy.endpoint());
  plan_.corpus.clear();
  CaseFile first, second;
  ASSERT_TRUE(ParseCaseText("first", "SET a 1\nECHO boom\nGET a\nSET b 2\n", &first).ok());
  ASSERT_TRUE(ParseCaseText("second", "SET c 3\nGET c\n", &second).ok());
  plan_.corpus = {first, second};
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(*reference_, {&remote}, plan_, nullptr, &r).ok());
  EXPECT_EQ(proxy.dropped(), 1);
  ASSERT_EQ(r.failures_total, 1u);
  EXPECT_EQ(r.failures[0].command_line, "ECHO boom");
  EXPECT_EQ(r.failures[0].explanation, "the server closed the connection on ECHO boom");
  ASSERT_EQ(r.disconnects.size(), 1u);
  EXPECT_EQ(r.disconnects[0].source, "first");
  EXPECT_EQ(r.disconnects[0].line, 2);
  EXPECT_EQ(r.disconnects[0].not_run, 2u);
  EXPECT_EQ(r.not_run_after_disconnect, 2u);
  EXPECT_EQ(r.totals.pass, 3u);  // SET a 1, then the whole second case
  EXPECT_TRUE(r.stopped.empty());
  ReportContext ctx;
  ctx.plan = &plan_;
  const std::string summary = SummaryMarkdown(r, ctx);
  EXPECT_NE(summary.find("the server closed the connection on ECHO boom"), std::string::npos);
  EXPECT_EQ(summary.find("kvlab:"), std::string::npos);
}

// A server that does not answer within the timeout is reported as such; one that keeps losing
// the connection is stopped after max_disconnects, with the reason in the result.
TEST_F(RemoteSubjectTest, AServerThatKeepsDroppingIsStopped) {
  DroppingProxy proxy(served_.endpoint(), "echo", "time");
  RemoteSubjectOptions options;
  options.name = "flaky";
  options.timeout = std::chrono::milliseconds(200);
  RemoteSubject remote(proxy.endpoint(), options);
  plan_.corpus.clear();
  for (const char* text : {"TIME\nSET a 1\n", "ECHO x\n", "ECHO y\n", "SET z 1\n"}) {
    CaseFile c;
    ASSERT_TRUE(ParseCaseText("c" + std::to_string(plan_.corpus.size()), text, &c).ok());
    plan_.corpus.push_back(c);
  }
  plan_.max_disconnects = 2;
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(*reference_, {&remote}, plan_, nullptr, &r).ok());
  ASSERT_EQ(r.disconnects.size(), 3u);
  EXPECT_EQ(r.disconnects[0].what, "the server did not answer TIME within 0.2 s");
  EXPECT_EQ(r.disconnects[1].what, "the server closed the connection on ECHO x");
  ASSERT_EQ(r.stopped.count("flaky"), 1u);
  EXPECT_NE(r.stopped.at("flaky").find("lost 3 times"), std::string::npos) << r.stopped.at("flaky");
  EXPECT_EQ(r.cells.count({"flaky", "as configured", "set"}), 0u);  // c3 never ran
  EXPECT_EQ(r.totals.fail, 3u);
}

}  // namespace
}  // namespace kvlab::conformance
