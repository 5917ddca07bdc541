// SORT and SORT_RO: Redis 7.0's sortCommandGeneric (sort.c), in its order of checks, over the
// list, set and zset encodings. The locking contract is in sort_commands.h.
//
// Order of equal elements: Redis sorts its vector with glibc's qsort (a stable merge sort for a
// vector of this size) or, for BY with a LIMIT that is not the whole vector, with its pqsort,
// which kvlab reproduces step by step (PartialQsort, engine/pqsort.h). The comparator is a total
// order on distinct elements except in ALPHA mode, where two elements whose BY values are both
// missing (or equal), or whose texts are equal as C strings, tie; then the result depends on the
// order the vector was loaded in. Lists load in list order, as Redis's, so every list reply is
// Redis's. A set loads in the order of Redis's in-memory set (intset, listpack or hash table),
// and a zset sorted (not BY a constant) in its hash table's order: kvlab loads them in member
// order, and only their ties can come out in another order than Redis's (the differential
// cases and the random generator leave such ties out), as can a set's reply BY a constant
// without STORE, which Redis gives in its in-memory order.
#include "engine/sort_commands.h"

#include <strings.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "engine/command_context.h"
#include "engine/handlers.h"
#include "engine/pqsort.h"
#include "resp/redis_numbers.h"

namespace kvlab::engine {

using encodings::KeyHandle;
using encodings::KeyType;
using resp::Reply;

namespace {

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;  // BY without '*': sticky, as Redis's flag
  int64_t limit_start = 0;
  int64_t limit_count = -1;
  const std::string* by = nullptr;  // the last BY
  size_t store = 0;                 // the argument of the last STORE; 0 for none
  std::vector<const std::string*> gets;
};

bool HasStar(const std::string& pattern) {
  // strchr: the pattern is a C string to Redis.
  return std::strchr(pattern.c_str(), '*') != nullptr;
}

// Redis's option loop. Returns false with *error set (Redis's text) on the first bad option.
bool ParseSort(const std::vector<std::string>& argv, bool readonly, SortOptions* o,
               std::string* error) {
  const size_t argc = argv.size();
  for (size_t j = 2; j < argc; ++j) {
    const size_t leftargs = argc - j - 1;
    const char* a = argv[j].c_str();
    if (!strcasecmp(a, "asc")) {
      o->desc = false;
    } else if (!strcasecmp(a, "desc")) {
      o->desc = true;
    } else if (!strcasecmp(a, "alpha")) {
      o->alpha = true;
    } else if (!strcasecmp(a, "limit") && leftargs >= 2) {
      if (!resp::ParseInt64(argv[j + 1], &o->limit_start) ||
          !resp::ParseInt64(argv[j + 2], &o->limit_count)) {
        *error = errors::kNotInteger;
        return false;
      }
      j += 2;
    } else if (!readonly && !strcasecmp(a, "store") && leftargs >= 1) {
      o->store = j + 1;
      ++j;
    } else if (!strcasecmp(a, "by") && leftargs >= 1) {
      o->by = &argv[j + 1];
      if (!HasStar(argv[j + 1])) o->dontsort = true;
      ++j;
    } else if (!strcasecmp(a, "get") && leftargs >= 1) {
      o->gets.push_back(&argv[j + 1]);
      ++j;
    } else {
      *error = errors::kSyntax;
      return false;
    }
  }
  return true;
}

bool ReadsPatternKeys(const std::vector<std::string>& argv, bool readonly) {
  SortOptions o;
  std::string error;
  if (argv.size() < 2 || !ParseSort(argv, readonly, &o, &error)) return false;
  if (!o.dontsort && o.by != nullptr && HasStar(*o.by)) return true;
  for (const std::string* g : o.gets) {
    if (*g != "#" && HasStar(*g)) return true;
  }
  return false;
}

// One element of the vector to sort (redisSortObject).
struct SortItem {
  std::string obj;
  double score = 0;
  std::optional<std::string> cmp;  // ALPHA with BY: the BY value, when found
};

// The keys the patterns reach, read once per command: a pattern key is read through its
// key-meta (the string's value is in it), and a hash field through the hash's encoding.
class PatternReader {
 public:
  explicit PatternReader(CommandContext& ctx) : ctx_(ctx) {}

