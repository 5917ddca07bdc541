// SessionHost: what a session's commands may ask of the server that carries the session.
//
// A few commands are about the connection or the process rather than the data: QUIT, CLIENT
// INFO and LIST, SHUTDOWN, and INFO's server, clients and stats sections. The engine runs them
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

namespace kvlab::engine {

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
};

}  // namespace kvlab::engine
