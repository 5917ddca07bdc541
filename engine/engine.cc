#include "engine/engine.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <mutex>

#include "base/memory_value.h"
#include "encodings/migrate.h"
#include "engine/command_context.h"
#include "engine/command_table.h"
#include "engine/hll_commands.h"
#include "engine/hyperloglog.h"
#include "engine/key_access.h"
#include "engine/redis_encoding_params.h"
#include "engine/redis_server_params.h"
#include "engine/session_host.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using backends::CountingStore;
using backends::KvStore;
using backends::OpCounts;
using backends::PhysicalCounters;
using backends::SubtractPhysical;
using encodings::HashEncoding;
using encodings::KeyHandle;
using encodings::KeyMeta;
using encodings::KeyType;
using encodings::KvTxn;
using encodings::ZsetEncoding;
using redis::RedisTier;
using redis::TierCounts;
using redis::TierRole;
using resp::ParseInt64;
using resp::Reply;

namespace {

// Redis's rejectCommandFormat: CR and LF in an error become spaces (the error is one line).
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

// processCommand's text: each argument is quoted with "'%.*s' ", its precision what is left of
// 128 bytes before its opening quote.
std::string UnknownCommandError(const std::vector<std::string>& argv) {
  std::string args;
  for (size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    const size_t room = 128 - args.size();
    args += '\'';
    args += errors::ClientText(argv[i]).substr(0, room);
    args += "' ";
  }
  return "ERR unknown command '" + std::string(errors::ClientText(argv[0]).substr(0, 128)) +
         "', with args beginning with: " + args;
}

std::array<unsigned char, 32> Sha256(std::string_view data) {
  std::array<unsigned char, 32> digest{};
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return digest;
}

// The Redis-tier roles a version keeps state in, from its registry row: the cache for cache
// versions; the store and the cache (members of long refs) for store versions.
std::vector<TierRole> TierRolesOf(encodings::TierUse use) {
  switch (use) {
    case encodings::TierUse::kNone:
      return {};
    case encodings::TierUse::kCache:
      return {TierRole::kCache};
    case encodings::TierUse::kStore:
      return {TierRole::kStore, TierRole::kCache};
  }
  return {};
}

}  // namespace

Engine::Engine(KvStore* store, EngineOptions options)
    : store_(store),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : &system_clock_),
      own_tier_(options_.tier == nullptr ? std::make_unique<RedisTier>(options_.tier_options)
                                         : nullptr),
      tier_(options_.tier != nullptr ? options_.tier : own_tier_.get()),
      meta_cache_(tier_),
      codec_(options_.keys),
      versions_(clock_),
      commands_(CommandTable::Get()),
      registry_(options_.registry != nullptr ? *options_.registry
                                             : encodings::EncodingRegistry::Builtin()),
      proto_max_bulk_len_(options_.proto_max_bulk_len),
      hll_sparse_max_bytes_(hll::kDefaultSparseMaxBytes),
      key_locks_(options_.lock_stripes, options_.large_command_keys),
      cursors_(options_.cursor_limits),
      stats_(new CommandStats[commands_.all().size()]) {
  last_save_s_.store(clock_->NowMillis() / 1000);
  for (const encodings::EncodingSpec& row : registry_.rows()) {
    if (row.tier != encodings::TierUse::kNone && tier_ == nullptr) continue;
    auto& by_id = types_[static_cast<uint8_t>(row.type)].by_id;
    if (by_id.size() <= row.id) by_id.resize(row.id + 1);
    // Only the versions that use the tier are given it (their row says so).
    encodings::EncodingDeps deps;
    if (row.tier != encodings::TierUse::kNone) deps.tier = tier_;
    std::unique_ptr<encodings::TypeEncoding> encoding = row.factory(deps);
    if (row.type == KeyType::kHash && options_.hash_decorator) {
      // The registry makes hash rows' encodings HashEncodings (encoding_table.cc).
      std::unique_ptr<HashEncoding> hash(static_cast<HashEncoding*>(encoding.release()));
      encoding = options_.hash_decorator(std::move(hash));
    }
    by_id[row.id] = std::move(encoding);
  }
  for (const encodings::TypeSpec& type : registry_.types()) {
    auto it = options_.versions.find(type.type);
    types_[static_cast<uint8_t>(type.type)].new_key_version.store(
        it != options_.versions.end() ? it->second : registry_.DefaultVersion(type.type).id);
  }
  migrate_on_write_.store(options_.migrate_on_write);
  RegisterConfig();
}

