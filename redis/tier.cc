#include "redis/tier.h"

#include <cstdio>
#include <filesystem>
#include <random>

namespace kvlab::redis {

using resp::Reply;

std::string TierKeyPrefix(std::string_view ns, std::string_view key, uint64_t key_version) {
  std::string out = "c#";
  out.append(ns);
  out.push_back('{');
  out.append(key);
  out.push_back('}');
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(key_version >> (56 - 8 * i)));
  return out;
}

namespace {

uint64_t RandomGeneration() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

// The run_id line of INFO server, or "".
std::string RunIdOf(const Reply& info) {
  if (info.type() != Reply::Type::kBulk) return "";
  const std::string& text = info.str();
  const size_t at = text.find("run_id:");
  if (at == std::string::npos) return "";
  const size_t end = text.find_first_of("\r\n", at);
  return text.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
}

// A SCAN MATCH pattern for every key that starts with `prefix` (glob characters escaped).
std::string PrefixPattern(const std::string& prefix) {
  std::string out;
  for (char c : prefix) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('*');
  return out;
}

}  // namespace

struct RedisTier::Role {
  TierRole which;
  std::string url;  // empty: private
  RedisServerOptions private_options;
  std::mutex mu;
  std::unique_ptr<RedisServerProcess> server;  // the private server, once started
  bool resolved = false;
  RedisEndpoint endpoint;
  std::vector<std::unique_ptr<RedisClient>> idle;
  std::chrono::steady_clock::time_point failed_at{};
  bool failing = false;
  std::string last_error;
  // The run id of the server this role has been talking to ("" before the first connection).
  std::string run_id;
  uint64_t identity_changes = 0;
};

RedisTier::RedisTier(RedisTierOptions options)
    : hget_ttl_ms(options.hget_ttl_ms),
      hgetall_ttl_ms(options.hgetall_ttl_ms),
      zset_member_ttl_ms(options.zset_member_ttl_ms),
      zset_range_ttl_ms(options.zset_range_ttl_ms),
      meta_cache_ttl_ms(options.meta_cache_ttl_ms),
      smembers_ttl_ms(options.smembers_ttl_ms),
      options_(std::move(options)),
      cache_(new Role),
      store_(new Role),
      meta_cache_(options_.meta_cache),
      meta_cache_generation_(RandomGeneration()) {
  cache_->which = TierRole::kCache;
  cache_->url = options_.cache_url;
  store_->which = TierRole::kStore;
  store_->url = options_.store_url;
  store_->private_options.persistence = RedisServerOptions::Persistence::kAofEverySec;
  store_->private_options.dir = options_.private_store_dir;
  store_->private_options.extra_args = {"--maxmemory-policy", "noeviction"};
  for (Role* r : {cache_.get(), store_.get()}) {
    // No address to publish or guess: a unix socket in a private directory, and a password.
    r->private_options.unix_socket = true;
    r->private_options.generate_password = true;
    r->private_options.supervise = true;
    const std::string name = r->which == TierRole::kCache ? "cache" : "zset store";
    auto log = options_.log;
    r->private_options.on_event = [name, log](const std::string& text) {
      const std::string line = "the private " + name + " " + text;
      if (log) {
        log(line);
      } else {
        std::fprintf(stderr, "kvlab: %s\n", line.c_str());
      }
    };
  }
  // The runtime directories of private servers of kvlab processes that were killed.
  if (options_.cache_url.empty() || options_.store_url.empty()) RemoveStaleRedisDirs();
  // An external cache may hold entries from a process that died between a KV commit and its
  // cache update: purge it before first use.
  purge_needed_ = !options_.cache_url.empty();
}

RedisTier::~RedisTier() = default;

std::string RedisTier::Describe(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard lock(r.mu);
  if (r.url.empty()) return "private redis-server";
  RedisEndpoint endpoint;
  if (RedisEndpoint::Parse(r.url, &endpoint).ok()) return endpoint.ToString();
  // Unparsable: shown as given, unless it may hold a password ("user:pass@...").
  return r.url.find('@') == std::string::npos ? r.url : "(a bad address)";
}

std::string RedisTier::ServerState(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard lock(r.mu);
  if (!r.url.empty()) return "external";
  return r.server ? RedisServerStateName(r.server->state()) : "not_started";
}

RedisServerProcess* RedisTier::PrivateServer(TierRole which) {
  Role& r = role(which);
  std::lock_guard lock(r.mu);
  return r.server.get();
}

