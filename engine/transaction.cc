// MULTI, EXEC, DISCARD, WATCH and UNWATCH, as Redis 7.0 (multi.c), and what the engine does for
// them: queueing happens in Engine::Execute (the session's Multi), EXEC here. Also the group
// commit of pipelined writes (Engine::ExecuteGroup), which runs its commands as EXEC does.
//
// EXEC runs the queued commands as one isolated unit: it locks every key of every queued
// command (their key specs find them; a SELECT inside the transaction moves the later ones to
// its database) for the whole run, exclusively when one of them writes, and everything when one
// is FLUSHDB or FLUSHALL. No other client sees a state between two of them. Each queued command
// then runs as it would alone (Engine::RunLocked): its own KvTxn, its own CountingStore, its
// own statistics; but its batch joins the transaction's pending write (a read-your-writes
// overlay, backends/pending_write_store.h), committed as one atomic write at the end, or earlier
// by a command that talks to the Redis tier. What that makes atomic per encode-version is in
// docs/engine.md ("Transactions").
#include <algorithm>
#include <optional>

#include "backends/kept_reads_store.h"
#include "engine/command_context.h"
#include "engine/command_table.h"
#include "engine/handlers.h"
#include "engine/key_access.h"
#include "engine/session_host.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using backends::KvStore;
using backends::WriteBatch;
using encodings::KeyMeta;
using encodings::KvTxn;
using encodings::SubKeyTag;
using resp::Reply;

namespace {

// The transaction ends: nothing queued, no key watched (discardTransaction).
void EndTransaction(Session& session) {
  session.multi = {};
  if (session.watch != nullptr) session.watch->Clear();
}

}  // namespace

void MultiCommand(CommandContext& ctx) {
  Session& session = ctx.session();
  if (session.multi.active) {
    ctx.ReplyError("ERR MULTI calls can not be nested");
    return;
  }
  session.multi = {};
  session.multi.active = true;
  ctx.reply = Reply::Ok();
}

void DiscardCommand(CommandContext& ctx) {
  Session& session = ctx.session();
  if (!session.multi.active) {
    ctx.ReplyError("ERR DISCARD without MULTI");
    return;
  }
  EndTransaction(session);
  ctx.reply = Reply::Ok();
}

void ExecCommand(CommandContext& ctx) {
  Session& session = ctx.session();
  if (!session.multi.active) {
    ctx.ReplyError("ERR EXEC without MULTI");
    return;
  }
  if (session.multi.aborted) {
    EndTransaction(session);
    ctx.ReplyError("EXECABORT Transaction discarded because of previous errors.");
    return;
  }
  ctx.engine().ExecTransaction(ctx);
}

void WatchCommand(CommandContext& ctx) {
  Session& session = ctx.session();
  if (session.multi.active) {
    ctx.ReplyError("ERR WATCH inside MULTI is not allowed");
    return;
  }
  // The metas say which keys are live and when they expire (one MultiGet): a key watched live
  // that expires before EXEC counts as modified, as in Redis 7.0.
  std::vector<std::string_view> keys;
  for (size_t i = 1; i < ctx.argc(); ++i) keys.push_back(ctx.arg(i));
  std::vector<std::optional<KeyMeta>> metas;
  if (!ctx.Check(ctx.txn().GetMetas(keys, &metas))) return;
  if (session.watch == nullptr) session.watch = ctx.engine().watched_keys().NewWatcher();
  for (size_t i = 0; i < keys.size(); ++i) {
    const int64_t expire_ms =
        metas[i].has_value() && metas[i]->has_expire() ? metas[i]->expire_ms : -1;
    session.watch->Add(session.db, keys[i], expire_ms);
  }
  ctx.reply = Reply::Ok();
}

void UnwatchCommand(CommandContext& ctx) {
  if (ctx.session().watch != nullptr) ctx.session().watch->Clear();
  ctx.reply = Reply::Ok();
}

