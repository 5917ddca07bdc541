#include "conformance/random_commands.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "conformance/compare.h"
#include "engine/command_table.h"
#include "resp/split_args.h"
#include "testing/conform_test_util.h"

namespace kvlab::conformance {

using engine::CommandSpec;
using engine::CommandTable;
using engine::kCmdAboutServer;
using resp::Reply;

namespace {

TEST(RandomCommands, GeneratesEveryCommandOfTheEngineAndNothingElse) {
  std::set<std::string> table;
  for (const CommandSpec& spec : CommandTable::Get().all()) {
    if (!(spec.flags & kCmdAboutServer)) table.emplace(spec.name);
  }
  const std::vector<std::string> listed = RandomCommandGenerator::Commands();
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()), table);

  std::set<std::string> generated;
  size_t arity_changes = 0;
  RandomCommandGenerator gen(1);
  for (int i = 0; i < 40000; ++i) {
    const std::vector<std::string> argv = gen.Next();
    ASSERT_FALSE(argv.empty());
    const std::string cmd = LowerCommand(argv[0]);
    generated.insert(cmd);
    const CommandSpec* spec = CommandTable::Get().Find(cmd);
    ASSERT_NE(spec, nullptr) << cmd;
    const bool arity_ok = spec->arity >= 0 ? argv.size() == static_cast<size_t>(spec->arity)
                                           : argv.size() >= static_cast<size_t>(-spec->arity);
    if (!arity_ok) ++arity_changes;
  }
  EXPECT_EQ(generated, table);
  EXPECT_GT(arity_changes, 100u);  // wrong arity is generated too
}

// A save that succeeds leaves a child running in the reference Redis, and its later replies
// then depend on history (a BGREWRITEAOF is "scheduled", SAVE fails): no mutation may turn a
// generated error form into a valid one.
TEST(RandomCommands, SavesAreOnlyGeneratedInTheirErrorForms) {
  size_t saves = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    RandomCommandGenerator gen(seed);
    for (int i = 0; i < 40000; ++i) {
      const std::vector<std::string> argv = gen.Next();
      const std::string cmd = LowerCommand(argv[0]);
      if (cmd == "save" || cmd == "bgrewriteaof") {
        ++saves;
        EXPECT_GT(argv.size(), 1u) << cmd;
      } else if (cmd == "bgsave") {
        ++saves;
        const bool valid =
            argv.size() == 1 || (argv.size() == 2 && LowerCommand(argv[1]) == "schedule");
        EXPECT_FALSE(valid) << argv.size();
      }
    }
  }
  EXPECT_GT(saves, 100u);
}

TEST(RandomCommands, DeterministicForASeed) {
  const CaseFile a = RandomSequence(42, 3, 200);
  const CaseFile b = RandomSequence(42, 3, 200);
  const CaseFile c = RandomSequence(42, 4, 200);
  const CaseFile d = RandomSequence(43, 3, 200);
  ASSERT_EQ(a.steps.size(), 200u);
  EXPECT_EQ(a.name, "random-42-3");
  auto argvs = [](const CaseFile& f) {
    std::vector<std::vector<std::string>> out;
    for (const CaseStep& s : f.steps) out.push_back(s.argv);
    return out;
  };
  EXPECT_EQ(argvs(a), argvs(b));
  EXPECT_NE(argvs(a), argvs(c));
  EXPECT_NE(argvs(a), argvs(d));
  EXPECT_EQ(a.steps.back().line, 200);
  EXPECT_NE(SequenceSeed(1, 0), SequenceSeed(2, 0));
  EXPECT_NE(SequenceSeed(1, 0), SequenceSeed(1, 1));
}

// Lex ranges are defined only on equal scores: lex commands go to a few keys, and running the
// sequences shows that those keys never hold a zset score other than 0.
TEST(RandomCommands, LexRangesStayOnEqualScores) {
  const std::set<std::string> lex = {"zrangebylex", "zrevrangebylex", "zlexcount",
                                     "zremrangebylex"};
  const std::set<std::string> lex_keys = {"l1", "s1", "h1", "nokey"};
  size_t lex_seen = 0, l1_written = 0;
  // Eight sequences: enough draws of the lex keys with every type's commands in the mix (each new
  // command group dilutes the zset writes).
  for (uint64_t index = 0; index < 8; ++index) {
    testing::EngineOnMemory engine;
    for (const CaseStep& step : RandomSequence(77, index, 3000).steps) {
      const std::vector<std::string>& a = step.argv;
      const std::string cmd = LowerCommand(a[0]);
      bool bylex = lex.count(cmd) > 0;
      for (const std::string& arg : a) bylex = bylex || (cmd == "zrange" && arg == "BYLEX");
      if (bylex && a.size() > 1) {
        ++lex_seen;
        EXPECT_EQ(lex_keys.count(a[1]), 1u) << a[1];
      }
      engine.target().Execute(a);
      const bool lex_key = a.size() > 1 && lex_keys.count(a[1]) > 0;
      if (lex_key && (cmd == "zadd" || cmd == "zincrby")) {
        ++l1_written;
        const Reply r = engine.target().Execute({"ZRANGE", a[1], "0", "-1", "WITHSCORES"});
        if (r.type() != Reply::Type::kArray) continue;  // l1 is another type now
        for (size_t i = 1; i < r.elements().size(); i += 2) {
          EXPECT_EQ(r.elements()[i].str(), "0") << FormatCommandLine(a);
        }
      }
    }
  }
  EXPECT_GT(lex_seen, 300u);
  EXPECT_GT(l1_written, 100u);
}

// MIGRATE comes only in forms that reach no target server: run on an engine where every key it
// may name as live exists, none gets past the argument checks and the key lookup (an in-process
// engine would reply that it has no connection; Redis would connect to port 1).
TEST(RandomCommands, MigrateNeverReachesATarget) {
  testing::EngineOnMemory engine;
  for (const char* setup : {"SET x v", "SET t1 v", "HSET h1 f v", "ZADD z1 1 m", "RPUSH l1 a",
                            "SADD s1 a", "SET nokey v", "SET mig v"}) {
    std::vector<std::string> argv;
    ASSERT_TRUE(resp::SplitArgs(setup, &argv));
    engine.target().Execute(argv);
  }
  size_t migrates = 0, nokey = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    RandomCommandGenerator gen(seed);
    for (int i = 0; i < 40000; ++i) {
      const std::vector<std::string> argv = gen.Next();
      if (LowerCommand(argv[0]) != "migrate") continue;
      ++migrates;
      const Reply r = engine.target().Execute(argv);
      if (r == Reply::Status("NOKEY")) ++nokey;
      EXPECT_TRUE(r == Reply::Status("NOKEY") ||
                  (r.is_error() && r.str().find("connection") == std::string::npos))
          << FormatCommandLine(argv) << " -> " << r.Describe();
    }
  }
  EXPECT_GT(migrates, 100u);
  EXPECT_GT(nokey, 20u);
}

// GT and LT compare expiry times; they only come with absolute times, far in the future.
TEST(RandomCommands, ExpiryComparisonsUseAbsoluteTimes) {
  RandomCommandGenerator gen(9);
  for (int i = 0; i < 40000; ++i) {
    const std::vector<std::string> a = gen.Next();
    const std::string cmd = LowerCommand(a[0]);
    if (cmd != "expire" && cmd != "pexpire") continue;
    for (size_t j = 3; j < a.size(); ++j) {
      EXPECT_NE(LowerCommand(a[j]), "gt");
      EXPECT_NE(LowerCommand(a[j]), "lt");
    }
  }
}

}  // namespace
}  // namespace kvlab::conformance
