// SessionHost: what a session's commands may ask of the server that carries the session.
//
// A few commands are about the connection or the process rather than the data: QUIT, CLIENT
// INFO and LIST, SHUTDOWN, INFO's server, clients and stats sections, and MIGRATE's connection
// to another server. The engine runs them
// through the session's host. The RESP server (server/) gives every connection a host; an
// engine driven in-process (workload drivers, conformance, tests) has none (Session::host is
// null), and those commands then reply an error that says so, or leave their sections out.
//
// The engine calls a host only from the thread that runs the session's command. A host that
// reports on other sessions (ListClients) synchronizes that itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "redis/migrate_sockets.h"
#include "resp/reply.h"

namespace kvlab::engine {

// What a blocking command (BLPOP, BLMOVE, BLMPOP; BZPOPMIN and BZMPOP use the same) asks for
// when it finds nothing to serve: wait until one of `keys` becomes ready, or the deadline.
struct BlockRequest {
  // The keys to wait on, of the session's database, in the command's argument order.
  std::vector<std::string> keys;
  // Unix time in ms after which the client gets `timeout_reply`; 0: wait for ever.
  int64_t deadline_ms = 0;
  // BLPOP's null array, BLMOVE's null bulk.
  resp::Reply timeout_reply;
};

class SessionHost {
 public:
  virtual ~SessionHost() = default;

  // QUIT: close the connection once the reply of the current command is written, and run no
  // command the client sent after it.
  virtual void CloseAfterReply() = 0;

  // CLIENT LIST (ids == nullptr: every client, in id order) and CLIENT LIST ID (only these
  // ids, in the order given; unknown ids are skipped). One line per client, each ending in
  // "\n", in Redis's CLIENT LIST format ("id=3 addr=127.0.0.1:52120 ... resp=2").
  virtual std::string ListClients(const std::vector<uint64_t>* ids) = 0;

  // SHUTDOWN: stop accepting connections and commands, let every command that has started
  // finish, then close the store and exit. Returns at once; the shutdown happens after the
  // current command. On success the connection is closed without a reply, as Redis does.
  virtual Status RequestShutdown() = 0;

  // INFO: appends the "name:value\r\n" lines of one of the server's own sections ("server",
  // "clients", "stats"), without the "# Section" header. Other sections append nothing.
  virtual void AppendInfo(std::string_view section, std::string* out) = 0;

  // Blocking commands. The mechanism is generic: the engine knows keys and commands, the host
  // knows clients and time.
  //
  // Block: the current command found nothing to serve and wants to wait (`request`). Returns
  // false when this host cannot block its client (the command then replies an error); true
  // when it will: the command's own reply is then dropped, and the host runs the command
  // again, on this session, each time one of the keys becomes ready (KeysReady) until a run
  // does not ask to block again; that run's reply is the client's. Clients blocked on a key
  // are retried in the order they blocked (Redis's: first blocked, first served). When the
  // deadline passes first, the client gets the request's timeout_reply.
  // REQUIRES: the command has queued no write (a blocked command changes nothing).
  virtual bool Block(BlockRequest request) { return false; }

  // The engine's signal that keys of database `db` may now serve blocked clients: a command
  // that added elements to them (LPUSH, LMOVE's destination, ...; CommandContext::KeyReady)
  // has committed. Called from the thread that ran the command, after its key locks are
  // released, and before Execute returns (so a host can serve the blocked clients before the
  // pushing client's next command, as Redis does).
  virtual void KeysReady(uint8_t db, const std::vector<std::string>& keys) {}

  // CLIENT UNBLOCK: if client `id` is blocked (Block above), ends its wait now with its
  // request's timeout_reply (with_error false) or the error "UNBLOCKED client unblocked via
  // CLIENT UNBLOCK", and returns true; false when no such client is blocked. A host that cannot
  // block has no blocked client.
  virtual bool UnblockClient(uint64_t id, bool with_error) { return false; }

  // CLIENT NO-EVICT ON|OFF: whether the server may close this client to bring the memory of
  // all clients under maxmemory-clients. A host that evicts no client ignores it.
  virtual void SetNoEvict(bool on) {}

  // MIGRATE (engine/migrate_command.cc): the engine chooses the keys, dumps them and deletes the
  // acknowledged ones; the host owns the connections to other servers and runs the transfer
  // (redis::MigrateSockets: Redis's cached sockets, timeouts and retry). Returns false when this
  // host cannot reach other servers; the command then replies an error that says so. Blocks the
  // calling thread for the transfer, as MIGRATE blocks a Redis server.
  virtual bool Migrate(const redis::MigrateTransfer& transfer, redis::MigrateOutcome* outcome) {
    return false;
  }
};

}  // namespace kvlab::engine
