#include "conformance/case_file.h"

#include <gtest/gtest.h>

#include <random>

#include "resp/split_args.h"

namespace kvlab::conformance {
namespace {

TEST(CaseFile, ParsesCommandsCommentsBlankLinesAndSleeps) {
  CaseFile c;
  Status s = ParseCaseText("t",
                           "# a comment\n"
                           "\n"
                           "SET k \"a b\\x00c\"\r\n"
                           "  # indented comment\n"
                           "@sleep 150\n"
                           "GET k\n",
                           &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(c.steps.size(), 3u);
  EXPECT_EQ(c.steps[0].line, 3);
  EXPECT_EQ(c.steps[0].argv, (std::vector<std::string>{"SET", "k", std::string("a b\0c", 5)}));
  EXPECT_TRUE(c.steps[1].argv.empty());
  EXPECT_EQ(c.steps[1].sleep_ms, 150);
  EXPECT_EQ(c.steps[2].line, 6);
  EXPECT_EQ(c.steps[2].argv, (std::vector<std::string>{"GET", "k"}));
}

TEST(CaseFile, DefineMakesExactlySizedValues) {
  CaseFile c;
  Status s = ParseCaseText("t",
                           "@define big 1048577\n"
                           "@define pat 7 \"ab\\x00\"\n"
                           "SET k ${big}\n"
                           "HSET h ${pat} x${pat} ${big} \"${big}\"\n",
                           &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(c.steps.size(), 2u);  // definitions are not steps
  EXPECT_EQ(c.steps[0].argv[2], std::string(1048577, 'x'));
  const std::string pat("ab\0ab\0a", 7);
  EXPECT_EQ(c.steps[1].argv[2], pat);
  EXPECT_EQ(c.steps[1].argv[3], "x${pat}");  // only a whole argument is a substitution
  EXPECT_EQ(c.steps[1].argv[4].size(), 1048577u);
  EXPECT_EQ(c.steps[1].argv[5], "${big}");  // quoted: literal
}

TEST(CaseFile, RejectsBadDirectivesWithTheLine) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"GET k\n@nosuch 1\n", "t:2"},
      {"@sleep\n", "t:1"},
      {"@sleep -5\n", "t:1"},
      {"@sleep 10 20\n", "t:1"},
      {"@define 1\n", "t:1"},
      {"@define bad-name 10\n", "t:1"},
      {"@define x 99999999999\n", "t:1"},
      {"@define x 10 \"\"\n", "t:1"},
      {"SET k ${undefined}\n", "t:1"},
      {"\n\nSET k \"open\n", "t:3"},
  };
  for (const auto& [text, where] : bad) {
    CaseFile c;
    Status s = ParseCaseText("t", text, &c);
    EXPECT_FALSE(s.ok()) << text;
    EXPECT_NE(s.ToString().find(where), std::string::npos) << s.ToString();
  }
}

TEST(CaseFile, FormatCommandLineReadsBackToTheSameArguments) {
  std::mt19937_64 rng(7);
  const std::vector<std::string> tricky = {"",   "@sleep", "#x",   "${x}", "a b", "\"",  "'",
                                           "\\", "\\x41",  "\r\n", "\xff", "${",  "{x}", "$x"};
  for (int round = 0; round < 500; ++round) {
    std::vector<std::string> argv;
    const size_t n = 1 + rng() % 5;
    for (size_t i = 0; i < n; ++i) {
      if (rng() % 3 == 0) {
        argv.push_back(tricky[rng() % tricky.size()]);
      } else {
        std::string a;
        for (size_t len = rng() % 6; len > 0; --len) a.push_back(static_cast<char>(rng() % 256));
        argv.push_back(a);
      }
    }
    const std::string line = FormatCommandLine(argv);
    CaseFile c;
    Status s = ParseCaseText("t", line + "\n", &c);
    ASSERT_TRUE(s.ok()) << line << ": " << s.ToString();
    ASSERT_EQ(c.steps.size(), 1u) << line;
    EXPECT_EQ(c.steps[0].argv, argv) << line;
  }
}

TEST(CaseFile, DisplayCommandLineCutsLongArguments) {
  const std::string shown = DisplayCommandLine({"SET", "k", std::string(5000, 'v')}, 10);
  EXPECT_EQ(shown, "SET k vvvvvvvvvv...(5000 bytes)");
  EXPECT_EQ(DisplayCommandLine({"GET", "a b"}), "GET \"a b\"");
}

TEST(CaseFile, TheCorpusParses) {
  std::vector<CaseFile> cases;
  Status s = LoadCaseDirectory(KVLAB_SOURCE_DIR "/conformance/cases", &cases);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(cases.size(), 10u);
  for (const CaseFile& c : cases) EXPECT_FALSE(c.steps.empty()) << c.name;
}

}  // namespace
}  // namespace kvlab::conformance
