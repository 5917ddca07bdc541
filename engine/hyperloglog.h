// HyperLogLog, byte for byte as Redis 7.0.15's hyperloglog.c (with Debian's fix for
// CVE-2025-32023, which the redis-server kvlab is compared with carries): an HLL is a string
// value, so GET returns Redis's exact bytes and a value Redis's GET returned works here.
//
// The value is a 16-byte header, "HYLL", the encoding (0 dense, 1 sparse), 3 unused bytes and
// the cached cardinality (64 bits, little endian; its most significant bit set means "stale"),
// then the 16384 registers:
//   dense:  6 bits each, packed from each byte's least significant bit (12288 bytes);
//   sparse: run-length opcodes, ZERO 00xxxxxx (1-64 zero registers), XZERO 01xxxxxx yyyyyyyy
//           (1-16384 zero registers) and VAL 1vvvvvxx (1-4 registers of value 1-32).
// A sparse HLL becomes dense when a register needs a value over 32 or when the sparse bytes
// would exceed hll-sparse-max-bytes. Elements hash with MurmurHash64A (seed 0xadc83b19): the low
// 14 bits pick the register, the run of zeros above them (plus one) is its candidate value. The
// cardinality is Ertl's estimator ("New cardinality estimation algorithms for HyperLogLog
// sketches", arXiv:1702.01284) over the registers' histogram, as in Redis 7.0.
//
// Functions that read opcodes treat the byte after the value as 0, as Redis reads the sds null
// terminator there, so that a corrupted value gives Redis's answer and never a read past it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kvlab::engine::hll {

inline constexpr size_t kHeaderSize = 16;
inline constexpr int kRegisters = 1 << 14;
inline constexpr size_t kDenseSize = kHeaderSize + (kRegisters * 6 + 7) / 8;
inline constexpr uint8_t kDense = 0;
inline constexpr uint8_t kSparse = 1;
inline constexpr uint64_t kDefaultSparseMaxBytes = 3000;

inline constexpr const char* kInvalidObjectError = "INVALIDOBJ Corrupted HLL object detected";
inline constexpr const char* kNotHllError =
    "WRONGTYPE Key is not a valid HyperLogLog string value.";

// One register per byte: PFCOUNT's and PFMERGE's union of several HLLs.
using RawRegisters = std::array<uint8_t, kRegisters>;

// MurmurHash2, 64-bit version, endian-neutral as Redis modified it.
uint64_t MurmurHash64A(std::string_view key, uint32_t seed);
// hllPatLen: the register `element` maps to (*index) and the length of its 000..1 pattern.
int PatternLength(std::string_view element, int* index);

// createHLLObject: an empty sparse HLL (XZERO:16384), its cached cardinality 0 and valid.
std::string NewSparse();
// isHLLObjectOrReply's checks of a string: long enough for a header, "HYLL", a known
// encoding, and exactly kDenseSize bytes when dense.
bool IsValid(std::string_view value);
// REQUIRES (for the functions below): IsValid(value).
uint8_t EncodingOf(std::string_view value);

// The cached cardinality: true and *card when its stale bit is clear.
bool CachedCardinality(std::string_view value, uint64_t* card);
void SetCachedCardinality(std::string* value, uint64_t card);
void InvalidateCache(std::string* value);  // HLL_INVALIDATE_CACHE

// hllAdd: 1 when a register changed, 0 when none did, -1 when the sparse opcodes are corrupt.
// May promote a sparse HLL to dense (sparse_max_bytes: hll-sparse-max-bytes).
int Add(std::string* value, std::string_view element, uint64_t sparse_max_bytes);
// hllDenseSet / hllSparseSet: raise register `index` to `count` if it is lower. Same results as
// Add. REQUIRES: 0 <= index < kRegisters, 1 <= count <= 63.
int SetRegister(std::string* value, int index, uint8_t count, uint64_t sparse_max_bytes);
// hllSparseToDense: false (value unchanged) when the sparse opcodes are corrupt. A dense value
// is left as it is.
bool SparseToDense(std::string* value);

// hllCount: the estimated cardinality; false when a sparse value's opcodes do not describe
// exactly kRegisters registers.
bool Count(std::string_view value, uint64_t* card);
// hllCount of HLL_RAW registers (PFCOUNT of several keys).
uint64_t CountRaw(const RawRegisters& registers);
// hllMerge: max[i] = max(max[i], register i); false when a sparse value is corrupt.
bool Merge(RawRegisters* max, std::string_view value);

// Register i of a dense value's registers.
uint8_t DenseRegister(std::string_view value, int i);
// PFDEBUG DECODE of a sparse value: "Z:16384", "z:3 v:2,1 ...".
std::string DecodeSparse(std::string_view value);

// PFSELFTEST: Redis's two tests, register access (1000 rounds of random values) and the
// estimate's error against `elements` unique elements, added to a dense and a sparse HLL that
// must agree (checked at 1, 10, 100, ...). Returns "" when both pass, else Redis's error text.
// Redis runs it with 10,000,000 elements.
std::string SelfTest(uint64_t sparse_max_bytes, uint64_t elements, uint64_t seed);

}  // namespace kvlab::engine::hll
