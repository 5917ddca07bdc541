#include "cli/parse_error.h"

#include <algorithm>
#include <cstdio>

#include "flags/conventions.h"

namespace kvlab::cli {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
// transpositions ("--backned" is one step from "--backend").
size_t EditDistance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// The path of subcommands parsed on the command line, deepest last (app first).
std::vector<CLI::App*> ParsedPath(CLI::App& app) {
  std::vector<CLI::App*> path = {&app};
  for (;;) {
    std::vector<CLI::App*> subs = path.back()->get_subcommands();
    if (subs.empty()) return path;
    path.push_back(subs.front());
  }
}

std::string CommandName(const std::vector<CLI::App*>& path) {
  std::string name = "kvlab";
  for (size_t i = 1; i < path.size(); ++i) name += " " + path[i]->get_name();
  return name;
}

// Every spelling of the options of `app` ("--backend", "-h"), and its subcommands' names.
void Candidates(CLI::App* app, std::vector<std::string>* options,
                std::vector<std::string>* subcommands) {
  for (const CLI::Option* o : app->get_options()) {
    for (const std::string& l : o->get_lnames()) options->push_back("--" + l);
    for (const std::string& s : o->get_snames()) options->push_back("-" + s);
  }
  for (const CLI::App* s : app->get_subcommands({})) subcommands->push_back(s->get_name());
}

std::string JoinOr(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return out;
}

}  // namespace

std::vector<std::string> NearestNames(const std::string& typo,
                                      const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, typo.size() / 3);
  std::vector<std::pair<size_t, std::string>> near;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(typo, c);
    // A prefix of a longer name ("--hash" for "--hash-versions") is near too.
    const bool prefix = typo.size() >= 4 && c.starts_with(typo);
    if (d <= limit || prefix) near.emplace_back(prefix ? std::min<size_t>(d, 1) : d, c);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& [d, name] : near) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    if (out.size() == 3) break;
  }
  return out;
}

int ReportParseError(CLI::App& app, const CLI::ParseError& error) {
  const std::vector<CLI::App*> path = ParsedPath(app);
  std::vector<std::string> unknown;
  for (CLI::App* a : path) {
    for (const std::string& arg : a->remaining()) unknown.push_back(arg);
  }
  // --help and --version arrive as "errors" with exit code 0: CLI11 prints them. CLI11 handles
  // them before it looks at arguments it did not expect, so `kvlab nosuch --help` would print
  // the main help and exit 0: an unknown word is an error whatever follows it.
  if (error.get_exit_code() == 0 && unknown.empty()) return app.exit(error);
  const std::string command = CommandName(path);
  std::vector<std::string> options, subcommands;
  Candidates(path.back(), &options, &subcommands);
  // A word where a subcommand is expected (a command with subcommands and no positional
  // arguments) is named as what it is, not as CLI11's "A subcommand is required".
  const bool takes_positionals =
      !path.back()->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty();
  const auto first_word = std::find_if(unknown.begin(), unknown.end(), [](const std::string& a) {
    return !(a.starts_with("-") && a.size() > 1);
  });
  if (!subcommands.empty() && !takes_positionals && first_word != unknown.end()) {
    std::fprintf(stderr, "%s: %s is not a subcommand of %s\n", command.c_str(), first_word->c_str(),
                 command.c_str());
  } else if (error.get_exit_code() == 0) {
    std::string words;
    for (const std::string& arg : unknown) words += (words.empty() ? "" : " ") + arg;
    std::fprintf(stderr, "%s: arguments not expected: %s\n", command.c_str(), words.c_str());
  } else {
    std::fprintf(stderr, "%s: %s\n", command.c_str(), error.what());
  }
  for (const std::string& arg : unknown) {
    const bool is_option = arg.starts_with("-") && arg.size() > 1;
    const std::string name = is_option ? arg.substr(0, arg.find('=')) : arg;
    const std::vector<std::string> near = NearestNames(name, is_option ? options : subcommands);
    if (!near.empty()) {
      std::fprintf(stderr, "  %s: did you mean %s?\n", name.c_str(), JoinOr(near).c_str());
    }
  }
  std::fprintf(stderr, "Run '%s --help' for its options.\n", command.c_str());
  return flags::kExitUsage;
}

}  // namespace kvlab::cli
