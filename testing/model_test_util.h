// A small model of Redis semantics for the commands of RandomCommand, and a generator of
// random commands over small alphabets. Shared by the engine's model test and the Redis-tier
// fault tests.
#pragma once

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "resp/redis_numbers.h"
#include "resp/reply.h"

namespace kvlab::testing {

using Hash = std::map<std::string, std::string>;
using Zset = std::map<std::string, double>;  // member -> score
using Value = std::variant<std::string, Hash, Zset>;

inline constexpr const char* kWrongType =
    "(error) WRONGTYPE Operation against a key holding the wrong kind of value";

// The model: Redis semantics for the commands the generator issues, replies in Describe() form.
class Model {
 public:
  explicit Model(bool blind_hash) : blind_hash_(blind_hash) {}

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
      return it->second.index() == 0 ? "string" : it->second.index() == 1 ? "hash" : "zset";
    }
    if (cmd[0] == 'H') return ApplyHash(a, it);
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

  const bool blind_hash_;
  std::map<std::string, Value> data_;
};

// A reply in Describe() form, with HGETALL's field-value pairs sorted by field: Redis leaves
// their order unspecified (the Redis-tier versions answer in the cache's order), the model
// answers in field order.
inline std::string SortedIfUnordered(const std::vector<std::string>& cmd,
                                     const resp::Reply& reply) {
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

}  // namespace kvlab::testing
