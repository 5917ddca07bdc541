// Loading the keys of a multi-key set command (SMOVE and the algebra of
// set_algebra_commands.cc): every key-meta in one read, then Redis's type checks in Redis's order.
#pragma once

#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "engine/command_context.h"

namespace kvlab::engine {

// A key of a set command: its handle and whether it is live (absent and expired keys are not).
struct SetKey {
  encodings::KeyHandle h;
  bool exists = false;
};

// Reads the key-metas of `keys`: one get for one key, one multiget for several. No type check.
// Returns false after setting the reply (a storage error).
bool ReadSetKeys(CommandContext& ctx, const std::vector<std::string_view>& keys,
                 std::vector<SetKey>* out);

// Redis's checkType for a set command: false after replying WRONGTYPE (or that this engine cannot
// run the key's encode-version) when the key is live and not a set it can run. A set the command
// writes then migrates as a loaded key does (CommandContext::MigrateIfWritten).
bool CheckSetKey(CommandContext& ctx, SetKey* key);

}  // namespace kvlab::engine
