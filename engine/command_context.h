// CommandContext: what a command handler sees. It parses its arguments from argv, works on keys
// through the helpers below and the encodings, and leaves its answer in `reply`.
//
// A handler that replies with an error must not have queued writes it wants kept: the engine
// discards the batch of a command that replies with an error.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "encodings/kv_txn.h"
#include "encodings/list_encoding.h"
#include "engine/engine.h"
#include "resp/reply.h"

namespace kvlab::engine {

// Redis's error texts, shared by the handlers.
namespace errors {
inline constexpr const char* kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr const char* kSyntax = "ERR syntax error";
inline constexpr const char* kNotInteger = "ERR value is not an integer or out of range";
inline constexpr const char* kNotFloat = "ERR value is not a valid float";
inline constexpr const char* kOutOfRangePositive = "ERR value is out of range, must be positive";

// A client's bytes as Redis's "%s" quotes them in an error: a C string, so up to the first NUL.
// (CR and LF become spaces for every error, in Engine::Run.)
inline std::string_view ClientText(std::string_view s) { return s.substr(0, s.find('\0')); }

// What a command replies when a store call failed (CommandContext::Check), on one line. A full
// disk (NoSpace: the disk-space guard's refusal, docs/engine.md "A full disk") is a MISCONF
// error, as Redis answers a write it cannot persist ("MISCONF Errors writing to the AOF file: No
// space left on device"), so that a client tells it from a failure by its prefix; the message
// says why ("disk full: ...").
inline std::string StorageError(const Status& s) {
  std::string text =
      s.IsNoSpace() ? "MISCONF " + s.message() : "ERR storage error: " + s.ToString();
  for (char& c : text) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return text;
}
}  // namespace errors

class CommandContext {
 public:
  CommandContext(Engine* engine, Session* session, const std::vector<std::string>* argv,
                 encodings::KvTxn* txn)
      : engine_(engine), session_(session), argv_(argv), txn_(txn) {}

  const std::vector<std::string>& argv() const { return *argv_; }
  const std::string& arg(size_t i) const { return (*argv_)[i]; }
  size_t argc() const { return argv_->size(); }
  Session& session() { return *session_; }
  encodings::KvTxn& txn() { return *txn_; }
  Engine& engine() { return *engine_; }

  resp::Reply reply;
  void ReplyError(std::string text) { reply = resp::Reply::Error(std::move(text)); }
  // Turns a failed Status into an error reply. Returns false when it did.
  bool Check(const Status& s);
  // An error reply writes nothing (Engine::Run), unless the handler calls this before it
  // replies: its writes then land with the error, as a Redis command that changed its value in
  // place before it failed (PFADD on a corrupted HLL), or that deleted what another server has
  // acknowledged before the transfer failed (MIGRATE). WATCH is told only with touch_watchers,
  // as Redis signals MIGRATE's deleted keys and not PFADD's key on that error.
  void KeepWritesOnError(bool touch_watchers = false) {
    keep_writes_on_error_ = true;
    touch_watchers_on_error_ = touch_watchers;
  }
  bool keeps_writes_on_error() const { return keep_writes_on_error_; }
  bool touches_watchers_on_error() const { return touch_watchers_on_error_; }

  // Loads `key` for a command on `type`. Returns false after setting the reply when the
  // command must stop: WRONGTYPE, or a storage error. Otherwise *exists says whether the key
  // is live (absent and expired keys are not), and h holds its meta.
  bool Load(std::string_view key, encodings::KeyType type, encodings::KeyHandle* h, bool* exists);
  // Load for a key that may hold any of `types` (the zset algebra's sources: zsets and sets):
  // WRONGTYPE when it holds another type. With `preloaded`, the key-meta the command already
  // read for key (KvTxn::GetMetas: one multiget for many keys) instead of a read.
  bool LoadOneOf(std::string_view key, std::initializer_list<encodings::KeyType> types,
                 encodings::KeyHandle* h, bool* exists,
                 const std::optional<encodings::KeyMeta>* preloaded = nullptr);
  // Load for a key of any type (RENAME, COPY): checks only that the engine runs its
  // encode-version, and reconciles a zset v3 key as Load does. `preloaded` as for LoadOneOf.
  bool LoadAny(std::string_view key, encodings::KeyHandle* h, bool* exists,
               const std::optional<encodings::KeyMeta>* preloaded = nullptr);
  // Prepares `key` to be replaced by a new value of any type (the STORE forms): when it holds
  // a live key, tells its encoding it goes (zset v3's store drops the old zset after the
  // commit). The caller then writes the new meta, or deletes the key. Returns false after
  // setting an error reply. *existed says whether the key was live.
  // `in` is the transaction of the key's database: null for the session's (txn()), or txn()'s
  // view of another database (KvTxn::NewView: COPY ... DB n).
  bool PrepareOverwrite(std::string_view key, bool* existed,
                        const std::optional<encodings::KeyMeta>* preloaded = nullptr,
                        encodings::KvTxn* in = nullptr);
  // Load, then, for an absent key, a new handle with the configured encode-version.
  bool LoadOrCreate(std::string_view key, encodings::KeyType type, encodings::KeyHandle* h);

