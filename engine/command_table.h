// The one command table: every command kvlab runs, its arity, flags and key positions, and the
// function that runs it. The table is a plain array in command_table.cc; nothing registers
// itself. COMMAND (COUNT, INFO, DOCS) reports from it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/key_specs.h"

namespace kvlab::engine {

// The Redis release whose commands, arities and replies the table follows. HELLO and INFO
// report it as the server version, so that clients choose the features they use by it.
inline constexpr const char* kRedisVersion = "7.0.15";

class CommandContext;
using CommandHandler = void (*)(CommandContext&);

// Command flags, as COMMAND INFO reports them.
enum CommandFlag : uint32_t {
  kCmdWrite = 1u << 0,
  kCmdReadonly = 1u << 1,
  kCmdFast = 1u << 2,
  kCmdAdmin = 1u << 3,
  kCmdNoKeys = 1u << 4,  // no key arguments; no key lock
  // Touches a whole database or all of them (FLUSHDB, FLUSHALL): runs alone.
  kCmdKeyspaceExclusive = 1u << 5,
  kCmdConnection = 1u << 6,  // about the session or the connection, not the data
  // Answered by kvlab about itself (its commands, clients, statistics, lifetime), through the
  // server: not a data command, and not comparable with a redis-server's reply. The
  // conformance harness and the amplification table leave these out; the server's own tests
  // check them against redis-server where their shapes must match.
  kCmdAboutServer = 1u << 7,
  // Runs before the client has authenticated (AUTH, HELLO, QUIT), as Redis's CMD_NO_AUTH.
  kCmdNoAuth = 1u << 8,
  // May block the client until a key is ready or a timeout (BLPOP, BLMOVE, ...; Redis's
  // "blocking" flag): engine/blocking.h.
  kCmdBlocking = 1u << 9,
  // Refused between MULTI and EXEC ("ERR Command not allowed inside a transaction", Redis's
  // CMD_NO_MULTI): SHUTDOWN, as in Redis, and kvlab's own commands that take key locks
  // themselves (KVLAB.GC), which EXEC, holding its keys' locks, could not run.
  kCmdNoMulti = 1u << 10,
  // May grow the dataset (Redis's "denyoom"): refused with OOM while the process is over
  // maxmemory (engine/memory_limit.h), as Redis refuses it.
  kCmdDenyOom = 1u << 11,
  // A container of subcommands (CLIENT, CONFIG, MEMORY, OBJECT). Redis 7.0 gives a container no
  // flags and the one ACL category @slow in COMMAND INFO (its subcommands carry them); kvlab's
  // table keeps the flags that steer the engine on the container, and COMMAND INFO hides them.
  kCmdContainer = 1u << 12,
  // In the ACL categories @admin and @dangerous without the admin flag (LASTSAVE), as Redis
  // 7.0's command JSON files give some commands.
  kCmdAclAdmin = 1u << 13,
  // In the ACL category @dangerous alone (RESTORE), as Redis 7.0's restore.json gives it.
  kCmdAclDangerous = 1u << 14,
  // Talks to another server through the session's host (MIGRATE: SessionHost::Migrate). Runs
  // alone, never in a pipeline's group commit: what the target has applied cannot wait for, or be
  // undone by, a group's commit. Not one of Redis's flags; COMMAND INFO does not show it.
  kCmdRemote = 1u << 15,
};

// A subcommand of a container command: its lower-case name and Redis's arity, counted with the
// container's name (CLIENT SETNAME name: 3; MEMORY USAGE key [SAMPLES n]: -3).
struct SubcommandSpec {
  std::string_view name;
  int arity;
};

struct CommandSpec {
  std::string_view name;  // lower case
  int arity;              // Redis's convention: N exactly, or -N for at least N (name included)
  uint32_t flags;
  // Redis's legacy key range, as COMMAND INFO reports it: the keys when key_specs is empty.
  int first_key;  // 0 when the command takes no key
  int last_key;   // -1: the last argument
  int key_step;
  CommandHandler handler;
  std::string_view group;    // "string", "hash", "sorted-set", "generic", "server", ...
  std::string_view summary;  // one line, for COMMAND DOCS
  std::string_view since;    // the Redis version that introduced it
  // Where the keys are when (first_key, last_key, key_step) cannot say (numkeys arguments,
  // STORE destinations, keywords): Redis 7's key specs (key_specs.h). Empty: one range spec
  // from the legacy range. For such commands the legacy range is Redis's (the fixed keys only).
  std::vector<KeySpec> key_specs = {};
  // A container's subcommands (CLIENT, COMMAND, CONFIG, MEMORY, OBJECT), the ones kvlab has.
  // With two or more arguments the engine checks the subcommand and its arity before anything
  // else, as Redis's processCommand does, so that between MULTI and EXEC a bad one is a
  // queueing error (EXECABORT) and not a queued command.
  std::vector<SubcommandSpec> subcommands = {};
  // The keys the command reaches in another database than the session's (MOVE's key in its
  // target database, COPY's destination with DB n): appends (database, argument position) for
  // each. An argument that names no database in [0, databases) appends nothing: the handler
  // replies the error before it touches a key. Null for every other command.
  void (*keys_elsewhere)(const std::vector<std::string>& argv, int databases,
                         std::vector<std::pair<uint8_t, size_t>>* out) = nullptr;
  // For a command with "unknown" or incomplete key specs (SORT, SORT_RO, MIGRATE), Redis's
  // getkeys_proc: appends the
  // positions of argv's keys, each with whether the command writes it. KeyPositions, KeysToLock
  // and WrittenKeys use it instead of the key specs. Null for every other command.
  void (*find_keys)(const std::vector<std::string>& argv,
                    std::vector<std::pair<size_t, bool>>* keys) = nullptr;
  // Whether argv makes the command read keys that no argument names (SORT's BY and GET
  // patterns): the engine then locks everything for it (engine/sort_commands.h). Null: never.
  bool (*reads_unnamed_keys)(const std::vector<std::string>& argv) = nullptr;
};

// Rows of command groups kept in files of their own (engine/command_rows_<group>.cc), appended
// to the table in CommandTable's constructor, before its index is built.
void AppendGeoCommandRows(std::vector<CommandSpec>* rows);          // command_rows_geo.cc
void AppendServerCommandRows(std::vector<CommandSpec>* rows);       // command_rows_server.cc
void AppendBitsCommandRows(std::vector<CommandSpec>* rows);         // BITOP, BITFIELD, BITFIELD_RO
void AppendHyperloglogCommandRows(std::vector<CommandSpec>* rows);  // the PF* commands
void AppendConnectionCommandRows(std::vector<CommandSpec>* rows);   // RESET
void AppendDumpCommandRows(std::vector<CommandSpec>* rows);         // DUMP, RESTORE
void AppendSortCommandRows(std::vector<CommandSpec>* rows);         // SORT, SORT_RO
void AppendMigrateCommandRows(std::vector<CommandSpec>* rows);      // MIGRATE

class CommandTable {
 public:
  // The table. Built once; immutable.
  static const CommandTable& Get();