encodings::KeyMetaCache* Engine::MetaCacheForCommand() {
  return tier_ != nullptr && tier_->meta_cache() ? &meta_cache_ : nullptr;
}

Engine::~Engine() {
  {
    std::lock_guard lock(reconcile_mu_);
    stop_reconciler_ = true;
  }
  reconcile_cv_.notify_all();
  if (reconciler_.joinable()) reconciler_.join();
}

const CommandTable& Engine::commands() const { return commands_; }

void CommandStats::AddTier(const TierCounts& t) {
  if (t.round_trips == 0 && t.degraded == 0) return;
  tier_round_trips.fetch_add(t.round_trips, std::memory_order_relaxed);
  tier_commands.fetch_add(t.commands, std::memory_order_relaxed);
  cache_hits.fetch_add(t.cache_hits, std::memory_order_relaxed);
  cache_misses.fetch_add(t.cache_misses, std::memory_order_relaxed);
  cache_degraded.fetch_add(t.degraded, std::memory_order_relaxed);
}

OpCounts Engine::TotalKvOps() const {
  OpCounts total;
  for (size_t i = 0; i < commands_.all().size(); ++i) total += stats_[i].kv.Snapshot();
  return total;
}

void Engine::ResetStats() {
  for (size_t i = 0; i < commands_.all().size(); ++i) {
    stats_[i].calls.store(0);
    stats_[i].failed_calls.store(0);
    stats_[i].micros.store(0);
    stats_[i].kv.Reset();
    for (auto* c : {&stats_[i].tier_round_trips, &stats_[i].tier_commands, &stats_[i].cache_hits,
                    &stats_[i].cache_misses, &stats_[i].cache_degraded}) {
      c->store(0);
    }
  }
}

Status Engine::CheckTier(encodings::KeyType type, uint8_t version) const {
  const encodings::TypeSpec* t = registry_.FindType(type);
  const encodings::TypeEncoding* e = encoding(type, version);
  if (t == nullptr || e == nullptr) {
    return Status::InvalidArgument("no " + std::string(t ? t->name : "such type") +
                                   " encode-version " + std::to_string(version));
  }
  const encodings::EncodingSpec* row = registry_.Find(type, version);
  const std::string_view name = row->name;
  for (TierRole role : TierRolesOf(row->tier)) {
    Status s = tier_->Probe(role);
    if (!s.ok()) {
      return Status::Unavailable(std::string(t->name) + " encode-version " + std::string(name) +
                                 " needs its Redis tier: " + s.message());
    }
  }
  return Status::OK();
}

Status Engine::CheckTier(std::string_view type, uint8_t version) const {
  const encodings::TypeSpec* t = registry_.FindType(type);
  if (t == nullptr) {
    return Status::InvalidArgument("no " + std::string(type) + " encode-version " +
                                   std::to_string(version));
  }
  return CheckTier(t->type, version);
}

