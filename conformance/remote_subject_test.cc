// A RESP server as the subject, end to end over hiredis. `kvlab serve` is built elsewhere, so a
// second real redis-server stands in for it: the corpus must pass on it without a single
// deviation, and an injected fault on that path must still fail.
#include <gtest/gtest.h>

#include "conformance/matrix.h"
#include "redis/server_process.h"
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
  EXPECT_EQ(r.subjects[0], "serve " + served_.endpoint().ToString());
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

}  // namespace
}  // namespace kvlab::conformance
