#include "test_support/hash_extra_read.h"

#include <string>
#include <utility>

namespace kvlab::test_support {

using encodings::FieldValue;
using encodings::HashEncoding;
using encodings::HashGetAllPart;
using encodings::KeyHandle;
using encodings::KvTxn;

namespace {

class ExtraReadHash final : public HashEncoding {
 public:
  explicit ExtraReadHash(std::unique_ptr<HashEncoding> inner) : inner_(std::move(inner)) {}

  uint8_t version() const override { return inner_->version(); }

  Status Get(KvTxn& txn, const KeyHandle& h, std::string_view field,
             std::optional<std::string>* value) override {
    // A key outside every namespace the key codec produces: always absent, never written.
    std::string ignored;
    Status s = txn.kv().Get(std::string_view("\xff\xff kvlab-test-extra-read", 24), &ignored);
    if (!s.ok() && !s.IsNotFound()) return s;
    return inner_->Get(txn, h, field, value);
  }
  Status MultiGet(KvTxn& txn, const KeyHandle& h, const std::vector<std::string_view>& fields,
                  std::vector<std::optional<std::string>>* values) override {
    return inner_->MultiGet(txn, h, fields, values);
  }
  Status GetAll(KvTxn& txn, const KeyHandle& h, HashGetAllPart part,
                std::vector<FieldValue>* out) override {
    return inner_->GetAll(txn, h, part, out);
  }
  Status Length(KvTxn& txn, const KeyHandle& h, uint64_t* length) override {
    return inner_->Length(txn, h, length);
  }
  Status Scan(KvTxn& txn, const KeyHandle& h, const std::optional<std::string>& after,
              uint64_t count, std::vector<FieldValue>* out,
              std::optional<std::string>* next) override {
    return inner_->Scan(txn, h, after, count, out, next);
  }
  Status Set(KvTxn& txn, KeyHandle* h,
             const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
             int64_t* reply) override {
    return inner_->Set(txn, h, pairs, reply);
  }
  Status Put(KvTxn& txn, KeyHandle* h, std::string_view field, std::string_view value,
             bool existed) override {
    return inner_->Put(txn, h, field, value, existed);
  }
  Status Delete(KvTxn& txn, KeyHandle* h, const std::vector<std::string_view>& fields,
                int64_t* reply) override {
    return inner_->Delete(txn, h, fields, reply);
  }

 private:
  std::unique_ptr<HashEncoding> inner_;
};

}  // namespace

std::unique_ptr<HashEncoding> NewExtraReadHashEncoding(std::unique_ptr<HashEncoding> inner) {
  return std::make_unique<ExtraReadHash>(std::move(inner));
}

}  // namespace kvlab::test_support