void Engine::RegisterConfig() {
  // The encode-version of new keys of each type, under Camellia's names
  // (kv.hash.key.meta.version) and kvlab's short aliases (hash-encoding), by version name.
  for (const encodings::TypeSpec& type : registry_.types()) {
    EngineConfig::Param p;
    p.name = "kv." + std::string(type.name) + ".key.meta.version";
    p.aliases = {std::string(type.name) + "-encoding"};
    std::atomic<uint8_t>* target = &types_[static_cast<uint8_t>(type.type)].new_key_version;
    const encodings::TypeSpec* t = &type;
    p.get = [this, t, target] {
      return std::string(registry_.Find(t->type, target->load())->name);
    };
    p.validate = [this, t](std::string_view v) {
      const encodings::EncodingSpec* row = nullptr;
      KVLAB_RETURN_IF_ERROR(registry_.ParseVersion(*t, v, &row));
      if (encoding(t->type, row->id) == nullptr) {
        return Status::InvalidArgument(row->DisplayName(*t) +
                                       " needs the Redis tier, which this engine does not have");
      }
      // A tier version whose tier is down would run degraded, silently: refuse it, unless the
      // engine was told to accept that.
      if (!options_.allow_degraded_tier) {
        const Status s = CheckTier(t->type, row->id);
        if (!s.ok()) return Status::InvalidArgument(s.message());
      }
      return Status::OK();
    };
    p.apply = [this, t, target](std::string_view v) {
      target->store(registry_.Find(t->type, v)->id);
    };
    config_.Add(std::move(p));
  }

  // The Redis tier's TTLs and the key-meta cache, under Camellia's names.
  auto millis_param = [this](const char* name, std::atomic<int64_t>* target) {
    EngineConfig::Param p;
    p.name = name;
    p.get = [target] { return std::to_string(target->load()); };
    p.validate = IntegerValidator(1, INT64_MAX / 2);
    p.apply = [target](std::string_view v) { target->store(std::stoll(std::string(v))); };
    config_.Add(std::move(p));
  };
  millis_param("kv.cache.hget.cache.millis", &tier_->hget_ttl_ms);
  millis_param("kv.cache.hgetall.cache.millis", &tier_->hgetall_ttl_ms);
  millis_param("kv.cache.zset.member.cache.millis", &tier_->zset_member_ttl_ms);
  millis_param("kv.cache.zset.range.cache.millis", &tier_->zset_range_ttl_ms);
  millis_param("kv.key.meta.cache.millis", &tier_->meta_cache_ttl_ms);
  millis_param("kv.cache.smembers.cache.millis", &tier_->smembers_ttl_ms);
  {
    EngineConfig::Param p;
    p.name = "kv.key.meta.cache.enable";
    p.get = [this] { return tier_->meta_cache() ? "true" : "false"; };
    p.validate = BoolValidator();
    p.apply = [this](std::string_view v) { tier_->SetMetaCache(BoolValue(v)); };
    config_.Add(std::move(p));
  }
  {
    // NeoKV's reads-fall-back, writes-migrate (docs/engine.md "Migrating keys on write").
    EngineConfig::Param p;
    p.name = "kv.encoding.migrate.on.write";
    p.aliases = {"migrate-on-write"};
    p.get = [this] { return migrate_on_write() ? "true" : "false"; };
    p.validate = BoolValidator();
    p.apply = [this](std::string_view v) { migrate_on_write_.store(BoolValue(v)); };
    config_.Add(std::move(p));
  }

  {
    // proto-max-bulk-len: the longest string a command may build (checkStringLength), the
    // farthest bit offset (getBitOffsetFromArgument) and, in the RESP server, the longest bulk
    // argument. The engine owns it, so that an in-process engine (kvlab conform) honours CONFIG
    // SET as `kvlab serve` does.
    EngineConfig::Param p;
    p.name = "proto-max-bulk-len";
    p.get = [this] { return std::to_string(proto_max_bulk_len()); };
    p.validate = MemoryValidator(1 << 20, INT64_MAX);
    p.apply = [this](std::string_view v) {
      uint64_t bytes = 0;
      ParseMemoryValue(v, &bytes);  // validate accepted it
      set_proto_max_bulk_len(bytes);
    };
    config_.Add(std::move(p));
  }

  {
    // requirepass: the default user's password. Clients connected before it is set stay
    // authenticated, as in Redis.
    EngineConfig::Param p;
    p.name = "requirepass";
    p.get = [this] {
      std::lock_guard lock(requirepass_mu_);
      return requirepass_;
    };
    p.validate = [](std::string_view) { return Status::OK(); };
    p.apply = [this](std::string_view v) {
      std::lock_guard lock(requirepass_mu_);
      requirepass_ = std::string(v);
      auth_required_.store(!requirepass_.empty(), std::memory_order_release);
    };
    config_.Add(std::move(p));
  }

  // rename-command OLD NEW (config files only, as in Redis): "" as NEW disables the command,
  // the way to keep CONFIG, FLUSHALL or SHUTDOWN from clients.
  config_.AddDirective("rename-command", [this](const std::vector<std::string>& args) {
    if (args.size() != 2) {
      return Status::InvalidArgument("rename-command takes a command and its new name");
    }
    return RenameCommand(args[0], args[1]);
  });

  auto fixed = [this](const char* name, std::string value) {
    EngineConfig::Param p;
    p.name = name;
    p.get = [value] { return value; };
    config_.Add(std::move(p));
  };
  fixed("databases", std::to_string(options_.databases));
  fixed("kv.key.namespace.prefix", options_.keys.ns_prefix);
  fixed("kv.key.md5.prefix", options_.keys.md5_prefix ? "yes" : "no");
  fixed("backend", store_->name());
  AddRedisEncodingParams(&config_);
  AddHllParams(&config_, &hll_sparse_max_bytes_);
  AddRedisServerParams(&config_, &memory_limit_);
}

