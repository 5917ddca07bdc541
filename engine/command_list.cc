#include "engine/command_list.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

namespace kvlab::engine {

namespace {

// Redis's command groups, in the order of its documentation, with README's headings.
constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
    {"generic", "Keyspace"},        {"string", "Strings"}, {"bitmap", "Bitmaps"},
    {"hyperloglog", "HyperLogLog"}, {"hash", "Hashes"},    {"sorted-set", "Sorted sets"},
    {"geo", "Geospatial"},          {"set", "Sets"},       {"list", "Lists"},
    {"connection", "Connection"},   {"server", "Server"},
};

std::string Upper(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string SupportedCommandsMarkdown(const CommandTable& table) {
  std::map<std::string_view, std::vector<std::string>> by_group;
  std::vector<std::string> own;
  for (const CommandSpec& spec : table.all()) {
    if (spec.name.find('.') != std::string_view::npos) {
      own.push_back(Upper(spec.name));
    } else {
      by_group[spec.group].push_back(Upper(spec.name));
    }
  }
  std::string md;
  size_t total = 0;
  auto line = [&](std::string_view heading, std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    md += "- **" + std::string(heading) + "** (" + std::to_string(names.size()) + "): ";
    for (size_t i = 0; i < names.size(); ++i) md += (i ? ", " : "") + names[i];
    md += "\n";
    total += names.size();
  };
  for (const auto& [group, heading] : kGroups) {
    auto it = by_group.find(group);
    if (it == by_group.end()) continue;
    line(heading, std::move(it->second));
    by_group.erase(it);
  }
  for (auto& [group, names] : by_group) line(group, std::move(names));  // a group not above
  if (!own.empty()) line("kvlab's own", std::move(own));
  md += "\n" + std::to_string(total) + " commands.\n";
  return md;
}

}  // namespace kvlab::engine
