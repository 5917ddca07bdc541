// The registry's table: kvlab's collection types and every encode-version of each, one row per
// (type, version). See registry.h for what each field means and docs/adding-an-encoding.md for
// how to add a row. Rows of a released version keep their id: it is on disk in every key-meta.
#include "encodings/hash_encoding.h"
#include "encodings/list_encoding.h"
#include "encodings/registry.h"
#include "encodings/set_encoding.h"
#include "encodings/tiered_encodings.h"
#include "encodings/zset_encoding.h"

namespace kvlab::encodings {
namespace {

constexpr SubKeyTag kField = SubKeyTag::kField;
constexpr SubKeyTag kScore = SubKeyTag::kScore;
constexpr SubKeyTag kIndex = SubKeyTag::kIndex;

std::vector<TypeSpec> Types() {
  return {
      {KeyType::kHash, "hash", "h", "hash", /*element_args=*/2},
      {KeyType::kZset, "zset", "z", "sorted-set", /*element_args=*/2},
      {KeyType::kList, "list", "l", "list", /*element_args=*/1},
      {KeyType::kSet, "set", "s", "set", /*element_args=*/1},
  };
}

// Colours: one hue family per type where it can be (hash blues, teal and greens; zset reds,
// oranges and pinks; list purples and a brown; set black, greys, olive and slate), every one
// readable on white (contrast 3:1 or more, as WCAG asks of graphics) and at least 15 apart (CIE76
// ΔE) from every other row's, so that a plot mixing types stays readable; study_test checks both.
std::vector<EncodingSpec> Rows() {
  return {
      // Hash (../shared/spec/000_*, docs/encodings.md "Hash v0".."Hash v3").
      {KeyType::kHash,
       0,
       "0",
       "counted: the key-meta keeps the field count, so HLEN is one get and replies are exact; "
       "every write first reads which of its fields exist",
       "#1f4e9c",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {kField},
       {},
       [](const EncodingDeps&) {
         return std::unique_ptr<TypeEncoding>(NewCountedHashEncoding(0));
       }},
      {KeyType::kHash,
       1,
       "1",
       "blind: no count, writes do not read first; HLEN scans every field and HSET/HDEL replies "
       "count the arguments",
       "#3b82c4",
       false,
       TierUse::kNone,
       false,
       {kField},
       {"hash-blind-hset-count", "hash-blind-hdel-count", "hash-blind-watch"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewBlindHashEncoding(1)); }},
      {KeyType::kHash,
       2,
       "2",
       "h0 in KV plus a cache Redis of fields and whole hashes (cache-aside)",
       "#1b7f4b",
       true,
       TierUse::kCache,
       false,
       {kField},
       {},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(NewCachedHashEncoding(
             NewCountedHashEncoding(2), 2, /*length_from_cache=*/false, deps.tier));
       }},
      {KeyType::kHash,
       3,
       "3",
       "h1 in KV plus the same cache Redis",
       "#5e8c1f",
       false,
       TierUse::kCache,
       false,
       {kField},
       {"hash-blind-hset-count", "hash-blind-hdel-count", "hash-blind-watch"},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(NewCachedHashEncoding(
             NewBlindHashEncoding(3), 3, /*length_from_cache=*/true, deps.tier));
       }},

