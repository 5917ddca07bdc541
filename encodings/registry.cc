#include "encodings/registry.h"

#include <algorithm>
#include <set>
#include <utility>

#include "encodings/type_encoding.h"

namespace kvlab::encodings {
namespace {

bool ValidName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

bool ValidColor(std::string_view color) {
  return color.size() == 7 && color[0] == '#' &&
         std::all_of(color.begin() + 1, color.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

const char* TierUseName(TierUse use) {
  switch (use) {
    case TierUse::kNone:
      return "none";
    case TierUse::kCache:
      return "cache";
    case TierUse::kStore:
      return "store";
  }
  return "none";
}

std::string KvEncodingName(std::string_view type, std::string_view version) {
  std::string out = "kv-" + std::string(type);
  if (version.empty()) return out;
  const bool numbered =
      std::all_of(version.begin(), version.end(), [](char c) { return c >= '0' && c <= '9'; });
  return out + (numbered ? "-v" : "-") + std::string(version);
}

std::string EncodingSpec::DisplayName(const TypeSpec& type) const {
  return std::string(type.name) + " v" + std::string(name);
}

Status EncodingRegistry::Make(std::vector<TypeSpec> types, std::vector<EncodingSpec> rows,
                              EncodingRegistry* out) {
  std::set<uint8_t> type_bytes;
  std::set<std::string_view> type_names, letters;
  for (const TypeSpec& t : types) {
    if (t.type == KeyType::kString) {
      return Status::InvalidArgument("the string type has no encode-versions");
    }
    if (!type_bytes.insert(static_cast<uint8_t>(t.type)).second ||
        !type_names.insert(t.name).second || !letters.insert(t.letter).second || t.name.empty() ||
        t.letter.empty()) {
      return Status::InvalidArgument("type '" + std::string(t.name) +
                                     "' repeats another type's key-type, name or letter");
    }
  }
  auto type_of = [&types](KeyType k) -> const TypeSpec* {
    for (const TypeSpec& t : types) {
      if (t.type == k) return &t;
    }
    return nullptr;
  };
  std::set<std::pair<uint8_t, uint8_t>> ids;
  std::set<std::pair<uint8_t, std::string_view>> names;
  std::set<std::string_view> colors;
  for (const EncodingSpec& r : rows) {
    const TypeSpec* t = type_of(r.type);
    if (t == nullptr) {
      return Status::InvalidArgument("encoding '" + std::string(r.name) + "' has key-type " +
                                     std::to_string(static_cast<int>(r.type)) +
                                     ", which is not a registered type");
    }
    const std::string what = r.DisplayName(*t);
    if (!ValidName(r.name)) {
      return Status::InvalidArgument(what + ": a version name is [a-z0-9-]+");
    }
    if (!ids.emplace(static_cast<uint8_t>(r.type), r.id).second) {
      return Status::InvalidArgument(what + ": encode-version id " + std::to_string(r.id) +
                                     " is taken by another " + std::string(t->name) + " version");
    }
    if (!names.emplace(static_cast<uint8_t>(r.type), r.name).second) {
      return Status::InvalidArgument(what + ": the name is taken by another " +
                                     std::string(t->name) + " version");
    }
    if (!ValidColor(r.color) || !colors.insert(r.color).second) {
      return Status::InvalidArgument(what + ": colour '" + std::string(r.color) +
                                     "' is not a fresh #rrggbb (lower case)");
    }
    if (IsKvrocksId(r.id)) {
      // The id is the Kvrocks flags byte every key-meta of the version starts with (key_meta.h).
      if (r.id != KvrocksFlags(r.type)) {
        return Status::InvalidArgument(what + ": an id with bit 7 set is a Kvrocks flags byte; a " +
                                       std::string(t->name) + "'s is " +
                                       std::to_string(KvrocksFlags(r.type)));
      }
      if (!r.meta_has_count || r.count_added_later) {
        return Status::InvalidArgument(what + ": a Kvrocks key-meta always keeps the size");
      }
    }
    if (IsArdbId(r.id) != r.eager_delete) {
      return Status::InvalidArgument(
          what +
          ": ids 64-127 are the Ardb layout's, which has no key-version and so deletes "
          "eagerly; a row deletes eagerly exactly when its id is one");
    }
    if (IsArdbId(r.id)) {
      if (r.id != ArdbId(r.type)) {
        return Status::InvalidArgument(what + ": an Ardb id is 64 | Ardb's type; a " +
                                       std::string(t->name) + "'s is " +
                                       std::to_string(ArdbId(r.type)));
      }
      // Ardb's list meta keeps its size (with its min and max index); no other Ardb meta does.
      if (r.meta_has_count != (r.type == KeyType::kList) || r.count_added_later ||
          r.tier != TierUse::kNone || r.sub_keys != std::vector<SubKeyTag>{SubKeyTag::kArdb}) {
        return Status::InvalidArgument(what +
                                       ": an Ardb key-meta keeps a count exactly when it is a "
                                       "list's, no tier state, and its records are the a# kind "
                                       "only");
      }
    } else if (std::find(r.sub_keys.begin(), r.sub_keys.end(), SubKeyTag::kArdb) !=
               r.sub_keys.end()) {
      return Status::InvalidArgument(what + ": only Ardb rows write a# records");
    }
    if (r.factory == nullptr) return Status::InvalidArgument(what + ": no factory");
    if (r.sub_keys.empty()) return Status::InvalidArgument(what + ": no sub-key kinds");
  }
  for (const TypeSpec& t : types) {
    if (std::none_of(rows.begin(), rows.end(),
                     [&t](const EncodingSpec& r) { return r.type == t.type; })) {
      return Status::InvalidArgument("type '" + std::string(t.name) + "' has no version");
    }
  }
  // Rows grouped by type (in type order), each type's rows by id.
  auto type_index = [&types](KeyType k) {
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i].type == k) return i;
    }
    return types.size();
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const EncodingSpec& a, const EncodingSpec& b) {
    return std::make_pair(type_index(a.type), a.id) < std::make_pair(type_index(b.type), b.id);
  });
  out->types_ = std::move(types);
  out->rows_ = std::move(rows);
  return Status::OK();
}

