// The building blocks of Redis 7.0's RDB serialization (src/rdb.c, listpack.c, ziplist.c,
// intset.c, zipmap.c, crc64.c), as DUMP and RESTORE use them: lengths, strings (raw, integer
// and LZF-compressed), binary and text doubles, and the compact blobs Redis keeps small
// collections in. Pure functions over bytes: the value-level codec is rdb_value.h.
//
// Every reader bounds-checks what it reads and returns false on malformed bytes, never reading
// past its input: RESTORE takes payloads from clients.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvlab::engine::rdb {

// Redis's crc64 (Jones polynomial, reflected, no final xor): crc64(0, "123456789") is
// 0xe9c6d914c4b8d9ca.
uint64_t Crc64(uint64_t crc, std::string_view data);

// string2ll's strict integer syntax (no '+', no leading zeros, no "-0", at most 20 bytes): the
// strings Redis stores as integers in listpacks and intsets and saves integer-encoded.
bool StrictInt64(std::string_view s, int64_t* v);

class Writer {
 public:
  void Byte(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  // rdbSaveLen: 6-bit, 14-bit, 32-bit or 64-bit big-endian lengths.
  void Len(uint64_t len);
  // rdbSaveRawString: integer-encoded when the string is a canonical int32 of <= 11 bytes,
  // LZF-compressed when `compress` and it is longer than 20 bytes and shrinks by more than 4,
  // raw otherwise.
  void String(std::string_view s, bool compress);
  // rdbSaveBinaryDoubleValue: IEEE 754, little-endian.
  void BinaryDouble(double d);
  void Raw(std::string_view s) { out_.append(s); }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool Byte(uint8_t* b);
  // rdbLoadLen; *encoded is true for the special string encodings (11xxxxxx), whose kind is
  // then in *len.
  bool Len(uint64_t* len, bool* encoded = nullptr);
  // rdbGenericLoadStringObject: raw, integer or LZF.
  bool String(std::string* s);
  bool BinaryDouble(double* d);
  // rdbLoadDoubleValue: a length byte (253 nan, 254 +inf, 255 -inf) and "%lg" text.
  bool TextDouble(double* d);
  size_t remaining() const { return in_.size() - pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

// Listpacks (listpack.c): entries as strings; integers are stored in the smallest integer
// encoding, as lpAppend does for strings StrictInt64 accepts.
std::string ListpackEncode(const std::vector<std::string_view>& entries);
// The size lpAppend would give `entry` in a listpack (encoding, data and back-length).
size_t ListpackEntrySize(std::string_view entry);
bool ListpackDecode(std::string_view blob, std::vector<std::string>* entries);

// Ziplists (ziplist.c, RDB types before 7.0): decoding only.
bool ZiplistDecode(std::string_view blob, std::vector<std::string>* entries);

// Intsets (intset.c): sorted distinct integers at the smallest width that holds them all.
// REQUIRES: `values` sorted and distinct.
std::string IntsetEncode(const std::vector<int64_t>& values);
bool IntsetDecode(std::string_view blob, std::vector<int64_t>* values);

// Zipmaps (zipmap.c, hashes of Redis 2.4 and before): decoding only.
bool ZipmapDecode(std::string_view blob, std::vector<std::pair<std::string, std::string>>* pairs);

// Redis's d2string of a zset score in a listpack (integral values below 2^52 as integers,
// others "%.17g").
std::string ScoreText(double score);

}  // namespace kvlab::engine::rdb
