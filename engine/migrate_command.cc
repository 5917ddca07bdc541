// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password]
//         [AUTH2 username password] [KEYS key ...], as Redis 7.0.15's migrateCommand runs it.
//
// Where it runs (the contract): the engine owns the command, the server owns connections. The
// handler parses the arguments in Redis's order, finds the live keys (NOKEY when none), reads
// each one's TTL and DUMP payload under the command's key locks, and hands the transfer to the
// session's host (SessionHost::Migrate). The RESP server's host runs it over its cached
// connections (redis::MigrateSockets: AUTH, SELECT, pipelined RESTORE key ttl payload
// [REPLACE], Redis's timeouts, retry and error texts). The handler then deletes, in the
// command's one batch, every key the target acknowledged (unless COPY), even when the reply is
// an error, as Redis does: a key the target holds is not kept in both places. An in-process
// engine (conformance, workloads) has no host: MIGRATE of a live key replies an error saying so.
//
// The keys stay locked for the whole transfer, so no command sees a key between its RESTORE on
// the target and its deletion here; like Redis, MIGRATE blocks its caller (here the worker
// thread of the connection) for as long as the target takes, within the timeout.
#include <strings.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/command_context.h"
#include "engine/dump_commands.h"
#include "engine/session_host.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using resp::Reply;

void MigrateFindKeys(const std::vector<std::string>& argv,
                     std::vector<std::pair<size_t, bool>>* keys) {
  // Redis 7.0's key lookup (getKeysFromCommandWithSpecs): the key specs find the key argument
  // unless their KEYS keyword search (from the second-to-last argument back to the second)
  // finds KEYS; that spec is incomplete, so migrateGetKeys decides.
  bool keyword = false;
  for (size_t i = argv.size() >= 2 ? argv.size() - 2 : 0; i >= 2; --i) {
    if (!strcasecmp(argv[i].c_str(), "keys")) {
      keyword = true;
      break;
    }
  }
  size_t first = 3, num = 1;
  if (keyword && argv.size() > 6) {
    // migrateGetKeys: the options before KEYS are skipped with their arguments.
    for (size_t i = 6; i < argv.size(); ++i) {
      const char* a = argv[i].c_str();
      if (!strcasecmp(a, "keys")) {
        if (!argv[3].empty()) {
          num = 0;  // MIGRATE itself replies the error
        } else {
          first = i + 1;
          num = argv.size() - first;
        }
        break;
      }
      if (!strcasecmp(a, "auth")) i += 1;
      if (!strcasecmp(a, "auth2")) i += 2;
    }
  }
  for (size_t i = first; i < first + num && i < argv.size(); ++i) keys->emplace_back(i, true);
}

void MigrateCommand(CommandContext& ctx) {
  redis::MigrateTransfer t;
  t.host = ctx.arg(1);
  t.port = ctx.arg(2);
  bool copy = false;
  size_t first_key = 3, num_keys = 1;
  for (size_t j = 6; j < ctx.argc(); ++j) {
    const size_t more = ctx.argc() - 1 - j;
    const char* opt = ctx.arg(j).c_str();
    if (!strcasecmp(opt, "copy")) {
      copy = true;
    } else if (!strcasecmp(opt, "replace")) {
      t.replace = true;
    } else if (!strcasecmp(opt, "auth")) {
      if (more == 0) return ctx.ReplyError(errors::kSyntax);
      t.password = ctx.arg(++j);
    } else if (!strcasecmp(opt, "auth2")) {
      if (more < 2) return ctx.ReplyError(errors::kSyntax);
      t.username = ctx.arg(++j);
      t.password = ctx.arg(++j);
    } else if (!strcasecmp(opt, "keys")) {
      if (!ctx.arg(3).empty()) {
        return ctx.ReplyError(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
      }
      first_key = j + 1;
      num_keys = ctx.argc() - j - 1;
      break;  // every remaining argument is a key
    } else {
      return ctx.ReplyError(errors::kSyntax);
    }
  }
  // Redis reads the timeout before the database.
  if (!ctx.ArgInt64(5, &t.timeout_ms) || !ctx.ArgInt64(4, &t.db)) return;
  if (t.timeout_ms <= 0) t.timeout_ms = 1000;

  // The live keys, in argument order (a key named twice goes twice, as in Redis).
  std::vector<KeyHandle> live;
  for (size_t j = first_key; j < first_key + num_keys; ++j) {
    KeyHandle h;
    bool exists = false;
    if (!ctx.LoadAny(ctx.arg(j), &h, &exists)) return;
    if (exists) live.push_back(std::move(h));
  }
  if (live.empty()) {
    ctx.reply = Reply::Status("NOKEY");
    return;
  }
  SessionHost* host = ctx.session().host;
  if (host == nullptr) {
    return ctx.ReplyError(
        "ERR MIGRATE needs a connection to another server, which an in-process engine does not "
        "have: run it through kvlab serve");
  }
  const int64_t now = ctx.engine().clock().NowMillis();
  for (const KeyHandle& h : live) {
    redis::MigrateTransfer::Key k;
    k.key = h.key;
    // The remaining TTL; a live key has at least 1 ms left.
    if (h.meta.has_expire()) k.ttl_ms = std::max<int64_t>(h.meta.expire_ms - now, 1);
    if (!DumpKey(ctx, h, &k.payload)) return;
    t.keys.push_back(std::move(k));
  }

  redis::MigrateOutcome outcome;
  if (!host->Migrate(t, &outcome)) {
    return ctx.ReplyError("ERR MIGRATE is not available on this connection");
  }
  bool deleted_any = false;
  if (!copy) {
    std::set<std::string_view> deleted;
    for (size_t i = 0; i < live.size(); ++i) {
      if (!outcome.acknowledged[i] || !deleted.insert(live[i].key).second) continue;
      // What a version keeps outside KV (zset v3's store) follows the deletion, as for DEL.
      if (live[i].meta.type != KeyType::kString &&
          !ctx.Check(ctx.Encoding(live[i].meta).OnDelete(ctx.txn(), live[i]))) {
        return;
      }
      ctx.txn().DeleteMeta(live[i].key);
      deleted_any = true;
    }
  }
  if (outcome.error.empty()) {
    ctx.reply = Reply::Ok();
    return;
  }
  // The keys the target acknowledged go even with the error (Redis deletes them as each
  // acknowledgement arrives), and WATCH sees them go.
  if (deleted_any) ctx.KeepWritesOnError(/*touch_watchers=*/true);
  ctx.ReplyError(outcome.error);
}

}  // namespace kvlab::engine
