// Helpers shared by the string commands (string_commands.cc, string_edit_commands.cc,
// string_bit_commands.cc, string_bitfield_commands.cc): a string key is its key-meta alone, its
// value the meta's extra bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "encodings/key_meta.h"
#include "engine/command_context.h"

namespace kvlab::engine {

// Reads `key` for a string command. Returns false after setting the reply on WRONGTYPE or a
// storage error; otherwise *found says whether the key is live and *meta holds it.
bool LoadString(CommandContext& ctx, std::string_view key, encodings::KeyMeta* meta, bool* found);

// Queues `value` as the value of `key`. A found key keeps its meta (key-version and TTL: Redis's
// dbOverwrite keeps the TTL); a new one gets a fresh meta without TTL.
void StoreString(CommandContext& ctx, std::string_view key, encodings::KeyMeta* meta, bool found,
                 std::string value);

// checkStringLength: a string a command builds may not exceed proto-max-bulk-len. Sets Redis's
// error and returns false when it would.
bool CheckStringLength(CommandContext& ctx, uint64_t size);

// getBitOffsetFromArgument: argument `arg` as a bit offset, 0 to 8 * proto-max-bulk-len - 1.
// With bits > 0 (BITFIELD's type width) the form #N is accepted too, as N * bits. Sets Redis's
// error and returns false otherwise.
bool BitOffsetArg(CommandContext& ctx, size_t arg, int bits, uint64_t* offset);

}  // namespace kvlab::engine