  // lookupKeyByPattern: the value `pattern` names for element `subst`; nullopt for none.
  // Returns false after an error reply (a storage error).
  bool Lookup(const std::string& pattern, const std::string& subst,
              std::optional<std::string>* out) {
    out->reset();
    if (pattern == "#") {
      *out = subst;
      return true;
    }
    // Redis works on the pattern as a C string for its searches, on its full length for the
    // copies.
    const char* spat = pattern.c_str();
    const char* p = std::strchr(spat, '*');
    if (p == nullptr) return true;
    const char* f = std::strstr(p + 1, "->");
    size_t fieldlen = 0;
    std::optional<std::string> field;
    if (f != nullptr && f[2] != '\0') {
      fieldlen = pattern.size() - static_cast<size_t>(f - spat) - 2;
      field = std::string(f + 2, fieldlen);
    }
    const size_t prefixlen = static_cast<size_t>(p - spat);
    const size_t postfixlen = pattern.size() - (prefixlen + 1) - (field ? fieldlen + 2 : 0);
    std::string key = pattern.substr(0, prefixlen);
    key += subst;
    key.append(pattern, prefixlen + 1, postfixlen);

    Entry* e = nullptr;
    if (!Load(key, &e)) return false;
    if (!e->exists) return true;
    if (field) {
      if (e->h.meta.type != KeyType::kHash) return true;
      return ctx_.Check(ctx_.Hash(e->h.meta).Get(ctx_.txn(), e->h, *field, out));
    }
    if (e->h.meta.type == KeyType::kString) *out = e->h.meta.value;
    return true;
  }

 private:
  struct Entry {
    bool exists = false;
    KeyHandle h;
  };

  bool Load(const std::string& key, Entry** out) {
    auto it = loaded_.find(key);
    if (it == loaded_.end()) {
      Entry e;
      if (!ctx_.LoadAny(key, &e.h, &e.exists)) return false;
      it = loaded_.emplace(key, std::move(e)).first;
    }
    *out = &it->second;
    return true;
  }

