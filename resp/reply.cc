#include "resp/reply.h"

#include <charconv>
#include <cstdio>

#include "resp/redis_numbers.h"

namespace kvlab::resp {
namespace {

// "*3\r\n", ":-1\r\n". std::to_chars rather than snprintf: the server writes one header per
// reply element, and snprintf was 8% of a pipelined ZRANGE's time.
void AppendHeader(std::string* out, char kind, int64_t n) {
  char buf[24];
  buf[0] = kind;
  char* end = std::to_chars(buf + 1, buf + sizeof(buf) - 2, n).ptr;
  *end++ = '\r';
  *end++ = '\n';
  out->append(buf, static_cast<size_t>(end - buf));
}

void AppendQuoted(std::string* out, std::string_view s) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
        out->append("\\\\");
        break;
      case '"':
        out->append("\\\"");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

}  // namespace

Reply Reply::Double(double v) {
  Reply r(Type::kDouble, FormatDouble(v));
  return r;
}

Reply Reply::AsResp2() const {
  switch (type_) {
    case Type::kDouble:
    case Type::kVerbatim:
      return Bulk(str_);
    case Type::kArray:
    case Type::kMap:
    case Type::kSet: {
      std::vector<Reply> e;
      e.reserve(elements_.size());
      for (const Reply& x : elements_) e.push_back(x.AsResp2());
      return Array(std::move(e));
    }
    default:
      return *this;
  }
}

void Reply::AppendResp(std::string* out, int protocol) const {
  const bool resp3 = protocol >= 3;
  switch (type_) {
    case Type::kStatus:
      out->push_back('+');
      out->append(str_);
      out->append("\r\n");
      break;
    case Type::kError:
      out->push_back('-');
      out->append(str_);
      out->append("\r\n");
      break;
    case Type::kInteger:
      AppendHeader(out, ':', integer_);
      break;
    case Type::kBulk:
      AppendHeader(out, '$', static_cast<int64_t>(str_.size()));
      out->append(str_);
      out->append("\r\n");
      break;
    case Type::kNil:
      out->append(resp3 ? "_\r\n" : "$-1\r\n");
      break;
    case Type::kNilArray:
      out->append(resp3 ? "_\r\n" : "*-1\r\n");
      break;
    case Type::kArray:
      AppendHeader(out, '*', static_cast<int64_t>(elements_.size()));
      for (const Reply& e : elements_) e.AppendResp(out, protocol);
      break;
    case Type::kMap:
      if (resp3) {
        AppendHeader(out, '%', static_cast<int64_t>(elements_.size() / 2));
      } else {
        AppendHeader(out, '*', static_cast<int64_t>(elements_.size()));
      }
      for (const Reply& e : elements_) e.AppendResp(out, protocol);
      break;
    case Type::kSet:
      AppendHeader(out, resp3 ? '~' : '*', static_cast<int64_t>(elements_.size()));
      for (const Reply& e : elements_) e.AppendResp(out, protocol);
      break;
    case Type::kDouble:
      if (resp3) {
        out->push_back(',');
        out->append(str_);
        out->append("\r\n");
      } else {
        AppendHeader(out, '$', static_cast<int64_t>(str_.size()));
        out->append(str_);
        out->append("\r\n");
      }
      break;
    case Type::kVerbatim:
      if (resp3) {
        AppendHeader(out, '=', static_cast<int64_t>(str_.size() + 4));
        out->append("txt:");
      } else {
        AppendHeader(out, '$', static_cast<int64_t>(str_.size()));
      }
      out->append(str_);
      out->append("\r\n");
      break;
  }
}

// As the reply's RESP2 form, which is what redis-cli shows by default.
std::string Reply::Describe() const {
  std::string out;
  switch (type_) {
    case Type::kStatus:
      return str_;
    case Type::kError:
      return "(error) " + str_;
    case Type::kInteger:
      return "(integer) " + std::to_string(integer_);
    case Type::kBulk:
    case Type::kVerbatim:
    case Type::kDouble:
      AppendQuoted(&out, str_);
      return out;
    case Type::kNil:
      return "(nil)";
    case Type::kNilArray:
      return "(nil array)";
    case Type::kArray:
    case Type::kMap:
    case Type::kSet:
      out = "[";
      for (size_t i = 0; i < elements_.size(); ++i) {
        if (i > 0) out += ", ";
        out += elements_[i].Describe();
      }
      out += "]";
      return out;
  }
  return out;
}

}  // namespace kvlab::resp