  // Case-insensitive lookup; nullptr when unknown.
  const CommandSpec* Find(std::string_view name) const;
  const std::vector<CommandSpec>& all() const { return specs_; }
  size_t IndexOf(const CommandSpec& spec) const { return &spec - specs_.data(); }

  // The command's key specs: spec.key_specs, or one range spec from its legacy range (none
  // when first_key is 0).
  static std::vector<KeySpec> KeySpecsOf(const CommandSpec& spec);
  // The keys of argv that the command may write: those of its key specs that are not read-only
  // ("RO": the sources of ZUNIONSTORE and SINTERSTORE), in spec order.
  static std::vector<std::string_view> WrittenKeys(const CommandSpec& spec,
                                                   const std::vector<std::string>& argv);
  // Redis's error for argv's subcommand of a container: "ERR unknown subcommand 'x'. Try
  // CLIENT HELP." or "ERR wrong number of arguments for 'client|setname' command"; empty when
  // argv is fine or spec is no container. REQUIRES: argv has spec's arity.
  static std::string SubcommandError(const CommandSpec& spec, const std::vector<std::string>& argv);
  // Whether argc arguments (the name included) fit the command's arity.
  static bool ArityOk(const CommandSpec& spec, size_t argc) {
    return spec.arity >= 0 ? argc == static_cast<size_t>(spec.arity)
                           : argc >= static_cast<size_t>(-spec.arity);
  }
  // Whether the command takes keys at all.
  static bool HasKeys(const CommandSpec& spec) {
    return spec.first_key > 0 || !spec.key_specs.empty();
  }
  // The positions of the key arguments of argv (the command name at 0) under spec, found by
  // its key specs (FindKeys). False, with no positions, when argv does not let them be found
  // (a bad numkeys): the command itself then replies with the error.
  static bool KeyPositions(const CommandSpec& spec, const std::vector<std::string>& argv,
                           std::vector<size_t>* positions) {
    positions->clear();
    if (spec.find_keys != nullptr) {
      std::vector<std::pair<size_t, bool>> keys;
      spec.find_keys(argv, &keys);
      for (const auto& [position, written] : keys) positions->push_back(position);
      return true;
    }
    if (spec.key_specs.empty()) return FindKeys(KeySpecsOf(spec), argv, positions);
    return FindKeys(spec.key_specs, argv, positions);
  }
  // Every key the command reaches, with its database, for locking: its key positions in `db`
  // (the session's) and its keys_elsewhere. Appends to *out.
  static void KeysToLock(const CommandSpec& spec, const std::vector<std::string>& argv, uint8_t db,
                         int databases, std::vector<std::pair<uint8_t, std::string_view>>* out);

 private:
  CommandTable();
  std::vector<CommandSpec> specs_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace kvlab::engine