void Engine::ExecTransaction(CommandContext& ctx) {
  Session& session = ctx.session();
  std::vector<Session::QueuedCommand> queued = std::move(session.multi.queued);
  session.multi = {};

  // Every key of every queued command, in the database it will run in.
  bool writes = false;
  bool everything = false;
  std::vector<std::pair<uint8_t, std::string_view>> keys;
  uint8_t db = session.db;
  for (const Session::QueuedCommand& q : queued) {
    if (!OnlyReadsKeys(*q.spec)) writes = true;
    if ((q.spec->flags & kCmdKeyspaceExclusive) || ReadsUnnamedKeys(*q.spec, q.argv)) {
      everything = true;
    }
    CommandTable::KeysToLock(*q.spec, q.argv, db, options_.databases, &keys);
    int64_t index = 0;
    if (q.spec->name == "select" && resp::ParseInt64(q.argv[1], &index) && index >= 0 &&
        index < options_.databases) {
      db = static_cast<uint8_t>(index);
    }
  }

  ReadyKeys ready;
  {
    KeyLocks::Guard guard(&key_locks_, writes ? LockMode::kExclusive : LockMode::kShared);
    if (everything) {
      guard.LockEverything();
    } else {
      for (const auto& [d, key] : keys) guard.Add(d, key);
      guard.Lock();
    }
    // Checked under the locks: a write to a watched key that is also a queued command's key
    // has either touched it already or waits for this EXEC.
    const bool modified = session.watch != nullptr && session.watch->Modified(clock_->NowMillis());
    if (session.watch != nullptr) session.watch->Clear();
    if (modified) {
      ctx.reply = Reply::NilArray();
      return;
    }
    std::vector<LockedCommand> commands;
    commands.reserve(queued.size());
    for (const Session::QueuedCommand& q : queued) commands.push_back({q.spec, &q.argv});
    session.deny_blocking = true;
    std::vector<Reply> replies;
    replies.reserve(commands.size());
    RunAsOneWrite(session, commands, /*read_your_writes_from=*/0, &replies, &ready, &ctx.nested_kv,
                  &ctx.nested_tier);
    session.deny_blocking = false;
    ctx.reply = Reply::Array(std::move(replies));
  }
  // The locks are released: blocked clients may now be served from what the commands added.
  TellReady(session, ready);
}

bool Engine::Groupable(const Session& session, const std::vector<std::string>& argv) const {
  // What runs alone: a command that is not a plain keyed write (it may change the session, wait
  // for a key, lock everything, or take key locks itself), and whatever Execute would reject or
  // queue (the group has no path for either).
  constexpr uint32_t kRunsAlone = kCmdKeyspaceExclusive | kCmdBlocking | kCmdNoMulti |
                                  kCmdAboutServer | kCmdConnection | kCmdAdmin | kCmdNoKeys |
                                  kCmdContainer | kCmdRemote;
  if (argv.empty() || session.multi.active) return false;
  const CommandSpec* spec = FindCommand(argv[0]);
  if (spec == nullptr || !(spec->flags & kCmdWrite) || (spec->flags & kRunsAlone) != 0 ||
      !CommandTable::ArityOk(*spec, argv.size()) || ReadsUnnamedKeys(*spec, argv)) {
    return false;
  }
  return session.authenticated || !AuthRequired();
}

std::vector<Reply> Engine::ExecuteGroup(Session& session,
                                        std::span<const std::vector<std::string>> commands) {
  if (tier_ != nullptr && tier_->has_uncertain()) WakeReconciler();
  std::vector<LockedCommand> locked;
  locked.reserve(commands.size());
  std::vector<std::pair<uint8_t, std::string_view>> keys;
  std::vector<size_t> keys_end;  // command i's keys are keys[keys_end[i-1], keys_end[i])
  keys_end.reserve(commands.size());
  for (const std::vector<std::string>& argv : commands) {
    const CommandSpec* spec = FindCommand(argv[0]);
    locked.push_back({spec, &argv});
    CommandTable::KeysToLock(*spec, argv, session.db, options_.databases, &keys);
    keys_end.push_back(keys.size());
  }
  ReadyKeys ready;
  std::vector<Reply> replies;
  replies.reserve(commands.size());
  {
    // One guard for the union of the keys: its stripes are taken in ascending order, so two
    // groups, or a group and a multi-key command, cannot deadlock.
    KeyLocks::Guard guard(&key_locks_, LockMode::kExclusive);
    for (const auto& [db, key] : keys) guard.Add(db, key);
    guard.Lock();
    RunGroupLocked(session, locked, keys, keys_end, &replies, &ready);
  }
  // The locks are released: blocked clients may now be served from what the commands added.
  TellReady(session, ready);
  return replies;
}

