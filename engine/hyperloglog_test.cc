// HyperLogLog (engine/hyperloglog.h, engine/hll_commands.cc): the registers against a model
// computed from the hash alone, promotion to dense, the cached cardinality and what it writes,
// corrupted values, and Redis's self test. The replies and bytes are compared with a real
// redis-server by the conformance corpus (conformance/cases/hyperloglog*.txt).
#include "engine/hyperloglog.h"

#include <gtest/gtest.h>

#include <random>

#include "testing/engine_test_util.h"

namespace kvlab::engine {

using resp::Reply;

namespace {

using testing::EngineHarness;

std::string RunOn(EngineHarness& e, Session& s, const std::string& line) {
  std::vector<std::string> argv;
  EXPECT_TRUE(resp::SplitArgs(line, &argv));
  return e.engine().Execute(s, argv).Describe();
}

// The raw bytes of a string key.
std::string Value(EngineHarness& e, const std::string& key) {
  const Reply r = e.engine().Execute(e.session(), {"GET", key});
  EXPECT_EQ(r.type(), Reply::Type::kBulk) << r.Describe();
  return r.str();
}

// The registers of a stored HLL, one per byte.
hll::RawRegisters Registers(EngineHarness& e, const std::string& key) {
  hll::RawRegisters regs{};
  const std::string value = Value(e, key);
  EXPECT_TRUE(hll::IsValid(value));
  EXPECT_TRUE(hll::Merge(&regs, value));
  return regs;
}

// The model: each element raises its register to its pattern length, computed from the hash
// alone, without either representation.
void ModelAdd(hll::RawRegisters* regs, const std::string& element) {
  int index = 0;
  const int count = hll::PatternLength(element, &index);
  (*regs)[index] = std::max((*regs)[index], static_cast<uint8_t>(count));
}

std::string RandomElement(std::mt19937_64& rng) { return std::to_string(rng() % 1000000); }

TEST(HyperLogLog, BasicsAsRedissTclUnit) {
  EngineHarness e;
  EXPECT_EQ(e.Run("PFADD hll"), "(integer) 1");
  EXPECT_EQ(e.Run("EXISTS hll"), "(integer) 1");
  EXPECT_EQ(e.Run("PFCOUNT hll"), "(integer) 0");
  EXPECT_EQ(e.Run("PFADD hll a b c"), "(integer) 1");
  EXPECT_EQ(e.Run("PFADD hll a b c"), "(integer) 0");
  EXPECT_EQ(e.Run("PFADD hll \"\""), "(integer) 1");
  EXPECT_EQ(e.Run("DEL hll"), "(integer) 1");
  EXPECT_EQ(e.Run("PFADD hll 1 2 3 4 5"), "(integer) 1");
  EXPECT_EQ(e.Run("PFCOUNT hll"), "(integer) 5");
  EXPECT_EQ(e.Run("PFADD hll 6 7 8 8 9 10"), "(integer) 1");
  EXPECT_EQ(e.Run("PFCOUNT hll"), "(integer) 10");
  EXPECT_EQ(e.Run("PFDEBUG ENCODING hll"), "sparse");
  EXPECT_EQ(e.Run("PFDEBUG ENCODING nokey"), "(error) ERR The specified key does not exist");
  EXPECT_EQ(e.Run("PFDEBUG NOSUCH hll"), "(error) ERR Unknown PFDEBUG subcommand 'NOSUCH'");
  EXPECT_EQ(e.Run("SET foo bar"), "OK");
  EXPECT_EQ(e.Run("PFADD foo 1"), "(error) WRONGTYPE Key is not a valid HyperLogLog string value.");
  EXPECT_EQ(e.Run("PFMERGE bar foo"),
            "(error) WRONGTYPE Key is not a valid HyperLogLog string value.");
  EXPECT_EQ(e.Run("EXISTS bar"), "(integer) 0");
  EXPECT_EQ(e.Run("HSET h f v"), "(integer) 1");
  EXPECT_EQ(e.Run("PFCOUNT h"),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

// Bit 7 of byte 15 marks the cached cardinality stale. PFCOUNT of one key writes the count it
// computed (one KV write) and then answers from the cache (no write).
TEST(HyperLogLog, CachedCardinalityAndItsWrites) {
  EngineHarness e;
  EXPECT_EQ(e.Run("PFADD hll a b c"), "(integer) 1");
  EXPECT_EQ(Value(e, "hll")[15], '\x80');
  CommandCost cost;
  EXPECT_EQ(e.Exec("PFCOUNT hll", &cost).Describe(), "(integer) 3");
  EXPECT_EQ(cost.kv.batches, 1u);
  EXPECT_EQ(Value(e, "hll").substr(8, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(e.Exec("PFCOUNT hll", &cost).Describe(), "(integer) 3");
  EXPECT_EQ(cost.kv.batches, 0u);
  EXPECT_EQ(e.Run("PFADD hll a b c"), "(integer) 0");
  EXPECT_EQ(Value(e, "hll")[15], '\0');
  EXPECT_EQ(e.Run("PFADD hll 1 2 3"), "(integer) 1");
  EXPECT_EQ(Value(e, "hll")[15], '\x80');
  // Several keys: the union's count, nothing written.
  EXPECT_EQ(e.Run("PFADD other c d"), "(integer) 1");
  EXPECT_EQ(e.Exec("PFCOUNT hll other nokey", &cost).Describe(), "(integer) 7");
  EXPECT_EQ(cost.kv.batches, 0u);
  EXPECT_EQ(Value(e, "other")[15], '\x80');
  // A TTL survives the cache's write.
  EXPECT_EQ(e.Run("PEXPIRE other 100000"), "(integer) 1");
  EXPECT_EQ(e.Run("PFCOUNT other"), "(integer) 2");
  EXPECT_EQ(e.Run("PTTL other"), "(integer) 100000");
}

// Redis's PFCOUNT signals the key modified when it writes the cache: a watcher's EXEC fails.
TEST(HyperLogLog, PfcountThatWritesTheCacheTouchesWatch) {
  EngineHarness e;
  Session other;
  EXPECT_EQ(e.Run("PFADD p a b c"), "(integer) 1");
  EXPECT_EQ(e.Run("WATCH p"), "OK");
  EXPECT_EQ(RunOn(e, other, "PFCOUNT p"), "(integer) 3");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("PING"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "(nil array)");
  // The cache is valid now: PFCOUNT writes nothing, and the EXEC runs.
  EXPECT_EQ(e.Run("WATCH p"), "OK");
  EXPECT_EQ(RunOn(e, other, "PFCOUNT p"), "(integer) 3");
  EXPECT_EQ(e.Run("MULTI"), "OK");
  EXPECT_EQ(e.Run("PFCOUNT p"), "QUEUED");
  EXPECT_EQ(e.Run("EXEC"), "[(integer) 3]");
}

// Sparse and dense HLLs of the same elements hold the model's registers and agree on the count
// (Redis's "sparse encoding stress test", with the registers checked too).
TEST(HyperLogLog, SparseAndDenseHoldTheModelsRegisters) {
  EngineHarness e;
  std::mt19937_64 rng(20261127);
  for (int round = 0; round < 200; ++round) {
    ASSERT_EQ(e.Run("DEL hll1 hll2").substr(0, 9), "(integer)");
    ASSERT_EQ(e.Run("PFADD hll2"), "(integer) 1");
    ASSERT_EQ(e.Run("PFDEBUG TODENSE hll2"), "(integer) 1");
    ASSERT_EQ(e.Run("PFDEBUG TODENSE hll2"), "(integer) 0");
    hll::RawRegisters model{};
    std::vector<std::string> add = {"PFADD", "hll1"};
    for (uint64_t n = rng() % 100; n > 0; --n) {
      add.push_back(RandomElement(rng));
      ModelAdd(&model, add.back());
    }
    e.engine().Execute(e.session(), add);
    add[1] = "hll2";
    e.engine().Execute(e.session(), add);
    ASSERT_EQ(e.Run("PFDEBUG ENCODING hll1"), "sparse");
    ASSERT_EQ(e.Run("PFDEBUG ENCODING hll2"), "dense");
    ASSERT_EQ(Registers(e, "hll1"), model);
    ASSERT_EQ(Registers(e, "hll2"), model);
    ASSERT_EQ(e.Run("PFCOUNT hll1"), e.Run("PFCOUNT hll2"));
    // The union of both is either one; merged into a sparse destination it stays sparse.
    ASSERT_EQ(e.Run("PFCOUNT hll1 hll2"), e.Run("PFCOUNT hll1"));
    ASSERT_EQ(e.Run("DEL m").substr(0, 9), "(integer)");
    ASSERT_EQ(e.Run("PFMERGE m hll1"), "OK");
    ASSERT_EQ(e.Run("PFDEBUG ENCODING m"), "sparse");
    ASSERT_EQ(Registers(e, "m"), model);
    ASSERT_EQ(e.Run("PFMERGE m hll2"), "OK");
    ASSERT_EQ(e.Run("PFDEBUG ENCODING m"), "dense");
    ASSERT_EQ(Registers(e, "m"), model);
  }
}

// A sparse HLL never grows past hll-sparse-max-bytes: the add that would make it longer turns
// it dense, with the same registers.
TEST(HyperLogLog, PromotesToDenseAtSparseMaxBytes) {
  EngineHarness e;
  EXPECT_EQ(e.Run("CONFIG GET hll-sparse-max-bytes"), "[\"hll-sparse-max-bytes\", \"3000\"]");
  EXPECT_EQ(e.Run("CONFIG SET hll-sparse-max-bytes -1"),
            "(error) ERR CONFIG SET failed (possibly related to argument 'hll-sparse-max-bytes') "
            "- argument must be a memory value");
  EXPECT_EQ(e.Run("CONFIG SET hll-sparse-max-bytes 200"), "OK");
  std::mt19937_64 rng(7);
  hll::RawRegisters model{};
  bool dense = false;
  for (int i = 0; i < 400 && !dense; ++i) {
    const std::string element = RandomElement(rng);
    ModelAdd(&model, element);
    e.engine().Execute(e.session(), {"PFADD", "hll", element});
    dense = e.Run("PFDEBUG ENCODING hll") == "dense";
    const size_t size = Value(e, "hll").size();
    if (dense) {
      EXPECT_EQ(size, hll::kDenseSize);
      EXPECT_GT(i, 50);  // about 2 bytes per register set
    } else {
      EXPECT_LE(size, 200u);
    }
    ASSERT_EQ(Registers(e, "hll"), model) << "after " << i + 1 << " elements";
  }
  EXPECT_TRUE(dense);
}

// A register value over 32 cannot be a VAL opcode: the first such element turns the HLL dense.
TEST(HyperLogLog, PromotesToDenseForARegisterOver32) {
  EngineHarness e;
  // "hll-001761047726" hashes to register 8118 with a run of 33 (found by search).
  int index = 0;
  ASSERT_EQ(hll::PatternLength("hll-001761047726", &index), 33);
  EXPECT_EQ(e.Run("PFADD hll a"), "(integer) 1");
  EXPECT_EQ(e.Run("PFDEBUG ENCODING hll"), "sparse");
  EXPECT_EQ(e.Run("PFADD hll hll-001761047726"), "(integer) 1");
  EXPECT_EQ(e.Run("PFDEBUG ENCODING hll"), "dense");
  EXPECT_EQ(Registers(e, "hll")[index], 33);
}

// Corrupted values get Redis's errors (or a count), never a crash or a read past the value:
// random bytes written over HLLs of every size, then every command on them (Redis's fuzzing
// test); and sparse runs that overflow the register count (CVE-2025-32023).
TEST(HyperLogLog, CorruptedValuesAreDetected) {
  EngineHarness e;
  std::mt19937_64 rng(42);
  const std::set<std::string> errors = {
      "(error) INVALIDOBJ Corrupted HLL object detected",
      "(error) WRONGTYPE Key is not a valid HyperLogLog string value.",
      "(error) ERR HLL encoding is not sparse"};
  auto ok_or_error = [&](const std::string& reply) {
    return errors.count(reply) > 0 || reply.rfind("(error)", 0) != 0;
  };
  for (int round = 0; round < 100; ++round) {
    ASSERT_EQ(e.Run("DEL hll").substr(0, 9), "(integer)");
    std::vector<std::string> add = {"PFADD", "hll"};
    for (uint64_t n = rng() % 3000; n > 0; --n) add.push_back(RandomElement(rng));
    e.engine().Execute(e.session(), add);
    for (int i = 0; i < 5; ++i) {
      const size_t len = Value(e, "hll").size();
      e.engine().Execute(e.session(), {"SETRANGE", "hll", std::to_string(rng() % len),
                                       std::string(1, static_cast<char>(rng()))});
      if (rng() % 2) break;
    }
    for (const char* command :
         {"PFCOUNT hll", "PFCOUNT hll hll", "PFDEBUG DECODE hll", "PFMERGE m hll",
          "PFADD hll x y z", "PFDEBUG GETREG hll", "PFCOUNT hll"}) {
      const Reply r = e.Exec(command);
      ASSERT_TRUE(ok_or_error(r.Describe().substr(0, 80))) << command << ": " << r.Describe();
    }
  }
  // XZERO runs of 16384 registers, twice, then a VAL: more registers than an HLL has; and a
  // header alone. (The caches are stale: a valid one would be believed.)
  const std::string header = std::string("HYLL\x01", 5) + std::string(10, '\0') + "\x80";
  for (const std::string& value : {header + "\x7f\xff\x7f\xff\xff", header}) {
    e.engine().Execute(e.session(), {"SET", "bad", value});
    for (const char* command : {"PFCOUNT bad", "PFCOUNT bad bad", "PFDEBUG GETREG bad",
                                "PFMERGE m bad", "PFDEBUG TODENSE bad"}) {
      EXPECT_EQ(e.Run(command), "(error) INVALIDOBJ Corrupted HLL object detected") << command;
    }
    EXPECT_EQ(Value(e, "bad"), value);
  }
}

// Registers that no element can set (all 63, by SETRANGE) make an estimate past 2^63: Redis's
// llroundl gives LLONG_MIN, its cast 2^63, which it replies as a signed number and caches with
// the stale bit set.
TEST(HyperLogLog, SaturatedRegistersEstimateAsRedisDoes) {
  EngineHarness e;
  EXPECT_EQ(e.Run("PFADD hll a"), "(integer) 1");
  EXPECT_EQ(e.Run("PFDEBUG TODENSE hll"), "(integer) 1");
  e.engine().Execute(e.session(), {"SETRANGE", "hll", "16", std::string(12288, '\xff')});
  EXPECT_EQ(e.Run("PFCOUNT hll"), "(integer) -9223372036854775808");
  EXPECT_EQ(Value(e, "hll").substr(8, 8), std::string("\0\0\0\0\0\0\0\x80", 8));
}

TEST(HyperLogLog, SelfTestPasses) {
  EXPECT_EQ(hll::SelfTest(hll::kDefaultSparseMaxBytes, 100000, 1), "");
}

}  // namespace
}  // namespace kvlab::engine
