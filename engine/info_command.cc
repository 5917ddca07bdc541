// INFO [section ...]: Redis's sections that kvlab can fill, and a kvlab section.
//
// The text is Redis's: "# Section\r\n" then "name:value\r\n" lines, sections separated by an
// empty line, in Redis's fixed order whatever order they were asked in; unknown sections add
// nothing. "server", "clients" and "stats" come from the server (Session::host); the engine
// writes "replication", "commandstats", "cluster", "keyspace" and "kvlab":
//
//   # Kvlab
//   backend:rocksdb
//   key_spaces:prefix                (or column_families, named_databases, tables:
//   --column-families) key_space_count:1 hash_encoding:0 zset_encoding:0
//   kv_total:gets=10,multiget_calls=0,...,bytes_written=512
//   scan_cursors:2
//   scan_cursor_bytes:210
//   scan_cursors_evicted:0
//   large_commands:0
//   group_commits:0
//   group_commit_commands:0
//   etcd_member0_state:running       (one pair per server the store runs for itself: the etcd
//   etcd_member0_restarts:0           backend's private members)
//   redis_cache:private redis-server
//   redis_cache_state:running
//   redis_cache_restarts:0
//   redis_cache_identity_changes:0
//   redis_store:private redis-server
//   redis_store_state:not_started
//   redis_store_restarts:0
//   redis_store_identity_changes:0
//   cache_purges:0
//   zset_store_uncertain_keys:0
//   zset_store_reconciled:0
//   cache_degraded_total:0
//   cache_dirty_entries:0
//   kvstat_hset:calls=3,usec=41,usec_per_call=13.67,failed_calls=0,gets=3,...,bytes_written=90,
//     tier_round_trips=0,tier_commands=0,cache_hits=0,cache_misses=0,cache_degraded=0
//
// kvstat_<command> is the command's cumulative KV operations (every OpCounts field, in
// OpCounts order), its Redis-tier work, calls and latency; kv_total sums every command.
// cache_degraded_total counts cache reads and writes that went without the cache because it
// was down or dirty (the degradation of hash v2/v3 and zset v1/v2): the sum of the commands'
// cache_degraded, which count each such operation once; cache_dirty_entries is how
// many cache entries may be stale and are bypassed until deleted. redis_<role> says where a
// role is served (never a private server's socket, never a password), _state and _restarts
// what its supervisor saw, _identity_changes how often its run id changed (a restart; a cache
// is then purged, cache_purges). zset_store_uncertain_keys counts the zset v3 keys whose last
// store write had no reply, zset_store_reconciled those made to agree with the store since.
// scan_cursors, scan_cursor_bytes and scan_cursors_evicted
// describe the SCAN cursor table; large_commands counts commands over more than 1,000 keys
// (engine/key_locks.h); group_commits counts the groups of pipelined writes committed as one
// store write, group_commit_commands the commands in them (Engine::ExecuteGroup).
// <server>_state and <server>_restarts are what the supervisor of a server the store runs for
// itself saw (KvStore::PrivateServers: the etcd backend's private members), as redis_<role>_state
// and _restarts are for the Redis tier's.
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "engine/command_context.h"
#include "engine/command_table.h"
#include "engine/handlers.h"
#include "engine/key_scan.h"
#include "engine/session_host.h"

