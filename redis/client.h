// RedisClient: a blocking connection to a real redis-server, through hiredis.
//
// Used by the Redis tier of hash v2/v3 and zset v1-v3, by the conformance harness (the
// reference server) and by tests. Replies come back as kvlab Reply values. hiredis 0.14 reports
// RESP2's nil array (*-1) as a nil bulk, so both arrive as Reply::Nil().
//
// A client is not thread-safe; the tier keeps a pool. On a broken connection a call fails with
// Unavailable and the next call reconnects, so a restarted server is picked up again.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "resp/reply.h"

struct redisContext;

namespace kvlab::redis {

// Where a redis-server listens, and how to log in: "host:port", "redis://host:port",
// "redis://[user]:password@host:port", "unix:///path" or "/path".
struct RedisEndpoint {
  std::string host;
  int port = 0;
  std::string unix_path;
  std::string user;      // empty: the default user
  std::string password;  // empty: no AUTH
  // What messages call this server instead of its address ("private redis-server"), so that
  // errors that reach clients do not publish where a private server listens.
  std::string label;

  static Status Parse(const std::string& url, RedisEndpoint* out);
  // The label, or the address; never the password.
  std::string ToString() const;
};

class RedisClient {
 public:
  explicit RedisClient(RedisEndpoint endpoint,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // Connects now (calls connect lazily otherwise), and logs in when the endpoint has a password.
  Status Connect();
  // Sends one command and waits for its reply. An error reply is a successful call: the Reply
  // is of type kError.
  Status Command(const std::vector<std::string>& argv, resp::Reply* reply);
  // Sends every command, then reads every reply: one round trip. The replies come only once the
  // server has run every command, so the call's timeout grows with its size: the client's
  // timeout plus kTimeoutPerArgument for each argument beyond kArgumentsInBaseTimeout (a zset
  // v3 write of 20,000 GEOADD points, one script call of 40,000 arguments, outlasts 500 ms on a
  // loaded machine; a fixed timeout failed it although the server was healthy).
  static constexpr std::chrono::microseconds kTimeoutPerArgument{50};
  static constexpr size_t kArgumentsInBaseTimeout = 1000;
  Status Pipeline(const std::vector<std::vector<std::string>>& commands,
                  std::vector<resp::Reply>* replies);

  const RedisEndpoint& endpoint() const { return endpoint_; }
  // Round trips made so far (a pipeline counts one).
  uint64_t round_trips() const { return round_trips_; }

 private:
  void Disconnect();

  const RedisEndpoint endpoint_;
  const std::chrono::milliseconds timeout_;
  redisContext* context_ = nullptr;
  uint64_t round_trips_ = 0;
};

// Fails with InvalidArgument unless every database of the server (0-15, or as many as it has)
// is empty: a tool about to FLUSHALL it must not destroy data. `who` completes the message:
// "<server> holds keys in database 3; <who> runs FLUSHALL on it ... (pass --allow-flush ...)".
// Leaves the connection in database 0.
Status RequireEmptyServer(RedisClient& client, const std::string& who);

}  // namespace kvlab::redis
