// Read patterns the encodings share, so that each costs the same KV operations everywhere:
// - ReadPoints: one Get for one key, one MultiGet for several;
// - ScanPrefix: one seek, then one next per row (the last next steps off the end), unless the
//   visitor stops early;
// - ScanPage: a page of HSCAN or SSCAN, ScanRange from a cursor;
// - AnySurvivor: the emptiness check of a blind delete, ScanPrefix stopped at the first survivor.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "backends/kv_store.h"
#include "encodings/coding.h"

namespace kvlab::encodings {

// Reads prefix|suffix for every suffix. values->at(i) is empty when absent.
inline Status ReadPoints(backends::KvStore& kv, std::string_view prefix,
                         const std::vector<std::string_view>& suffixes,
                         std::vector<std::optional<std::string>>* values) {
  values->assign(suffixes.size(), std::nullopt);
  if (suffixes.empty()) return Status::OK();
  if (suffixes.size() == 1) {
    std::string v;
    Status s = kv.Get(std::string(prefix).append(suffixes[0]), &v);
    if (s.IsNotFound()) return Status::OK();
    KVLAB_RETURN_IF_ERROR(s);
    (*values)[0] = std::move(v);
    return Status::OK();
  }
  std::vector<std::string> keys;
  keys.reserve(suffixes.size());
  for (std::string_view s : suffixes) keys.push_back(std::string(prefix).append(s));
  std::vector<std::string_view> views(keys.begin(), keys.end());
  return kv.MultiGet(views, values);
}

// Visits the rows of [lower, upper) in key order, or in reverse order, skipping the first `skip`
// rows and stopping after `take` rows (take < 0: no limit) or when visit(key, value) returns
// false. Skipped rows cost a next (or prev) each: KV stores have no order statistics.
// REQUIRES: reverse only when the store has Capabilities::reverse_scan.
template <typename Visitor>
Status ScanRange(backends::KvStore& kv, std::string lower, std::string upper, bool reverse,
                 uint64_t skip, int64_t take, Visitor&& visit) {
  if (take == 0 || !(lower < upper)) return Status::OK();
  backends::IteratorOptions options;
  options.lower_bound = lower;
  options.upper_bound = std::move(upper);
  auto it = kv.NewIterator(options);
  if (reverse) {
    it->SeekToLast();
  } else {
    it->Seek(lower);
  }
  int64_t taken = 0;
  while (it->Valid()) {
    if (skip > 0) {
      --skip;
    } else {
      if (!visit(it->key(), it->value())) return Status::OK();
      if (++taken == take) return Status::OK();
    }
    if (reverse) {
      it->Prev();
    } else {
      it->Next();
    }
  }
  return it->status();
}

// Calls visit(suffix, value) for each key that starts with prefix, in key order, until visit
// returns false.
template <typename Visitor>
Status ScanPrefix(backends::KvStore& kv, std::string_view prefix, Visitor&& visit) {
  return ScanRange(
      kv, std::string(prefix), PrefixSuccessor(prefix), false, 0, -1,
      [&](std::string_view k, std::string_view v) { return visit(k.substr(prefix.size()), v); });
}

// One page of a collection scan (HSCAN, SSCAN): visit(suffix, value) for the first `count` rows
// under `prefix` whose suffix sorts after `*after` (from the first row when `after` is empty).
// *next is the suffix of the page's last row when the page is full (the walk may go on), empty
// otherwise.
template <typename Visitor>
Status ScanPage(backends::KvStore& kv, std::string_view prefix,
                const std::optional<std::string>& after, uint64_t count,
                std::optional<std::string>* next, Visitor&& visit) {
  next->reset();
  if (count == 0) return Status::OK();
  std::string lower(prefix);
  if (after) lower.append(*after).push_back('\0');  // the first row after *after
  uint64_t seen = 0;
  return ScanRange(kv, lower, PrefixSuccessor(prefix), false, 0, static_cast<int64_t>(count),
                   [&](std::string_view k, std::string_view v) {
                     const std::string_view suffix = k.substr(prefix.size());
                     if (++seen == count) next->emplace(suffix);
                     visit(suffix, v);
                     return true;
                   });
}

// Whether a row under `prefix` survives deleting the suffixes in `deleted`, asked before the
// deletes commit (a blind delete's check that the collection is now empty): a scan that stops at
// the first row not among them, one row when the first row survives.
inline Status AnySurvivor(backends::KvStore& kv, std::string_view prefix,
                          const std::unordered_set<std::string_view>& deleted, bool* survivor) {
  *survivor = false;
  return ScanPrefix(kv, prefix, [&](std::string_view suffix, std::string_view) {
    *survivor = !deleted.contains(suffix);
    return !*survivor;
  });
}

}  // namespace kvlab::encodings