namespace kvlab::engine {

using backends::OpCounts;
using encodings::KeyMeta;
using encodings::KvTxn;
using redis::RedisTier;
using redis::TierRole;
using resp::Reply;

namespace {

// Redis's order. "default" is every section but commandstats; "all" and "everything" are all.
constexpr const char* kSections[] = {"server",       "clients", "stats",    "replication",
                                     "commandstats", "cluster", "keyspace", "kvlab"};
constexpr const char* kHeaders[] = {"Server",       "Clients", "Stats",    "Replication",
                                    "Commandstats", "Cluster", "Keyspace", "Kvlab"};

void AppendOpCounts(const OpCounts& ops, std::string* out) {
  bool first = true;
  for (const auto& [name, value] : ops.Fields()) {
    if (!first) out->push_back(',');
    first = false;
    *out += name;
    out->push_back('=');
    *out += std::to_string(value);
  }
}

void AppendLatency(const CommandStats& s, uint64_t calls, bool redis_format, std::string* out) {
  const uint64_t usec = s.micros.load(std::memory_order_relaxed);
  char buf[160];
  std::snprintf(buf, sizeof(buf), "calls=%" PRIu64 ",usec=%" PRIu64 ",usec_per_call=%.2f%s", calls,
                usec, calls == 0 ? 0.0 : static_cast<double>(usec) / calls,
                redis_format ? ",rejected_calls=0" : "");
  *out += buf;
  *out += ",failed_calls=" + std::to_string(s.failed_calls.load(std::memory_order_relaxed));
}

void AppendCommandStats(Engine& engine, bool kvlab_format, std::string* out) {
  const auto& specs = engine.commands().all();
  for (size_t i = 0; i < specs.size(); ++i) {
    const CommandStats& s = engine.stats(i);
    const uint64_t calls = s.calls.load(std::memory_order_relaxed);
    if (calls == 0) continue;
    *out += kvlab_format ? "kvstat_" : "cmdstat_";
    *out += specs[i].name;
    out->push_back(':');
    AppendLatency(s, calls, !kvlab_format, out);
    if (kvlab_format) {
      out->push_back(',');
      AppendOpCounts(s.kv.Snapshot(), out);
      const std::pair<const char*, const std::atomic<uint64_t>*> tier[] = {
          {"tier_round_trips", &s.tier_round_trips},
          {"tier_commands", &s.tier_commands},
          {"cache_hits", &s.cache_hits},
          {"cache_misses", &s.cache_misses},
          {"cache_degraded", &s.cache_degraded}};
      for (const auto& [name, value] : tier) {
        *out +=
            ',' + std::string(name) + '=' + std::to_string(value->load(std::memory_order_relaxed));
      }
    }
    *out += "\r\n";
  }
}

// db<N>:keys=..,expires=..,avg_ttl=.. for every database that has keys. Walks the key-metas
// of every database: O(keys), where Redis is O(databases).
bool AppendKeyspace(CommandContext& ctx, std::string* out) {
  KvTxn& current = ctx.txn();
  for (int db = 0; db < ctx.engine().databases(); ++db) {
    // Read-only: nothing here calls NewMeta, the one user of the key-version generator.
    KvTxn txn(&current.kv(), &current.codec(), &current.registry(), nullptr,
              static_cast<uint8_t>(db), current.now_ms());
    int64_t keys = 0, expires = 0, ttl_sum = 0;
    Status s = ScanKeys(
        txn, "", KeyScanFilter(), UINT64_MAX,
        [&](const std::string&, const KeyMeta& meta) {
          ++keys;
          if (meta.has_expire()) {
            ++expires;
            ttl_sum += meta.expire_ms - txn.now_ms();
          }
        },
        nullptr);
    if (!ctx.Check(s)) return false;
    if (keys == 0) continue;
    *out += "db" + std::to_string(db) + ":keys=" + std::to_string(keys) +
            ",expires=" + std::to_string(expires) +
            ",avg_ttl=" + std::to_string(expires == 0 ? 0 : ttl_sum / expires) + "\r\n";
  }
  return true;
}

// The sum of every command's cache_degraded, so that the total and the kvstat_ lines agree.
uint64_t DegradedTotal(Engine& engine) {
  uint64_t total = 0;
  for (size_t i = 0; i < engine.commands().all().size(); ++i) {
    total += engine.stats(i).cache_degraded.load(std::memory_order_relaxed);
  }
  return total;
}

void AppendKvlab(Engine& engine, std::string* out) {
  *out += "backend:" + engine.store()->name() + "\r\n";
  // Where the record kinds live (backends/key_spaces.h): "column families" -> column_families.
  const backends::Capabilities caps = engine.store()->capabilities();
  std::string kind = backends::KeySpaceKindName(caps.key_space_kind);
  std::replace(kind.begin(), kind.end(), ' ', '_');
  *out += "key_spaces:" + kind + "\r\n";
  *out += "key_space_count:" + std::to_string(caps.key_space_count) + "\r\n";
  // <type>_encoding:<version name> for every type of the registry (hash_encoding:0).
  for (const encodings::TypeSpec& type : engine.registry().types()) {
    *out += std::string(type.name) +
            "_encoding:" + std::string(engine.new_key_version_name(type.type)) + "\r\n";
  }
  *out += "kv_total:";
  AppendOpCounts(engine.TotalKvOps(), out);
  *out += "\r\n";
  *out += "scan_cursors:" + std::to_string(engine.cursors().size()) + "\r\n";
  *out += "scan_cursor_bytes:" + std::to_string(engine.cursors().bytes()) + "\r\n";
  *out += "scan_cursors_evicted:" + std::to_string(engine.cursors().evicted()) + "\r\n";
  *out += "large_commands:" + std::to_string(engine.key_locks().large_commands()) + "\r\n";
  *out += "group_commits:" + std::to_string(engine.group_commits()) + "\r\n";
  *out += "group_commit_commands:" + std::to_string(engine.group_commit_commands()) + "\r\n";
  for (const backends::PrivateServer& server : engine.store()->PrivateServers()) {
    *out += server.name + "_state:" + server.state + "\r\n";
    *out += server.name + "_restarts:" + std::to_string(server.restarts) + "\r\n";
  }
  if (RedisTier* tier = engine.tier()) {
    for (const auto& [role, name] :
         {std::pair{TierRole::kCache, "cache"}, std::pair{TierRole::kStore, "store"}}) {
      *out += std::string("redis_") + name + ":" + tier->Describe(role) + "\r\n";
      *out += std::string("redis_") + name + "_state:" + tier->ServerState(role) + "\r\n";
      *out += std::string("redis_") + name +
              "_restarts:" + std::to_string(tier->ServerRestarts(role)) + "\r\n";
      *out += std::string("redis_") + name +
              "_identity_changes:" + std::to_string(tier->IdentityChanges(role)) + "\r\n";
    }
    *out += "cache_purges:" + std::to_string(tier->cache_purges()) + "\r\n";
    *out += "zset_store_uncertain_keys:" + std::to_string(tier->Uncertain().size()) + "\r\n";
    *out += "zset_store_reconciled:" + std::to_string(tier->reconciled()) + "\r\n";
    *out += "cache_degraded_total:" + std::to_string(DegradedTotal(engine)) + "\r\n";
    *out += "cache_dirty_entries:" + std::to_string(tier->dirty_keys()) + "\r\n";
  }
  AppendCommandStats(engine, /*kvlab_format=*/true, out);
}

}  // namespace

void InfoCommand(CommandContext& ctx) {
  constexpr size_t kNumSections = std::size(kSections);
  bool wanted[kNumSections] = {};
  auto want_all = [&](bool with_commandstats) {
    for (size_t i = 0; i < kNumSections; ++i) {
      wanted[i] = wanted[i] || with_commandstats || strcmp(kSections[i], "commandstats") != 0;
    }
  };
  if (ctx.argc() == 1) want_all(false);
  for (size_t a = 1; a < ctx.argc(); ++a) {
    const char* name = ctx.arg(a).c_str();
    if (!strcasecmp(name, "default")) {
      want_all(false);
    } else if (!strcasecmp(name, "all") || !strcasecmp(name, "everything")) {
      want_all(true);
    }
    for (size_t i = 0; i < kNumSections; ++i) wanted[i] |= !strcasecmp(name, kSections[i]);
  }

  SessionHost* host = ctx.session().host;
  std::string out;
  for (size_t i = 0; i < kNumSections; ++i) {
    if (!wanted[i]) continue;
    const std::string_view section = kSections[i];
    const bool from_host = section == "server" || section == "clients" || section == "stats";
    if (from_host && host == nullptr) continue;
    if (!out.empty()) out += "\r\n";
    out += "# ";
    out += kHeaders[i];
    out += "\r\n";
    if (from_host) {
      host->AppendInfo(section, &out);
    } else if (section == "replication") {
      out += "role:master\r\nconnected_slaves:0\r\n";
    } else if (section == "commandstats") {
      AppendCommandStats(ctx.engine(), /*kvlab_format=*/false, &out);
    } else if (section == "cluster") {
      out += "cluster_enabled:0\r\n";
    } else if (section == "keyspace") {
      if (!AppendKeyspace(ctx, &out)) return;
    } else if (section == "kvlab") {
      AppendKvlab(ctx.engine(), &out);
    }
  }
  ctx.reply = Reply::Verbatim(std::move(out));
}

}  // namespace kvlab::engine