Reply Engine::Execute(Session& session, const std::vector<std::string>& argv, CommandCost* cost) {
  if (argv.empty()) return Reply::Error("ERR empty command");
  const CommandSpec* spec = FindCommand(argv[0]);
  if (spec == nullptr) return Reject(session, nullptr, OneLine(UnknownCommandError(argv)));
  if (!CommandTable::ArityOk(*spec, argv.size())) {
    return Reject(session, spec,
                  "ERR wrong number of arguments for '" + std::string(spec->name) + "' command");
  }
  // lookupSubcommand, then the subcommand's arity: still before authentication, and a queueing
  // error between MULTI and EXEC.
  if (std::string error = CommandTable::SubcommandError(*spec, argv); !error.empty()) {
    return Reject(session, spec, std::move(error));
  }
  // Keys whose zset store write had an unknown outcome are reconciled in the background as soon
  // as the store answers (zset commands on them reconcile them first themselves).
  if (tier_ != nullptr && tier_->has_uncertain()) WakeReconciler();
  // processCommand's order: unknown command and arity first, then authentication.
  // (A client that connected while a password was set runs commands once it is removed, as in
  // Redis, whose check is on the default user's nopass flag.)
  if (!session.authenticated && !(spec->flags & kCmdNoAuth) && AuthRequired()) {
    return Reject(session, spec, "NOAUTH Authentication required.");
  }
  // processCommand's maxmemory check: over the limit, a command that may grow the dataset, an
  // EXEC with one queued, and any command but EXEC, DISCARD and QUIT inside MULTI (queueing
  // takes memory too) are refused. kvlab evicts nothing first (redis_server_params.h).
  if (memory_limit_.limit() != 0) {
    const std::string_view name = spec->name;
    bool deny = (spec->flags & kCmdDenyOom) != 0 ||
                (session.multi.active && name != "exec" && name != "discard" && name != "quit" &&
                 name != "reset");
    if (name == "exec" && session.multi.active) {
      for (const auto& queued : session.multi.queued) {
        deny = deny || (queued.spec->flags & kCmdDenyOom) != 0;
      }
    }
    if (deny && memory_limit_.Exceeded()) {
      return Reject(session, spec, "OOM command not allowed when used memory > 'maxmemory'.");
    }
  }
  if (session.multi.active) {
    if (spec->flags & kCmdNoMulti) {
      return Reject(session, spec, "ERR Command not allowed inside a transaction");
    }
    // Between MULTI and EXEC every command but the transaction's own (and QUIT and RESET,
    // which ends it) is queued.
    const std::string_view name = spec->name;
    if (name != "exec" && name != "discard" && name != "multi" && name != "watch" &&
        name != "quit" && name != "reset") {
      session.multi.queued.push_back({spec, argv});
      return Reply::Status("QUEUED");
    }
  }
  ReadyKeys ready_keys;
  Reply reply = Run(*spec, session, argv, cost, &ready_keys);
  // Outside Run: its key locks are released, so the host may run blocked clients' commands
  // on those keys now.
  TellReady(session, ready_keys);
  return reply;
}

void Engine::TellReady(Session& session, const ReadyKeys& ready) {
  if (session.host == nullptr) return;
  for (size_t i = 0; i < ready.size();) {
    const uint8_t db = ready[i].first;
    std::vector<std::string> keys;
    for (; i < ready.size() && ready[i].first == db; ++i) keys.push_back(ready[i].second);
    session.host->KeysReady(db, keys);
  }
}

Reply Engine::Reject(Session& session, const CommandSpec* spec, std::string error) {
  if (session.multi.active) session.multi.aborted = true;  // flagTransaction
  if (spec != nullptr && spec->name == "exec") {
    // execCommandAbort: the transaction is discarded, and the reason given without "ERR".
    session.multi = {};
    if (session.watch != nullptr) session.watch->Clear();
    if (error.rfind("ERR ", 0) == 0) error.erase(0, 4);
    return Reply::Error("EXECABORT Transaction discarded because of: " + error);
  }
  return Reply::Error(std::move(error));
}

