#include "conformance/deviations.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/data_dir.h"
#include "engine/rdb_value.h"
#include "resp/redis_numbers.h"

namespace kvlab::conformance {

using resp::Reply;

namespace {

Reply ReadNegativeZeroAsZero(const Reply& r) {
  if (r.type() == Reply::Type::kBulk && r.str() == "-0") return Reply::Bulk("0");
  if (r.type() != Reply::Type::kArray) return r;
  std::vector<Reply> e;
  for (const Reply& x : r.elements()) e.push_back(ReadNegativeZeroAsZero(x));
  return Reply::Array(std::move(e));
}

// Whether s is an integer of 18 digits or more, as Redis's listpack prints an integral score
// that "%.17g" would print with an exponent.
bool IsLongIntegerText(const std::string& s) {
  const size_t digits_from = !s.empty() && s[0] == '-' ? 1 : 0;
  if (s.size() - digits_from < 18) return false;
  return std::all_of(s.begin() + static_cast<ptrdiff_t>(digits_from), s.end(),
                     [](unsigned char c) { return std::isdigit(c); });
}

// Redis's reply with every score (the odd elements of a member-score array) that is printed as
// a long integer re-printed as "%.17g".
Reply ReprintLongIntegerScores(const Reply& r) {
  if (r.type() != Reply::Type::kArray) return r;
  std::vector<Reply> e = r.elements();
  for (size_t i = 1; i < e.size(); i += 2) {
    if (e[i].type() != Reply::Type::kBulk || !IsLongIntegerText(e[i].str())) continue;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", std::strtod(e[i].str().c_str(), nullptr));
    e[i] = Reply::Bulk(buf);
  }
  return Reply::Array(std::move(e));
}

constexpr const char* kRules[] = {"integer_argument_count",    "negative_zero_printed_as_zero",
                                  "negative_zero_either_sign", "negative_zero_increment",
                                  "integral_score_text",       "kv_encoding_name",
                                  "value_refcount_one",        "store_bytes",
                                  "unsupported_error",         "watched_blind_write",
                                  "dump_canonical_form",       "unsorted_set_order"};

// Whether kvlab's DUMP payload is exactly the one kvlab writes for the value of Redis's
// payload: both parse, and kvlab's bytes are DumpPayload of Redis's value with its hash fields
// and set members in byte order (the order kvlab's encodings keep), Redis's default thresholds.
bool IsCanonicalDump(const Reply& redis, const Reply& kvlab) {
  if (redis.type() != Reply::Type::kBulk || kvlab.type() != Reply::Type::kBulk) return false;
  engine::rdb::Value v, mine;
  if (engine::rdb::ParsePayload(redis.str(), &v) != engine::rdb::ParseResult::kOk ||
      engine::rdb::ParsePayload(kvlab.str(), &mine) != engine::rdb::ParseResult::kOk) {
    return false;
  }
  // A list keeps its order: only a hash's and a set's order are Redis's history or hash order.
  if (v.type == encodings::KeyType::kHash) std::sort(v.pairs.begin(), v.pairs.end());
  if (v.type == encodings::KeyType::kSet) std::sort(v.elements.begin(), v.elements.end());
  return engine::rdb::DumpPayload(v, engine::rdb::DumpOptions()) == kvlab.str();
}

// Whether argv is a SORT that Redis answers in its in-memory set's order: a BY without '*' (Redis
// then sorts nothing, whatever BY comes later), no STORE, and no LIMIT that cuts the set (a
// negative count from an offset of 0 or less takes it whole). *group gets the number of
// elements per member in the reply (its GET patterns, or 1).
bool IsUnsortedSetSort(const std::vector<std::string>& argv, size_t* group) {
  bool dontsort = false;
  size_t gets = 0;
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t left = argv.size() - j - 1;
    const char* a = argv[j].c_str();
    if (!strcasecmp(a, "limit") && left >= 2) {
      int64_t offset = 0, count = 0;
      if (!resp::ParseInt64(argv[j + 1], &offset) || !resp::ParseInt64(argv[j + 2], &count) ||
          offset > 0 || count >= 0) {
        return false;
      }
      j += 2;
    } else if ((!strcasecmp(a, "store") && left >= 1)) {
      return false;
    } else if (!strcasecmp(a, "by") && left >= 1) {
      if (argv[j + 1].find('*') == std::string::npos) dontsort = true;
      ++j;
    } else if (!strcasecmp(a, "get") && left >= 1) {
      ++gets;
      ++j;
    }
  }
  *group = gets == 0 ? 1 : gets;
  return dontsort;
}

// Whether two SORT replies hold the same groups of `group` elements, in another order.
bool SameGroupsReordered(const Reply& redis, const Reply& kvlab, size_t group) {
  if (redis.type() != Reply::Type::kArray || kvlab.type() != Reply::Type::kArray ||
      redis.elements().size() != kvlab.elements().size() || redis.elements().size() % group != 0) {
    return false;
  }
  auto groups = [group](const Reply& r) {
    std::vector<std::vector<std::string>> out;
    for (size_t i = 0; i < r.elements().size(); i += group) {
      std::vector<std::string> g;
      for (size_t k = i; k < i + group; ++k) g.push_back(r.elements()[k].Describe());
      out.push_back(std::move(g));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  return redis != kvlab && groups(redis) == groups(kvlab);
}

// Whether kvlab's reply names the encoding of a string or of a type in the profile
// (encodings::KvEncodingName).
bool NamesProfileEncoding(const encodings::EncodingProfile& profile, const std::string& name) {
  if (name == encodings::KvEncodingName("string", "")) return true;
  for (const auto& [type, version] : profile.versions) {
    if (version && name == encodings::KvEncodingName(type, *version)) return true;
  }
  return false;
}

bool Follows(const Deviation& d, const std::vector<std::string>& argv,
             const encodings::EncodingProfile& profile, const Reply& redis, const Reply& kvlab) {
  if (d.rule == "kv_encoding_name") {
    return redis.type() == Reply::Type::kBulk && kvlab.type() == Reply::Type::kBulk &&
           NamesProfileEncoding(profile, kvlab.str());
  }
  if (d.rule == "value_refcount_one") {
    return redis.type() == Reply::Type::kInteger && kvlab == Reply::Integer(1);
  }
  if (d.rule == "store_bytes") {
    return redis.type() == Reply::Type::kInteger && kvlab.type() == Reply::Type::kInteger &&
           kvlab.integer() > 0;
  }
  if (d.rule == "unsupported_error") {
    return !redis.is_error() && kvlab.is_error() && kvlab.str().rfind("ERR kvlab ", 0) == 0;
  }
  if (d.rule == "integer_argument_count") {
    if (kvlab.type() != Reply::Type::kInteger || redis.type() != Reply::Type::kInteger)
      return false;
    const int64_t given = static_cast<int64_t>(argv.size()) - d.first_argument;
    return given >= 0 && kvlab.integer() == given / d.step;
  }
  if (d.rule == "negative_zero_printed_as_zero") {
    return ReadNegativeZeroAsZero(redis) == kvlab;
  }
  if (d.rule == "negative_zero_either_sign") {
    return redis != kvlab && ReadNegativeZeroAsZero(redis) == ReadNegativeZeroAsZero(kvlab);
  }
  if (d.rule == "negative_zero_increment") {
    // ZINCRBY key increment member, ZADD key ... INCR score member: the increment is the
    // second-to-last argument.
    double increment = 1;
    if (argv.size() < 3 || !resp::ParseDouble(argv[argv.size() - 2], &increment) ||
        increment != 0 || !std::signbit(increment)) {
      return false;
    }
    return redis == Reply::Bulk("-0") && kvlab == Reply::Bulk("0");
  }
  if (d.rule == "watched_blind_write") {
    // EXEC aborted (a null array) where Redis ran the transaction: a blind delete of what the
    // key did not hold counted as a modification of a watched key.
    return kvlab.type() == Reply::Type::kNilArray && redis.type() == Reply::Type::kArray;
  }
  if (d.rule == "dump_canonical_form") return IsCanonicalDump(redis, kvlab);
  if (d.rule == "unsorted_set_order") {
    size_t group = 1;
    return IsUnsortedSetSort(argv, &group) && SameGroupsReordered(redis, kvlab, group);
  }
  if (d.rule == "integral_score_text") {
    // The same scores, one side printing a long integral score as integer text, the other as
    // "%.17g".
    return ReprintLongIntegerScores(redis) == ReprintLongIntegerScores(kvlab);
  }
  return false;
}

}  // namespace

std::string DefaultDeviationCataloguePath() {
  std::string path;
  // When it is missing, Load's error names the path, and FindDataFile's where it looked.
  if (!FindDataFile("docs/deviations.json", &path).ok()) return "docs/deviations.json";
  return path;
}

Status DeviationCatalogue::Load(const std::string& path,
                                const encodings::EncodingRegistry& registry,
                                DeviationCatalogue* out) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read the deviations catalogue " + path);
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    if (doc.at("schema_version").get<int>() != 2) {
      return Status::InvalidArgument(path + ": unsupported schema_version (expected 2)");
    }
    out->entries_.clear();
    for (const auto& e : doc.at("deviations")) {
      Deviation d;
      d.id = e.at("id").get<std::string>();
      d.type = e.at("type").get<std::string>();
      d.commands = e.at("commands").get<std::vector<std::string>>();
      d.rule = e.at("rule").get<std::string>();
      d.first_argument = e.value("first_argument", 0);
      d.step = e.value("step", 1);
      d.subcommands = e.value("subcommands", std::vector<std::string>{});
      d.reason = e.at("reason").get<std::string>();
      const bool rule_known =
          std::find(std::begin(kRules), std::end(kRules), d.rule) != std::end(kRules);
      if (!rule_known) {
        return Status::InvalidArgument(path + ": " + d.id + ": unknown rule " + d.rule);
      }
      if (d.step < 1) return Status::InvalidArgument(path + ": " + d.id + ": step must be >= 1");
      if (d.type == kAnyType) {
        // A keyspace command's: every type and version, so no registry row lists it.
        d.versions = {std::string(kAnyType)};
        out->entries_.push_back(std::move(d));
        continue;
      }
      const encodings::TypeSpec* type = registry.FindType(d.type);
      if (type == nullptr) {
        return Status::InvalidArgument(path + ": " + d.id + ": type " + d.type +
                                       " is not a type of the encoding registry");
      }
      if (e.contains("versions")) {
        return Status::InvalidArgument(
            path + ": " + d.id +
            ": \"versions\" is not a catalogue member: the registry rows list their deviations "
            "(encodings/encoding_table.cc)");
      }
      for (const encodings::EncodingSpec* row : registry.VersionsOf(type->type)) {
        if (std::find(row->deviations.begin(), row->deviations.end(), d.id) !=
            row->deviations.end()) {
          d.versions.emplace_back(row->name);
        }
      }
      if (d.versions.empty()) {
        return Status::InvalidArgument(path + ": " + d.id + ": no " + d.type +
                                       " version of the encoding registry lists it");
      }
      out->entries_.push_back(std::move(d));
    }
  } catch (const std::exception& ex) {
    return Status::InvalidArgument(path + ": " + ex.what());
  }
  // Every deviation a registry row claims is in the catalogue, for the row's type.
  for (const encodings::EncodingSpec& row : registry.rows()) {
    const encodings::TypeSpec& type = *registry.FindType(row.type);
    for (std::string_view id : row.deviations) {
      const bool found =
          std::any_of(out->entries_.begin(), out->entries_.end(),
                      [&](const Deviation& d) { return d.id == id && d.type == type.name; });
      if (!found) {
        return Status::InvalidArgument(path + ": the registry's " + row.DisplayName(type) +
                                       " lists deviation " + std::string(id) +
                                       ", which the catalogue has no " + std::string(type.name) +
                                       " entry for");
      }
    }
  }
  return Status::OK();
}

