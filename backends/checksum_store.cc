#include "backends/checksum_store.h"

#include <zlib.h>

#include <utility>

namespace kvlab::backends {
namespace {

uint32_t Crc(std::string_view key, std::string_view value) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(key.data()), key.size());
  crc = crc32_z(crc, reinterpret_cast<const Bytef*>(value.data()), value.size());
  return static_cast<uint32_t>(crc);
}

// Verifies each entry the iterator below lands on; a bad one ends the iteration with its status.
class ChecksumIterator final : public IteratorWrapper {
 public:
  ChecksumIterator(std::string backend, std::unique_ptr<Iterator> target)
      : IteratorWrapper(std::move(target)), backend_(std::move(backend)) {}

  bool Valid() const override { return status_.ok() && target()->Valid(); }
  Status status() const override { return status_.ok() ? target()->status() : status_; }
  void Seek(std::string_view key) override {
    target()->Seek(key);
    Check();
  }
  void SeekForPrev(std::string_view key) override {
    target()->SeekForPrev(key);
    Check();
  }
  void SeekToFirst() override {
    target()->SeekToFirst();
    Check();
  }
  void SeekToLast() override {
    target()->SeekToLast();
    Check();
  }
  void Next() override {
    target()->Next();
    Check();
  }
  void Prev() override {
    target()->Prev();
    Check();
  }
  std::string_view value() const override { return value_; }

 private:
  void Check() {
    if (!status_.ok() || !target()->Valid()) return;
    status_ = ChecksumStore::Decode(backend_, target()->key(), target()->value(), &value_);
  }

  const std::string backend_;
  Status status_;
  std::string_view value_;  // the verified value without its trailer
};

}  // namespace

std::string PrintableKey(std::string_view key) {
  static const char kHex[] = "0123456789abcdef";
  constexpr size_t kMax = 200;
  std::string out;
  for (size_t i = 0; i < key.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(key[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (key.size() > kMax) out += "...";
  return out;
}

std::string ChecksumStore::Encode(std::string_view key, std::string_view value) {
  const uint32_t crc = Crc(key, value);
  std::string out;
  out.reserve(value.size() + kTrailerBytes);
  out.append(value);
  const char b[kTrailerBytes] = {static_cast<char>(crc), static_cast<char>(crc >> 8),
                                 static_cast<char>(crc >> 16), static_cast<char>(crc >> 24)};
  out.append(b, kTrailerBytes);
  return out;
}

Status ChecksumStore::Decode(std::string_view backend, std::string_view key,
                             std::string_view stored, std::string_view* value) {
  auto corrupt = [&](const char* what) {
    return Status::Corruption(std::string(backend) + ": checksum mismatch in the record of key \"" +
                              PrintableKey(key) + "\" (" + what +
                              "): the stored bytes are damaged; restore the store from a copy, "
                              "or delete the key (kvlab verify lists every damaged record)");
  };
  if (stored.size() < kTrailerBytes) return corrupt("value shorter than its checksum");
  const auto* p = reinterpret_cast<const unsigned char*>(stored.data() + stored.size() - 4);
  const uint32_t want = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
  *value = stored.substr(0, stored.size() - kTrailerBytes);
  if (Crc(key, *value) != want) return corrupt("crc32 differs");
  return Status::OK();
}

Status ChecksumStore::Get(std::string_view key, std::string* value) {
  std::string stored;
  KVLAB_RETURN_IF_ERROR(target()->Get(key, &stored));
  std::string_view v;
  KVLAB_RETURN_IF_ERROR(Decode(name(), key, stored, &v));
  stored.resize(v.size());  // v is stored's prefix: drop the trailer in place
  *value = std::move(stored);
  return Status::OK();
}

Status ChecksumStore::MultiGet(const std::vector<std::string_view>& keys,
                               std::vector<std::optional<std::string>>* values) {
  KVLAB_RETURN_IF_ERROR(target()->MultiGet(keys, values));
  for (size_t i = 0; i < values->size() && i < keys.size(); ++i) {
    std::optional<std::string>& stored = (*values)[i];
    if (!stored) continue;
    std::string_view v;
    KVLAB_RETURN_IF_ERROR(Decode(name(), keys[i], *stored, &v));
    stored->resize(v.size());
  }
  return Status::OK();
}

Status ChecksumStore::Put(std::string_view key, std::string_view value) {
  return target()->Put(key, Encode(key, value));
}

Status ChecksumStore::Write(const WriteBatch& batch) {
  WriteBatch out;
  for (const auto& r : batch.records()) {
    switch (r.op) {
      case WriteBatch::Op::kPut:
        out.Put(r.key, Encode(r.key, r.value));
        break;
      case WriteBatch::Op::kDelete:
        out.Delete(r.key);
        break;
      case WriteBatch::Op::kSingleDelete:
        out.SingleDelete(r.key);
        break;
      case WriteBatch::Op::kDeleteRange:  // its value is the range's end, not a value
        out.DeleteRange(r.key, r.value);
        break;
    }
  }
  return target()->Write(out);
}

std::unique_ptr<Iterator> ChecksumStore::NewIterator(const IteratorOptions& options) {
  return std::make_unique<ChecksumIterator>(name(), target()->NewIterator(options));
}

Status ChecksumStore::Scrub(const std::function<void(std::string_view, const Status&)>& on_bad,
                            uint64_t* records) {
  *records = 0;
  std::unique_ptr<Iterator> it = target()->NewIterator({});
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ++*records;
    std::string_view v;
    const Status s = Decode(name(), it->key(), it->value(), &v);
    if (!s.ok()) on_bad(it->key(), s);
  }
  return it->status();
}

}  // namespace kvlab::backends