void Engine::RunGroupLocked(Session& session, const std::vector<LockedCommand>& locked,
                            const std::vector<std::pair<uint8_t, std::string_view>>& keys,
                            const std::vector<size_t>& keys_end, std::vector<Reply>* replies,
                            ReadyKeys* ready) {
  // Until a command names a key an earlier one names, no command reads what another wrote, and
  // the writes need only be gathered; from that command on, reads see the pending writes.
  // (Key hashes: a collision only turns read-your-writes on early.)
  size_t read_your_writes_from = locked.size();
  std::vector<uint64_t> seen;
  for (size_t i = 0; i < locked.size() && read_your_writes_from == locked.size(); ++i) {
    const size_t first = seen.size();
    for (size_t k = i == 0 ? 0 : keys_end[i - 1]; k < keys_end[i]; ++k) {
      const uint64_t h = KeyLocks::KeyHash(keys[k].first, keys[k].second);
      if (std::find(seen.begin(), seen.begin() + static_cast<ptrdiff_t>(first), h) !=
          seen.begin() + static_cast<ptrdiff_t>(first)) {
        read_your_writes_from = i;
        break;
      }
      seen.push_back(h);
    }
  }
  backends::OpCounts kv;  // each command accounts its own to its statistics
  redis::TierCounts tier;
  RunAsOneWrite(session, locked, read_your_writes_from, replies, ready, &kv, &tier);
  group_commits_.fetch_add(1, std::memory_order_relaxed);
  group_commit_commands_.fetch_add(locked.size(), std::memory_order_relaxed);
}

void Engine::RunAsOneWrite(Session& session, std::span<const LockedCommand> commands,
                           size_t read_your_writes_from, std::vector<Reply>* replies,
                           ReadyKeys* ready, backends::OpCounts* kv, redis::TierCounts* tier) {
  // The commands' writes gather in one overlay and land as one atomic write at the end. A
  // command that talks to the Redis tier commits what is pending at its boundary (RunLocked):
  // the whole is then one atomic write per stretch between such commands.
  // Under the overlay, the reads of the commands that share a key with another one of them are
  // kept for the others (backends/kept_reads_store.h): sixteen pipelined HSETs of one hash read
  // its key-meta from the store once. The other commands' reads name records no other command
  // reads, and keeping them would only cost a copy. Keys are told apart by name alone (a SELECT
  // inside EXEC may move a command to another database): a false match only keeps more.
  std::vector<char> keep(commands.size(), 0);
  {
    std::vector<std::pair<std::string_view, size_t>> owners;  // (key, command)
    std::vector<std::pair<uint8_t, std::string_view>> keys;
    for (size_t i = 0; i < commands.size(); ++i) {
      keys.clear();
      CommandTable::KeysToLock(*commands[i].spec, *commands[i].argv, session.db, options_.databases,
                               &keys);
      for (const auto& [db, key] : keys) owners.emplace_back(key, i);
    }
    std::sort(owners.begin(), owners.end());
    for (size_t j = 1; j < owners.size(); ++j) {
      if (owners[j].first == owners[j - 1].first && owners[j].second != owners[j - 1].second) {
        keep[owners[j].second] = keep[owners[j - 1].second] = 1;
      }
    }
  }
  backends::KeptReadsStore kept(store_);
  ExecWrite exec(&kept, read_your_writes_from == 0);
  size_t stretch_begin = replies->size();  // the first command whose writes are pending
  ReadyKeys stretch_ready;
  // A stretch whose commit failed: its commands' replies, computed over writes that did not
  // land, become the storage error (a write that fails leaves the store as it was).
  auto end_stretch = [&](size_t end, const Status& commit) {
    if (commit.ok()) {
      for (auto& r : stretch_ready) ready->push_back(std::move(r));
    } else {
      for (size_t i = stretch_begin; i < end; ++i) {
        (*replies)[i] = Reply::Error(errors::StorageError(commit));
      }
    }
    stretch_ready.clear();
    stretch_begin = end;
  };
  for (size_t i = 0; i < commands.size(); ++i) {
    const LockedCommand& c = commands[i];
    if (i == read_your_writes_from) exec.pending.StartReadingYourWrites();
    kept.Keep(keep[i] != 0);
    CommandCost cost;
    ReadyKeys ready_keys;
    exec.committed = false;
    replies->push_back(RunLocked(*c.spec, session, *c.argv, &cost, &ready_keys, &exec));
    *kv += cost.kv;
    *tier += cost.tier;
    for (auto& r : ready_keys) stretch_ready.push_back(std::move(r));
    if (exec.committed) {
      // The command itself replied its commit's error; the earlier ones of the stretch get it.
      const size_t self = replies->size() - 1;
      Reply own = std::move((*replies)[self]);
      end_stretch(self, exec.commit_status);
      (*replies)[self] = std::move(own);
      stretch_begin = replies->size();
    }
  }
  end_stretch(replies->size(), exec.pending.Commit());
}

