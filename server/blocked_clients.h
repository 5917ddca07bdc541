// BlockedClients: the server's wait-lists of clients blocked on keys (BLPOP, BRPOP, BLMOVE,
// BRPOPLPUSH, BLMPOP; any command that asks SessionHost::Block, so BZPOPMIN and BZMPOP too).
//
// The engine knows keys and commands; this class knows which clients wait for which keys. The
// protocol (docs/server.md, "Blocking commands"):
// 1. A blocking command that finds nothing to serve calls SessionHost::Block. Its connection
//    registers a Waiter here (Add): at the back of the wait-list of each of its keys.
// 2. A command that adds elements to a key marks it ready (CommandContext::KeyReady); once it
//    has committed, the engine calls SessionHost::KeysReady, which lands in KeysReady here.
// 3. Ready keys are drained one at a time, in the order they became ready: the waiters of a
//    key are retried in the order they blocked (first blocked, first served), each by running
//    its command again on its own session (Waiter::retry). A retry that does not block again
//    has served the client: its reply goes to the client's worker (Waiter::deliver) and the
//    waiter leaves every wait-list. The first retry that blocks again ends the key's round (the
//    key has nothing more to give).
// Add also marks the new waiter's keys ready, so that a push that landed between the command's
// look at its keys and its registration is not missed.
//
// Draining happens in the thread that signals (the pusher's worker, or the blocking client's),
// after that thread's command has released its key locks; one thread drains at a time, others
// only queue their keys. No lock of this class is held while a retry runs.
//
// Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "resp/reply.h"

namespace kvlab::server {

class Connection;

struct Waiter {
  uint64_t client_id = 0;  // CLIENT ID of the blocked client (CLIENT UNBLOCK)
  uint8_t db = 0;
  std::vector<std::string> keys;  // distinct
  // Runs the blocked command again (from any thread). Returns true when the command did not
  // ask to block again; *reply is then the client's reply.
  std::function<bool(resp::Reply* reply)> retry;
  // Hands a reply to the client, on the client's own worker thread (returns at once). `self`
  // is this waiter, which the delivery keeps alive.
  std::function<void(std::shared_ptr<Waiter> self, resp::Reply reply)> deliver;

  // The blocked connection; cleared on its worker thread when it unblocks or closes, so that a
  // reply delivered late finds no one (Connection::Unblock).
  Connection* connection = nullptr;
  // BLPOP's null array, BLMOVE's null bulk: the reply once the deadline passes.
  resp::Reply timeout_reply;

  // Under BlockedClients' mutex.
  enum class State { kWaiting, kServing, kDone } state = State::kWaiting;
};

class BlockedClients {
 public:
  // Registers the waiter, then gives it (and any earlier waiter of its keys) a first retry.
  void Add(const std::shared_ptr<Waiter>& waiter);
  // Keys of database db that may serve waiters now. Drains them unless another thread is.
  void KeysReady(uint8_t db, const std::vector<std::string>& keys);
  // Takes the waiter out of every wait-list: its timeout passed, or its client is closing.
  // Waits while a retry of it is running. Returns false when it was served already (its reply
  // is on its way to deliver).
  bool Remove(Waiter* waiter);
  // CLIENT UNBLOCK: takes client `client_id`'s waiter out of every wait-list, as Remove does,
  // and delivers it `reply`, or its timeout_reply when `reply` is null. False when the client
  // is not blocked (or a retry served it meanwhile).
  bool Unblock(uint64_t client_id, const resp::Reply* reply);

  // How many clients are blocked (INFO clients' blocked_clients).
  size_t blocked() const;

 private:
  using Key = std::pair<uint8_t, std::string>;
  // REQUIRES: mu_ held by `lock`, draining_ false.
  void Drain(std::unique_lock<std::mutex>& lock);
  void Unlink(Waiter* waiter);  // REQUIRES: mu_ held

  mutable std::mutex mu_;
  std::condition_variable served_cv_;  // a retry ended
  std::map<Key, std::deque<std::shared_ptr<Waiter>>> waiting_;
  std::deque<Key> ready_;
  bool draining_ = false;
  size_t blocked_ = 0;
};

}  // namespace kvlab::server
