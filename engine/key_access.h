// Which commands the engine treats as readers of their keys.
#pragma once

#include "engine/command_table.h"

namespace kvlab::engine {

// Whether a command only reads its keys, so that it shares their locks and neither touches WATCH
// nor migrates them: Redis's readonly flag, unless one of its key specs is "RW". PFCOUNT is such a
// command: Redis flags it readonly, but it writes the cardinality it computed into its key ("RW
// because it may change the internal representation of the key, and propagate to replicas"),
// which Redis propagates and which touches WATCH.
inline bool OnlyReadsKeys(const CommandSpec& spec) {
  if ((spec.flags & kCmdReadonly) == 0) return false;
  for (const KeySpec& key_spec : spec.key_specs) {
    for (std::string_view flag : key_spec.flags) {
      if (flag == "RW") return false;
    }
  }
  return true;
}

// Whether the command, with argv, reads keys that none of its arguments names (SORT's BY and GET
// patterns): those keys are not known before it runs, so it locks everything (in its own mode),
// runs alone outside pipeline groups, and makes an EXEC that queued it lock everything.
inline bool ReadsUnnamedKeys(const CommandSpec& spec, const std::vector<std::string>& argv) {
  return spec.reads_unnamed_keys != nullptr && spec.reads_unnamed_keys(argv);
}

}  // namespace kvlab::engine
