#include "traces/anonymizer.h"

#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "engine/command_table.h"

namespace kvlab::traces {

using engine::CommandSpec;
using engine::CommandTable;

namespace {

// The roles of each argument after the command name, by position: k key, m member (or field,
// pattern, message: hashed), v value (length kept), l lex bound (its [ ( prefix kept, the rest
// hashed; - and + kept), x kept. A group in parentheses repeats over the remaining arguments;
// arguments past the pattern are kept (options, counts), except the one after MATCH, which is
// hashed. Key positions also come from the command table, so a key is hashed wherever the
// pattern says. docs/traces.md lists this table.
struct Roles {
  const char* name;
  const char* pattern;
};
constexpr Roles kRoles[] = {
    // strings
    {"set", "kv"},
    {"setnx", "kv"},
    {"setex", "kxv"},
    {"psetex", "kxv"},
    {"getset", "kv"},
    {"mset", "(kv)"},
    {"msetnx", "(kv)"},
    {"append", "kv"},
    {"setrange", "kxv"},
    {"get", "k"},
    {"getdel", "k"},
    {"getex", "k"},
    {"mget", "(k)"},
    {"strlen", "k"},
    {"incr", "k"},
    {"decr", "k"},
    {"incrby", "kx"},
    {"decrby", "kx"},
    {"incrbyfloat", "kx"},
    {"getrange", "kxx"},
    {"substr", "kxx"},
    {"lcs", "kk"},
    {"setbit", "kxx"},
    {"getbit", "kx"},
    {"bitcount", "k"},
    {"bitpos", "kx"},
    // hashes
    {"hset", "k(mv)"},
    {"hmset", "k(mv)"},
    {"hsetnx", "kmv"},
    {"hget", "km"},
    {"hmget", "k(m)"},
    {"hdel", "k(m)"},
    {"hgetall", "k"},
    {"hlen", "k"},
    {"hkeys", "k"},
    {"hvals", "k"},
    {"hexists", "km"},
    {"hstrlen", "km"},
    {"hscan", "kx"},
    {"hincrby", "kmx"},
    {"hincrbyfloat", "kmx"},
    {"hrandfield", "k"},
    // sorted sets (ZADD's options come before its pairs: handled in Apply)
    {"zincrby", "kxm"},
    {"zcard", "k"},
    {"zscore", "km"},
    {"zmscore", "k(m)"},
    {"zcount", "k"},
    {"zlexcount", "kll"},
    {"zrange", "k"},
    {"zrangestore", "kk"},
    {"zrangebyscore", "k"},
    {"zrevrangebyscore", "k"},
    {"zrangebylex", "kll"},
    {"zrevrangebylex", "kll"},
    {"zrevrange", "k"},
    {"zrank", "km"},
    {"zrevrank", "km"},
    {"zrem", "k(m)"},
    {"zremrangebyrank", "k"},
    {"zremrangebyscore", "k"},
    {"zremrangebylex", "kll"},
    {"zscan", "kx"},
    {"zpopmin", "k"},
    {"zpopmax", "k"},
    {"zrandmember", "k"},
    {"zmpop", ""},
    {"bzpopmin", ""},
    {"bzpopmax", ""},
    {"bzmpop", ""},
    {"zunion", ""},
    {"zinter", ""},
    {"zdiff", ""},
    {"zintercard", ""},
    {"zunionstore", ""},
    {"zinterstore", ""},
    {"zdiffstore", ""},
    // lists
    {"lpush", "k(v)"},
    {"rpush", "k(v)"},
    {"lpushx", "k(v)"},
    {"rpushx", "k(v)"},
    {"lpop", "k"},
    {"rpop", "k"},
    {"llen", "k"},
    {"lrange", "k"},
    {"lindex", "k"},
    {"lset", "kxv"},
    {"linsert", "kxvv"},
    {"lrem", "kxv"},
    {"ltrim", "k"},
    {"lpos", "kv"},
    {"lmove", "kk"},
    {"rpoplpush", "kk"},
    {"lmpop", ""},
    {"blpop", ""},
    {"brpop", ""},
    {"blmove", "kk"},
    {"brpoplpush", "kk"},
    {"blmpop", ""},
    // sets
    {"sadd", "k(m)"},
    {"srem", "k(m)"},
    {"scard", "k"},
    {"sismember", "km"},
    {"smismember", "k(m)"},
    {"smembers", "k"},
    {"srandmember", "k"},
    {"spop", "k"},
    {"smove", "kkm"},
    {"sinter", ""},
    {"sunion", ""},
    {"sdiff", ""},
    {"sinterstore", ""},
    {"sunionstore", ""},
    {"sdiffstore", ""},
    {"sintercard", ""},
    {"sscan", "kx"},
    // keys and the keyspace
    {"del", ""},
    {"unlink", ""},
    {"exists", ""},
    {"rename", "kk"},
    {"renamenx", "kk"},
    {"copy", "kk"},
    {"move", "k"},
    {"type", "k"},
    {"touch", ""},
    {"randomkey", ""},
    {"object", "xk"},
    {"memory", "xk"},
    {"expire", "k"},
    {"pexpire", "k"},
    {"expireat", "k"},
    {"pexpireat", "k"},
    {"ttl", "k"},
    {"pttl", "k"},
    {"expiretime", "k"},
    {"pexpiretime", "k"},
    {"persist", "k"},
    {"keys", "m"},
    {"scan", "x"},
    {"dbsize", ""},
    {"flushdb", ""},
    {"flushall", ""},
    // the connection and the server: messages and names hashed, passwords too
    {"ping", "m"},
    {"echo", "m"},
    {"select", "x"},
    {"time", ""},
    {"auth", "(m)"},
    {"hello", "x(m)"},
    {"quit", ""},
    {"client", "x(m)"},
    {"command", "x(m)"},
    {"info", "x"},
    {"config", "x(xm)"},
    {"multi", ""},
    {"exec", ""},
    {"discard", ""},
    {"watch", ""},
    {"unwatch", ""},
    {"shutdown", "x"},
    {"kvlab.gc", "x"},
};

bool IsNumber(std::string_view s) {
  if (s.empty() || s.size() > 24) return false;
  if (s == "inf" || s == "+inf" || s == "-inf" || s == "INF" || s == "+INF" || s == "-INF") {
    return true;  // a score
  }
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  bool digit = false, dot = false;
  for (; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      digit = true;
    } else if (s[i] == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digit;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

Anonymizer::Anonymizer() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    // OpenSSL's generator failed: fall back on the OS's through random_device.
    std::random_device rd;
    for (unsigned char& b : bytes) b = static_cast<unsigned char>(rd());
  }
  secret_.assign(reinterpret_cast<const char*>(bytes), sizeof(bytes));
  for (const Roles& r : kRoles) roles_.emplace(r.name, r.pattern);
}

Anonymizer::Anonymizer(std::string secret) : secret_(std::move(secret)) {
  for (const Roles& r : kRoles) roles_.emplace(r.name, r.pattern);
}

std::string Anonymizer::Hash(std::string_view in) const {
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t want = std::max<size_t>(16, in.size());
  std::string out;
  out.reserve(want + 64);
  std::string message(in);
  for (uint32_t counter = 0; out.size() < want; ++counter) {
    // Blocks of HMAC(secret, input || counter) until the output is long enough.
    message.resize(in.size());
    message.append(reinterpret_cast<const char*>(&counter), sizeof(counter));
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
         reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
    for (unsigned int i = 0; i < length; ++i) {
      out.push_back(kHex[digest[i] >> 4]);
      out.push_back(kHex[digest[i] & 0xf]);
    }
  }
  out.resize(want);
  return out;
}

void Anonymizer::Apply(std::vector<std::string>* argv, std::vector<ArgKind>* kinds) const {
  std::vector<std::string>& a = *argv;
  kinds->assign(a.size(), ArgKind::kLiteral);
  if (a.empty()) return;
  std::string name = a[0];
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::vector<char> role(a.size(), 'x');
  const auto it = roles_.find(name);
  const CommandSpec* spec = CommandTable::Get().Find(name);
  if (name == "zadd") {
    // ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...]
    size_t i = 2;
    role[1] = 'k';
    while (i < a.size() && !IsNumber(a[i]) && a[i].size() <= 4) ++i;
    for (; i + 1 < a.size(); i += 2) role[i + 1] = 'm';
  } else if (it == roles_.end()) {
    // Not described: hash every argument but numbers.
    for (size_t i = 1; i < a.size(); ++i) role[i] = IsNumber(a[i]) ? 'x' : 'm';
  } else {
    const std::string_view p = it->second;
    const size_t open = p.find('(');
    const std::string_view fixed = p.substr(0, open);
    size_t i = 1;
    for (char r : fixed) {
      if (i >= a.size()) break;
      role[i++] = r;
    }
    if (open != std::string_view::npos) {
      const std::string_view group = p.substr(open + 1, p.size() - open - 2);
      for (size_t g = 0; i < a.size(); ++i, ++g) role[i] = group[g % group.size()];
    }
    for (size_t j = i; j + 1 < a.size(); ++j) {
      if (EqualsNoCase(a[j], "match")) role[j + 1] = 'm';
    }
    // ZRANGE and ZRANGESTORE with BYLEX: the bounds are lex bounds.
    if (name == "zrange" || name == "zrangestore") {
      const size_t first = name == "zrange" ? 2 : 3;
      for (size_t j = first + 2; j < a.size(); ++j) {
        if (EqualsNoCase(a[j], "bylex") && first + 1 < a.size()) {
          role[first] = role[first + 1] = 'l';
        }
      }
    }
  }
  if (spec != nullptr) {
    std::vector<size_t> positions;
    if (CommandTable::KeyPositions(*spec, a, &positions)) {
      for (size_t p : positions) role[p] = 'k';
    }
  }
  for (size_t i = 1; i < a.size(); ++i) {
    switch (role[i]) {
      case 'k':
      case 'm':
        a[i] = Hash(a[i]);
        break;
      case 'v':
        (*kinds)[i] = IsNumber(a[i]) ? ArgKind::kNumber : ArgKind::kValue;
        break;
      case 'l':
        if (a[i] == "-" || a[i] == "+") break;
        if (!a[i].empty() && (a[i][0] == '[' || a[i][0] == '(')) {
          a[i] = a[i][0] + Hash(std::string_view(a[i]).substr(1));
        } else {
          a[i] = Hash(a[i]);
        }
        break;
      default:
        break;
    }
  }
}

}  // namespace kvlab::traces
