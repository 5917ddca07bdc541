// The honesty self-test: the harness, pointed at deliberately wrong replies from an otherwise
// correct kvlab, must report every one of them as a failure, against a real redis-server. It
// also checks that the catalogue forgives a deviation only on the versions it names.
#include <gtest/gtest.h>

#include <algorithm>

#include "conformance/matrix.h"
#include "redis/server_process.h"
#include "testing/conform_test_util.h"

namespace kvlab::conformance {

using backends::StoreSpec;
using engine::EngineOptions;
using redis::RedisClient;
using redis::RedisServerProcess;
using resp::Reply;

namespace {

using testing::CountingTarget;
using testing::EngineOnMemory;
using testing::FaultInjectingTarget;

class Honesty : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new RedisServerProcess();
    Status s = server_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    client_ = std::make_unique<RedisClient>(server_->endpoint());
    reference_ = std::make_unique<RedisTarget>("redis", client_.get());
    Status s = LoadCaseDirectory(KVLAB_SOURCE_DIR "/conformance/cases", &corpus_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = DeviationCatalogue::Load(DefaultDeviationCataloguePath(),
                                 encodings::EncodingRegistry::Builtin(), &catalogue_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  RunContext Context(int hash_version) const {
    RunContext ctx;
    ctx.catalogue = &catalogue_;
    ctx.profile.versions = {
        {"hash", std::to_string(hash_version)}, {"zset", "0"}, {"list", "0"}, {"set", "0"}};
    return ctx;
  }

  static RedisServerProcess* server_;
  std::unique_ptr<RedisClient> client_;
  std::unique_ptr<RedisTarget> reference_;
  std::vector<CaseFile> corpus_;
  DeviationCatalogue catalogue_;
};

RedisServerProcess* Honesty::server_ = nullptr;

// Wrong beyond every declared tolerance.
Reply Wrong(const std::vector<std::string>& argv, const Reply& r) {
  const std::string cmd = LowerCommand(argv[0]);
  const bool ttl = cmd == "ttl" || cmd == "pttl" || cmd == "expiretime" || cmd == "pexpiretime";
  if (ttl && r.type() == Reply::Type::kInteger) return Reply::Integer(r.integer() + 1000000);
  return testing::Corrupt(r);
}

// Every case of the corpus, with one reply altered at its start, middle and end in turn: each
// alteration is exactly one failing step, and the unaltered case has none.
TEST_F(Honesty, EveryAlteredReplyInTheCorpusIsAFailure) {
  size_t injected = 0;
  const EngineSubject table("memory", backends::StoreSpec(), engine::EngineOptions());
  for (const CaseFile& c : corpus_) {
    // A case of commands kvlab's engine does not serve (any_server_*.txt) is not run on it;
    // RemoteSubjectTest runs it against a second Redis.
    if (std::any_of(c.steps.begin(), c.steps.end(), [&table](const CaseStep& s) {
          return !s.argv.empty() && !table.Serves(LowerCommand(s.argv[0]));
        })) {
      continue;
    }
    EngineOnMemory engine;
    CountingTarget counted(&engine.target());
    const CaseOutcome clean = RunCase(c, *reference_, counted, Context(0));
    ASSERT_EQ(clean.count(Verdict::kFail), 0u)
        << c.name << ": " << clean.first_failure()->explanation;
    // DISCARD, UNWATCH, FLUSHALL and SELECT first, then the case.
    const size_t calls = counted.total();
    ASSERT_GT(calls, 4u) << c.name;
    for (size_t position : {size_t{4}, 4 + (calls - 4) / 2, calls - 1}) {
      EngineOnMemory fresh;
      FaultInjectingTarget faulty(&fresh.target(), [position](size_t p, const auto& argv, Reply r) {
        return p == position ? Wrong(argv, r) : r;
      });
      const CaseOutcome o = RunCase(c, *reference_, faulty, Context(0));
      EXPECT_EQ(o.count(Verdict::kFail), 1u) << c.name << " altered at call " << position;
      EXPECT_EQ(o.steps.size(), clean.steps.size());
      ++injected;
    }
  }
  EXPECT_GE(injected, 30u);
}

// The catalogue forgives HSET's argument count on blind hash versions only.
TEST_F(Honesty, ACataloguedDeviationOnTheWrongVersionFails) {
  const CaseFile c = [] {
    CaseFile f;
    EXPECT_TRUE(ParseCaseText("hset", "HSET h a 1\nHSET h a 2 b 3\nHDEL h a zz\n", &f).ok());
    return f;
  }();
  auto blind = [](size_t, const std::vector<std::string>& argv, Reply r) {
    const std::string cmd = LowerCommand(argv[0]);
    if (cmd == "hset") return Reply::Integer(static_cast<int64_t>(argv.size() - 2) / 2);
    if (cmd == "hdel") return Reply::Integer(static_cast<int64_t>(argv.size() - 2));
    return r;
  };
  EngineOnMemory v0;
  FaultInjectingTarget pretends_blind(&v0.target(), blind);
  const CaseOutcome on_v0 = RunCase(c, *reference_, pretends_blind, Context(0));
  EXPECT_EQ(on_v0.count(Verdict::kFail), 2u);
  EXPECT_EQ(on_v0.count(Verdict::kDeviation), 0u);

  EngineOptions options;
  options.versions[encodings::KeyType::kHash] = 1;
  EngineOnMemory v1(options);
  const CaseOutcome on_v1 = RunCase(c, *reference_, v1.target(), Context(1));
  EXPECT_EQ(on_v1.count(Verdict::kFail), 0u);
  EXPECT_EQ(on_v1.count(Verdict::kDeviation), 2u);
}

// Random choices are checked, not compared, and the check can fail: a reply of the right shape
// fails when it repeats an element under a positive count, names a non-element, pairs an
// element with another score or value, or has another count; another valid choice passes.
TEST_F(Honesty, ARandomChoiceRedisCouldNotMakeFails) {
  CaseFile c;
  ASSERT_TRUE(ParseCaseText("random",
                            "ZADD z 1 a 2 b 3 c\n"
                            "HSET h f1 v1 f2 v2 f3 v3\n"
                            "ZRANDMEMBER z 2\n"
                            "ZRANDMEMBER z 2 WITHSCORES\n"
                            "HRANDFIELD h -4 WITHVALUES\n"
                            "HRANDFIELD h\n",
                            &c)
                  .ok());
  auto bulks = [](std::vector<std::string> items) {
    std::vector<Reply> out;
    for (std::string& s : items) out.push_back(Reply::Bulk(std::move(s)));
    return Reply::Array(std::move(out));
  };
  struct Alteration {
    std::string command;  // the step whose reply is replaced
    Reply reply;
    bool fails;
  };
  const std::vector<Alteration> alterations = {
      {"ZRANDMEMBER z 2", bulks({"a", "a"}), true},
      {"ZRANDMEMBER z 2", bulks({"a", "x"}), true},
      {"ZRANDMEMBER z 2", bulks({"c"}), true},
      {"ZRANDMEMBER z 2", bulks({"c", "a"}), false},
      {"ZRANDMEMBER z 2 WITHSCORES", bulks({"a", "2", "b", "2"}), true},
      {"ZRANDMEMBER z 2 WITHSCORES", bulks({"c", "3", "b", "2"}), false},
      {"HRANDFIELD h -4 WITHVALUES", bulks({"f1", "v1", "f1", "v1", "f3", "v3", "f1", "v1"}),
       false},
      {"HRANDFIELD h -4 WITHVALUES", bulks({"f1", "v1", "f1", "v2", "f3", "v3", "f1", "v1"}), true},
      {"HRANDFIELD h -4 WITHVALUES", bulks({"f1", "v1", "f2", "v2", "f3", "v3"}), true},
      {"HRANDFIELD h", Reply::Bulk("nope"), true},
      {"HRANDFIELD h", Reply::Bulk("f3"), false},
  };
  for (const Alteration& a : alterations) {
    SCOPED_TRACE(a.command + " -> " + a.reply.Describe());
    EngineOnMemory engine;
    FaultInjectingTarget altered(&engine.target(), [&a](size_t, const auto& argv, Reply r) {
      std::string line;
      for (const std::string& arg : argv) line += (line.empty() ? "" : " ") + arg;
      return line == a.command ? a.reply : r;
    });
    const CaseOutcome o = RunCase(c, *reference_, altered, Context(0));
    EXPECT_EQ(o.count(Verdict::kFail), a.fails ? 1u : 0u);
  }
}

// The whole matrix, pointed at a kvlab whose ZSCORE is always wrong, fails exactly there.
TEST_F(Honesty, TheMatrixReportsAWrongCommandAndNothingElse) {
  testing::FaultySubject faulty(
      std::make_unique<EngineSubject>("memory", StoreSpec(), EngineOptions()),
      [](size_t, const auto& argv, Reply r) {
        return LowerCommand(argv[0]) == "zscore" ? Wrong(argv, r) : r;
      });
  MatrixPlan plan;
  plan.catalogue = &catalogue_;
  plan.corpus = corpus_;
  MatrixResult r;
  ASSERT_TRUE(RunMatrix(*reference_, {&faulty}, plan, nullptr, &r).ok());
  ASSERT_GT(r.totals.fail, 0u);
  for (const auto& [key, tally] : r.cells) {
    if (std::get<2>(key) == "zscore") {
      EXPECT_EQ(tally.pass + tally.deviation, 0u) << std::get<1>(key);
    } else {
      EXPECT_EQ(tally.fail, 0u) << std::get<2>(key) << " " << std::get<1>(key);
    }
  }
}

}  // namespace
}  // namespace kvlab::conformance
