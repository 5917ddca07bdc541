// Reply: a Redis reply as a value, independent of the wire protocol.
//
// The engine returns a Reply from every command; the RESP server serializes it (AppendResp) in
// the protocol its client chose with HELLO, the conformance harness compares it with what a
// real redis-server sent.
//
// A Reply carries the RESP3 type Redis 7.0 gives it (a map, a set, a double, a verbatim string),
// so that one value serializes exactly as Redis sends it in either protocol: RESP2 sends a map
// and a set as arrays (a map flattened to key, value, key, value, ...), a double as a bulk string
// of its %.17g text ("inf", "-inf"), a verbatim string as a bulk string; RESP3 sends each as its
// own type and both nulls as "_". Where Redis's RESP3 reply has another *shape* (ZRANGE
// WITHSCORES nests [member, score] pairs), the command builds that shape itself, from the
// session's protocol, as Redis does.
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
    // RESP3 types (RESP2 sends them as the types in brackets).
    kMap,       // %2 ...  (*4: key, value, key, value)
    kSet,       // ~2 ...  (*2)
    kDouble,    // ,1.5    ($3 1.5)
    kVerbatim,  // =8 txt:text  ($4 text)
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
  // `pairs` holds key, value, key, value, ...  REQUIRES: an even number of elements.
  static Reply Map(std::vector<Reply> pairs = {}) {
    Reply r(Type::kMap, {});
    r.elements_ = std::move(pairs);
    return r;
  }
  static Reply Set(std::vector<Reply> elements = {}) {
    Reply r(Type::kSet, {});
    r.elements_ = std::move(elements);
    return r;
  }
  // addReplyDouble: str() is the text Redis prints ("%.17g", "inf", "-inf").
  static Reply Double(double v);
  // A double whose text the command formatted itself (addReplyHumanLongDouble's "%.17Lf" with
  // trailing zeros removed: GEOPOS's coordinates): a bulk string in RESP2, a double in RESP3.
  static Reply DoubleText(std::string text) { return Reply(Type::kDouble, std::move(text)); }
  // addReplyVerbatim with the "txt" format (INFO, CLIENT LIST).
  static Reply Verbatim(std::string text) { return Reply(Type::kVerbatim, std::move(text)); }

  Type type() const { return type_; }
  bool is_error() const { return type_ == Type::kError; }
  // Array, map or set: the ones with elements().
  bool is_aggregate() const {
    return type_ == Type::kArray || type_ == Type::kMap || type_ == Type::kSet;
  }
  // The text of a status, error, bulk, double or verbatim reply.
  const std::string& str() const { return str_; }
  int64_t integer() const { return integer_; }
  const std::vector<Reply>& elements() const { return elements_; }
  std::vector<Reply>& mutable_elements() { return elements_; }

  bool operator==(const Reply& o) const {
    return type_ == o.type_ && integer_ == o.integer_ && str_ == o.str_ && elements_ == o.elements_;
  }

  // Appends the encoding in RESP `protocol` (2 or 3).
  void AppendResp(std::string* out, int protocol = 2) const;
  std::string ToResp(int protocol = 2) const {
    std::string out;
    AppendResp(&out, protocol);
    return out;
  }
  // The reply a RESP2 client decodes: maps and sets become arrays, doubles and verbatim
  // strings bulk strings, recursively. Conformance compares RESP2 replies through it.
  Reply AsResp2() const;
  // A one-line human-readable form of the RESP2 reply, like redis-cli's: "OK", "(error) ERR x",
  // "(integer) 1",
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
