// Private redis-servers: supervised (reaped, restarted with backoff, every event reported),
// reachable only through a unix socket in a private directory with a generated password, and
// their directories removed at exit, or by the next kvlab after a SIGKILL.
#include "redis/server_process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "base/run_to_completion.h"
#include "testing/kv_test_util.h"

namespace kvlab::redis {
namespace {

namespace fs = std::filesystem;
using resp::Reply;

// Waits (up to 30 s: a loaded machine) until done() holds.
bool WaitFor(const std::function<bool()>& done) {
  for (int i = 0; i < 3000; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

// Whether pid is a zombie (exited, never reaped).
bool IsZombie(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z';
}

struct Events {
  std::mutex mu;
  std::vector<std::string> lines;
  std::string All() {
    std::lock_guard lock(mu);
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
  }
};

RedisServerOptions PrivateOptions(Events* events, bool supervise) {
  RedisServerOptions o;
  o.unix_socket = true;
  o.generate_password = true;
  o.supervise = supervise;
  o.on_event = [events](const std::string& line) {
    std::lock_guard lock(events->mu);
    events->lines.push_back(line);
  };
  return o;
}

bool Pings(const RedisEndpoint& endpoint) {
  RedisClient client(endpoint, std::chrono::milliseconds(500));
  Reply pong;
  return client.Command({"PING"}, &pong).ok() && pong.str() == "PONG";
}

TEST(PrivateRedis, ASupervisedServerThatDiesIsReapedAndRestarted) {
  Events events;
  RedisServerProcess server(PrivateOptions(&events, /*supervise=*/true));
  ASSERT_TRUE(server.Start().ok());
  const pid_t first = server.pid();
  ASSERT_GT(first, 0);
  server.Crash();  // SIGKILL, as the OOM killer would
  ASSERT_TRUE(WaitFor([&] { return server.restarts() == 1 && server.running(); })) << events.All();
  EXPECT_NE(server.pid(), first);
  EXPECT_FALSE(IsZombie(first));
  EXPECT_TRUE(Pings(server.endpoint())) << "the restarted server answers on the same socket";
  const std::string log = events.All();
  EXPECT_NE(log.find("(pid " + std::to_string(first) + ") exited: signal 9; restarting in 100 ms"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("restarted (pid " + std::to_string(server.pid()) + ")"), std::string::npos)
      << log;
  // A second crash soon after backs off longer.
  server.Crash();
  ASSERT_TRUE(WaitFor([&] { return server.restarts() == 2 && server.running(); })) << events.All();
  EXPECT_NE(events.All().find("restarting in 200 ms"), std::string::npos) << events.All();
}

TEST(PrivateRedis, AnUnsupervisedServerThatDiesIsReapedAndStaysDown) {
  Events events;
  RedisServerProcess server(PrivateOptions(&events, /*supervise=*/false));
  ASSERT_TRUE(server.Start().ok());
  const pid_t pid = server.pid();
  server.Crash();
  ASSERT_TRUE(WaitFor([&] { return server.state() == RedisServerProcess::State::kStopped; }));
  EXPECT_FALSE(IsZombie(pid));
  EXPECT_EQ(server.restarts(), 0u);
  ASSERT_TRUE(server.Start().ok());  // until asked, on the same socket
  EXPECT_TRUE(Pings(server.endpoint()));
}

TEST(PrivateRedis, OnlyThisUserWithThePasswordGetsIn) {
  Events events;
  RedisServerProcess server(PrivateOptions(&events, true));
  ASSERT_TRUE(server.Start().ok());
  struct stat st {};
  ASSERT_EQ(::stat(server.runtime_dir().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(server.endpoint().port, 0);
  EXPECT_TRUE(server.endpoint().unix_path.starts_with(server.runtime_dir()));
  EXPECT_EQ(server.endpoint().password.size(), 32u);
  RedisEndpoint no_password = server.endpoint();
  no_password.password.clear();
  RedisClient stranger(no_password);
  Reply r;
  ASSERT_TRUE(stranger.Command({"PING"}, &r).ok());
  EXPECT_EQ(r.str(), "NOAUTH Authentication required.");
  EXPECT_TRUE(Pings(server.endpoint()));
  // The password is in a file only this user reads, not on the command line.
  std::ifstream cmdline("/proc/" + std::to_string(server.pid()) + "/cmdline");
  std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  EXPECT_EQ(args.find(server.endpoint().password), std::string::npos);
}

// A pipeline's timeout grows with its arguments: a server busy for 600 ms fails a small call
// under a 300 ms timeout, and not a call of 20,000 arguments (1 s more), which then leaves the
// socket at the base timeout again.
TEST(RedisClient, ABigPipelineWaitsLongerThanTheBaseTimeout) {
  RedisServerOptions o;
  o.extra_args = {"--enable-debug-command", "local"};
  RedisServerProcess server(o);
  ASSERT_TRUE(server.Start().ok());
  RedisClient client(server.endpoint(), std::chrono::milliseconds(300));
  std::vector<Reply> replies;
  Status s = client.Pipeline({{"DEBUG", "SLEEP", "0.6"}}, &replies);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();

  std::vector<std::string> sadd = {"SADD", "s"};
  for (int i = 0; i < 20000; ++i) sadd.push_back("m" + std::to_string(i));
  s = client.Pipeline({sadd, {"DEBUG", "SLEEP", "0.6"}}, &replies);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0].integer(), 20000);
  s = client.Pipeline({{"DEBUG", "SLEEP", "0.6"}}, &replies);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
}

TEST(PrivateRedis, DirectoriesGoAtExitAndStaleOnesAtTheNextStart) {
  std::string runtime;
  {
    Events events;
    RedisServerProcess server(PrivateOptions(&events, true));
    ASSERT_TRUE(server.Start().ok());
    runtime = server.runtime_dir();
    ASSERT_TRUE(fs::exists(runtime));
  }
  EXPECT_FALSE(fs::exists(runtime));

  testing::ScratchDir temp;
  auto make = [&](const std::string& name, const std::string& owner) {
    const fs::path dir = fs::path(temp.path()) / name;
    fs::create_directories(dir);
    if (!owner.empty()) std::ofstream(dir / "owner") << owner;
    return dir;
  };
  // A kvlab that is gone (this child, reaped), whose server is gone too.
  const pid_t dead = ::fork();
  if (dead == 0) _exit(0);
  ::waitpid(dead, nullptr, 0);
  const fs::path stale =
      make("kvlab-redis-1-aaaaaa", "kvlab-redis-owner-v1 " + std::to_string(dead) + " 12345 -1\n");
  std::ifstream self_stat("/proc/self/stat");
  std::string stat;
  std::getline(self_stat, stat);
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field, start;
  for (int i = 3; i <= 22 && fields >> field; ++i) start = field;
  const fs::path live =
      make("kvlab-redis-2-bbbbbb",
           "kvlab-redis-owner-v1 " + std::to_string(::getpid()) + " " + start + " -1\n");
  const fs::path unowned = make("kvlab-redis-3-cccccc", "");
  const fs::path other = make("not-kvlab-4", "kvlab-redis-owner-v1 1 1 -1\n");
  EXPECT_EQ(RemoveStaleRedisDirs(temp.path()), 1);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(unowned));
  EXPECT_TRUE(fs::exists(other));
}

// The helper processes kvlab runs to their end (report and plot scripts) go through
// RunToCompletion (base/child_process.h): both streams captured or written to a file, the exit
// code, 127 for what cannot be executed, -1 for a signal.
TEST(RunToCompletion, CapturesOutputAndExitCode) {
  std::string output;
  int code = 0;
  ASSERT_TRUE(
      RunToCompletion({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "", &output, &code)
          .ok());
  EXPECT_EQ(code, 3);
  EXPECT_EQ(output, "out\nerr\n");
  testing::ScratchDir dir;
  const std::string log = dir.Sub("log");
  std::ofstream(log) << "old text, truncated\n";
  ASSERT_TRUE(RunToCompletion({"/bin/sh", "-c", "echo to-file >&2"}, log, nullptr, &code).ok());
  EXPECT_EQ(code, 0);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "to-file\n");
  output.clear();
  ASSERT_TRUE(RunToCompletion({dir.Sub("no-such-binary")}, "", &output, &code).ok());
  EXPECT_EQ(code, 127);
  ASSERT_TRUE(RunToCompletion({"/bin/sh", "-c", "kill -9 $$"}, "", &output, &code).ok());
  EXPECT_EQ(code, -1);
  EXPECT_FALSE(RunToCompletion({"/bin/true"}, dir.Sub("no-dir/log"), nullptr, &code).ok());
}

}  // namespace
}  // namespace kvlab::redis
