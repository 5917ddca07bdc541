// ChecksumStore: a checksum on every value, for a backend that keeps none of its own (LMDB).
//
// RocksDB checks every block it reads (block checksums) and WiredTiger every page; LMDB reads
// its memory map as it is, so a flipped bit in data.mdb comes back as a wrong value, a hash
// with a field missing, or a crash. This decorator, in LevelDB's EnvWrapper style, makes a
// corrupt record an error instead of a wrong answer, and the encodings above see nothing of it.
//
// Byte layout of every value it writes (the record as the store below keeps it):
//     value | fixed32 crc (little-endian)
// where crc is zlib's CRC-32 (the IEEE polynomial) of the record's key bytes followed by its
// value bytes. The key is covered too, so that a flip in a stored key, which moves a record
// under another name, is caught when the record is read under that name.
//
// Every read verifies: Get, MultiGet, and every entry an iterator lands on. A mismatch (or a
// stored value shorter than the 4-byte trailer) is a Corruption status naming the record's key
// (printable, with \xNN escapes) and the backend, and the engine replies it as an error naming
// the key: never a wrong answer. An iterator that meets one becomes invalid with that status.
//
// Whether a store's values carry the trailer is fixed for the life of the store: the registry
// writes it in the store's format record ("checksums crc32", registry.h). The memory backend
// never has it (nothing is persisted, nothing can rot).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/kv_store.h"
#include "backends/kv_store_wrapper.h"

namespace kvlab::backends {

class ChecksumStore final : public KvStoreWrapper {
 public:
  // The format record's entry name and value (registry.h).
  static constexpr const char* kFormatEntry = "checksums";
  static constexpr const char* kFormatValue = "crc32";
  static constexpr size_t kTrailerBytes = 4;

  explicit ChecksumStore(std::unique_ptr<KvStore> target) : KvStoreWrapper(std::move(target)) {}

  Status Get(std::string_view key, std::string* value) override;
  Status MultiGet(const std::vector<std::string_view>& keys,
                  std::vector<std::optional<std::string>>* values) override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Write(const WriteBatch& batch) override;
  std::unique_ptr<Iterator> NewIterator(const IteratorOptions& options) override;

  // Reads every record of the store below in key order and verifies its checksum, calling
  // on_bad(key, the Corruption status) for each bad one. *records counts the records read.
  // Returns the status that ended the walk: OK at the end of the store, or the backend's error
  // (a structural corruption the backend itself reports stops the walk there).
  // Writes nothing.
  Status Scrub(const std::function<void(std::string_view key, const Status&)>& on_bad,
               uint64_t* records);

  // value | crc, as written. Exposed for tests and tools that build or inspect records.
  static std::string Encode(std::string_view key, std::string_view value);
  // Checks a stored record and sets *value to its value without the trailer (a view of
  // `stored`). Corruption naming the key and `backend` when the checksum does not match.
  static Status Decode(std::string_view backend, std::string_view key, std::string_view stored,
                       std::string_view* value);
};

// The key, printable for a message: bytes outside printable ASCII, '"' and '\' as \xNN, cut at
// 200 bytes ("..." then).
std::string PrintableKey(std::string_view key);

}  // namespace kvlab::backends
