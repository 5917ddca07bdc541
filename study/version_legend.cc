#include "study/version_legend.h"

#include "encodings/registry.h"

namespace kvlab::study {

const std::vector<VersionInfo>& VersionLegend() {
  // Every column comes from the encoding registry's rows (encodings/encoding_table.cc).
  static const std::vector<VersionInfo> kLegend = [] {
    const encodings::EncodingRegistry& registry = encodings::EncodingRegistry::Builtin();
    std::vector<VersionInfo> out;
    for (const encodings::EncodingSpec& row : registry.rows()) {
      const encodings::TypeSpec& type = *registry.FindType(row.type);
      VersionInfo v;
      v.type = std::string(type.name);
      v.version = std::string(row.name);
      v.label = std::string(type.letter) + std::string(row.name);
      v.summary = std::string(row.summary);
      v.color = std::string(row.color);
      v.cache_redis = row.tier != encodings::TierUse::kNone;
      v.store_redis = row.tier == encodings::TierUse::kStore;
      v.uses_reverse_scan = row.uses_reverse_scan;
      v.keeps_count = row.meta_has_count;
      out.push_back(std::move(v));
    }
    return out;
  }();
  return kLegend;
}

const VersionInfo* FindVersion(const std::string& type, const std::string& version) {
  for (const VersionInfo& v : VersionLegend()) {
    if (v.type == type && v.version == version) return &v;
  }
  return nullptr;
}

std::string VersionLabel(const std::string& type, const std::string& version) {
  const VersionInfo* v = FindVersion(type, version);
  if (v != nullptr) return v->label;
  const encodings::TypeSpec* t = encodings::EncodingRegistry::Builtin().FindType(type);
  return t != nullptr ? std::string(t->letter) + version : type + "=" + version;
}

std::vector<std::string> VersionNeeds(const VersionInfo& v) {
  std::vector<std::string> out;
  if (v.store_redis) out.push_back("a store Redis that must not evict");
  if (v.cache_redis) out.push_back("a cache Redis");
  if (v.uses_reverse_scan) out.push_back("reverse scan (for reverse ranges; slower without)");
  return out;
}

nlohmann::json VersionLegendJson() {
  nlohmann::json out = nlohmann::json::array();
  for (const VersionInfo& v : VersionLegend()) {
    out.push_back({{"type", v.type},
                   {"version", v.version},
                   {"label", v.label},
                   {"summary", v.summary},
                   {"color", v.color},
                   {"cache_redis", v.cache_redis},
                   {"store_redis", v.store_redis},
                   {"uses_reverse_scan", v.uses_reverse_scan},
                   {"keeps_count", v.keeps_count},
                   {"needs", VersionNeeds(v)}});
  }
  return out;
}

}  // namespace kvlab::study
