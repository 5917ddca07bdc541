// The rows of BITOP, BITFIELD and BITFIELD_RO (engine/string_bitfield_commands.cc): arity, flags,
// legacy key range and key specs as Redis 7.0's COMMAND INFO reports them
// (src/commands/bitop.json, bitfield.json, bitfield_ro.json).
#include "engine/command_table.h"
#include "engine/handlers.h"

namespace kvlab::engine {

void AppendBitsCommandRows(std::vector<CommandSpec>* rows) {
  rows->push_back(
      {"bitop",
       -4,
       kCmdWrite | kCmdDenyOom,
       2,
       -1,
       1,
       &BitopCommand,
       "bitmap",
       "Perform bitwise operations between strings",
       "2.6.0",
       {KeySpec::Range(2, 0, 1, {"OW", "update"}), KeySpec::Range(3, -1, 1, {"RO", "access"})}});
  // BITFIELD writes only with SET or INCRBY: Redis marks its key spec VARIABLE_FLAGS.
  KeySpec bitfield_key = KeySpec::Range(1, 0, 1, {"RW", "access", "update", "variable_flags"});
  bitfield_key.notes = "This command allows both access and modification of the key";
  rows->push_back({"bitfield",
                   -2,
                   kCmdWrite | kCmdDenyOom,
                   1,
                   1,
                   1,
                   &BitfieldCommand,
                   "bitmap",
                   "Perform arbitrary bitfield integer operations on strings",
                   "3.2.0",
                   {bitfield_key}});
  rows->push_back({"bitfield_ro",
                   -2,
                   kCmdReadonly | kCmdFast,
                   1,
                   1,
                   1,
                   &BitfieldRoCommand,
                   "bitmap",
                   "Perform arbitrary bitfield integer operations on strings. Read-only variant "
                   "of BITFIELD",
                   "6.0.0",
                   {KeySpec::Range(1, 0, 1, {"RO", "access"})}});
}

}  // namespace kvlab::engine
