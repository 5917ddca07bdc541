#include "engine/command_table.h"

#include <cctype>

#include "engine/handlers.h"

namespace kvlab {

CommandTable::CommandTable() {
  // name, arity, flags, first key, last key, key step, handler, group, summary, since.
  // Arity, flags and key positions are Redis 7.0's (COMMAND INFO), so clients see the same.
  specs_ = {
      {"del", -2, kCmdWrite, 1, -1, 1, &DelCommand, "generic", "Delete a key", "1.0.0"},
      {"unlink", -2, kCmdWrite | kCmdFast, 1, -1, 1, &UnlinkCommand, "generic",
       "Delete a key asynchronously in another thread", "4.0.0"},
      {"exists", -2, kCmdReadonly | kCmdFast, 1, -1, 1, &ExistsCommand, "generic",
       "Determine if a key exists", "1.0.0"},
      {"type", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &TypeCommand, "generic",
       "Determine the type stored at key", "1.0.0"},
      {"expire", -3, kCmdWrite | kCmdFast, 1, 1, 1, &ExpireCommand, "generic",
       "Set a key's time to live in seconds", "1.0.0"},
      {"pexpire", -3, kCmdWrite | kCmdFast, 1, 1, 1, &PexpireCommand, "generic",
       "Set a key's time to live in milliseconds", "2.6.0"},
      {"expireat", -3, kCmdWrite | kCmdFast, 1, 1, 1, &ExpireatCommand, "generic",
       "Set the expiration for a key as a UNIX timestamp", "1.2.0"},
      {"pexpireat", -3, kCmdWrite | kCmdFast, 1, 1, 1, &PexpireatCommand, "generic",
       "Set the expiration for a key as a UNIX timestamp specified in milliseconds", "2.6.0"},
      {"ttl", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &TtlCommand, "generic",
       "Get the time to live for a key in seconds", "1.0.0"},
      {"pttl", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &PttlCommand, "generic",
       "Get the time to live for a key in milliseconds", "2.6.0"},
      {"expiretime", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &ExpiretimeCommand, "generic",
       "Get the expiration Unix timestamp for a key", "7.0.0"},
      {"pexpiretime", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &PexpiretimeCommand, "generic",
       "Get the expiration Unix timestamp for a key in milliseconds", "7.0.0"},
      {"persist", 2, kCmdWrite | kCmdFast, 1, 1, 1, &PersistCommand, "generic",
       "Remove the expiration from a key", "2.2.0"},
      {"keys", 2, kCmdReadonly | kCmdNoKeys, 0, 0, 0, &KeysCommand, "generic",
       "Find all keys matching the given pattern", "1.0.0"},
      {"scan", -2, kCmdReadonly | kCmdNoKeys, 0, 0, 0, &ScanCommand, "generic",
       "Incrementally iterate the keys space", "2.8.0"},
      {"dbsize", 1, kCmdReadonly | kCmdFast | kCmdNoKeys, 0, 0, 0, &DbsizeCommand, "server",
       "Return the number of keys in the selected database", "1.0.0"},
      {"flushdb", -1, kCmdWrite | kCmdKeyspaceExclusive | kCmdNoKeys, 0, 0, 0, &FlushdbCommand,
       "server", "Remove all keys from the current database", "1.0.0"},
      {"flushall", -1, kCmdWrite | kCmdKeyspaceExclusive | kCmdNoKeys, 0, 0, 0, &FlushallCommand,
       "server", "Remove all keys from all databases", "1.0.0"},
      {"get", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &GetCommand, "string", "Get the value of a key",
       "1.0.0"},
      {"set", -3, kCmdWrite, 1, 1, 1, &SetCommand, "string", "Set the string value of a key",
       "1.0.0"},
      {"setex", 4, kCmdWrite, 1, 1, 1, &SetexCommand, "string",
       "Set the value and expiration of a key", "2.0.0"},
      {"psetex", 4, kCmdWrite, 1, 1, 1, &PsetexCommand, "string",
       "Set the value and expiration in milliseconds of a key", "2.6.0"},
      {"setnx", 3, kCmdWrite | kCmdFast, 1, 1, 1, &SetnxCommand, "string",
       "Set the value of a key, only if the key does not exist", "1.0.0"},
      {"mget", -2, kCmdReadonly | kCmdFast, 1, -1, 1, &MgetCommand, "string",
       "Get the values of all the given keys", "1.0.0"},
      {"mset", -3, kCmdWrite, 1, -1, 2, &MsetCommand, "string",
       "Set multiple keys to multiple values", "1.0.1"},
      {"strlen", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &StrlenCommand, "string",
       "Get the length of the value stored in a key", "2.2.0"},
      {"hset", -4, kCmdWrite | kCmdFast, 1, 1, 1, &HsetCommand, "hash",
       "Set the string value of a hash field", "2.0.0"},
      {"hmset", -4, kCmdWrite | kCmdFast, 1, 1, 1, &HmsetCommand, "hash",
       "Set multiple hash fields to multiple values", "2.0.0"},
      {"hsetnx", 4, kCmdWrite | kCmdFast, 1, 1, 1, &HsetnxCommand, "hash",
       "Set the value of a hash field, only if the field does not exist", "2.0.0"},
      {"hget", 3, kCmdReadonly | kCmdFast, 1, 1, 1, &HgetCommand, "hash",
       "Get the value of a hash field", "2.0.0"},
      {"hmget", -3, kCmdReadonly | kCmdFast, 1, 1, 1, &HmgetCommand, "hash",
       "Get the values of all the given hash fields", "2.0.0"},
      {"hdel", -3, kCmdWrite | kCmdFast, 1, 1, 1, &HdelCommand, "hash",
       "Delete one or more hash fields", "2.0.0"},
      {"hgetall", 2, kCmdReadonly, 1, 1, 1, &HgetallCommand, "hash",
       "Get all the fields and values in a hash", "2.0.0"},
      {"hlen", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &HlenCommand, "hash",
       "Get the number of fields in a hash", "2.0.0"},
      {"hkeys", 2, kCmdReadonly, 1, 1, 1, &HkeysCommand, "hash", "Get all the fields in a hash",
       "2.0.0"},
      {"hvals", 2, kCmdReadonly, 1, 1, 1, &HvalsCommand, "hash", "Get all the values in a hash",
       "2.0.0"},
      {"hexists", 3, kCmdReadonly | kCmdFast, 1, 1, 1, &HexistsCommand, "hash",
       "Determine if a hash field exists", "2.0.0"},
      {"hstrlen", 3, kCmdReadonly | kCmdFast, 1, 1, 1, &HstrlenCommand, "hash",
       "Get the length of the value of a hash field", "3.2.0"},
      {"hscan", -3, kCmdReadonly, 1, 1, 1, &HscanCommand, "hash",
       "Incrementally iterate hash fields and associated values", "2.8.0"},
      {"hincrby", 4, kCmdWrite | kCmdFast, 1, 1, 1, &HincrbyCommand, "hash",
       "Increment the integer value of a hash field by the given number", "2.0.0"},
      {"hincrbyfloat", 4, kCmdWrite | kCmdFast, 1, 1, 1, &HincrbyfloatCommand, "hash",
       "Increment the float value of a hash field by the given amount", "2.6.0"},
      {"zadd", -4, kCmdWrite | kCmdFast, 1, 1, 1, &ZaddCommand, "sorted-set",
       "Add one or more members to a sorted set, or update its score if it already exists",
       "1.2.0"},
      {"zincrby", 4, kCmdWrite | kCmdFast, 1, 1, 1, &ZincrbyCommand, "sorted-set",
       "Increment the score of a member in a sorted set", "1.2.0"},
      {"zcard", 2, kCmdReadonly | kCmdFast, 1, 1, 1, &ZcardCommand, "sorted-set",
       "Get the number of members in a sorted set", "1.2.0"},
      {"zscore", 3, kCmdReadonly | kCmdFast, 1, 1, 1, &ZscoreCommand, "sorted-set",
       "Get the score associated with the given member in a sorted set", "1.2.0"},
      {"zmscore", -3, kCmdReadonly | kCmdFast, 1, 1, 1, &ZmscoreCommand, "sorted-set",
       "Get the score associated with the given members in a sorted set", "6.2.0"},
      {"zcount", 4, kCmdReadonly | kCmdFast, 1, 1, 1, &ZcountCommand, "sorted-set",
       "Count the members in a sorted set with scores within the given values", "2.0.0"},
      {"zlexcount", 4, kCmdReadonly | kCmdFast, 1, 1, 1, &ZlexcountCommand, "sorted-set",
       "Count the number of members in a sorted set between a given lexicographical range",
       "2.8.9"},
      {"zrange", -4, kCmdReadonly, 1, 1, 1, &ZrangeCommand, "sorted-set",
       "Return a range of members in a sorted set", "1.2.0"},
      {"zrangebyscore", -4, kCmdReadonly, 1, 1, 1, &ZrangebyscoreCommand, "sorted-set",
       "Return a range of members in a sorted set, by score", "1.0.5"},
      {"zrevrangebyscore", -4, kCmdReadonly, 1, 1, 1, &ZrevrangebyscoreCommand, "sorted-set",
       "Return a range of members in a sorted set, by score, with scores ordered from high to low",
       "2.2.0"},
      {"zrangebylex", -4, kCmdReadonly, 1, 1, 1, &ZrangebylexCommand, "sorted-set",
       "Return a range of members in a sorted set, by lexicographical range", "2.8.9"},
      {"zrevrangebylex", -4, kCmdReadonly, 1, 1, 1, &ZrevrangebylexCommand, "sorted-set",
       "Return a range of members in a sorted set, by lexicographical range, ordered from higher "
       "to lower strings",
       "2.8.9"},
      {"zrevrange", -4, kCmdReadonly, 1, 1, 1, &ZrevrangeCommand, "sorted-set",
       "Return a range of members in a sorted set, by index, with scores ordered from high to low",
       "1.2.0"},
      {"zrank", 3, kCmdReadonly | kCmdFast, 1, 1, 1, &ZrankCommand, "sorted-set",
       "Determine the index of a member in a sorted set", "2.0.0"},
      {"zrevrank", 3, kCmdReadonly | kCmdFast, 1, 1, 1, &ZrevrankCommand, "sorted-set",
       "Determine the index of a member in a sorted set, with scores ordered from high to low",
       "2.0.0"},
      {"zrem", -3, kCmdWrite | kCmdFast, 1, 1, 1, &ZremCommand, "sorted-set",
       "Remove one or more members from a sorted set", "1.2.0"},
      {"zremrangebyrank", 4, kCmdWrite, 1, 1, 1, &ZremrangebyrankCommand, "sorted-set",
       "Remove all members in a sorted set within the given indexes", "2.0.0"},
      {"zremrangebyscore", 4, kCmdWrite, 1, 1, 1, &ZremrangebyscoreCommand, "sorted-set",
       "Remove all members in a sorted set within the given scores", "1.2.0"},
      {"zremrangebylex", 4, kCmdWrite, 1, 1, 1, &ZremrangebylexCommand, "sorted-set",
       "Remove all members in a sorted set between the given lexicographical range", "2.8.9"},
      {"zscan", -3, kCmdReadonly, 1, 1, 1, &ZscanCommand, "sorted-set",
       "Incrementally iterate sorted sets elements and associated scores", "2.8.0"},
      {"zpopmin", -2, kCmdWrite | kCmdFast, 1, 1, 1, &ZpopminCommand, "sorted-set",
       "Remove and return members with the lowest scores in a sorted set", "5.0.0"},
      {"zpopmax", -2, kCmdWrite | kCmdFast, 1, 1, 1, &ZpopmaxCommand, "sorted-set",
       "Remove and return members with the highest scores in a sorted set", "5.0.0"},
      {"ping", -1, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &PingCommand, "connection",
       "Ping the server", "1.0.0"},
      {"echo", 2, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &EchoCommand, "connection",
       "Echo the given string", "1.0.0"},
      {"select", 2, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &SelectCommand, "connection",
       "Change the selected database for the current connection", "2.0.0"},
      {"time", 1, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &TimeCommand, "server",
       "Return the current server time", "2.6.0"},
      {"config", -2, kCmdAdmin | kCmdNoKeys, 0, 0, 0, &ConfigCommand, "server",
       "A container for server configuration commands", "2.0.0"},
      {"hello", -1, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &HelloCommand, "connection",
       "Handshake with Redis", "6.0.0"},
      {"auth", -2, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &AuthCommand, "connection",
       "Authenticate to the server", "1.0.0"},
      {"quit", -1, kCmdFast | kCmdConnection | kCmdNoKeys, 0, 0, 0, &QuitCommand, "connection",
       "Close the connection", "1.0.0"},
      {"client", -2, kCmdConnection | kCmdNoKeys, 0, 0, 0, &ClientCommand, "connection",
       "A container for client connection commands", "2.4.0"},
      {"command", -1, kCmdConnection | kCmdNoKeys, 0, 0, 0, &CommandCommand, "server",
       "Get array of Redis command details", "2.8.13"},
      {"info", -1, kCmdNoKeys, 0, 0, 0, &InfoCommand, "server",
       "Get information and statistics about the server", "1.0.0"},
      {"shutdown", -1, kCmdAdmin | kCmdNoKeys, 0, 0, 0, &ShutdownCommand, "server",
       "Synchronously save the dataset to disk and then shut down the server", "1.0.0"},
  };
  for (size_t i = 0; i < specs_.size(); ++i) index_.emplace(std::string(specs_[i].name), i);
}

const CommandTable& CommandTable::Get() {
  static const CommandTable kTable;
  return kTable;
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  if (name.size() > 32) return nullptr;
  char lower[32];
  for (size_t i = 0; i < name.size(); ++i) {
    lower[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
  }
  auto it = index_.find(std::string(lower, name.size()));
  return it == index_.end() ? nullptr : &specs_[it->second];
}

std::vector<size_t> CommandTable::KeyPositions(const CommandSpec& spec, size_t argc) {
  std::vector<size_t> out;
  if (spec.first_key <= 0) return out;
  const int64_t last =
      spec.last_key < 0 ? static_cast<int64_t>(argc) + spec.last_key : spec.last_key;
  for (int64_t i = spec.first_key; i <= last && i < static_cast<int64_t>(argc);
       i += spec.key_step) {
    out.push_back(static_cast<size_t>(i));
  }
  return out;
}

}  // namespace kvlab
