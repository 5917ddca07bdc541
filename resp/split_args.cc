#include "resp/split_args.h"

#include <cctype>

namespace kvlab::resp {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool SplitArgs(std::string_view line, std::vector<std::string>* args) {
  args->clear();
  size_t p = 0;
  const size_t n = line.size();
  auto at = [&](size_t i) { return i < n ? line[i] : '\0'; };
  while (true) {
    while (p < n && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
    if (p >= n) return true;
    bool in_dq = false, in_sq = false, done = false;
    std::string current;
    while (!done) {
      const char c = at(p);
      if (in_dq) {
        if (p >= n) return false;  // unterminated quotes
        if (c == '\\' && at(p + 1) == 'x' && HexValue(at(p + 2)) >= 0 && HexValue(at(p + 3)) >= 0) {
          current.push_back(static_cast<char>(HexValue(at(p + 2)) * 16 + HexValue(at(p + 3))));
          p += 3;
        } else if (c == '\\' && p + 1 < n) {
          ++p;
          switch (line[p]) {
            case 'n':
              current.push_back('\n');
              break;
            case 'r':
              current.push_back('\r');
              break;
            case 't':
              current.push_back('\t');
              break;
            case 'b':
              current.push_back('\b');
              break;
            case 'a':
              current.push_back('\a');
              break;
            default:
              current.push_back(line[p]);
              break;
          }
        } else if (c == '"') {
          // A closing quote must be followed by a space or nothing.
          if (p + 1 < n && !std::isspace(static_cast<unsigned char>(line[p + 1]))) return false;
          done = true;
        } else {
          current.push_back(c);
        }
      } else if (in_sq) {
        if (p >= n) return false;
        if (c == '\\' && at(p + 1) == '\'') {
          ++p;
          current.push_back('\'');
        } else if (c == '\'') {
          if (p + 1 < n && !std::isspace(static_cast<unsigned char>(line[p + 1]))) return false;
          done = true;
        } else {
          current.push_back(c);
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            if (p >= n || c != '\0') {
              done = true;
              break;
            }
            current.push_back(c);
            break;
          case '"':
            in_dq = true;
            break;
          case '\'':
            in_sq = true;
            break;
          default:
            current.push_back(c);
            break;
        }
      }
      if (p < n) ++p;
    }
    args->push_back(std::move(current));
  }
}

}  // namespace kvlab::resp
