#include "redis/tier.h"

namespace kvlab::redis {

using resp::Reply;

TierCounts& TierCounts::operator+=(const TierCounts& o) {
  round_trips += o.round_trips;
  commands += o.commands;
  cache_hits += o.cache_hits;
  cache_misses += o.cache_misses;
  degraded += o.degraded;
  return *this;
}

std::vector<std::pair<const char*, uint64_t>> TierCounts::Fields() const {
  return {{"tier_round_trips", round_trips},
          {"tier_commands", commands},
          {"cache_hits", cache_hits},
          {"cache_misses", cache_misses},
          {"cache_degraded", degraded}};
}

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
};

RedisTier::RedisTier(RedisTierOptions options)
    : hget_ttl_ms(options.hget_ttl_ms),
      hgetall_ttl_ms(options.hgetall_ttl_ms),
      zset_member_ttl_ms(options.zset_member_ttl_ms),
      zset_range_ttl_ms(options.zset_range_ttl_ms),
      meta_cache(options.meta_cache),
      meta_cache_ttl_ms(options.meta_cache_ttl_ms),
      options_(std::move(options)),
      cache_(new Role),
      store_(new Role) {
  cache_->which = TierRole::kCache;
  cache_->url = options_.cache_url;
  store_->which = TierRole::kStore;
  store_->url = options_.store_url;
  store_->private_options.persistence = RedisServerOptions::Persistence::kAofEverySec;
  store_->private_options.dir = options_.private_store_dir;
  store_->private_options.extra_args = {"--maxmemory-policy", "noeviction"};
  // An external cache may hold entries from a process that died between a KV commit and its
  // cache update: purge it before first use.
  purge_needed_ = !options_.cache_url.empty();
}

RedisTier::~RedisTier() = default;

std::string RedisTier::Describe(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard lock(r.mu);
  if (!r.url.empty()) return r.url;
  if (r.resolved) return "private redis-server at " + r.endpoint.ToString();
  return "private redis-server (not started)";
}

uint64_t RedisTier::dirty_keys() const {
  std::lock_guard lock(dirty_mu_);
  return dirty_entries_;
}

// Resolves the role's endpoint (starting the private server on first use) and takes an idle
// connection or makes one. REQUIRES: r.mu is held.
bool RedisTier::RoleInUse(TierRole which) const {
  Role& r = which == TierRole::kCache ? *cache_ : *store_;
  std::lock_guard<std::mutex> lock(r.mu);
  return r.resolved;
}

Status RedisTier::Connect(Role& r, std::unique_ptr<RedisClient>* client) {
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
        r.last_error = "cannot start the private redis-server: " + s.ToString();
        return Status::Unavailable(r.last_error);
      }
      r.endpoint = r.server->endpoint();
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
  if (commands.empty()) {
    replies->clear();
    return Status::OK();
  }
  Role& r = role(which);
  std::unique_ptr<RedisClient> client;
  {
    std::lock_guard lock(r.mu);
    KVLAB_RETURN_IF_ERROR(Connect(r, &client));
  }
  counts->round_trips += 1;
  counts->commands += commands.size();
  Status s = client->Pipeline(commands, replies);
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

Status RedisTier::DropNamespace(const std::string& prefix, TierCounts* counts) {
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
      if (del.size() > 1) s = Pipeline(which, {del}, &replies, counts);
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