void Engine::TouchWritten(const CommandSpec& spec, const Session& session,
                          const std::vector<std::string>& argv, KvTxn& txn,
                          const std::vector<std::pair<size_t, size_t>>& skip) {
  // The keys of the records the command wrote: a key-meta, a sub-key of any kind (every kind
  // but Ardb's uses the sub-key layout, key_codec.h), or an Ardb-layout record ("a#": an Ardb
  // hash's HSET of an existing field writes that record alone). A record of another database
  // is decoded with each database in turn.
  auto decode = [&](const std::string& record, uint8_t db, std::string* key) {
    if (codec_.DecodeMetaKey(db, record, key)) return true;
    if (record.size() > 2 && record[0] == 'a' && record[1] == '#') {
      return codec_.DecodeArdbKey(db, record, key);
    }
    uint64_t version = 0;
    size_t prefix = 0;
    return record.size() > 2 && record[1] == '#' &&
           codec_.DecodeSubKey(static_cast<SubKeyTag>(record[0]), db, record, key, &version,
                               &prefix);
  };
  std::optional<std::string> last;  // consecutive records of one key touch it once
  const std::vector<WriteBatch::Record>& records = txn.batch().records();
  for (size_t i = 0; i < records.size(); ++i) {
    const WriteBatch::Record& r = records[i];
    if (r.op == WriteBatch::Op::kDeleteRange) continue;  // FLUSHDB/FLUSHALL: LiveWatchedKeys
    // A TTL index entry goes with a write of its key's meta, in this batch.
    if (r.key.starts_with("t#")) continue;
    if (std::any_of(skip.begin(), skip.end(),
                    [i](const auto& range) { return i >= range.first && i < range.second; })) {
      continue;  // a migration's record: the key's value is unchanged
    }
    std::string key;
    if (decode(r.key, session.db, &key)) {
      if (key != last) watched_keys_->Touch(session.db, key);
      last = std::move(key);
      continue;
    }
    for (int d = 0; d < options_.databases; ++d) {
      if (d != session.db && decode(r.key, static_cast<uint8_t>(d), &key)) {
        watched_keys_->Touch(static_cast<uint8_t>(d), key);
        break;
      }
    }
  }
  // Data the Redis tier holds and KV does not (zset v3's store) changes without a KV record:
  // a write that changed the store touches the keys it may write (its key specs that are not
  // read-only: ZUNIONSTORE's destination, not its sources). Every store write that applied
  // queues the key's reconciliation for a failed commit (OnCommitFailure), which tells them
  // apart from the cache reads and refills of a write that changed nothing (HSETNX of an
  // existing field on hash v2: Redis leaves a WATCH on it untouched).
  if (!txn.on_commit_failure().empty()) {
    for (std::string_view key : CommandTable::WrittenKeys(spec, argv)) {
      watched_keys_->Touch(session.db, key);
    }
  }
}

std::vector<std::pair<uint8_t, std::string>> Engine::LiveWatchedKeys(const CommandSpec& spec,
                                                                     const Session& session,
                                                                     KvStore* store) {
  std::vector<std::pair<uint8_t, std::string>> live;
  for (auto& [db, key] : watched_keys_->WatchedIn(spec.name == "flushall" ? -1 : session.db)) {
    KvTxn txn(store, &codec_, &registry_, &versions_, db, clock_->NowMillis(), nullptr);
    KeyMeta meta;
    bool exists = false;
    // A key that cannot be read is counted as modified: a spurious abort, never a missed one.
    if (!txn.GetMeta(key, &meta, &exists).ok() || exists) live.emplace_back(db, std::move(key));
  }
  return live;
}

}  // namespace kvlab::engine