      // Ardb's layout (../shared/spec/001_*, docs/encodings.md "Hash ardb"): the id is 0x40 | the
      // type byte (KEY_HASH, 3) its key-metas start with.
      {KeyType::kHash,
       ArdbId(KeyType::kHash),
       "ardb",
       "Ardb: type and expiry in the key-meta, no count and no key-version; exact replies through "
       "reads, HLEN scans, and DEL deletes every field (O(n))",
       "#4b5fc7",
       /*meta_has_count=*/false,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {SubKeyTag::kArdb},
       {},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewArdbHashEncoding()); },
       /*count_added_later=*/false,
       /*eager_delete=*/true},

      // Kvrocks/NeoKV's layout (../shared/spec/004_*, docs/encodings.md "Hash kvrocks"): the id is
      // the Kvrocks flags byte of a hash (key_meta.h), which its key-metas start with.
      {KeyType::kHash,
       KvrocksFlags(KeyType::kHash),
       "kvrocks",
       "Kvrocks/NeoKV: flags, expiry, version and a 64-bit size in the key-meta; counted like h0, "
       "and HSET writes no field whose value is unchanged",
       "#008c8c",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {kField},
       {},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewKvrocksHashEncoding()); }},

      // Sorted set (../shared/spec/000_*, docs/encodings.md "Zset v0".."Zset v3").
      {KeyType::kZset,
       0,
       "0",
       "KV only: member records plus a score index; ranks and ranges are KV scans (reverse "
       "ranges scan backwards)",
       "#b2182b",
       true,
       TierUse::kNone,
       /*uses_reverse_scan=*/true,
       {kField, kScore},
       {"zset-negative-zero-score", "zset-negative-zero-increment",
        "zset-zscan-integral-score-text", "zset-algebra-negative-zero"},
       [](const EncodingDeps&) {
         return std::unique_ptr<TypeEncoding>(NewIndexedZsetEncoding(0));
       }},
      {KeyType::kZset,
       1,
       "1",
       "member records in KV; the whole zset cached in Redis, loaded on a miss, for ranks and "
       "ranges",
       "#d9610b",
       true,
       TierUse::kCache,
       false,
       {kField},
       {"zset-negative-zero-score", "zset-negative-zero-increment",
        "zset-zscan-integral-score-text", "zset-algebra-negative-zero"},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(NewCachedZsetEncoding(1, /*refs=*/false, deps.tier));
       }},
      {KeyType::kZset,
       2,
       "2",
       "z1 with members cached as refs (md5 of long members) to bound the cache",
       "#9c3d00",
       true,
       TierUse::kCache,
       false,
       {kField, kIndex},
       {"zset-negative-zero-score", "zset-negative-zero-increment",
        "zset-zscan-integral-score-text", "zset-algebra-negative-zero"},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(NewCachedZsetEncoding(2, /*refs=*/true, deps.tier));
       }},
      {KeyType::kZset,
       3,
       "3",
       "the zset lives in a store Redis (refs, never evicted); KV keeps only the key-meta and "
       "long members; the key-meta keeps a count so that a lost store zset is noticed",
       "#c51b7d",
       /*meta_has_count=*/true,
       TierUse::kStore,
       false,
       {kIndex},
       {"zset-negative-zero-score", "zset-negative-zero-increment",
        "zset-zscan-integral-score-text", "zset-algebra-negative-zero",
        "zset-store-swapdb-unsupported"},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(NewStoredZsetEncoding(3, deps.tier));
       },
       /*count_added_later=*/true},

      // Ardb's layout (../shared/spec/001_*, docs/encodings.md "Zset ardb"): KEY_ZSET_SCORE
      // member -> score and the KEY_ZSET_SORT score index, z0's plans without the count; the id
      // is 0x40 | KEY_ZSET (9).
      {KeyType::kZset,
       ArdbId(KeyType::kZset),
       "ardb",
       "Ardb: type and expiry in the key-meta, no count and no key-version; member records and a "
       "score index as z0, ZCARD and negative ranks scan, DEL deletes every record (O(n))",
       "#d63c6a",
       /*meta_has_count=*/false,
       TierUse::kNone,
       /*uses_reverse_scan=*/true,
       {SubKeyTag::kArdb},
       {"zset-negative-zero-score", "zset-negative-zero-increment",
        "zset-zscan-integral-score-text", "zset-algebra-negative-zero"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewArdbZsetEncoding()); },
       /*count_added_later=*/false,
       /*eager_delete=*/true},

      // Kvrocks/NeoKV's layout (../shared/spec/004_*, docs/encodings.md "Zset kvrocks"): z0's
      // member records and score index, which are the spec's DATA_CF and REDIS_ZSET_SCORE_CF keys,
      // under the Kvrocks key-meta (flags byte 0x85 = the id).
      {KeyType::kZset,
       KvrocksFlags(KeyType::kZset),
       "kvrocks",
       "Kvrocks/NeoKV: flags, expiry, version and a 64-bit size in the key-meta; member records "
       "and a score index in KV, as z0",
       "#8e1d52",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/true,
       {kField, kScore},
       {"zset-negative-zero-score", "zset-negative-zero-increment",
        "zset-zscan-integral-score-text", "zset-algebra-negative-zero"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewKvrocksZsetEncoding()); }},

      // List (../shared/spec/004_*, docs/encodings.md "List v0", "List v1"). Camellia has no
      // list; both are kvlab's, from Kvrocks/NeoKV's head/tail metadata.
      {KeyType::kList,
       0,
       "0",
       "dense: 004_*'s head/tail indexes, so positions are point reads; LINSERT and LREM in the "
       "middle renumber one side (O(n) writes)",
       "#6a3d9a",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {kField},
       {},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewDenseListEncoding(0)); }},
      {KeyType::kList,
       1,
       "1",
       "sparse: indexes with gaps, so LINSERT and LREM write O(1) records; positions walk from "
       "the head, right-end pops read backwards",
       "#a05a2c",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/true,
       {kField},
       {},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewSparseListEncoding(1)); }},
      // Ardb's list (../shared/spec/001_*, 002_*, docs/encodings.md "List ardb"): KEY_LIST_ELEMENT
      // records at a double index; the key-meta keeps Ardb's size, sequential flag and min/max
      // index; the id is 0x40 | KEY_LIST (5).
      {KeyType::kList,
       ArdbId(KeyType::kList),
       "ardb",
       "Ardb: size, min and max index in the key-meta, no key-version; point reads while the "
       "indexes are consecutive, LINSERT takes a fractional index and positions then walk; DEL "
       "deletes every element (O(n))",
       "#a569bd",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/true,
       {SubKeyTag::kArdb},
       {},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewArdbListEncoding()); },
       /*count_added_later=*/false,
       /*eager_delete=*/true},
      // Kvrocks/NeoKV's list (../shared/spec/004_*, docs/encodings.md "List kvrocks"): l0's
      // elements under the Kvrocks key-meta (flags byte 0x83 = the id, u64 size, head, tail).
      {KeyType::kList,
       KvrocksFlags(KeyType::kList),
       "kvrocks",
       "Kvrocks/NeoKV: flags, expiry, version, a 64-bit size, head and tail in the key-meta; "
       "dense indexes as l0",
       "#7b1fa2",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {kField},
       {},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewKvrocksListEncoding()); }},

      // Set (../shared/spec/000_* "set数据结构", docs/encodings.md "Set v0".."Set v3"). The
      // spec's set tables say key-type 2; its KeyType enum (and kvlab) say 5.
      {KeyType::kSet,
       0,
       "0",
       "counted: the key-meta keeps the member count, so SCARD is one get, SADD/SREM replies are "
       "exact and SINTER starts from the smallest set; every write first reads which members "
       "exist",
       "#252525",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {kField},
       {"sort-set-unsorted-order"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewCountedSetEncoding(0)); }},
      {KeyType::kSet,
       1,
       "1",
       "blind: no count, writes do not read first; SCARD scans every member and SADD/SREM "
       "replies count the arguments",
       "#6b6b6b",
       false,
       TierUse::kNone,
       false,
       {kField},
       {"set-blind-sadd-count", "set-blind-srem-count", "set-blind-watch",
        "sort-set-unsorted-order"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewBlindSetEncoding(1)); }},
      {KeyType::kSet,
       2,
       "2",
       "s0 in KV plus a cache Redis of whole sets (cache-aside)",
       "#56712b",
       true,
       TierUse::kCache,
       false,
       {kField},
       {"sort-set-unsorted-order"},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(NewCachedSetEncoding(
             NewCountedSetEncoding(2), 2, /*size_from_cache=*/false, deps.tier));
       }},
      {KeyType::kSet,
       3,
       "3",
       "s1 in KV plus the same cache Redis; SCARD asks the cache first",
       "#2e5e5a",
       false,
       TierUse::kCache,
       false,
       {kField},
       {"set-blind-sadd-count", "set-blind-srem-count", "set-blind-watch",
        "sort-set-unsorted-order"},
       [](const EncodingDeps& deps) {
         return std::unique_ptr<TypeEncoding>(
             NewCachedSetEncoding(NewBlindSetEncoding(3), 3, /*size_from_cache=*/true, deps.tier));
       }},
      // Ardb's layout (../shared/spec/001_*, docs/encodings.md "Set ardb"): KEY_SET_MEMBER
      // records, no count; the id is 0x40 | KEY_SET (7).
      {KeyType::kSet,
       ArdbId(KeyType::kSet),
       "ardb",
       "Ardb: type and expiry in the key-meta, no count and no key-version; exact replies through "
       "reads, SCARD scans, and DEL deletes every member (O(n))",
       "#8a6d00",
       /*meta_has_count=*/false,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {SubKeyTag::kArdb},
       {"sort-set-unsorted-order"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewArdbSetEncoding()); },
       /*count_added_later=*/false,
       /*eager_delete=*/true},

      // Kvrocks/NeoKV's set (../shared/spec/004_*, docs/encodings.md "Set kvrocks"): s0's member
      // records (the spec's DATA_CF keys, empty values) under the Kvrocks key-meta (flags 0x84).
      {KeyType::kSet,
       KvrocksFlags(KeyType::kSet),
       "kvrocks",
       "Kvrocks/NeoKV: flags, expiry, version and a 64-bit size in the key-meta; counted like s0",
       "#4a4a7a",
       /*meta_has_count=*/true,
       TierUse::kNone,
       /*uses_reverse_scan=*/false,
       {kField},
       {"sort-set-unsorted-order"},
       [](const EncodingDeps&) { return std::unique_ptr<TypeEncoding>(NewKvrocksSetEncoding()); }},
  };
}

}  // namespace

const EncodingRegistry& EncodingRegistry::Builtin() {
  static const EncodingRegistry* const registry = [] {
    auto* r = new EncodingRegistry();
    const Status s = Make(Types(), Rows(), r);
    if (!s.ok()) {
      // The table above is wrong: a programming error every test run shows at once.
      std::fprintf(stderr, "kvlab: the encoding table is invalid: %s\n", s.ToString().c_str());
      std::abort();
    }
    return r;
  }();
  return *registry;
}

}  // namespace kvlab::encodings
