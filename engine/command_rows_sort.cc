// SORT's and SORT_RO's rows of the command table (engine/sort_commands.cc): Redis 7.0's arity,
// flags, legacy key range and key specs (sort.json, sort_ro.json), so that clients see the same.
// Their keys beyond the sorted one are "unknown" to key specs; find_keys finds them as Redis's
// sortGetKeys, and reads_unnamed_keys tells the engine when the patterns reach other keys.
#include "engine/command_table.h"
#include "engine/sort_commands.h"

namespace kvlab::engine {

namespace {

constexpr std::string_view kPatternNotes =
    "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from "
    "the content of the key we sort";
constexpr std::string_view kStoreNotes =
    "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear "
    "anywhere in the argument array";

}  // namespace

void AppendSortCommandRows(std::vector<CommandSpec>* rows) {
  CommandSpec sort{
      "sort",
      -2,
      kCmdWrite | kCmdDenyOom,
      1,
      1,
      1,
      &SortCommand,
      "generic",
      "Sort the elements in a list, set or sorted set",
      "1.0.0",
      {KeySpec::Range(1, 0, 1, {"RO", "access"}), KeySpec::Unknown(kPatternNotes, {"RO", "access"}),
       KeySpec::Unknown(kStoreNotes, {"OW", "update"})}};
  sort.find_keys = &SortFindKeys;
  sort.reads_unnamed_keys = &SortReadsPatternKeys;
  CommandSpec sort_ro{"sort_ro",
                      -2,
                      kCmdReadonly,
                      1,
                      1,
                      1,
                      &SortRoCommand,
                      "generic",
                      "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
                      "7.0.0",
                      {KeySpec::Range(1, 0, 1, {"RO", "access"}),
                       KeySpec::Unknown(kPatternNotes, {"RO", "access"})}};
  sort_ro.find_keys = &SortRoFindKeys;
  sort_ro.reads_unnamed_keys = &SortRoReadsPatternKeys;
  rows->push_back(std::move(sort));
  rows->push_back(std::move(sort_ro));
}

}  // namespace kvlab::engine
