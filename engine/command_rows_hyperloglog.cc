// The HyperLogLog commands' rows of the command table (CommandTable's constructor appends them).
#include "engine/command_table.h"
#include "engine/hll_commands.h"

namespace kvlab::engine {

void AppendHyperloglogCommandRows(std::vector<CommandSpec>* rows) {
  // Redis 7.0's arities, flags, legacy ranges and key specs (src/commands/pf*.json).
  rows->push_back({"pfadd",
                   -2,
                   kCmdWrite | kCmdDenyOom | kCmdFast,
                   1,
                   1,
                   1,
                   &PfaddCommand,
                   "hyperloglog",
                   "Adds the specified elements to the specified HyperLogLog.",
                   "2.8.9",
                   {KeySpec::Range(1, 0, 1, {"RW", "insert"})}});
  // Read-only in Redis's flags, but its key spec is RW: PFCOUNT of one key writes the cardinality
  // it computed into the HLL (key_access.h).
  KeySpec pfcount_key = KeySpec::Range(1, -1, 1, {"RW", "access"});
  pfcount_key.notes =
      "RW because it may change the internal representation of the key, and propagate to replicas";
  rows->push_back({"pfcount",
                   -2,
                   kCmdReadonly,
                   1,
                   -1,
                   1,
                   &PfcountCommand,
                   "hyperloglog",
                   "Return the approximated cardinality of the set(s) observed by the "
                   "HyperLogLog at key(s).",
                   "2.8.9",
                   {pfcount_key}});
  rows->push_back({"pfmerge",
                   -2,
                   kCmdWrite | kCmdDenyOom,
                   1,
                   -1,
                   1,
                   &PfmergeCommand,
                   "hyperloglog",
                   "Merge N different HyperLogLogs into a single one.",
                   "2.8.9",
                   {KeySpec::Range(1, 0, 1, {"RW", "access", "insert"}),
                    KeySpec::Range(2, -1, 1, {"RO", "access"})}});
  rows->push_back({"pfdebug",
                   3,
                   kCmdWrite | kCmdDenyOom | kCmdAdmin,
                   2,
                   2,
                   1,
                   &PfdebugCommand,
                   "hyperloglog",
                   "Internal commands for debugging HyperLogLog values",
                   "2.8.9",
                   {KeySpec::Range(2, 0, 1, {"RW", "access"})}});
  rows->push_back({"pfselftest", 1, kCmdAdmin | kCmdNoKeys | kCmdAboutServer, 0, 0, 0,
                   &PfselftestCommand, "hyperloglog",
                   "An internal command for testing HyperLogLog values", "2.8.9"});
}

}  // namespace kvlab::engine
