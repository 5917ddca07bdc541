// EncodingRegistry: the collection types kvlab stores and every encode-version of each, as data.
//
// Commands are one table (engine/command_table.cc); types and versions are another
// (encoding_table.cc): one TypeSpec per type and one EncodingSpec row per (type, version). Every
// "which versions exist" question is answered here: which encoding the engine builds for a
// key-meta's version byte, whether a meta keeps a count, the CONFIG names
// (kv.<type>.key.meta.version), the CLI's --encoding, the bench and conformance matrices, the
// amplification table's coverage, the deviations catalogue, and the names, one-line summaries
// and plot colours of the reports. Adding a version touches its own files, its docs rows and one
// row here (docs/adding-an-encoding.md).
//
// A registry is an immutable value. Builtin() is kvlab's; tests build others with With() (a
// fixture version) and hand them to the engine and the matrices, which take the registry they
// are given. Nothing registers itself.
//
// Versions have names. Camellia's are their numbers ("0".."3"); other families' versions are
// named ("kvrocks"), and a name is usable wherever a version is (--encoding hash=NAME, CONFIG
// SET, matrices, results JSON). The id is the byte that reaches disk in the key-meta.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "encodings/key_codec.h"
#include "encodings/key_meta.h"

namespace kvlab::redis {
class RedisTier;
}  // namespace kvlab::redis

namespace kvlab::encodings {

class TypeEncoding;

// What an encoding is built with (EncodingSpec::factory). Only the versions whose row uses the
// Redis tier (TierUse::kCache, kStore) get the tier; the KV-only versions never see it, and
// their code (the kvlab_encodings_kv library) does not link it.
struct EncodingDeps {
  // REQUIRES (rows with a tier): not null, and outlives the encoding.
  redis::RedisTier* tier = nullptr;
};

// Whether a version keeps state in the Redis tier (redis/tier.h), and of which kind.
enum class TierUse : uint8_t {
  kNone,   // KV only: the encoding never sees the tier
  kCache,  // the cache Redis in front of KV: losing it costs time, never data
  kStore,  // the store Redis holds part of the data (zset v3's zset of refs)
};
const char* TierUseName(TierUse use);  // "none", "cache", "store"

// A collection type with encode-versions. Strings are not one: a string is its key-meta alone.
struct TypeSpec {
  KeyType type;
  // The Redis TYPE name: "hash". It names the CONFIG parameter kv.<name>.key.meta.version, the
  // --encoding key, the type in results JSON and the deviations catalogue.
  std::string_view name;
  // One letter for labels: "h" makes "h0 z1".
  std::string_view letter;
  // The command table's group of the type's commands ("hash", "sorted-set"): conformance and the
  // workload drivers find a command's type by it.
  std::string_view command_group;
  // Arguments per element in the type's write commands after the key: 2 for a hash's
  // "field value" and a zset's "score member", 1 for a set member or a list item. Studies count
  // the elements a workload's load writes with it.
  int element_args = 1;
};

// One encode-version of one type: a row of the registry.
struct EncodingSpec {
  KeyType type;
  // The encode-version byte written in the key-meta of every key of this version. It reaches
  // disk: DO NOT CHANGE the id of a released row. It also says the key-meta's layout
  // (key_meta.h): Camellia's ids are below 0x40; an Ardb row's is 0x40 | Ardb's type number of
  // the key-meta (ArdbId: the meta's first byte is that type); a Kvrocks/NeoKV row's id is the
  // Kvrocks flags byte of its type (KvrocksFlags: 0x80 | Kvrocks's type number). A type has at
  // most one Ardb and one Kvrocks row.
  uint8_t id;
  // The version's name wherever a user names it. Unique within the type; [a-z0-9-]+.
  std::string_view name;
  // One line for reports and --help: what this version stores and why one would choose it.
  std::string_view summary;
  // The version's colour in every plot, "#rrggbb"; distinct across all rows.
  std::string_view color;
  // The key-meta carries an element count (u32 after Camellia's header, u64 in Kvrocks's):
  // HLEN/ZCARD are free and write replies are exact, at the price of reading before writing.
  // Kvrocks rows always have it.
  bool meta_has_count;
  TierUse tier;
  // Its plans differ when the store lacks reverse scan (TiKV-like stores): the amplification
  // table then needs "(no reverse scan)" rows for it.
  bool uses_reverse_scan;
  // The sub-key kinds it writes (besides the key-meta): what FLUSHDB removes and what the
  // garbage collector will walk.
  std::vector<SubKeyTag> sub_keys;
  // The ids of the docs/deviations.json entries that hold for this version: the only ways its
  // replies may differ from Redis's.
  std::vector<std::string_view> deviations;
  // Builds the encoding. Its interface is the type's (HashEncoding for hashes, ...). `deps.tier`
  // is set only for rows whose `tier` is not kNone.
  std::unique_ptr<TypeEncoding> (*factory)(const EncodingDeps& deps);
  // With meta_has_count: key-metas written before this version kept a count (no extra bytes)
  // still decode, with KeyMeta::count_known false; the encoding's Reconcile fills the count in
  // at the key's next use. zset v3 gained its count after release (docs/encodings.md).
  bool count_added_later = false;
  // The version deletes a key's sub-keys with the key (DEL, an overwrite, an expiry reaped),
  // in the command's batch: O(n) KV operations. True exactly for the Ardb rows (ids 64-127),
  // whose layout has no key-version (key_meta.h) to make old sub-keys unreachable; their
  // records (a#) never outlive their key-meta, so the garbage collector does not walk them.
  bool eager_delete = false;