void Engine::WakeReconciler() {
  std::lock_guard lock(reconcile_mu_);
  if (!reconciler_.joinable()) {
    reconciler_ = std::thread([this] {
      std::unique_lock lock(reconcile_mu_);
      while (!stop_reconciler_) {
        if (tier_->has_uncertain()) {
          lock.unlock();
          ReconcileUncertain();
          lock.lock();
          // Again soon while keys remain (the store may still be down).
          reconcile_cv_.wait_for(lock, std::chrono::milliseconds(100),
                                 [this] { return stop_reconciler_; });
        } else {
          reconcile_cv_.wait(lock, [this] { return stop_reconciler_ || reconcile_wanted_; });
        }
        reconcile_wanted_ = false;
      }
    });
  }
  reconcile_wanted_ = true;
  reconcile_cv_.notify_all();
}

void Engine::ReconcileUncertain() {
  for (const auto& [store_key, k] : tier_->Uncertain()) {
    KeyLocks::Guard guard(&key_locks_, LockMode::kExclusive);
    guard.Add(k.db, k.key);
    guard.Lock();
    KvTxn txn(store_, &codec_, &registry_, &versions_, k.db, clock_->NowMillis(),
              MetaCacheForCommand());
    KeyHandle h;
    h.key = k.key;
    bool exists = false;
    if (!txn.GetMeta(k.key, &h.meta, &exists).ok()) return;
    auto* zset = exists && h.meta.type == KeyType::kZset
                     ? static_cast<ZsetEncoding*>(encoding(KeyType::kZset, h.meta.encode_version))
                     : nullptr;
    if (zset == nullptr || h.meta.key_version != k.key_version) {
      tier_->ClearUncertain(store_key);  // deleted or re-created since: nothing to reconcile
      continue;
    }
    if (!zset->Reconcile(txn, &h, true, &exists).ok()) {
      return;  // the store is still unavailable: later
    }
    if (!txn.batch().empty() && !store_->Write(txn.batch()).ok()) return;
  }
}

const CommandSpec* Engine::FindCommand(std::string_view name) const {
  if (!renamed_.empty()) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto it = renamed_.find(lower);
    if (it != renamed_.end()) return it->second;
  }
  return commands_.Find(name);
}

Status Engine::RenameCommand(std::string_view from, std::string_view to) {
  const CommandSpec* spec = FindCommand(from);
  if (spec == nullptr) {
    return Status::InvalidArgument("rename-command: no command named '" + std::string(from) + "'");
  }
  std::string lower_to(to);
  for (char& c : lower_to) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!lower_to.empty() && FindCommand(lower_to) != nullptr) {
    return Status::InvalidArgument("rename-command: a command named '" + std::string(to) +
                                   "' exists already");
  }
  std::string lower_from(from);
  for (char& c : lower_from) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  renamed_[lower_from] = nullptr;
  if (!lower_to.empty()) renamed_[lower_to] = spec;
  return Status::OK();
}

bool Engine::AuthRequired() const { return auth_required_.load(std::memory_order_acquire); }

bool Engine::CheckPassword(std::string_view password) const {
  std::string expected;
  {
    std::lock_guard lock(requirepass_mu_);
    expected = requirepass_;
  }
  // Compare digests, so that the time taken says nothing about how much of the password
  // matched (Redis compares SHA-256 digests for the same reason).
  return Sha256(password) == Sha256(expected);
}