uint64_t RedisTier::ServerRestarts(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard lock(r.mu);
  return r.server ? r.server->restarts() : 0;
}

uint64_t RedisTier::dirty_keys() const {
  std::lock_guard lock(dirty_mu_);
  return dirty_entries_;
}

bool RedisTier::RoleInUse(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard<std::mutex> lock(r.mu);
  return r.resolved;
}

// Resolves the role's endpoint (starting the private server on first use) and takes an idle
// connection or makes one (*fresh: a new connection, whose server is not yet identified).
// REQUIRES: r.mu is held.
Status RedisTier::Connect(Role& r, std::unique_ptr<RedisClient>* client, bool* fresh) {
  const auto now = std::chrono::steady_clock::now();
  if (r.failing && now - r.failed_at < options_.retry_interval) {
    return Status::Unavailable(r.last_error);
  }
  if (!r.resolved) {
    if (r.url.empty()) {
      r.server = std::make_unique<RedisServerProcess>(r.private_options);
      Status s = r.server->Start();
      if (!s.ok()) {
        r.failing = true;
        r.failed_at = now;
        // The details (the server's log) go to kvlab's log, not to clients.
        r.private_options.on_event("did not start: " + s.ToString());
        r.last_error = "cannot start the private redis-server (kvlab's log says why)";
        return Status::Unavailable(r.last_error);
      }
      r.endpoint = r.server->endpoint();
      r.endpoint.label = "private redis-server";
    } else {
      KVLAB_RETURN_IF_ERROR(RedisEndpoint::Parse(r.url, &r.endpoint));
    }
    r.resolved = true;
  }
  if (!r.idle.empty()) {
    *client = std::move(r.idle.back());
    r.idle.pop_back();
    return Status::OK();
  }
  *client = std::make_unique<RedisClient>(r.endpoint, options_.timeout);
  *fresh = true;
  Status s = (*client)->Connect();
  if (!s.ok()) {
    r.failing = true;
    r.failed_at = now;
    r.last_error = s.message();
    return s;
  }
  if (r.which == TierRole::kStore && !r.url.empty()) {
    // The store must never evict: refuse a server that would.
    Reply policy;
    KVLAB_RETURN_IF_ERROR((*client)->Command({"CONFIG", "GET", "maxmemory-policy"}, &policy));
    if (policy.type() == Reply::Type::kArray && policy.elements().size() == 2 &&
        policy.elements()[1].str() != "noeviction") {
      return Status::InvalidArgument("the store Redis " + r.url +
                                     " must run with maxmemory-policy noeviction, not " +
                                     policy.elements()[1].str());
    }
  }
  return Status::OK();
}

Status RedisTier::Pipeline(TierRole which, const std::vector<std::vector<std::string>>& commands,
                           std::vector<Reply>* replies, TierCounts* counts) {
  bool maybe_applied = false;
  return PipelineWrite(which, commands, replies, counts, &maybe_applied);
}

Status RedisTier::PipelineWrite(TierRole which,
                                const std::vector<std::vector<std::string>>& commands,
                                std::vector<Reply>* replies, TierCounts* counts,
                                bool* maybe_applied) {
  *maybe_applied = false;
  if (commands.empty()) {
    replies->clear();
    return Status::OK();
  }
  {
    std::lock_guard lock(config_mu_);
    if (!misconfigured_.empty()) return Status::InvalidArgument(misconfigured_);
  }
  Role& r = role(which);
  std::unique_ptr<RedisClient> client;
  bool fresh = false;
  {
    std::lock_guard lock(r.mu);
    KVLAB_RETURN_IF_ERROR(Connect(r, &client, &fresh));
  }
  if (fresh) KVLAB_RETURN_IF_ERROR(Identify(r, &client));
  counts->round_trips += 1;
  counts->commands += commands.size();
  Status s = client->Pipeline(commands, replies);
  *maybe_applied = !s.ok();  // connected: the commands may have been sent
  std::lock_guard lock(r.mu);
  if (s.ok()) {
    r.failing = false;
    r.idle.push_back(std::move(client));
  } else {
    r.failing = true;
    r.failed_at = std::chrono::steady_clock::now();
    r.last_error = s.message();
    r.idle.clear();  // the others are likely broken too; reconnect afresh
  }
  return s;
}

Status RedisTier::Probe(TierRole which) {
  std::vector<Reply> replies;
  TierCounts ignored;
  Status s = Pipeline(which, {{"PING"}}, &replies, &ignored);
  if (s.ok() && replies[0].is_error()) s = Status::Unavailable(replies[0].str());
  if (s.ok()) return Status::OK();
  return Status::Unavailable(
      std::string(which == TierRole::kCache ? "the Redis cache" : "the Redis store") + " (" +
      Describe(which) + ") cannot be reached: " + s.message());
}

