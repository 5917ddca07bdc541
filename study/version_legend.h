// What a reader of a study or a report needs to know about each (type, encode-version): a short
// label, one line that explains it, its colour in every plot, and what it needs to run.
//
// Every column is read from the encoding registry (encodings/registry.h), the one table of
// types and versions. Nothing else in study/ or reports/ knows a version's properties: they all
// come through here and travel to the Python renderer in the JSON (`versions`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvlab::study {

struct VersionInfo {
  std::string type;     // "hash", "zset"
  std::string version;  // the encode-version's name in the registry: "0", "kvrocks"
  std::string label;    // "h0", "z3": the short name used in tables and legends
  std::string summary;  // one line: what the version is and what it trades
  std::string color;    // "#rrggbb": the version's colour in every plot
  // What it needs beside the KV store.
  bool cache_redis = false;  // a cache Redis (losing it costs only time)
  bool store_redis = false;  // a store Redis holding data: persistent, must not evict
  // Reverse ranges use the store's reverse iteration (a slower forward fallback without it).
  bool uses_reverse_scan = false;
  bool keeps_count = false;  // the key-meta keeps the element count
};

// Every (type, version) of the registry, in its order (types in table order, ids ascending).
const std::vector<VersionInfo>& VersionLegend();
// The entry of (type, version name), or nullptr.
const VersionInfo* FindVersion(const std::string& type, const std::string& version);
// "h0" for ("hash", "0"), "zkvrocks" for ("zset", "kvrocks"); for a pair the registry lacks, its
// type's letter and the name (a type the registry lacks: "<type>=<version>").
std::string VersionLabel(const std::string& type, const std::string& version);
// The requirements in words: "a cache Redis", "a store Redis that must not evict", ...
std::vector<std::string> VersionNeeds(const VersionInfo& v);
// The legend as JSON (the `versions` array of study.json and of the report input).
nlohmann::json VersionLegendJson();

}  // namespace kvlab::study