Reply Engine::Run(const CommandSpec& spec, Session& session, const std::vector<std::string>& argv,
                  CommandCost* cost, ReadyKeys* ready_keys) {
  // Serialize against commands on the same keys (engine/key_locks.h): read-only commands share
  // their keys, writers hold them alone. A command on a whole database (FLUSHDB, FLUSHALL)
  // locks everything, so that no keyed command interleaves with it; they are rare, and every
  // other command is spared a keyspace-wide reader lock.
  KeyLocks::Guard key_guard(&key_locks_,
                            OnlyReadsKeys(spec) ? LockMode::kShared : LockMode::kExclusive);
  // So does a command that reads keys no argument names (SORT BY/GET patterns): key_access.h.
  if ((spec.flags & kCmdKeyspaceExclusive) || ReadsUnnamedKeys(spec, argv)) {
    key_guard.LockEverything();
  } else {
    // The key specs find the keys (numkeys and STORE destinations included). When argv does
    // not let them be found (a bad numkeys), no key is locked: the handler replies the error
    // before it touches any key.
    std::vector<std::pair<uint8_t, std::string_view>> keys;
    CommandTable::KeysToLock(spec, argv, session.db, options_.databases, &keys);
    for (const auto& [db, key] : keys) key_guard.Add(db, key);
    key_guard.Lock();
  }
  return RunLocked(spec, session, argv, cost, ready_keys);
}

Reply Engine::RunLocked(const CommandSpec& spec, Session& session,
                        const std::vector<std::string>& argv, CommandCost* cost,
                        ReadyKeys* ready_keys, ExecWrite* exec) {
  const auto start = std::chrono::steady_clock::now();
  OpCounts ops;  // this command's KV operations (one thread: no atomics needed)
  // Inside EXEC the command reads and writes through the transaction's overlay; its counts are
  // those it would have alone (a write to the overlay counts as the write it stands for).
  CountingStore counting(exec != nullptr ? static_cast<KvStore*>(&exec->pending) : store_, &ops);
  PhysicalCounters physical_before;
  if (cost != nullptr && cost->want_physical) physical_before = store_->ReadPhysicalCounters();

  // FLUSHDB and FLUSHALL modify the watched keys that are live before them.
  std::vector<std::pair<uint8_t, std::string>> flushed_watched;
  // (SWAPDB touches the watches of its two databases itself.)
  if ((spec.flags & kCmdKeyspaceExclusive) && spec.name != "swapdb" && watched_keys_->active()) {
    flushed_watched = LiveWatchedKeys(spec, session, &counting);
  }

  KvTxn txn(&counting, &codec_, &registry_, &versions_, session.db, clock_->NowMillis(),
            MetaCacheForCommand());
  // What zset v3 must write before its store write reaches the store at once, even inside EXEC
  // or a pipeline group (KvTxn::WriteNow), counted as the command's.
  // Inside EXEC or a group: the store under the overlay (RunAsOneWrite's KeptReadsStore, which
  // must see every write to forget the reads it keeps of them).
  CountingStore durable(exec != nullptr ? exec->pending.target() : store_, &ops);
  if (exec != nullptr) txn.set_durable_store(&durable);
  CommandContext ctx(this, &session, &argv, &txn);
  if (migrate_on_write() && !OnlyReadsKeys(spec)) {
    ctx.MigrateOnLoad(CommandTable::WrittenKeys(spec, argv));
  }
  spec.handler(ctx);
  // An error reply writes nothing (unless the handler kept its writes, KeepWritesOnError);
  // otherwise the command's writes land as one atomic batch, and then its Redis-tier writes
  // that must follow the KV commit.
  if (!ctx.reply.is_error() || ctx.keeps_writes_on_error()) {
    Status write = txn.batch().empty() ? Status::OK() : counting.Write(txn.batch());
    // Inside EXEC, a command that talked to the Redis tier commits the transaction's overlay
    // now: its cache updates and the zset store's reconciliation must follow a durable write,
    // and the commands after it must not read through a cache what KV does not hold yet.
    if (write.ok() && exec != nullptr &&
        (txn.tier_counts().round_trips > 0 || !txn.after_commit().empty() ||
         !txn.on_commit_failure().empty())) {
      exec->committed = true;
      exec->commit_status = write = exec->pending.Commit();
    }
    const bool committed = ctx.Check(write);
    if (!committed && !txn.on_commit_failure().empty()) {
      for (auto& step : txn.on_commit_failure()) step();
      ctx.ReplyError(ctx.reply.str() +
                     "; the zset store has applied the command, and kvlab reconciles the key "
                     "before its next use");
    }
    // Writes kept with an error reply also get their post-commit steps (the key-meta cache's
    // update), so that no cache keeps the value they replaced.
    if (committed && (!ctx.reply.is_error() || ctx.keeps_writes_on_error())) {
      for (auto& step : txn.after_commit()) ctx.Check(step());
    }
    if (!ctx.reply.is_error()) ready_keys->swap(ctx.ready_keys());
  }
  // WATCH: what the command changed, reported while its keys are still locked.
  if (watched_keys_->active() && !OnlyReadsKeys(spec) &&
      (!ctx.reply.is_error() || !txn.on_commit_failure().empty() ||
       ctx.touches_watchers_on_error())) {
    TouchWritten(spec, session, argv, txn, ctx.migration_records());
    if (!ctx.reply.is_error()) {
      for (const auto& [db, key] : flushed_watched) watched_keys_->Touch(db, key);
    }
  }

  if (cost != nullptr) {
    // EXEC's own cost is nil; its caller is given its queued commands' too (each of which is
    // accounted to its own command's statistics).
    cost->kv = ops;
    cost->kv += ctx.nested_kv;
    cost->tier = txn.tier_counts();
    cost->tier += ctx.nested_tier;
    if (cost->want_physical) {
      cost->physical = SubtractPhysical(store_->ReadPhysicalCounters(), physical_before);
    }
  }
  CommandStats& stats = stats_[commands_.IndexOf(spec)];
  stats.calls.fetch_add(1, std::memory_order_relaxed);
  if (ctx.reply.is_error()) stats.failed_calls.fetch_add(1, std::memory_order_relaxed);
  stats.kv.Add(ops);
  stats.AddTier(txn.tier_counts());
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  stats.micros.fetch_add(static_cast<uint64_t>(micros), std::memory_order_relaxed);
  // Redis formats every error that quotes a client's bytes onto one line (addReplyErrorFormat,
  // rejectCommandFormat); an error with CR or LF would also break RESP.
  if (ctx.reply.is_error()) return Reply::Error(OneLine(ctx.reply.str()));
  return std::move(ctx.reply);
}