Status RedisTier::Identify(Role& r, std::unique_ptr<RedisClient>* client) {
  Reply info;
  Status s = (*client)->Command({"INFO", "server"}, &info);
  const std::string id = s.ok() ? RunIdOf(info) : "";
  if (id.empty()) {
    std::lock_guard lock(r.mu);
    r.failing = true;
    r.failed_at = std::chrono::steady_clock::now();
    r.last_error = s.ok() ? "INFO server has no run_id" : s.message();
    return Status::Unavailable(r.last_error);
  }
  std::string previous;
  {
    std::lock_guard lock(r.mu);
    previous = r.run_id;
    if (previous != id) {
      if (!previous.empty()) ++r.identity_changes;
      r.run_id = id;
    }
  }
  Role& other = r.which == TierRole::kCache ? *store_ : *cache_;
  std::string other_id;
  {
    std::lock_guard lock(other.mu);
    other_id = other.run_id;
  }
  if (other_id == id) {
    std::lock_guard lock(config_mu_);
    misconfigured_ =
        "the cache Redis and the zset store Redis are one server (run id " + id +
        "): the cache's purges would delete the store's zsets; give them separate servers";
    return Status::InvalidArgument(misconfigured_);
  }
  if (!previous.empty() && previous != id) {
    Log(std::string(r.which == TierRole::kCache ? "cache" : "zset store") +
        " is not the server kvlab wrote to (its run id changed from " + previous + " to " + id +
        ": it restarted, perhaps from an older snapshot)" +
        (r.which == TierRole::kCache ? "; purging it before it is used again" : ""));
    // A store that restarted may hold an older fence, and its zsets may be older than KV's
    // counts: a new fence first, and every zset is checked against its count as it is used.
    if (r.which == TierRole::kStore) InvalidateStoreFence();
    if (r.which == TierRole::kCache) {
      {
        std::lock_guard lock(dirty_mu_);
        dirty_.clear();
        dirty_entries_ = 0;
        purge_needed_ = true;
      }
      // Keep the connection, but fail this call: it may have been a read of a stale entry.
      std::lock_guard lock(r.mu);
      r.idle.push_back(std::move(*client));
      return Status::Unavailable("the cache restarted; it is purged before it is used again");
    }
  }
  return Status::OK();
}

Status RedisTier::Validate() {
  if (!options_.cache_url.empty() && !options_.store_url.empty()) {
    RedisEndpoint a, b;
    if (RedisEndpoint::Parse(options_.cache_url, &a).ok() &&
        RedisEndpoint::Parse(options_.store_url, &b).ok() && a.host == b.host && a.port == b.port &&
        a.unix_path == b.unix_path) {
      std::lock_guard lock(config_mu_);
      misconfigured_ = "--cache-redis and --store-redis name one server (" + a.ToString() +
                       "): the cache's purges would delete the store's zsets; give them "
                       "separate servers";
    }
    TierCounts counts;
    std::vector<Reply> replies;
    // Each call learns a server's identity; an unreachable one is checked again on first use.
    Pipeline(TierRole::kStore, {{"PING"}}, &replies, &counts).IgnoreError();
    Pipeline(TierRole::kCache, {{"PING"}}, &replies, &counts).IgnoreError();
  }
  std::lock_guard lock(config_mu_);
  return misconfigured_.empty() ? Status::OK() : Status::InvalidArgument(misconfigured_);
}

void RedisTier::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "kvlab: the Redis tier's %s\n", line.c_str());
  }
}

uint64_t RedisTier::IdentityChanges(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard lock(r.mu);
  return r.identity_changes;
}

Status RedisTier::StoreFence(TierCounts* counts, std::string* fence) {
  std::lock_guard lock(fence_mu_);
  if (fence_stale_.exchange(false) || fence_.empty()) {
    const std::string next = std::to_string(RandomGeneration());
    std::vector<Reply> replies;
    Status s = Pipeline(TierRole::kStore, {{"SET", kFenceKey, next}}, &replies, counts);
    if (s.ok() && replies[0].is_error()) {
      s = Status::Unavailable("the zset store refused its fence: " + replies[0].str());
    }
    if (!s.ok()) {
      fence_stale_.store(true);
      return s;
    }
    fence_ = next;
  }
  *fence = fence_;
  return Status::OK();
}

