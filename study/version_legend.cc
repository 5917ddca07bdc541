#include "study/version_legend.h"

namespace kvlab::study {

const std::vector<VersionInfo>& VersionLegend() {
  // Colours: one hue family per type (hash blues and greens, zset reds and oranges) so that a
  // plot mixing both types stays readable, each version clearly apart from its neighbours and
  // readable by colour-blind readers in the pairs that are compared most (v0 against v1).
  static const std::vector<VersionInfo> kLegend = {
      {"hash", 0, "h0",
       "counted: the key-meta keeps the field count, so HLEN is one get and replies are exact; "
       "every write first reads which of its fields exist",
       "#1f4e9c", false, false, false, true},
      {"hash", 1, "h1",
       "blind: no count, writes do not read first; HLEN scans every field and HSET/HDEL "
       "replies count the arguments",
       "#35b0d8", false, false, false, false},
      {"hash", 2, "h2", "h0 in KV plus a cache Redis of fields and whole hashes (cache-aside)",
       "#2a9d3c", true, false, false, true},
      {"hash", 3, "h3", "h1 in KV plus the same cache Redis", "#98c93c", true, false, false, false},
      {"zset", 0, "z0",
       "KV only: member records plus a score index; ranks and ranges are KV scans (reverse "
       "ranges scan backwards)",
       "#b2182b", false, false, true, true},
      {"zset", 1, "z1",
       "member records in KV; the whole zset cached in Redis, loaded on a miss, for ranks and "
       "ranges",
       "#f08a24", true, false, false, true},
      {"zset", 2, "z2", "z1 with members cached as refs (md5 of long members) to bound the cache",
       "#8c510a", true, false, false, true},
      {"zset", 3, "z3",
       "the zset lives in a store Redis (refs, never evicted); KV keeps only the key-meta and "
       "long members",
       "#c51b7d", true, true, false, false},
  };
  return kLegend;
}

const VersionInfo* FindVersion(const std::string& type, int version) {
  for (const VersionInfo& v : VersionLegend()) {
    if (v.type == type && v.version == version) return &v;
  }
  return nullptr;
}

std::string VersionLabel(const std::string& type, int version) {
  const VersionInfo* v = FindVersion(type, version);
  if (v != nullptr) return v->label;
  return type + "v" + std::to_string(version);
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