  // The encoding a key's meta names (Load checked that the engine runs it). Hash, Zset, List and
  // Set REQUIRE the meta's type to be theirs.
  encodings::TypeEncoding& Encoding(const encodings::KeyMeta& meta);
  encodings::HashEncoding& Hash(const encodings::KeyMeta& meta);
  encodings::ZsetEncoding& Zset(const encodings::KeyMeta& meta);
  encodings::ListEncoding& List(const encodings::KeyMeta& meta);
  encodings::SetEncoding& Set(const encodings::KeyMeta& meta);

  // With migration on (Engine::migrate_on_write), the keys a write command writes (set by the
  // engine before the handler runs): Load, LoadOneOf and LoadOrCreate migrate each of them that
  // is live in another encode-version than its type's configured one (encodings/migrate.h)
  // before returning its handle (docs/engine.md "Migrating keys on write").
  void MigrateOnLoad(std::vector<std::string_view> keys) { migrate_keys_ = std::move(keys); }
  // The decision and the migration, for the loads above and for handlers that read metas
  // themselves and check them (CheckSetKey): when *h, live, is a collection this command writes
  // in another version than the configured one, rewrites it and updates *h; a key this command
  // migrated already gets the meta the migration wrote (and *exists, should the command have
  // deleted it since). Returns false after an error reply.
  bool MigrateIfWritten(encodings::KeyHandle* h, bool* exists);
  // The records of the command's batch that its migrations wrote, as [begin, end) indexes: a
  // migration changes no value a client sees, so WATCH does not count them as a modification
  // (a write that changes nothing but migrates its key leaves a watcher's EXEC to run, as
  // Redis does for the write alone).
  const std::vector<std::pair<size_t, size_t>>& migration_records() const {
    return migration_records_;
  }

  // Parses argument i as Redis's integer; sets the standard error reply and returns false.
  bool ArgInt64(size_t i, int64_t* out);

  // `key` (of the session's database, or of database `db`) got elements that a blocked client
  // may be waiting for: once the command commits, the engine tells the session's host
  // (SessionHost::KeysReady).
  void KeyReady(std::string_view key) { KeyReadyIn(session_->db, key); }
  void KeyReadyIn(uint8_t db, std::string_view key) { ready_keys_.emplace_back(db, key); }
  ReadyKeys& ready_keys() { return ready_keys_; }

  // The command's transaction in database `db`: txn() for the session's database, else a view
  // of it (KvTxn::NewView) that lives as long as this context, so that the post-commit steps
  // queued through it may refer to it.
  encodings::KvTxn& TxnIn(uint8_t db);

  // What the commands this one ran on its behalf cost (EXEC's queued commands): given to the
  // caller's CommandCost with the command's own, but accounted to their own statistics.
  backends::OpCounts nested_kv;
  redis::TierCounts nested_tier;

 private:
  // LoadOneOf with `types`, or LoadAny with nullptr.
  bool LoadChecked(std::string_view key, const std::initializer_list<encodings::KeyType>* types,
                   encodings::KeyHandle* h, bool* exists,
                   const std::optional<encodings::KeyMeta>* preloaded);

  Engine* engine_;
  Session* session_;
  const std::vector<std::string>* argv_;
  encodings::KvTxn* txn_;
  ReadyKeys ready_keys_;
  std::vector<std::unique_ptr<encodings::KvTxn>> views_;  // TxnIn
  std::vector<std::string_view> migrate_keys_;
  std::vector<std::string_view> migrated_;  // keys this command migrated
  std::vector<std::pair<size_t, size_t>> migration_records_;
  bool keep_writes_on_error_ = false;
  bool touch_watchers_on_error_ = false;
};

}  // namespace kvlab::engine