void RedisTier::InvalidateStoreFence() { fence_stale_.store(true); }

void RedisTier::MarkUncertain(const std::string& store_key, UncertainKey key) {
  InvalidateStoreFence();  // the next store write sets a new fence first
  std::lock_guard lock(uncertain_mu_);
  uncertain_[store_key] = std::move(key);
  uncertain_count_.store(uncertain_.size(), std::memory_order_release);
}

bool RedisTier::IsUncertain(const std::string& store_key) const {
  if (uncertain_count_.load(std::memory_order_acquire) == 0) return false;
  std::lock_guard lock(uncertain_mu_);
  return uncertain_.count(store_key) != 0;
}

void RedisTier::ClearUncertain(const std::string& store_key) {
  std::lock_guard lock(uncertain_mu_);
  uncertain_.erase(store_key);
  uncertain_count_.store(uncertain_.size(), std::memory_order_release);
}

std::vector<std::pair<std::string, RedisTier::UncertainKey>> RedisTier::Uncertain() const {
  std::lock_guard lock(uncertain_mu_);
  return {uncertain_.begin(), uncertain_.end()};
}

void RedisTier::SetMetaCache(bool on) {
  // A new generation before the entries are read again: a reader that sees the cache on sees
  // the new generation.
  if (on && !meta_cache_.load()) meta_cache_generation_.fetch_add(1);
  meta_cache_.store(on, std::memory_order_release);
}

bool RedisTier::CacheUsable(const std::string& prefix, TierCounts* counts) {
  std::vector<std::string> to_delete;
  bool purge = false;
  {
    std::lock_guard lock(dirty_mu_);
    purge = purge_needed_;
    if (!purge) {
      auto it = dirty_.find(prefix);
      if (it != dirty_.end()) to_delete.assign(it->second.begin(), it->second.end());
    }
  }
  auto degrade = [&] {
    ++counts->degraded;
    return false;
  };
  if (purge) return PurgeCache(counts).ok() ? true : degrade();
  {
    // Unreachable recently: do not wait for a timeout on every command.
    std::lock_guard lock(cache_->mu);
    if (cache_->failing &&
        std::chrono::steady_clock::now() - cache_->failed_at < options_.retry_interval) {
      return degrade();
    }
  }
  if (to_delete.empty()) {
    SweepDirty(counts);
    return true;
  }
  std::vector<std::vector<std::string>> del = {{"DEL"}};
  for (std::string& k : to_delete) del[0].push_back(std::move(k));
  std::vector<Reply> replies;
  if (!Pipeline(TierRole::kCache, del, &replies, counts).ok() || replies[0].is_error()) {
    return degrade();
  }
  std::lock_guard lock(dirty_mu_);
  auto it = dirty_.find(prefix);
  if (it != dirty_.end()) {
    dirty_entries_ -= it->second.size();
    dirty_.erase(it);
  }
  return true;
}

void RedisTier::SweepDirty(TierCounts* counts) {
  // Dirty entries of incarnations that are never read again (deleted or overwritten keys) would
  // otherwise stay listed forever: while the cache is up, delete a bounded batch of them.
  std::vector<std::string> prefixes;
  std::vector<std::string> del = {"DEL"};
  {
    std::lock_guard lock(dirty_mu_);
    if (dirty_.empty()) return;
    for (const auto& [prefix, keys] : dirty_) {
      if (del.size() > 1000) break;
      prefixes.push_back(prefix);
      del.insert(del.end(), keys.begin(), keys.end());
    }
  }
  std::vector<Reply> replies;
  if (!Pipeline(TierRole::kCache, {del}, &replies, counts).ok() || replies[0].is_error()) return;
  std::lock_guard lock(dirty_mu_);
  for (const std::string& prefix : prefixes) {
    auto it = dirty_.find(prefix);
    if (it == dirty_.end()) continue;
    dirty_entries_ -= it->second.size();
    dirty_.erase(it);
  }
}

void RedisTier::MarkDirty(const std::string& prefix, const std::vector<std::string>& keys) {
  std::lock_guard lock(dirty_mu_);
  if (purge_needed_) return;
  auto& set = dirty_[prefix];
  for (const std::string& k : keys) dirty_entries_ += set.insert(k).second;
  if (dirty_entries_ > options_.max_dirty_keys) {
    // Too many to track: forget them and purge the whole cache before it is used again.
    dirty_.clear();
    dirty_entries_ = 0;
    purge_needed_ = true;
  }
}

