// DUMP's payload in Redis 7.0's serialization: the RDB object type byte, the object, the RDB
// version (10) as two little-endian bytes and the CRC64 of all that before it, little-endian
// (cluster.c createDumpPayload / verifyDumpPayload, rdb.c rdbSaveObject / rdbLoadObject).
//
// DumpPayload picks the object form Redis 7.0 would hold the same value in, after building it
// from empty by appending: a listpack for hashes and zsets within hash-max-listpack-* and
// zset-max-listpack-*, an intset for sets of integers within set-max-intset-entries, a
// quicklist 2 of listpacks for lists, cut into nodes as RPUSH fills them
// (list-max-listpack-size). Where Redis's bytes depend on its history or hash order (a hash's
// field order, a large set's order, a list built otherwise), the value is the same and the bytes
// may differ (docs/deviations.json "dump-*").
//
// ParsePayload accepts every form Redis 7.0's rdbLoadObject accepts for strings, hashes, zsets,
// sets and lists, the older ones included (zipmap, ziplist, intset, quicklist 1 and 2, the
// plain list/set/zset/hash forms, ZSET with text scores). Streams and modules are refused as
// bad data: kvlab has no such types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "encodings/key_meta.h"

namespace kvlab::engine::rdb {

inline constexpr uint16_t kRdbVersion = 10;  // Redis 7.0

// The RDB object types (rdb.h).
enum ObjectType : uint8_t {
  kTypeString = 0,
  kTypeList = 1,
  kTypeSet = 2,
  kTypeZset = 3,
  kTypeHash = 4,
  kTypeZset2 = 5,
  kTypeHashZipmap = 9,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZsetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,
  kTypeHashListpack = 16,
  kTypeZsetListpack = 17,
  kTypeListQuicklist2 = 18,
};

// One value of any of the five types. Only the member of its type is used.
struct Value {
  encodings::KeyType type = encodings::KeyType::kString;
  std::string str;                                         // string
  std::vector<std::pair<std::string, std::string>> pairs;  // hash: field, value
  std::vector<std::pair<std::string, double>> scored;      // zset: member, score
  std::vector<std::string> elements;                       // list (in order) or set
};

// The thresholds Redis 7.0 chooses its compact encodings by (CONFIG's parameters of the same
// names, Redis's defaults here), and rdbcompression.
struct DumpOptions {
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  int64_t set_max_intset_entries = 512;
  int64_t list_max_listpack_size = -2;
  bool compression = true;
};

std::string DumpPayload(const Value& value, const DumpOptions& options);

enum class ParseResult {
  kOk,
  kVersionOrChecksum,  // "ERR DUMP payload version or checksum are wrong"
  kBadData,            // "ERR Bad data format"
};
// REQUIRES: nothing of `payload`: any bytes a client sends. Duplicate fields or members, NaN
// scores, empty collections and malformed blobs are bad data, as in Redis.
ParseResult ParsePayload(std::string_view payload, Value* out);

}  // namespace kvlab::engine::rdb
