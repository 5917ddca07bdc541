// The outputs of `kvlab profile`: the profile JSON and the workload made from it (profile.h).
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/command_table.h"
#include "workloads/profile.h"

namespace kvlab::workloads {

using engine::CommandTable;

namespace {

using nlohmann::json;

// The quantiles a distribution keeps: dense enough that p50, p90, p99 (and p99.9) come back
// exactly, and linear interpolation between them is close elsewhere.
constexpr double kPoints[] = {0,   0.1, 0.2, 0.3,  0.4,  0.5,   0.6,
                              0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0};

std::string PointName(double p) {
  std::string s = std::to_string(p * 100);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return "p" + s;
}

json SamplesJson(const Samples& s) {
  if (s.values.empty()) return json{{"n", 0}};
  double sum = 0;
  for (double v : s.values) sum += v;
  json q = json::object();
  for (double p : kPoints) q[PointName(p)] = s.Quantile(p);
  return {{"n", s.values.size()},
          {"mean", sum / static_cast<double>(s.values.size())},
          {"quantiles", q}};
}

// A distribution for the workload file: the samples' quantiles times `scale`, at least `min`.
json DistributionOf(const Samples& s, double scale, double min) {
  json q = json::array();
  for (double p : kPoints) {
    const double v = s.values.empty() ? min : std::max(min, std::round(s.Quantile(p) * scale));
    q.push_back({p, v});
  }
  return {{"quantiles", q}};
}

// How a command of the mix is run on the synthetic keys: its template, with K standing for a
// key of its type. Commands that delete keys or elements (DEL, HDEL, ZREM, ...) or need values
// of a form the synthetic data does not have (INCR on a random string) are not modelled: the
// notes name them.
struct Model {
  const char* command;
  const char* type;  // "" for a key of any type
  const char* text;
};
constexpr Model kModels[] = {
    {"get", "string", "GET K"},
    {"set", "string", "SET K {bytes:string_value_len}"},
    {"setex", "string", "SETEX K 3600 {bytes:string_value_len}"},
    {"strlen", "string", "STRLEN K"},
    {"mget", "string", "MGET K"},
    {"hget", "hash", "HGET K {member:hash_size:hash_member_len}"},
    {"hset", "hash", "HSET K {member:hash_size:hash_member_len} {bytes:hash_value_len}"},
    {"hmset", "hash", "HMSET K {member:hash_size:hash_member_len} {bytes:hash_value_len}"},
    {"hmget", "hash", "HMGET K {member:hash_size:hash_member_len}"},
    {"hexists", "hash", "HEXISTS K {member:hash_size:hash_member_len}"},
    {"hgetall", "hash", "HGETALL K"},
    {"hlen", "hash", "HLEN K"},
    {"hkeys", "hash", "HKEYS K"},
    {"hvals", "hash", "HVALS K"},
    {"hscan", "hash", "HSCAN K 0 COUNT 10"},
    {"zscore", "zset", "ZSCORE K {member:zset_size:zset_member_len}"},
    {"zadd", "zset", "ZADD K {score} {member:zset_size:zset_member_len}"},
    {"zincrby", "zset", "ZINCRBY K 1 {member:zset_size:zset_member_len}"},
    {"zrank", "zset", "ZRANK K {member:zset_size:zset_member_len}"},
    {"zrevrank", "zset", "ZREVRANK K {member:zset_size:zset_member_len}"},
    {"zcard", "zset", "ZCARD K"},
    {"zcount", "zset", "ZCOUNT K -inf +inf"},
    {"zrange", "zset", "ZRANGE K 0 9"},
    {"zrevrange", "zset", "ZREVRANGE K 0 9 WITHSCORES"},
    {"zrangebyscore", "zset", "ZRANGEBYSCORE K {score} +inf LIMIT 0 10"},
    {"zrevrangebyscore", "zset", "ZREVRANGEBYSCORE K +inf {score} LIMIT 0 10"},
    {"zscan", "zset", "ZSCAN K 0 COUNT 10"},
    {"sismember", "set", "SISMEMBER K {member:set_size:set_member_len}"},
    {"sadd", "set", "SADD K {member:set_size:set_member_len}"},
    {"scard", "set", "SCARD K"},
    {"smembers", "set", "SMEMBERS K"},
    {"srandmember", "set", "SRANDMEMBER K"},
    {"sscan", "set", "SSCAN K 0 COUNT 10"},
    {"lrange", "list", "LRANGE K 0 9"},
    {"llen", "list", "LLEN K"},
    {"lindex", "list", "LINDEX K 0"},
    {"lpush", "list", "LPUSH K {bytes:list_member_len}"},
    // A capped list (LPUSH then LTRIM): trimmed back to a size of the measured distribution.
    {"ltrim", "list", "LTRIM K 0 {draw:list_size}"},
    {"rpush", "list", "RPUSH K {bytes:list_member_len}"},
    {"lpop", "list", "LPOP K"},
    {"rpop", "list", "RPOP K"},
    {"exists", "", "EXISTS K"},
    {"ttl", "", "TTL K"},
    {"pttl", "", "PTTL K"},
    {"type", "", "TYPE K"},
};

// The types in the order their record ranges take.
constexpr const char* kTypes[] = {"string", "hash", "zset", "set", "list"};

struct Range {
  uint64_t from = 0, to = 0;  // records [from, to)
};

std::string KeyOf(const Range& r) {
  return "k:{int:" + std::to_string(r.from) + ":" + std::to_string(r.to - 1) + "}";
}

std::string Replace(std::string s, const std::string& key) {
  const size_t k = s.find(" K");
  return s.replace(k + 1, 1, key);
}

}  // namespace

std::string ProfileJson(const Profile& p, const std::string& context_json) {
  json context = json::parse(context_json);
  context["server"] = {
      {"redis_version", p.server_version}, {"db", p.db}, {"keys", p.keys}, {"expires", p.expires}};
  context["bounds"] = {{"commands_sent", p.commands_sent},
                       {"seconds", p.seconds},
                       {"keys_sampled", p.keys_sampled},
                       {"complete", p.complete},
                       {"stopped_by", p.stopped_by}};
  json mix = json::array();
  for (const CommandShare& c : p.mix) {
    mix.push_back(
        {{"command", c.command}, {"calls", c.calls}, {"share", c.share}, {"served", c.served}});
  }
  json excluded = json::array();
  for (const CommandShare& c : p.excluded) {
    excluded.push_back({{"command", c.command}, {"calls", c.calls}});
  }
  json types = json::object();
  for (const auto& [name, t] : p.types) {
    types[name] = {
        {"keys_sampled", t.keys},
        {"share", static_cast<double>(t.keys) / static_cast<double>(p.keys_sampled)},
        {"sizes", SamplesJson(t.sizes)},
        {"key_lengths", SamplesJson(t.key_lengths)},
        {"member_lengths", SamplesJson(t.member_lengths)},
        {"value_lengths", SamplesJson(t.value_lengths)},
        {"memory_bytes", SamplesJson(t.memory_bytes)},
        {"ttl",
         {{"share",
           t.keys == 0 ? 0.0 : static_cast<double>(t.with_ttl) / static_cast<double>(t.keys)},
          {"ms", SamplesJson(t.ttl_ms)}}}};
  }
  json j = {{"schema", "kvlab-profile"},
            {"schema_version", 1},
            {"context", context},
            {"mix",
             {{"source", p.mix_source},
              {"calls", p.mix_calls},
              {"commands", mix},
              {"excluded", excluded}}},
            {"types", types}};
  return j.dump(2) + "\n";
}

std::string ProfileWorkloadJson(const Profile& p, const ProfileWorkloadOptions& o,
                                std::vector<std::string>* notes) {
  // Record ranges per type, in proportion to the sample, scaled.
  const double scale =
      o.scale > 0 ? o.scale : std::min(1.0, kDefaultProfileKeys / static_cast<double>(p.keys));
  std::map<std::string, Range> ranges;
  uint64_t next = 0;
  json distributions = json::object();
  json load = json::array();
  for (const char* type : kTypes) {
    const auto it = p.types.find(type);
    if (it == p.types.end() || it->second.keys == 0) continue;
    const TypeProfile& t = it->second;
    const double share = static_cast<double>(t.keys) / static_cast<double>(p.keys_sampled);
    const auto n = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::llround(static_cast<double>(p.keys) * share * scale)));
    Range r{next, next + n};
    next += n;
    ranges[type] = r;
    const std::string t_ = type;
    const json records = {r.from, r.to};
    if (t_ == "string") {
      distributions["string_value_len"] = DistributionOf(t.value_lengths, 1, 0);
      load.push_back(
          {{"records", records}, {"command", "SET k:{key_id} {bytes:string_value_len}"}});
    } else {
      distributions[t_ + "_size"] = DistributionOf(t.sizes, o.size_scale, 1);
      distributions[t_ + "_member_len"] = DistributionOf(t.member_lengths, 1, 1);
      const std::string collection =
          t_ == "hash"   ? "{fields:hash_size:hash_member_len:hash_value_len}"
          : t_ == "zset" ? "{scored:zset_size:zset_member_len}"
                         : "{members:" + t_ + "_size:" + t_ + "_member_len}";
      if (t_ == "hash") distributions["hash_value_len"] = DistributionOf(t.value_lengths, 1, 0);
      const char* add = t_ == "hash"   ? "HSET"
                        : t_ == "zset" ? "ZADD"
                        : t_ == "set"  ? "SADD"
                                       : "RPUSH";
      load.push_back(
          {{"records", records}, {"command", std::string(add) + " k:{key_id} " + collection}});
    }
    const auto ttl_keys = static_cast<uint64_t>(std::llround(
        static_cast<double>(n) * static_cast<double>(t.with_ttl) / static_cast<double>(t.keys)));
    if (ttl_keys > 0) {
      distributions[t_ + "_ttl_ms"] = DistributionOf(t.ttl_ms, 1, 1);
      load.push_back({{"records", {r.from, r.from + ttl_keys}},
                      {"command", "PEXPIRE k:{key_id} {draw:" + t_ + "_ttl_ms}"}});
    }
  }
  for (const auto& [type, t] : p.types) {
    if (!ranges.count(type)) {
      notes->push_back("keys of type " + type + " (" + std::to_string(t.keys) +
                       " sampled) are not modelled");
    }
  }
  // The mix: one operation per modelled command, weighted by its share in percent.
  json ops = json::array();
  double modelled = 0;
  for (const CommandShare& c : p.mix) {
    const Model* m = nullptr;
    for (const Model& x : kModels) {
      if (c.command == x.command) m = &x;
    }
    std::string why;
    if (!c.served) {
      why = "kvlab does not serve it";
    } else if (m == nullptr) {
      why = "not modelled on synthetic keys (it deletes, or needs values of a form they lack)";
    } else if (m->type[0] != '\0' && !ranges.count(m->type)) {
      why = std::string("no ") + m->type + " keys were sampled";
    } else if (CommandTable::Get().Find(c.command) == nullptr) {
      why = "kvlab does not serve it";
    }
    if (!why.empty()) {
      char share[32];
      std::snprintf(share, sizeof share, "%.2f%%", 100 * c.share);
      notes->push_back("mix: " + c.command + " (" + share + " of calls) left out: " + why);
      continue;
    }
    const Range all{0, next};
    const std::string key = KeyOf(m->type[0] == '\0' ? all : ranges.at(m->type));
    ops.push_back({{"name", c.command},
                   {"weight", 100 * c.share},
                   {"commands", json::array({Replace(m->text, key)})}});
    modelled += c.share;
  }
  if (ops.empty()) {
    // No data command in INFO commandstats (a restarted server, or CONFIG RESETSTAT): read
    // every type by its share of the keys, and say so.
    notes->push_back("mix: " + p.mix_source +
                     " had no modelled data command; the workload reads every type by its share "
                     "of the keys");
    const char* reads[] = {"GET K", "HGETALL K", "ZRANGE K 0 9", "SMEMBERS K", "LRANGE K 0 9"};
    for (size_t i = 0; i < std::size(kTypes); ++i) {
      if (!ranges.count(kTypes[i])) continue;
      const Range& r = ranges.at(kTypes[i]);
      ops.push_back({{"name", std::string("read-") + kTypes[i]},
                     {"weight", static_cast<double>(r.to - r.from)},
                     {"commands", json::array({Replace(reads[i], KeyOf(r))})}});
    }
  }
  char head[256], tail[128];
  std::snprintf(head, sizeof head,
                "Made by kvlab profile from redis %s (database %d: %llu keys, %llu sampled); "
                "%.1f%% of the mix's calls (",
                p.server_version.c_str(), p.db, static_cast<unsigned long long>(p.keys),
                static_cast<unsigned long long>(p.keys_sampled), 100 * modelled);
  std::snprintf(tail, sizeof tail, ") modelled; scale %g, size scale %g", scale, o.size_scale);
  const std::string summary = head + p.mix_source + tail;
  json w = {{"name", o.name},
            {"description", summary},
            {"seed", 1},
            {"threads", 1},
            {"keyspace",
             {{"type", "string"}, {"records", std::max<uint64_t>(1, next)}, {"key_prefix", "k:"}}},
            {"distributions", distributions},
            {"load", {{"commands", load}}},
            {"run", json::array({{{"name", "run"},
                                  {"operations", o.operations},
                                  {"warmup_operations", o.warmup_operations},
                                  {"key_distribution", "uniform"},
                                  {"ops", ops}}})}};
  return w.dump(2) + "\n";
}

}  // namespace kvlab::workloads