Status RedisTier::PurgeCache(TierCounts* counts) {
  // An external store may be this very server: learn its identity before deleting anything.
  if (!options_.store_url.empty()) {
    std::vector<Reply> ignored;
    TierCounts setup;
    // Only its identity matters here; an unreachable store cannot be this server.
    Pipeline(TierRole::kStore, {{"PING"}}, &ignored, &setup).IgnoreError();
    std::lock_guard lock(config_mu_);
    if (!misconfigured_.empty()) return Status::InvalidArgument(misconfigured_);
  }
  cache_purges_.fetch_add(1);
  // Deletes every key kvlab may have cached ("c#" ...), in SCAN-sized batches.
  std::string cursor = "0";
  do {
    std::vector<Reply> replies;
    KVLAB_RETURN_IF_ERROR(Pipeline(
        TierRole::kCache, {{"SCAN", cursor, "MATCH", "c#*", "COUNT", "1000"}}, &replies, counts));
    const Reply& r = replies[0];
    if (r.type() != Reply::Type::kArray || r.elements().size() != 2) {
      return Status::Unavailable("unexpected SCAN reply " + r.Describe());
    }
    cursor = r.elements()[0].str();
    std::vector<std::string> del = {"UNLINK"};
    for (const Reply& k : r.elements()[1].elements()) del.push_back(k.str());
    if (del.size() > 1) KVLAB_RETURN_IF_ERROR(Pipeline(TierRole::kCache, {del}, &replies, counts));
  } while (cursor != "0");
  std::lock_guard lock(dirty_mu_);
  purge_needed_ = false;
  return Status::OK();
}

Status RedisTier::FlushCache(TierCounts* counts) { return PurgeCache(counts); }

Status RedisTier::ScanStore(const std::string& prefix, size_t count, std::string* cursor,
                            std::vector<std::string>* keys, TierCounts* counts) {
  keys->clear();
  {
    Role& r = role(TierRole::kStore);
    std::lock_guard lock(r.mu);
    std::error_code ec;
    const bool aof = !options_.private_store_dir.empty() &&
                     !std::filesystem::is_empty(options_.private_store_dir, ec) && !ec;
    if (!r.resolved && r.url.empty() && !aof) {
      *cursor = "0";
      return Status::OK();
    }
  }
  std::vector<Reply> replies;
  KVLAB_RETURN_IF_ERROR(
      Pipeline(TierRole::kStore,
               {{"SCAN", *cursor, "MATCH", PrefixPattern(prefix), "COUNT", std::to_string(count)}},
               &replies, counts));
  if (replies[0].elements().size() != 2) {
    return Status::IOError("the store Redis answered SCAN with " + replies[0].Describe());
  }
  *cursor = replies[0].elements()[0].str();
  for (const Reply& k : replies[0].elements()[1].elements()) keys->push_back(k.str());
  return Status::OK();
}

Status RedisTier::DropNamespace(const std::string& prefix, TierCounts* counts,
                                bool* store_touched) {
  if (store_touched != nullptr) *store_touched = false;
  // The store: required (its data would otherwise leak). Only touched if it was ever used.
  for (TierRole which : {TierRole::kStore, TierRole::kCache}) {
    Role& r = role(which);
    {
      std::lock_guard lock(r.mu);
      if (!r.resolved && r.url.empty()) continue;  // a private server never started holds nothing
    }
    std::string cursor = "0";
    Status s;
    do {
      std::vector<Reply> replies;
      s = Pipeline(which, {{"SCAN", cursor, "MATCH", PrefixPattern(prefix), "COUNT", "1000"}},
                   &replies, counts);
      if (!s.ok()) break;
      cursor = replies[0].elements().size() == 2 ? replies[0].elements()[0].str() : "0";
      std::vector<std::string> del = {"UNLINK"};
      if (replies[0].elements().size() == 2) {
        for (const Reply& k : replies[0].elements()[1].elements()) del.push_back(k.str());
      }
      if (del.size() > 1) {
        bool maybe_applied = false;
        s = PipelineWrite(which, {del}, &replies, counts, &maybe_applied);
        if (which == TierRole::kStore && store_touched != nullptr && (s.ok() || maybe_applied)) {
          *store_touched = true;
        }
      }
    } while (s.ok() && cursor != "0");
    if (!s.ok()) {
      if (which == TierRole::kStore) return s;
      std::lock_guard lock(dirty_mu_);
      purge_needed_ = true;
    }
  }
  return Status::OK();
}

}  // namespace kvlab::redis
