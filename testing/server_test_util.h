// Helpers for the server's in-process tests: a Server over a fresh store on a private unix
// socket (no port can collide), and a raw socket client that sends bytes and reads what comes
// back, to see protocol errors and closed connections exactly.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "backends/registry.h"
#include "engine/engine.h"
#include "server/server.h"
#include "testing/kv_test_util.h"

namespace kvlab::testing {

class TestServer {
 public:
  // Starts a server over a fresh `backend` store. `tune` may change the options first; `config`
  // is CONFIG SET before the server starts (e.g. {{"requirepass", "secret"}}).
  explicit TestServer(const std::string& backend = "memory",
                      const std::function<void(server::ServerOptions*)>& tune = nullptr,
                      const std::vector<std::pair<std::string, std::string>>& config = {},
                      engine::EngineOptions engine_options = {}) {
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = scratch_.Sub("store");
    Status s = backends::OpenStore(spec, &store_);
    EXPECT_TRUE(s.ok()) << s.ToString();
    engine_ = std::make_unique<engine::Engine>(store_->store(), engine_options);
    server::ServerOptions options;
    options.port = 0;
    options.unix_socket = scratch_.Sub("kvlab.sock");
    options.threads = 2;
    options.version = "test";
    if (tune) tune(&options);
    socket_path_ = options.unix_socket;
    server_ = std::make_unique<server::Server>(engine_.get(), options);
    for (const auto& pair : config) {
      s = engine_->config().Set({pair});
      EXPECT_TRUE(s.ok()) << pair.first << ": " << s.ToString();
    }
    s = server_->Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
    thread_ = std::thread([this] { server_->Run(); });
  }
  explicit TestServer(const std::function<void(server::ServerOptions*)>& tune)
      : TestServer("memory", tune) {}
  ~TestServer() { Stop(); }

  // Shuts the server down and waits for Run() to return.
  void Stop() {
    if (!thread_.joinable()) return;
    server_->RequestShutdown();
    thread_.join();
  }
  // Waits (up to 10 s) for Run() to return by itself, e.g. after SHUTDOWN.
  bool WaitStopped() {
    for (int i = 0; i < 1000 && !Stopped(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!Stopped()) return false;
    thread_.join();
    return true;
  }

  const std::string& socket_path() const { return socket_path_; }
  // The TCP port the server listens on (when options.port was set), e.g. for CLIENT tests.
  int port() const { return server_->options().port; }
  engine::Engine& engine() { return *engine_; }
  server::Server& server() { return *server_; }

 private:
  bool Stopped() {
    // Run() returns after the listeners closed, which removes the socket file.
    return ::access(socket_path_.c_str(), F_OK) != 0 && !Connectable();
  }
  bool Connectable() const;

  ScratchDir scratch_;
  std::unique_ptr<backends::OpenedStore> store_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<server::Server> server_;
  std::string socket_path_;
  std::thread thread_;
};

// A blocking unix-socket client that works in bytes.
class RawClient {
 public:
  explicit RawClient(const std::string& path) {
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Tells the server this client sends nothing more (shutdown SHUT_WR).
  void HalfClose() { ::shutdown(fd_, SHUT_WR); }
  // Reads until `expected` bytes arrived, the peer closed, or `quiet` passed without data once
  // some arrived. The first byte may take up to `first` (default: `quiet`).
  std::string Read(size_t expected = SIZE_MAX,
                   std::chrono::milliseconds quiet = std::chrono::milliseconds(300),
                   std::optional<std::chrono::milliseconds> first = std::nullopt) {
    std::string out;
    char buf[65536];
    while (out.size() < expected) {
      pollfd p{fd_, POLLIN, 0};
      const auto wait = out.empty() && first.has_value() ? *first : quiet;
      if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) break;
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }
  // Sends a request and reads its reply: until quiet once the reply has begun. A loaded machine
  // may take long to answer at all, so the first byte is waited for up to 5 s (a request with
  // no reply pays that wait: use Send and Read for those).
  std::string Call(std::string_view request) {
    Send(request);
    return Read(SIZE_MAX, std::chrono::milliseconds(300), std::chrono::milliseconds(5000));
  }
  // Whether the peer has closed the connection (checked by reading, briefly).
  bool Closed() {
    if (!closed_) Read(SIZE_MAX, std::chrono::milliseconds(200));
    return closed_;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
};

inline bool TestServer::Connectable() const { return RawClient(socket_path_).connected(); }

// How long the blocking tests wait for a client to block or a reply to arrive.
inline constexpr auto kBlockingPatience = std::chrono::seconds(20);

// Waits (up to kBlockingPatience) until exactly n clients are blocked on keys.
inline bool WaitBlocked(TestServer& s, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + kBlockingPatience;
  while (s.server().blocked().blocked() != n) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// Reads exactly the bytes of `expected` (or what arrived by kBlockingPatience) and returns them.
inline std::string ReadReply(RawClient& c, const std::string& expected) {
  return c.Read(expected.size(),
                std::chrono::duration_cast<std::chrono::milliseconds>(kBlockingPatience));
}

}  // namespace kvlab::testing
