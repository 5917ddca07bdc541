// The curated corpus (conformance/cases/*.txt) against a real redis-server, for every encoding
// version the engine runs and on the memory and RocksDB backends. A mismatch passes only when
// the deviations catalogue explains it exactly.
#include <gtest/gtest.h>

#include <memory>

#include "backends/kv_test_util.h"
#include "conformance/deviations.h"
#include "conformance/differential.h"
#include "redis/server_process.h"

namespace kvlab {
namespace {

struct CorpusParam {
  std::string backend;
  int hash_version;
  int zset_version;
  bool flush_cache = false;  // empty the Redis tier's cache before every command
  std::string Name() const {
    return backend + "_hash" + std::to_string(hash_version) + "_zset" +
           std::to_string(zset_version) + (flush_cache ? "_flushed" : "");
  }
};

// The engine, with its cache Redis flushed before every command: every read is a miss, and
// answers must not change.
class FlushedCacheTarget final : public ReplyTarget {
 public:
  explicit FlushedCacheTarget(Engine* engine) : engine_(engine), inner_(engine) {}
  std::string name() const override { return "kvlab (cache flushed)"; }
  Reply Execute(const std::vector<std::string>& argv) override {
    std::vector<Reply> ignored;
    TierCounts counts;
    engine_->tier()->Pipeline(TierRole::kCache, {{"FLUSHALL"}}, &ignored, &counts);
    return inner_.Execute(argv);
  }

 private:
  Engine* engine_;
  EngineTarget inner_;
};

class CorpusTest : public ::testing::TestWithParam<CorpusParam> {
 protected:
  static void SetUpTestSuite() {
    redis_ = new RedisServerProcess();
    Status s = redis_->Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  static void TearDownTestSuite() {
    delete redis_;
    redis_ = nullptr;
  }
  static RedisServerProcess* redis_;
};

RedisServerProcess* CorpusTest::redis_ = nullptr;

TEST_P(CorpusTest, CuratedCasesMatchRedis) {
  ASSERT_NE(redis_, nullptr);
  const CorpusParam& p = GetParam();
  std::vector<CaseFile> cases;
  Status s = LoadCaseDirectory(KVLAB_SOURCE_DIR "/conformance/cases", &cases);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_FALSE(cases.empty());
  DeviationCatalogue catalogue;
  s = DeviationCatalogue::Load(DefaultDeviationCataloguePath(), &catalogue);
  ASSERT_TRUE(s.ok()) << s.ToString();

  testing::ScratchDir scratch;
  StoreSpec spec;
  spec.backend = p.backend;
  spec.options.dir = scratch.Sub("store");
  std::unique_ptr<OpenedStore> store;
  s = OpenStore(spec, &store);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EngineOptions options;
  options.hash_version = static_cast<uint8_t>(p.hash_version);
  options.zset_version = static_cast<uint8_t>(p.zset_version);
  Engine engine(store->store(), options);

  RedisClient client(redis_->endpoint());
  RedisTarget reference("redis", &client);
  EngineTarget plain(&engine);
  FlushedCacheTarget flushed(&engine);
  ReplyTarget& subject = p.flush_cache ? static_cast<ReplyTarget&>(flushed) : plain;
  size_t commands = 0, deviations = 0;
  for (const CaseFile& c : cases) {
    CaseOutcome outcome = RunCase(c, reference, subject, CompareOptions());
    commands += outcome.commands;
    for (const Mismatch& m : outcome.mismatches) {
      if (!catalogue.Explain(m.argv, p.hash_version, p.zset_version, m.redis, m.kvlab).empty()) {
        ++deviations;
        continue;
      }
      ADD_FAILURE() << c.name << ":" << m.line << ": " << FormatCommandLine(m.argv) << "\n  "
                    << m.explanation;
    }
  }
  EXPECT_GT(commands, 100u);
  // The blind hash versions must actually show their catalogued deviation on this corpus.
  if (p.hash_version == 1 || p.hash_version == 3) {
    EXPECT_GT(deviations, 0u);
  }
}

std::vector<CorpusParam> Params() {
  std::vector<CorpusParam> out;
  for (const char* backend : {"memory", "rocksdb"}) {
    for (int v : {0, 1, 2, 3}) out.push_back({backend, v, v});
  }
  out.push_back({"memory", 2, 1, true});
  out.push_back({"memory", 3, 2, true});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Matrix, CorpusTest, ::testing::ValuesIn(Params()),
                         [](const auto& info) { return info.param.Name(); });

}  // namespace
}  // namespace kvlab
