// A small model of Redis semantics for the commands of RandomCommand, and a generator of
// random commands over small alphabets. Shared by the engine's model test and the Redis-tier
// fault tests.
#pragma once

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "resp/redis_numbers.h"
#include "resp/reply.h"

namespace kvlab::testing {

using Hash = std::map<std::string, std::string>;
using Zset = std::map<std::string, double>;  // member -> score
using SetValue = std::set<std::string>;
using Value = std::variant<std::string, Hash, Zset, SetValue>;

inline constexpr const char* kWrongType =
    "(error) WRONGTYPE Operation against a key holding the wrong kind of value";

// The model: Redis semantics for the commands the generator issues, replies in Describe() form.
class Model {
 public:
  explicit Model(bool blind_hash, bool blind_set = false)
      : blind_hash_(blind_hash), blind_set_(blind_set) {}

  std::string Apply(const std::vector<std::string>& a) {
    const std::string& cmd = a[0];
    const std::string& key = a[1];
    auto it = data_.find(key);
    if (cmd == "SET") {
      data_[key] = a[2];
      return "OK";
    }
    if (cmd == "GET") {
      if (it == data_.end()) return "(nil)";
      if (!std::holds_alternative<std::string>(it->second)) return kWrongType;
      return Bulk(std::get<std::string>(it->second));
    }
    if (cmd == "DEL") return Int(data_.erase(key));
    if (cmd == "EXISTS") return Int(data_.count(key));
    if (cmd == "TYPE") {
      if (it == data_.end()) return "none";
      static const char* const kNames[] = {"string", "hash", "zset", "set"};
      return kNames[it->second.index()];
    }
    if (cmd[0] == 'H') return ApplyHash(a, it);
    if (cmd[0] == 'S') return ApplySet(a);
    return ApplyZset(a, it);
  }

 private:
  static std::string Int(int64_t v) { return "(integer) " + std::to_string(v); }
  static std::string Bulk(const std::string& s) { return resp::Reply::Bulk(s).Describe(); }

  std::string ApplyHash(const std::vector<std::string>& a,
                        std::map<std::string, Value>::iterator it) {
    const std::string& cmd = a[0];
    if (it != data_.end() && !std::holds_alternative<Hash>(it->second)) return kWrongType;
    Hash empty;
    Hash& h = it == data_.end() ? empty : std::get<Hash>(it->second);
    if (cmd == "HSET") {
      Hash& target = std::get<Hash>(data_.try_emplace(a[1], Hash()).first->second);
      int64_t added = 0;
      for (size_t i = 2; i + 1 < a.size(); i += 2)
        added += target.insert_or_assign(a[i], a[i + 1]).second;
      return Int(blind_hash_ ? static_cast<int64_t>((a.size() - 2) / 2) : added);
    }
    if (cmd == "HGET") return h.count(a[2]) ? Bulk(h.at(a[2])) : "(nil)";
    if (cmd == "HLEN") return Int(static_cast<int64_t>(h.size()));
    if (cmd == "HDEL") {
      if (it == data_.end()) return Int(0);
      int64_t removed = 0;
      for (size_t i = 2; i < a.size(); ++i) removed += h.erase(a[i]);
      const int64_t given = static_cast<int64_t>(a.size() - 2);
      if (h.empty()) data_.erase(it);
      return Int(blind_hash_ ? given : removed);
    }
    if (cmd == "HGETALL") {
      std::vector<resp::Reply> out;
      for (const auto& [f, v] : h) {
        out.push_back(resp::Reply::Bulk(f));
        out.push_back(resp::Reply::Bulk(v));
      }
      return resp::Reply::Array(std::move(out)).Describe();
    }
    if (cmd == "HINCRBY") {
      Hash& target = std::get<Hash>(data_.try_emplace(a[1], Hash()).first->second);
      int64_t old = 0;
      if (target.count(a[2]) && !resp::ParseInt64(target[a[2]], &old)) {
        if (target.empty()) data_.erase(a[1]);
        return "(error) ERR hash value is not an integer";
      }
      target[a[2]] = std::to_string(old + std::stoll(a[3]));
      return Int(old + std::stoll(a[3]));
    }
    return "(model: unknown " + cmd + ")";
  }