// CommandContext -------------------------------------------------------------------------------

KvTxn& CommandContext::TxnIn(uint8_t db) {
  if (db == txn_->db()) return *txn_;
  for (auto& view : views_) {
    if (view->db() == db) return *view;
  }
  views_.push_back(txn_->NewView(db));
  return *views_.back();
}

bool CommandContext::Check(const Status& s) {
  if (s.ok()) return true;
  if (s.IsInvalidArgument()) {
    ReplyError("ERR " + s.message());
  } else {
    ReplyError(errors::StorageError(s));
  }
  return false;
}

bool CommandContext::Load(std::string_view key, KeyType type, KeyHandle* h, bool* exists) {
  return LoadOneOf(key, {type}, h, exists);
}

bool CommandContext::PrepareOverwrite(std::string_view key, bool* existed,
                                      const std::optional<KeyMeta>* preloaded, KvTxn* in) {
  KvTxn& txn = in != nullptr ? *in : *txn_;
  KeyMeta meta;
  // A key this command migrated (a source that is also the destination) is the key the
  // migration wrote, not the meta read before it: its OnDelete must be the new version's (an
  // Ardb key's records must go with it).
  const bool migrated =
      in == nullptr && std::find(migrated_.begin(), migrated_.end(), key) != migrated_.end();
  if (preloaded != nullptr && !migrated) {
    *existed = preloaded->has_value();
    if (*existed) meta = **preloaded;
  } else if (!Check(txn.GetMeta(key, &meta, existed))) {
    return false;
  }
  if (!*existed || meta.type == KeyType::kString) return true;
  if (engine_->encoding(meta.type, meta.encode_version) == nullptr) {
    ReplyError("ERR key '" + OneLine(std::string(key)) + "' uses encode-version " +
               std::to_string(meta.encode_version) + ", which this engine cannot run");
    return false;
  }
  const KeyHandle h{key, meta, false};
  return Check(Encoding(meta).OnDelete(txn, h));
}

bool CommandContext::LoadOneOf(std::string_view key, std::initializer_list<KeyType> types,
                               KeyHandle* h, bool* exists,
                               const std::optional<KeyMeta>* preloaded) {
  return LoadChecked(key, &types, h, exists, preloaded);
}

bool CommandContext::LoadAny(std::string_view key, KeyHandle* h, bool* exists,
                             const std::optional<KeyMeta>* preloaded) {
  return LoadChecked(key, nullptr, h, exists, preloaded);
}

