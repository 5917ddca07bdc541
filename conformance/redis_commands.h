// Redis 7.0's commands and their documentation groups, as redis-server 7.0.15 reports them
// (COMMAND DOCS), for the parts of `kvlab conform` that must know Redis's surface and not only
// kvlab's: which commands of a case a subject does not serve (kvlab's engine lacks streams,
// for instance, and skips the cases that use them), and the per-group compatibility table.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace kvlab::conformance {

struct RedisCommandInfo {
  std::string_view name;   // lower case
  std::string_view group;  // "generic", "string", "stream", ... (COMMAND DOCS' group)
};

// Every top-level command of Redis 7.0, sorted by name.
std::span<const RedisCommandInfo> Redis70Commands();

// The group of a Redis 7.0 command (any case), or "" for a name Redis 7.0 does not have.
std::string_view RedisGroupOf(std::string_view command);

// The groups in the order of Redis's documentation. Data groups (the keyspace and every data
// type, scripting, pub/sub and transactions) first, then connection, server and cluster.
std::span<const std::string_view> RedisGroupsInOrder();

// Whether the group holds data commands (the corpus must cover every command of those).
bool IsDataGroup(std::string_view group);

// The commands of `group`, sorted.
std::vector<std::string_view> RedisCommandsOf(std::string_view group);

}  // namespace kvlab::conformance
