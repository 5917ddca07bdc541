// SCAN-family cursors under hostile load: other clients' scans never make an iteration restart
// silently or lose elements, an evicted cursor is an error that says so, and cursors over huge
// keys hold bounded memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "testing/engine_test_util.h"

namespace kvlab::engine {

using resp::Reply;

namespace {

using testing::EngineHarness;

Reply Exec(EngineHarness& e, Session& s, const std::vector<std::string>& argv) {
  return e.engine().Execute(s, argv);
}

// Resident memory of this process, in bytes.
uint64_t Rss() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

// Runs a whole iteration of `argv` (cursor at argv[cursor_arg]) on `victim`, with `between`
// run before every step; returns the distinct items seen, or stops after max_steps.
struct Iteration {
  std::set<std::string> items;
  int steps = 0;
  bool finished = false;
  std::string error;
};
Iteration Iterate(EngineHarness& e, Session& victim, std::vector<std::string> argv,
                  size_t cursor_arg, bool pairs, const std::function<void()>& between,
                  int max_steps = 40) {
  Iteration it;
  argv[cursor_arg] = "0";
  while (it.steps < max_steps) {
    ++it.steps;
    const Reply r = Exec(e, victim, argv);
    if (r.is_error()) {
      it.error = r.str();
      return it;
    }
    const auto& items = r.elements()[1].elements();
    for (size_t i = 0; i < items.size(); i += pairs ? 2 : 1) it.items.insert(items[i].str());
    if (r.elements()[0].str() == "0") {
      it.finished = true;
      return it;
    }
    argv[cursor_arg] = r.elements()[0].str();
    between();
  }
  return it;
}

void Fill(EngineHarness& e, int n) {
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(e.Run("SET key" + std::to_string(i) + " v"), "OK");
    ASSERT_EQ(e.Run("HSET h field" + std::to_string(i) + " v"), "(integer) 1");
    ASSERT_EQ(e.Run("ZADD z " + std::to_string(i) + " member" + std::to_string(i)), "(integer) 1");
  }
}

// The reproduction: 17,000 foreign SCANs between the steps of a 100-key SCAN.
TEST(ScanCursors, ForeignScansNeverRestartAnotherClientsIteration) {
  EngineHarness e("memory");
  Fill(e, 100);
  Session victim, attacker;
  victim.id = 1;
  attacker.id = 2;
  auto flood = [&] {
    for (int i = 0; i < 17000; ++i) Exec(e, attacker, {"SCAN", "0", "COUNT", "1"});
  };
  for (const auto& [argv, cursor_arg, pairs] :
       {std::tuple{std::vector<std::string>{"SCAN", "0", "COUNT", "10", "MATCH", "key*"}, 1, false},
        std::tuple{std::vector<std::string>{"HSCAN", "h", "0", "COUNT", "10"}, 2, true},
        std::tuple{std::vector<std::string>{"ZSCAN", "z", "0", "COUNT", "10"}, 2, true}}) {
    const Iteration it = Iterate(e, victim, argv, cursor_arg, pairs, flood);
    EXPECT_EQ(it.error, "") << argv[0];
    EXPECT_TRUE(it.finished) << argv[0] << " ran " << it.steps << " steps";
    EXPECT_LE(it.steps, 11) << argv[0] << " restarted";
    EXPECT_EQ(it.items.size(), 100u) << argv[0];
  }
}

// When many clients each hold cursors, one may be evicted: its next step is an error that says
// so, never a silent restart from the first key.
TEST(ScanCursors, AnEvictedCursorIsAnErrorNotARestart) {
  EngineHarness e("memory");
  Fill(e, 100);
  Session victim;
  victim.id = 1;
  uint64_t next_client = 1000;
  auto flood = [&] {
    for (int i = 0; i < 70000; ++i) {
      Session other;
      other.id = next_client++;
      Exec(e, other, {"SCAN", "0", "COUNT", "1"});
    }
  };
  const Iteration it =
      Iterate(e, victim, {"SCAN", "0", "COUNT", "10", "MATCH", "key*"}, 1, false, flood, 3);
  EXPECT_FALSE(it.finished);
  EXPECT_NE(it.error.find("has expired"), std::string::npos) << it.error;
  EXPECT_EQ(it.steps, 2);
}

TEST(ScanCursors, ACursorCanBeRetriedAndAnUnknownOneStartsOver) {
  EngineHarness e("memory");
  Fill(e, 30);
  const Reply first = e.Exec("SCAN 0 COUNT 5 MATCH key*");
  const std::string cursor = first.elements()[0].str();
  ASSERT_NE(cursor, "0");
  // A client that lost a reply sends the same cursor again and gets the same page.
  const Reply again = e.Exec("SCAN " + cursor + " COUNT 5 MATCH key*");
  const Reply once_more = e.Exec("SCAN " + cursor + " COUNT 5 MATCH key*");
  EXPECT_EQ(again.elements()[1].Describe(), once_more.elements()[1].Describe());
  EXPECT_EQ(
      e.Exec("SCAN " + again.elements()[0].str() + " COUNT 5 MATCH key*").elements()[1].Describe(),
      e.Exec("SCAN " + once_more.elements()[0].str() + " COUNT 5 MATCH key*")
          .elements()[1]
          .Describe());
  // A number kvlab never issued (a cursor from before a restart) starts the iteration over, as
  // Redis accepts any cursor: the whole iteration still sees every key.
  std::set<std::string> seen;
  std::string c = "123456789";
  do {
    const Reply r = e.Exec("SCAN " + c + " COUNT 7 MATCH key*");
    ASSERT_FALSE(r.is_error()) << r.str();
    for (const Reply& k : r.elements()[1].elements()) seen.insert(k.str());
    c = r.elements()[0].str();
  } while (c != "0");
  EXPECT_EQ(seen.size(), 30u);
}

// The reproduction: 400 SCAN 0 COUNT 1 over 4 MB keys took RSS from 53 MB to 1.6 GB.
// Keys that differ early: each cursor holds a few bytes.
TEST(ScanCursors, CursorsOverHugeKeysHoldLittleMemory) {
  EngineHarness e("memory");
  for (char c = 'a'; c < 'k'; ++c) {
    ASSERT_EQ(
        e.engine()
            .Execute(e.session(), {"SET", std::string("big") + c + std::string(4 << 20, 'x'), "v"})
            .Describe(),
        "OK");
  }
  const uint64_t before = Rss();
  for (int i = 0; i < 400; ++i) {
    const Reply r = e.Exec("SCAN 0 COUNT 1 MATCH nomatch");
    ASSERT_NE(r.elements()[0].str(), "0");
  }
  const uint64_t grown = Rss() > before ? Rss() - before : 0;
  EXPECT_LT(grown, 100ull << 20) << "400 cursors over 4 MB keys grew RSS by " << (grown >> 20)
                                 << " MB";
}

// Keys that share a 4 MB prefix: each position is 4 MB, and the table's byte bound (64 MB)
// holds where 100 positions would take 400 MB.
TEST(ScanCursors, CursorMemoryIsBoundedWhateverTheKeys) {
  EngineHarness e("memory");
  const std::string shared(4 << 20, 'x');
  for (char c = 'a'; c < 'k'; ++c) {
    ASSERT_EQ(e.engine().Execute(e.session(), {"SET", shared + c, "v"}).Describe(), "OK");
  }
  const uint64_t before = Rss();
  for (int i = 0; i < 100; ++i) {
    const Reply r = e.Exec("SCAN 0 COUNT 1 MATCH nomatch");
    ASSERT_FALSE(r.is_error()) << r.str();
  }
  const uint64_t grown = Rss() > before ? Rss() - before : 0;
  EXPECT_LT(grown, 200ull << 20) << "100 cursors grew RSS by " << (grown >> 20) << " MB";
}

}  // namespace
}  // namespace kvlab::engine