bool CommandContext::LoadChecked(std::string_view key, const std::initializer_list<KeyType>* types,
                                 KeyHandle* h, bool* exists,
                                 const std::optional<KeyMeta>* preloaded) {
  h->key = key;
  h->is_new = false;
  if (preloaded != nullptr) {
    *exists = preloaded->has_value();
    if (*exists) h->meta = **preloaded;
  } else if (!Check(txn_->GetMeta(key, &h->meta, exists))) {
    return false;
  }
  if (*exists && types != nullptr &&
      std::find(types->begin(), types->end(), h->meta.type) == types->end()) {
    ReplyError(errors::kWrongType);
    return false;
  }
  const KeyType type = h->meta.type;
  if (*exists && type != KeyType::kString &&
      engine_->encoding(type, h->meta.encode_version) == nullptr) {
    ReplyError("ERR key '" + OneLine(std::string(key)) + "' uses encode-version " +
               std::to_string(h->meta.encode_version) + ", which this engine cannot run");
    return false;
  }
  // A zset whose store write had an unknown outcome, whose meta holds a store-write intent (a
  // process stopped between the store write and its KV commit), or whose meta predates its
  // count: make KV agree with the store before the command reads either (one atomic load when
  // none is).
  if (*exists && type == KeyType::kZset && engine_->tier() != nullptr) {
    const bool uncertain = engine_->tier()->IsUncertain(
        redis::TierKeyPrefix(txn_->codec().Namespace(txn_->db()), h->key, h->meta.key_version));
    if (uncertain || !h->meta.count_known || h->meta.intent_count) {
      if (!Check(Zset(h->meta).Reconcile(*txn_, h, uncertain, exists))) return false;
    }
  }
  // Writes migrate: a key loaded for its type. (LoadAny is RENAME's and COPY's: they carry a key
  // over as it is.)
  if (*exists && types != nullptr) return MigrateIfWritten(h, exists);
  return true;
}

bool CommandContext::MigrateIfWritten(KeyHandle* h, bool* exists) {
  if (migrate_keys_.empty() || h->meta.type == KeyType::kString ||
      h->meta.encode_version == engine_->new_key_version(h->meta.type) ||
      std::find(migrate_keys_.begin(), migrate_keys_.end(), h->key) == migrate_keys_.end()) {
    return true;
  }
  if (std::find(migrated_.begin(), migrated_.end(), h->key) != migrated_.end()) {
    // A meta read before this command migrated the key (SMOVE s s reads both in one multiget):
    // the key is the one the migration wrote.
    h->created = true;
    return Check(txn_->GetMeta(h->key, &h->meta, exists));
  }
  encodings::TypeEncoding* to =
      engine_->encoding(h->meta.type, engine_->new_key_version(h->meta.type));
  const size_t first_record = txn_->batch().size();
  if (!Check(encodings::MigrateKey(*txn_, Encoding(h->meta), *to, h))) return false;
  migration_records_.emplace_back(first_record, txn_->batch().size());
  migrated_.push_back(h->key);
  return true;
}

bool CommandContext::LoadOrCreate(std::string_view key, KeyType type, KeyHandle* h) {
  bool exists = false;
  if (!Load(key, type, h, &exists)) return false;
  if (!exists) {
    h->meta = txn_->NewMeta(type, engine_->new_key_version(type));
    h->is_new = true;
  }
  return true;
}

encodings::TypeEncoding& CommandContext::Encoding(const KeyMeta& meta) {
  return *engine_->encoding(meta.type, meta.encode_version);
}

HashEncoding& CommandContext::Hash(const KeyMeta& meta) {
  return static_cast<HashEncoding&>(Encoding(meta));
}

ZsetEncoding& CommandContext::Zset(const KeyMeta& meta) {
  return static_cast<ZsetEncoding&>(Encoding(meta));
}

encodings::ListEncoding& CommandContext::List(const KeyMeta& meta) {
  return static_cast<encodings::ListEncoding&>(Encoding(meta));
}

encodings::SetEncoding& CommandContext::Set(const KeyMeta& meta) {
  return static_cast<encodings::SetEncoding&>(Encoding(meta));
}

bool CommandContext::ArgInt64(size_t i, int64_t* out) {
  if (ParseInt64(arg(i), out)) return true;
  ReplyError(errors::kNotInteger);
  return false;
}

}  // namespace kvlab::engine