  // Members in zset order: by score, then by member bytes.
  static std::vector<std::pair<double, std::string>> Ordered(const Zset& z) {
    std::vector<std::pair<double, std::string>> out;
    for (const auto& [m, s] : z) out.emplace_back(s, m);
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::string Members(const std::vector<std::pair<double, std::string>>& v, size_t from,
                             size_t to, bool scores) {
    std::vector<resp::Reply> out;
    for (size_t i = from; i < to && i < v.size(); ++i) {
      out.push_back(resp::Reply::Bulk(v[i].second));
      if (scores) out.push_back(resp::Reply::Bulk(resp::FormatDouble(v[i].first)));
    }
    return resp::Reply::Array(std::move(out)).Describe();
  }

  std::string ApplyZset(const std::vector<std::string>& a,
                        std::map<std::string, Value>::iterator it) {
    const std::string& cmd = a[0];
    if (it != data_.end() && !std::holds_alternative<Zset>(it->second)) return kWrongType;
    Zset empty;
    Zset& z = it == data_.end() ? empty : std::get<Zset>(it->second);
    if (cmd == "ZADD") {
      Zset& target = std::get<Zset>(data_.try_emplace(a[1], Zset()).first->second);
      int64_t added = 0;
      for (size_t i = 2; i + 1 < a.size(); i += 2) {
        double s = std::stod(a[i]);
        added += target.insert_or_assign(a[i + 1], s == 0 ? 0.0 : s).second;
      }
      return Int(added);
    }
    if (cmd == "ZINCRBY") {
      Zset& target = std::get<Zset>(data_.try_emplace(a[1], Zset()).first->second);
      double s = target[a[3]] + std::stod(a[2]);
      target[a[3]] = s == 0 ? 0.0 : s;
      return Bulk(resp::FormatDouble(target[a[3]]));
    }
    if (cmd == "ZREM") {
      if (it == data_.end()) return Int(0);
      int64_t removed = 0;
      for (size_t i = 2; i < a.size(); ++i) removed += z.erase(a[i]);
      if (z.empty()) data_.erase(it);
      return Int(removed);
    }
    if (cmd == "ZSCORE") return z.count(a[2]) ? Bulk(resp::FormatDouble(z.at(a[2]))) : "(nil)";
    if (cmd == "ZCARD") return Int(static_cast<int64_t>(z.size()));
    auto ordered = Ordered(z);
    const int64_t n = static_cast<int64_t>(ordered.size());
    if (cmd == "ZRANGE" || cmd == "ZREVRANGE") {
      if (cmd == "ZREVRANGE") std::reverse(ordered.begin(), ordered.end());
      int64_t start = std::stoll(a[2]), stop = std::stoll(a[3]);
      if (start < 0) start += n;
      if (stop < 0) stop += n;
      if (start < 0) start = 0;
      if (start > stop || start >= n) return "[]";
      return Members(ordered, static_cast<size_t>(start), static_cast<size_t>(stop) + 1,
                     a.size() > 4);
    }
    if (cmd == "ZRANGEBYSCORE" || cmd == "ZREVRANGEBYSCORE") {
      const bool rev = cmd == "ZREVRANGEBYSCORE";
      const double lo = std::stod(a[rev ? 3 : 2]), hi = std::stod(a[rev ? 2 : 3]);
      std::vector<std::pair<double, std::string>> in;
      for (const auto& e : ordered) {
        if (e.first >= lo && e.first <= hi) in.push_back(e);
      }
      if (rev) std::reverse(in.begin(), in.end());
      return Members(in, 0, in.size(), true);
    }
    if (cmd == "ZRANK" || cmd == "ZREVRANK") {
      for (int64_t i = 0; i < n; ++i) {
        if (ordered[static_cast<size_t>(i)].second == a[2])
          return Int(cmd == "ZRANK" ? i : n - 1 - i);
      }
      return "(nil)";
    }
    if (cmd == "ZPOPMIN" || cmd == "ZPOPMAX") {
      if (cmd == "ZPOPMAX") std::reverse(ordered.begin(), ordered.end());
      const size_t count = std::min<size_t>(std::stoul(a[2]), ordered.size());
      std::string reply = Members(ordered, 0, count, true);
      for (size_t i = 0; i < count; ++i) z.erase(ordered[i].second);
      if (it != data_.end() && z.empty()) data_.erase(it);
      return reply;
    }
    return "(model: unknown " + cmd + ")";
  }

  // Sets: SADD, SREM, SCARD, SISMEMBER, SMEMBERS, SINTER, SUNION, SDIFF, SINTERSTORE, SMOVE
  // (RandomSetCommand). Aggregates answer in member order (SortedIfUnordered sorts the engine's).
  std::string ApplySet(const std::vector<std::string>& a) {
    const std::string& cmd = a[0];
    const bool store = cmd == "SINTERSTORE";
    const size_t first = store ? 2 : 1;
    const size_t last = cmd == "SINTER" || cmd == "SUNION" || cmd == "SDIFF" || store ? a.size()
                        : cmd == "SMOVE"                                              ? 3
                                                                                      : 2;
    for (size_t i = first; i < last; ++i) {
      auto k = data_.find(a[i]);
      if (cmd == "SMOVE" && i == 1 && k == data_.end()) return Int(0);
      if (k != data_.end() && !std::holds_alternative<SetValue>(k->second)) return kWrongType;
    }
    auto get = [&](const std::string& key) {
      auto k = data_.find(key);
      return k == data_.end() ? SetValue() : std::get<SetValue>(k->second);
    };
    auto put = [&](const std::string& key, SetValue v) {
      if (v.empty()) {
        data_.erase(key);
      } else {
        data_[key] = std::move(v);
      }
    };
    auto members = [](const SetValue& v) {
      std::vector<resp::Reply> out;
      for (const std::string& m : v) out.push_back(resp::Reply::Bulk(m));
      return resp::Reply::Array(std::move(out)).Describe();
    };
    SetValue s = store ? SetValue() : get(a[1]);  // a STORE's destination may be any type
    if (cmd == "SADD" || cmd == "SREM") {
      if (cmd == "SREM" && s.empty()) return Int(0);
      int64_t changed = 0;
      for (size_t i = 2; i < a.size(); ++i)
        changed += cmd == "SADD" ? s.insert(a[i]).second : s.erase(a[i]);
      put(a[1], std::move(s));
      return Int(blind_set_ ? static_cast<int64_t>(a.size() - 2) : changed);
    }
    if (cmd == "SCARD") return Int(static_cast<int64_t>(s.size()));
    if (cmd == "SISMEMBER") return Int(s.count(a[2]) ? 1 : 0);
    if (cmd == "SMEMBERS") return members(s);
    if (cmd == "SMOVE") {
      if (!s.count(a[3])) return Int(0);
      if (a[1] == a[2]) return Int(1);
      s.erase(a[3]);
      SetValue d = get(a[2]);
      d.insert(a[3]);
      put(a[1], std::move(s));
      put(a[2], std::move(d));
      return Int(1);
    }
    SetValue result = get(a[first]);
    for (size_t i = first + 1; i < a.size(); ++i) {
      const SetValue other = get(a[i]);
      SetValue next;
      for (const std::string& m : cmd == "SUNION" ? other : result) {
        if (cmd == "SUNION" || (cmd == "SDIFF") != (other.count(m) > 0)) next.insert(m);
      }
      if (cmd == "SUNION") next.insert(result.begin(), result.end());
      result = std::move(next);
    }
    if (!store) return members(result);
    const int64_t n = static_cast<int64_t>(result.size());
    put(a[1], std::move(result));
    return Int(n);
  }

  const bool blind_hash_;
  const bool blind_set_;
  std::map<std::string, Value> data_;
};

// A reply in Describe() form, with HGETALL's field-value pairs sorted by field: Redis leaves
// their order unspecified (the Redis-tier versions answer in the cache's order), the model
// answers in field order; the members of set replies likewise, sorted.
inline std::string SortedIfUnordered(const std::vector<std::string>& cmd,
                                     const resp::Reply& reply) {
  if (reply.is_aggregate() &&
      (cmd[0] == "SMEMBERS" || cmd[0] == "SINTER" || cmd[0] == "SUNION" || cmd[0] == "SDIFF")) {
    std::vector<std::string> members;
    for (const resp::Reply& e : reply.elements()) members.push_back(e.str());
    std::sort(members.begin(), members.end());
    std::vector<resp::Reply> out;
    for (auto& m : members) out.push_back(resp::Reply::Bulk(std::move(m)));
    return resp::Reply::Array(std::move(out)).Describe();
  }
  if (cmd[0] != "HGETALL" || !reply.is_aggregate()) return reply.Describe();
  std::vector<std::pair<std::string, std::string>> pairs;
  const auto& e = reply.elements();
  for (size_t i = 0; i + 1 < e.size(); i += 2) pairs.emplace_back(e[i].str(), e[i + 1].str());
  std::sort(pairs.begin(), pairs.end());
  std::vector<resp::Reply> out;
  for (auto& [f, v] : pairs) {
    out.push_back(resp::Reply::Bulk(f));
    out.push_back(resp::Reply::Bulk(v));
  }
  return resp::Reply::Array(std::move(out)).Describe();
}

inline std::vector<std::string> RandomCommand(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<const char*> options) {
    return std::string(options.begin()[rng() % options.size()]);
  };
  const std::string key = pick({"a", "b", "c", "d"});
  auto field = [&] { return pick({"f1", "f2", "f3", "f4", "f5"}); };
  auto member = [&] { return pick({"m1", "m2", "m3", "m4", "m5", "m6"}); };
  auto score = [&] { return pick({"-2", "-1.5", "0", "-0", "1", "2.5", "3", "inf", "-inf"}); };
  switch (rng() % 24) {
    case 0:
      return {"SET", key, pick({"x", "y", ""})};
    case 1:
      return {"GET", key};
    case 2:
      return {"DEL", key};
    case 3:
      return {"EXISTS", key};
    case 4:
      return {"TYPE", key};
    case 5:
      return {"HSET", key, field(), pick({"1", "v", ""})};
    case 6:
      return {"HSET", key, field(), "2", field(), "3"};
    case 7:
      return {"HGET", key, field()};
    case 8:
      return {"HDEL", key, field()};
    case 9:
      return {"HDEL", key, field(), field()};
    case 10:
      return {"HLEN", key};
    case 11:
      return {"HGETALL", key};
    case 12:
      return {"HINCRBY", key, field(), pick({"1", "-3"})};
    case 13:
      return {"ZADD", key, score(), member()};
    case 14:
      return {"ZADD", key, score(), member(), score(), member()};
    case 15:
      return {"ZINCRBY", key, pick({"1", "-0.5"}), member()};
    case 16:
      return {"ZREM", key, member(), member()};
    case 17:
      return {"ZSCORE", key, member()};
    case 18:
      return {"ZCARD", key};
    case 19:
      return {"ZRANGE", key, pick({"0", "1", "-2"}), pick({"-1", "2", "0"}), "WITHSCORES"};
    case 20:
      return {"ZREVRANGE", key, pick({"0", "1", "-3"}), pick({"-1", "1"})};
    case 21:
      return rng() % 2
                 ? std::vector<std::string>{"ZRANGEBYSCORE", key, "-1.5", "2.5", "WITHSCORES"}
                 : std::vector<std::string>{"ZREVRANGEBYSCORE", key, "2.5", "-1.5", "WITHSCORES"};
    case 22:
      return {rng() % 2 ? "ZRANK" : "ZREVRANK", key, member()};
    default:
      return {rng() % 2 ? "ZPOPMIN" : "ZPOPMAX", key, pick({"1", "2"})};
  }
}

// Random set commands over the keys RandomCommand uses, with a few strings among them.
inline std::vector<std::string> RandomSetCommand(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<const char*> options) {
    return std::string(options.begin()[rng() % options.size()]);
  };
  auto key = [&] { return pick({"a", "b", "c", "d"}); };
  auto member = [&] { return pick({"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}); };
  switch (rng() % 14) {
    case 0:
    case 1:
      return {"SADD", key(), member(), member()};
    case 2:
      return {"SADD", key(), member()};
    case 3:
      return {"SREM", key(), member()};
    case 4:
      return {"SCARD", key()};
    case 5:
      return {"SISMEMBER", key(), member()};
    case 6:
    case 7:
      return {"SMEMBERS", key()};
    case 8:
      return {"SINTER", key(), key()};
    case 9:
      return {"SUNION", key(), key()};
    case 10:
      return {"SDIFF", key(), key()};
    case 11:
      return {"SINTERSTORE", key(), key(), key()};
    case 12:
      return {"SMOVE", key(), key(), member()};
    default:
      return rng() % 4 ? std::vector<std::string>{"DEL", key()}
                       : std::vector<std::string>{"SET", key(), "x"};
  }
}

}  // namespace kvlab::testing