  CommandContext& ctx_;
  std::map<std::string, Entry> loaded_;
};

// compareStringObjects: binary, then by length.
int CompareBinary(const std::string& a, const std::string& b) {
  const int cmp = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (cmp != 0) return cmp;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// strcoll on the C strings, as Redis compares for a reply (kvlab runs in the C locale, where
// strcoll is strcmp).
int CompareCollate(const std::string& a, const std::string& b) {
  return std::strcmp(a.c_str(), b.c_str());
}

void SortGeneric(CommandContext& ctx, bool readonly) {
  SortOptions o;
  std::string error;
  if (!ParseSort(ctx.argv(), readonly, &o, &error)) return ctx.ReplyError(error);

  KeyHandle h;
  bool exists = false;
  if (!ctx.LoadOneOf(ctx.arg(1), {KeyType::kList, KeyType::kSet, KeyType::kZset}, &h, &exists)) {
    return;
  }
  const KeyType type = exists ? h.meta.type : KeyType::kList;
  const bool storing = o.store != 0;
  const std::string* sortby = o.by;
  bool dontsort = o.dontsort;
  bool alpha = o.alpha;
  // A set's own order is its encoding's: with STORE Redis sorts it (ALPHA), so that the stored
  // list does not depend on it.
  if (dontsort && type == KeyType::kSet && storing) {
    dontsort = false;
    alpha = true;
    sortby = nullptr;
  }

  // The object's size. A zset sorted whole is read whole first (its size is what it holds):
  // ZCARD costs a scan in some encode-versions (vardb).
  int64_t vectorlen = 0;
  std::vector<encodings::ScoredMember> members;
  std::vector<std::string> elements;
  if (exists && type == KeyType::kZset) {
    if (dontsort) {
      uint64_t card = 0;
      if (!ctx.Check(ctx.Zset(h.meta).Card(ctx.txn(), h, &card))) return;
      vectorlen = static_cast<int64_t>(card);
    } else {
      if (!ctx.Check(ctx.Zset(h.meta).RangeByRank(ctx.txn(), h, 0, -1, false, &members))) return;
      vectorlen = static_cast<int64_t>(members.size());
    }
  } else if (exists && type == KeyType::kSet) {
    // A set is always read whole (SCARD too scans in some encode-versions).
    if (!ctx.Check(ctx.Set(h.meta).Members(ctx.txn(), h, &elements))) return;
    vectorlen = static_cast<int64_t>(elements.size());
  } else if (exists) {
    vectorlen = static_cast<int64_t>(h.meta.count);  // a list's length is in its meta
  }
  // Redis's LIMIT arithmetic, clamped to the object's size.
  int64_t start = std::min(std::max(o.limit_start, int64_t{0}), vectorlen);
  const int64_t limit_count = std::min(std::max(o.limit_count, int64_t{-1}), vectorlen);
  int64_t end = limit_count < 0 ? vectorlen - 1 : start + limit_count - 1;
  if (start >= vectorlen) {
    start = vectorlen - 1;
    end = vectorlen - 2;
  }
  if (end >= vectorlen) end = vectorlen - 1;

  // Load the vector. Lists and zsets not sorted load only the range, in the asked direction.
  std::vector<SortItem> vector;
  if (exists && type == KeyType::kList) {
    if (dontsort) {
      // Redis walks the range from its first element in the asked direction.
      if (end >= start) {
        const uint64_t len = static_cast<uint64_t>(vectorlen);
        const uint64_t first = o.desc ? len - 1 - static_cast<uint64_t>(end) : start;
        const uint64_t last = o.desc ? len - 1 - static_cast<uint64_t>(start) : end;
        if (!ctx.Check(ctx.List(h.meta).Range(ctx.txn(), h, first, last, &elements))) return;
        if (o.desc) std::reverse(elements.begin(), elements.end());
      }
      end -= start;
      start = 0;
    } else if (vectorlen > 0) {
      if (!ctx.Check(ctx.List(h.meta).Range(ctx.txn(), h, 0, static_cast<uint64_t>(vectorlen) - 1,
                                            &elements))) {
        return;
      }
    }
  } else if (exists && type == KeyType::kZset) {
    if (dontsort) {
      if (end >= start &&
          !ctx.Check(ctx.Zset(h.meta).RangeByRank(ctx.txn(), h, start, end, o.desc, &members))) {
        return;
      }
      end -= start;
      start = 0;
    }
    elements.reserve(members.size());
    for (auto& m : members) elements.push_back(std::move(m.member));
  }
  vector.reserve(elements.size());
  for (std::string& e : elements) vector.push_back({std::move(e), 0, std::nullopt});
  if (!dontsort) vectorlen = static_cast<int64_t>(vector.size());

  PatternReader reader(ctx);
  bool int_conversion_error = false;
  if (!dontsort) {
    for (SortItem& item : vector) {
      std::optional<std::string> byval;
      if (sortby != nullptr) {
        if (!reader.Lookup(*sortby, item.obj, &byval)) return;
        if (!byval) continue;
      }
      const std::string& value = sortby != nullptr ? *byval : item.obj;
      if (alpha) {
        if (sortby != nullptr) item.cmp = std::move(*byval);
      } else {
        // strtod on the C string, as Redis: trailing bytes, overflow and NaN are errors.
        char* eptr = nullptr;
        errno = 0;
        item.score = std::strtod(value.c_str(), &eptr);
        if (eptr[0] != '\0' || errno == ERANGE || std::isnan(item.score)) {
          int_conversion_error = true;
        }
      }
    }
    const bool bypattern = sortby != nullptr;
    auto compare = [&](const SortItem& a, const SortItem& b) {
      int cmp = 0;
      if (!alpha) {
        if (a.score > b.score) {
          cmp = 1;
        } else if (a.score < b.score) {
          cmp = -1;
        } else {
          cmp = CompareBinary(a.obj, b.obj);
        }
      } else if (bypattern) {
        if (!a.cmp || !b.cmp) {
          cmp = !a.cmp && !b.cmp ? 0 : !a.cmp ? -1 : 1;
        } else {
          cmp = storing ? CompareBinary(*a.cmp, *b.cmp) : CompareCollate(*a.cmp, *b.cmp);
        }
      } else {
        cmp = storing ? CompareBinary(a.obj, b.obj) : CompareCollate(a.obj, b.obj);
      }
      return o.desc ? -cmp : cmp;
    };
    // (A vector with a score that failed to parse is not sorted: the reply is the error.)
    if (!int_conversion_error && bypattern && (start != 0 || end != vectorlen - 1)) {
      PartialQsort(vector, 0, vectorlen, compare, start, end);
    } else if (!int_conversion_error) {
      // glibc's qsort: a merge sort, stable, for a vector of this size.
      std::stable_sort(vector.begin(), vector.end(),
                       [&](const SortItem& a, const SortItem& b) { return compare(a, b) < 0; });
    }
  }

  const int64_t getop = static_cast<int64_t>(o.gets.size());
  const int64_t outputlen = getop > 0 ? getop * (end - start + 1) : end - start + 1;
  if (int_conversion_error) {
    return ctx.ReplyError("ERR One or more scores can't be converted into double");
  }
  if (!storing) {
    std::vector<Reply> out;
    out.reserve(static_cast<size_t>(std::max<int64_t>(outputlen, 0)));
    for (int64_t j = start; j <= end; ++j) {
      const std::string& obj = vector[static_cast<size_t>(j)].obj;
      if (getop == 0) out.push_back(Reply::Bulk(obj));
      for (const std::string* pattern : o.gets) {
        std::optional<std::string> val;
        if (!reader.Lookup(*pattern, obj, &val)) return;
        out.push_back(val ? Reply::Bulk(std::move(*val)) : Reply::Nil());
      }
    }
    ctx.reply = Reply::Array(std::move(out));
    return;
  }

  std::vector<std::string> stored;
  for (int64_t j = start; j <= end; ++j) {
    const std::string& obj = vector[static_cast<size_t>(j)].obj;
    if (getop == 0) stored.push_back(obj);
    for (const std::string* pattern : o.gets) {
      std::optional<std::string> val;
      if (!reader.Lookup(*pattern, obj, &val)) return;
      stored.push_back(val ? std::move(*val) : std::string());
    }
  }
  // setKey, or dbDelete for an empty result: the destination's old value goes either way.
  const std::string& dest = ctx.arg(o.store);
  bool existed = false;
  if (!ctx.PrepareOverwrite(dest, &existed)) return;
  if (existed) ctx.txn().DeleteMeta(dest);
  if (!stored.empty()) {
    KeyHandle d;
    d.key = dest;
    d.meta = ctx.txn().NewMeta(KeyType::kList, ctx.engine().new_key_version(KeyType::kList));
    d.is_new = true;
    std::vector<std::string_view> views(stored.begin(), stored.end());
    if (!ctx.Check(ctx.List(d.meta).Push(ctx.txn(), &d, encodings::ListEnd::kRight, views))) return;
    ctx.KeyReady(dest);
  }
  ctx.reply = Reply::Integer(outputlen);
}

// sortGetKeys's scan: LIMIT skips two arguments, GET and BY one, STORE records the argument
// after it (the last one wins) and skips nothing.
size_t RedisStorePosition(const std::vector<std::string>& argv) {
  size_t store = 0;
  for (size_t i = 2; i < argv.size(); ++i) {
    const char* a = argv[i].c_str();
    if (!strcasecmp(a, "limit")) {
      i += 2;
    } else if (!strcasecmp(a, "get") || !strcasecmp(a, "by")) {
      i += 1;
    } else if (!strcasecmp(a, "store") && i + 1 < argv.size()) {
      store = i + 1;
    }
  }
  return store;
}

}  // namespace

void SortCommand(CommandContext& ctx) { SortGeneric(ctx, /*readonly=*/false); }
void SortRoCommand(CommandContext& ctx) { SortGeneric(ctx, /*readonly=*/true); }

bool SortReadsPatternKeys(const std::vector<std::string>& argv) {
  return ReadsPatternKeys(argv, /*readonly=*/false);
}
bool SortRoReadsPatternKeys(const std::vector<std::string>& argv) {
  return ReadsPatternKeys(argv, /*readonly=*/true);
}

void SortFindKeys(const std::vector<std::string>& argv,
                  std::vector<std::pair<size_t, bool>>* keys) {
  if (argv.size() < 2) return;
  keys->emplace_back(1, false);
  const size_t redis_store = RedisStorePosition(argv);
  if (redis_store != 0) keys->emplace_back(redis_store, true);
  SortOptions o;
  std::string error;
  if (ParseSort(argv, /*readonly=*/false, &o, &error) && o.store != 0 && o.store != redis_store) {
    keys->emplace_back(o.store, true);
  }
}

void SortRoFindKeys(const std::vector<std::string>& argv,
                    std::vector<std::pair<size_t, bool>>* keys) {
  if (argv.size() >= 2) keys->emplace_back(1, false);
}

}  // namespace kvlab::engine