Status EncodingRegistry::With(EncodingSpec row, EncodingRegistry* out) const {
  std::vector<EncodingSpec> rows = rows_;
  rows.push_back(std::move(row));
  return Make(types_, std::move(rows), out);
}

const TypeSpec* EncodingRegistry::FindType(KeyType type) const {
  for (const TypeSpec& t : types_) {
    if (t.type == type) return &t;
  }
  return nullptr;
}

const TypeSpec* EncodingRegistry::FindType(std::string_view name) const {
  for (const TypeSpec& t : types_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const TypeSpec* EncodingRegistry::FindTypeByGroup(std::string_view group) const {
  for (const TypeSpec& t : types_) {
    if (t.command_group == group) return &t;
  }
  return nullptr;
}

const EncodingSpec* EncodingRegistry::Find(KeyType type, uint8_t id) const {
  for (const EncodingSpec& r : rows_) {
    if (r.type == type && r.id == id) return &r;
  }
  return nullptr;
}

const EncodingSpec* EncodingRegistry::Find(KeyType type, std::string_view name) const {
  for (const EncodingSpec& r : rows_) {
    if (r.type == type && r.name == name) return &r;
  }
  return nullptr;
}

std::vector<const EncodingSpec*> EncodingRegistry::VersionsOf(KeyType type) const {
  std::vector<const EncodingSpec*> out;
  for (const EncodingSpec& r : rows_) {
    if (r.type == type) out.push_back(&r);
  }
  return out;
}

const EncodingSpec& EncodingRegistry::DefaultVersion(KeyType type) const {
  // Make() guarantees every type has a row.
  return *VersionsOf(type).front();
}

std::vector<SubKeyTag> EncodingRegistry::AllSubKeyTags() const {
  std::set<char> tags;
  for (const EncodingSpec& r : rows_) {
    for (SubKeyTag t : r.sub_keys) tags.insert(static_cast<char>(t));
  }
  std::vector<SubKeyTag> out;
  for (char t : tags) out.push_back(static_cast<SubKeyTag>(t));
  return out;
}

std::vector<SubKeyTag> EncodingRegistry::LazySubKeyTags() const {
  std::set<char> tags;
  for (const EncodingSpec& r : rows_) {
    if (r.eager_delete) continue;
    for (SubKeyTag t : r.sub_keys) tags.insert(static_cast<char>(t));
  }
  std::vector<SubKeyTag> out;
  for (char t : tags) out.push_back(static_cast<SubKeyTag>(t));
  return out;
}

Status EncodingRegistry::ParseVersion(const TypeSpec& type, std::string_view name,
                                      const EncodingSpec** out) const {
  *out = Find(type.type, name);
  if (*out != nullptr) return Status::OK();
  std::string known;
  for (const EncodingSpec* r : VersionsOf(type.type)) {
    known += (known.empty() ? "" : ", ") + std::string(r->name);
  }
  return Status::InvalidArgument("unknown " + std::string(type.name) + " encode-version '" +
                                 std::string(name) + "' (known: " + known + ")");
}

std::string EncodingProfile::Label(const EncodingRegistry& registry) const {
  std::string label;
  for (const TypeSpec& t : registry.types()) {
    auto it = versions.find(std::string(t.name));
    if (it == versions.end() || !it->second) continue;
    label += (label.empty() ? "" : " ") + std::string(t.letter) + *it->second;
  }
  return label;
}

std::optional<std::string> EncodingProfile::VersionOf(std::string_view type) const {
  auto it = versions.find(std::string(type));
  return it == versions.end() ? std::nullopt : it->second;
}

Status ParseEncodingList(const EncodingRegistry& registry, std::string_view text,
                         EncodingProfile* out) {
  EncodingProfile profile;
  std::string known_types;
  for (const TypeSpec& t : registry.types()) {
    known_types += (known_types.empty() ? "" : ", ") + std::string(t.name);
  }
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = Trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument("'" + std::string(item) +
                                     "' is not TYPE=VERSION (e.g. hash=0,zset=1)");
    }
    const std::string_view type_name = Trim(item.substr(0, eq));
    const TypeSpec* type = registry.FindType(type_name);
    if (type == nullptr) {
      return Status::InvalidArgument("unknown type '" + std::string(type_name) +
                                     "' (types with encode-versions: " + known_types + ")");
    }
    const EncodingSpec* version = nullptr;
    KVLAB_RETURN_IF_ERROR(registry.ParseVersion(*type, Trim(item.substr(eq + 1)), &version));
    if (!profile.versions.emplace(std::string(type->name), std::string(version->name)).second) {
      return Status::InvalidArgument(std::string(type->name) + " is given twice");
    }
  }
  *out = std::move(profile);
  return Status::OK();
}

}  // namespace kvlab::encodings
