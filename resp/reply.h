// Reply: a Redis reply as a value, independent of the wire protocol.
//
// The engine returns a Reply from every command; the RESP server serializes it (ToResp), the
// conformance harness compares it with what a real redis-server sent. Only RESP2's types exist:
// kvlab speaks RESP2 (HELLO 3 is refused with Redis's NOPROTO error).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kvlab::resp {

class Reply {
 public:
  enum class Type : uint8_t {
    kStatus,    // +OK
    kError,     // -ERR ...   (the text includes the error code word)
    kInteger,   // :1
    kBulk,      // $3 abc
    kNil,       // $-1
    kArray,     // *2 ...
    kNilArray,  // *-1
  };

  Reply() : type_(Type::kNil) {}
  static Reply Status(std::string text) { return Reply(Type::kStatus, std::move(text)); }
  static Reply Ok() { return Status("OK"); }
  // `text` is the whole error line without the leading '-', e.g. "ERR syntax error".
  static Reply Error(std::string text) { return Reply(Type::kError, std::move(text)); }
  static Reply Integer(int64_t v) {
    Reply r(Type::kInteger, {});
    r.integer_ = v;
    return r;
  }
  static Reply Bulk(std::string s) { return Reply(Type::kBulk, std::move(s)); }
  static Reply Nil() { return Reply(); }
  static Reply NilArray() { return Reply(Type::kNilArray, {}); }
  static Reply Array(std::vector<Reply> elements = {}) {
    Reply r(Type::kArray, {});
    r.elements_ = std::move(elements);
    return r;
  }

  Type type() const { return type_; }
  bool is_error() const { return type_ == Type::kError; }
  // The text of a status, error or bulk reply.
  const std::string& str() const { return str_; }
  int64_t integer() const { return integer_; }
  const std::vector<Reply>& elements() const { return elements_; }
  std::vector<Reply>& mutable_elements() { return elements_; }

  bool operator==(const Reply& o) const {
    return type_ == o.type_ && integer_ == o.integer_ && str_ == o.str_ && elements_ == o.elements_;
  }

  // Appends the RESP2 encoding.
  void AppendResp(std::string* out) const;
  std::string ToResp() const {
    std::string out;
    AppendResp(&out);
    return out;
  }
  // A one-line human-readable form, like redis-cli's: "OK", "(error) ERR x", "(integer) 1",
  // "\"abc\"" (escaped), "(nil)", "[...]".
  std::string Describe() const;

 private:
  Reply(Type type, std::string str) : type_(type), str_(std::move(str)) {}

  Type type_;
  int64_t integer_ = 0;
  std::string str_;
  std::vector<Reply> elements_;
};

}  // namespace kvlab::resp