std::string DeviationCatalogue::Explain(const std::vector<std::string>& argv,
                                        const encodings::EncodingProfile& profile,
                                        const Reply& redis, const Reply& kvlab) const {
  if (argv.empty()) return "";
  std::string cmd = argv[0];
  for (char& c : cmd) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Whether d is catalogued for this command on the encode-version of d's type in use.
  auto applies = [&](const Deviation& d) {
    if (!d.subcommands.empty() &&
        (argv.size() < 2 ||
         std::none_of(d.subcommands.begin(), d.subcommands.end(), [&](const std::string& sub) {
           return strcasecmp(argv[1].c_str(), sub.c_str()) == 0;
         }))) {
      return false;
    }
    if (d.type == kAnyType) {
      return std::find(d.commands.begin(), d.commands.end(), cmd) != d.commands.end();
    }
    const std::optional<std::string> version = profile.VersionOf(d.type);
    return version && std::find(d.commands.begin(), d.commands.end(), cmd) != d.commands.end() &&
           std::find(d.versions.begin(), d.versions.end(), *version) != d.versions.end();
  };
  for (const Deviation& d : entries_) {
    if (applies(d) && Follows(d, argv, profile, redis, kvlab)) return d.id;
  }
  // The score-text rules describe how Redis prints scores, and one reply (a whole ZSCAN of a
  // skiplist zset) can show both: Redis's reply read with every applicable one of them.
  std::string ids;
  Reply normalized = redis;
  for (const Deviation& d : entries_) {
    if (!applies(d)) continue;
    if (d.rule == "negative_zero_printed_as_zero") {
      normalized = ReadNegativeZeroAsZero(normalized);
    } else if (d.rule == "integral_score_text") {
      normalized = ReprintLongIntegerScores(normalized);
    } else {
      continue;
    }
    ids += (ids.empty() ? "" : "+") + d.id;
  }
  if (ids.find('+') != std::string::npos && normalized == ReprintLongIntegerScores(kvlab)) {
    return ids;
  }
  return "";
}

}  // namespace kvlab::conformance
