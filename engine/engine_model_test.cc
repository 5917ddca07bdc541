// Seeded random command streams against a small in-test model of Redis semantics, per
// encode-version, on the memory and RocksDB backends (and on memory without reverse scan, which
// takes the zset fallbacks). Small alphabets of keys, fields, members and scores make
// collisions, overwrites, type clashes and emptied collections frequent.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <variant>

#include "resp/redis_numbers.h"
#include "testing/engine_test_util.h"
#include "testing/model_test_util.h"

namespace kvlab::engine {
namespace {

using testing::Model;
using testing::RandomCommand;

struct ModelParam {
  std::string backend;
  bool no_reverse_scan;
  int hash_version;
  int zset_version;
};

class EngineModelTest : public ::testing::TestWithParam<ModelParam> {};

TEST_P(EngineModelTest, RandomStreamsMatchTheModel) {
  const ModelParam& p = GetParam();
  EngineOptions options;
  options.versions[encodings::KeyType::kHash] = static_cast<uint8_t>(p.hash_version);
  options.versions[encodings::KeyType::kZset] = static_cast<uint8_t>(p.zset_version);
  testing::EngineHarness e(p.backend, options, p.no_reverse_scan);
  Model model(/*blind_hash=*/p.hash_version == 1 || p.hash_version == 3);
  std::mt19937_64 rng(42 + p.hash_version * 7 + p.zset_version);
  for (int i = 0; i < 20000; ++i) {
    const std::vector<std::string> cmd = RandomCommand(rng);
    const std::string want = model.Apply(cmd);
    const std::string got = testing::SortedIfUnordered(cmd, e.engine().Execute(e.session(), cmd));
    ASSERT_EQ(got, want) << "command " << i << ": " << ::testing::PrintToString(cmd);
  }
}

std::vector<ModelParam> Params() {
  std::vector<ModelParam> out;
  for (int hv : {0, 1}) {
    out.push_back({"memory", false, hv, 0});
    out.push_back({"rocksdb", false, hv, 0});
    out.push_back({"memory", true, hv, 0});
  }
  // The Redis-tier versions (private redis-servers, started by the engine).
  out.push_back({"memory", false, 2, 1});
  out.push_back({"rocksdb", false, 3, 2});
  out.push_back({"memory", true, 2, 3});
  out.push_back({"memory", false, 3, 3});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Versions, EngineModelTest, ::testing::ValuesIn(Params()),
                         [](const auto& info) {
                           return info.param.backend +
                                  (info.param.no_reverse_scan ? "_noreverse" : "") + "_hash" +
                                  std::to_string(info.param.hash_version) + "_zset" +
                                  std::to_string(info.param.zset_version);
                         });

}  // namespace
}  // namespace kvlab::engine