  // "hash v0", for messages.
  std::string DisplayName(const TypeSpec& type) const;
};

class EncodingRegistry {
 public:
  // kvlab's types and versions (encoding_table.cc). Built once; immutable.
  static const EncodingRegistry& Builtin();

  // A registry of exactly these types and rows. Fails with InvalidArgument when a row names an
  // unknown type, repeats a (type, id) or (type, name), has a malformed name or colour, repeats
  // another row's colour, or lacks a factory; or when a type has no version.
  static Status Make(std::vector<TypeSpec> types, std::vector<EncodingSpec> rows,
                     EncodingRegistry* out);
  // This registry plus one more row (a fixture encoding in a test). Same checks as Make.
  Status With(EncodingSpec row, EncodingRegistry* out) const;

  EncodingRegistry() = default;

  // Types in table order (the order of labels, reports and profiles).
  const std::vector<TypeSpec>& types() const { return types_; }
  // Rows grouped by type in table order, each type's rows in id order.
  const std::vector<EncodingSpec>& rows() const { return rows_; }

  const TypeSpec* FindType(KeyType type) const;
  const TypeSpec* FindType(std::string_view name) const;
  // The type whose commands are in the command table's `group`, or nullptr.
  const TypeSpec* FindTypeByGroup(std::string_view group) const;
  const EncodingSpec* Find(KeyType type, uint8_t id) const;
  const EncodingSpec* Find(KeyType type, std::string_view name) const;
  // Every version of a type, in id order.
  std::vector<const EncodingSpec*> VersionsOf(KeyType type) const;
  // The version new keys get unless configured: the type's first row (Camellia's v0).
  const EncodingSpec& DefaultVersion(KeyType type) const;
  // Every sub-key kind any version writes, without repeats, in tag order.
  std::vector<SubKeyTag> AllSubKeyTags() const;
  // The sub-key kinds of the versions that delete lazily (not eager_delete): the kinds whose
  // records can outlive their key-meta, which the garbage collector walks.
  std::vector<SubKeyTag> LazySubKeyTags() const;

  // Parses a version of `type` by name; the error lists the known names:
  // "unknown hash encode-version '7' (known: 0, 1, 2, 3)".
  Status ParseVersion(const TypeSpec& type, std::string_view name, const EncodingSpec** out) const;

 private:
  std::vector<TypeSpec> types_;
  std::vector<EncodingSpec> rows_;
};

// The encode-version of each type in one run configuration (a bench cell, a conformance
// profile, the versions new keys get), by name: type name -> version name. A type mapped to
// nullopt is one whose version is not known (a RESP server that does not say). Types a run does
// not use are absent.
struct EncodingProfile {
  std::map<std::string, std::optional<std::string>> versions;

  // "h0 z1": each known version as the type's letter and the version's name, in the registry's
  // type order, separated by spaces; types of unknown version are left out.
  std::string Label(const EncodingRegistry& registry) const;
  // The version of `type`, or nullopt when the profile does not name one.
  std::optional<std::string> VersionOf(std::string_view type) const;
  bool operator==(const EncodingProfile&) const = default;
};

// The name OBJECT ENCODING replies for a key: "kv-" type, then "-v" and a numbered version
// ("kv-hash-v0") or "-" and a named one ("kv-zset-kvrocks"); "kv-string" for a string (empty
// version). docs/deviations.json: object-encoding-names-kv-encoding.
std::string KvEncodingName(std::string_view type, std::string_view version);

// Parses "hash=0,zset=1" (the --encoding flag): comma-separated TYPE=VERSION pairs, by name.
// Fails naming the bad part: an unknown type, an unknown version, a type given twice.
Status ParseEncodingList(const EncodingRegistry& registry, std::string_view text,
                         EncodingProfile* out);

}  // namespace kvlab::encodings
