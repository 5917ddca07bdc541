#include "engine/glob.h"

#include <cctype>

namespace kvlab::engine {
namespace {

int Fold(unsigned char c, bool nocase) { return nocase ? std::tolower(c) : c; }

// A transcription of stringmatchlen_impl, including its handling of malformed patterns
// (an unterminated '[' matches up to the end of the pattern), so that KEYS answers as Redis.
bool Match(const char* p, size_t plen, const char* s, size_t slen, bool nocase, int nesting,
           bool* skip_longer) {
  if (nesting > 1000) return false;  // Redis bounds the recursion the same way
  while (plen && slen) {
    switch (p[0]) {
      case '*':
        while (plen > 1 && p[1] == '*') {
          ++p;
          --plen;
        }
        if (plen == 1) return true;
        while (slen) {
          if (Match(p + 1, plen - 1, s, slen, nocase, nesting + 1, skip_longer)) return true;
          if (*skip_longer) return false;
          ++s;
          --slen;
        }
        *skip_longer = true;
        return false;
      case '?':
        ++s;
        --slen;
        break;
      case '[': {
        ++p;
        --plen;
        const bool negate = plen > 0 && p[0] == '^';
        if (negate) {
          ++p;
          --plen;
        }
        bool match = false;
        while (true) {
          if (plen == 0) {
            --p;
            ++plen;
            break;
          }
          if (p[0] == '\\' && plen >= 2) {
            ++p;
            --plen;
            if (p[0] == s[0]) match = true;
          } else if (p[0] == ']') {
            break;
          } else if (plen >= 3 && p[1] == '-') {
            // Signed chars, as in Redis: bytes >= 0x80 compare as negative numbers.
            int start = static_cast<signed char>(p[0]);
            int end = static_cast<signed char>(p[2]);
            int c = static_cast<signed char>(s[0]);
            if (start > end) std::swap(start, end);
            if (nocase) {
              start = std::tolower(start);
              end = std::tolower(end);
              c = std::tolower(c);
            }
            p += 2;
            plen -= 2;
            if (c >= start && c <= end) match = true;
          } else if (Fold(p[0], nocase) == Fold(s[0], nocase)) {
            match = true;
          }
          ++p;
          --plen;
        }
        if (negate) match = !match;
        if (!match) return false;
        ++s;
        --slen;
        break;
      }
      case '\\':
        if (plen >= 2) {
          ++p;
          --plen;
        }
        [[fallthrough]];
      default:
        if (Fold(p[0], nocase) != Fold(s[0], nocase)) return false;
        ++s;
        --slen;
        break;
    }
    ++p;
    --plen;
    if (slen == 0) {
      while (plen && *p == '*') {
        ++p;
        --plen;
      }
      break;
    }
  }
  return plen == 0 && slen == 0;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, bool nocase) {
  bool skip_longer = false;
  return Match(pattern.data(), pattern.size(), text.data(), text.size(), nocase, 0, &skip_longer);
}

}  // namespace kvlab::engine
