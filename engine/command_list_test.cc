// README.md's list of supported commands is the command table's: a command added to the table
// without updating README fails here. scripts/update-command-list rewrites the block
// (KVLAB_UPDATE_README=1).
#include "engine/command_list.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kvlab::engine {
namespace {

const char* kReadme = KVLAB_SOURCE_DIR "/README.md";

TEST(CommandList, ReadmeListsExactlyTheCommandTable) {
  std::ifstream in(kReadme);
  ASSERT_TRUE(in) << kReadme;
  std::stringstream buf;
  buf << in.rdbuf();
  std::string readme = buf.str();
  const size_t begin = readme.find(kCommandListBegin);
  const size_t end = readme.find(kCommandListEnd);
  ASSERT_NE(begin, std::string::npos) << "README.md lacks " << kCommandListBegin;
  ASSERT_NE(end, std::string::npos) << "README.md lacks " << kCommandListEnd;
  ASSERT_LT(begin, end);
  const size_t from = begin + std::string(kCommandListBegin).size() + 1;  // after the newline
  const std::string want = SupportedCommandsMarkdown(CommandTable::Get());
  const std::string have = readme.substr(from, end - from);
  if (have != want && std::getenv("KVLAB_UPDATE_README") != nullptr) {
    readme.replace(from, end - from, want);
    std::ofstream(kReadme) << readme;
    GTEST_SKIP() << "rewrote README.md's command list";
  }
  EXPECT_EQ(have, want) << "README.md's command list is not the command table's: run "
                           "scripts/update-command-list";
}

TEST(CommandList, GroupsEveryCommandOnce) {
  const std::string md = SupportedCommandsMarkdown(CommandTable::Get());
  for (const CommandSpec& spec : CommandTable::Get().all()) {
    std::string upper(spec.name);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // Each name appears once, delimited.
    const std::string as_item = " " + upper;
    size_t n = 0;
    for (size_t at = md.find(as_item); at != std::string::npos; at = md.find(as_item, at + 1)) {
      const char after = at + as_item.size() < md.size() ? md[at + as_item.size()] : '\n';
      if (after == ',' || after == '\n') ++n;
    }
    EXPECT_EQ(n, 1u) << upper;
  }
  EXPECT_NE(md.find("\n" + std::to_string(CommandTable::Get().all().size()) + " commands.\n"),
            std::string::npos);
}

}  // namespace
}  // namespace kvlab::engine
