// Redis 7.0's RDB building blocks (rdb_format.h). Byte layouts follow src/rdb.c (lengths,
// strings), listpack.c, ziplist.c, intset.c and zipmap.c; LZF is Debian's liblzf, the library
// Redis bundles (same HLOG and options, so the compressed bytes match Redis's).
#include "engine/rdb_format.h"

#include <lzf.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace kvlab::engine::rdb {

namespace {

constexpr std::array<uint64_t, 256> MakeCrcTable() {
  // The Jones polynomial 0xad93d23594c935a9, bit-reflected.
  constexpr uint64_t kPoly = 0x95ac9329ac4bc9b5ULL;
  std::array<uint64_t, 256> t{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint64_t, 256> kCrcTable = MakeCrcTable();

uint64_t LoadLE(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void AppendLE(std::string* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// Sign-extends the low `bits` bits of v.
int64_t SignExtend(uint64_t v, int bits) {
  const uint64_t m = uint64_t{1} << (bits - 1);
  v &= (bits == 64) ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
  return static_cast<int64_t>((v ^ m) - m);
}

// lpEncodeBacklen: the entry's size, written so that it reads back from its last byte.
std::string Backlen(uint64_t l) {
  std::string b;
  if (l <= 127) {
    b.push_back(static_cast<char>(l));
  } else if (l < 16383) {
    b = {static_cast<char>(l >> 7), static_cast<char>((l & 127) | 128)};
  } else if (l < 2097151) {
    b = {static_cast<char>(l >> 14), static_cast<char>(((l >> 7) & 127) | 128),
         static_cast<char>((l & 127) | 128)};
  } else if (l < 268435455) {
    b = {static_cast<char>(l >> 21), static_cast<char>(((l >> 14) & 127) | 128),
         static_cast<char>(((l >> 7) & 127) | 128), static_cast<char>((l & 127) | 128)};
  } else {
    b = {static_cast<char>(l >> 28), static_cast<char>(((l >> 21) & 127) | 128),
         static_cast<char>(((l >> 14) & 127) | 128), static_cast<char>(((l >> 7) & 127) | 128),
         static_cast<char>((l & 127) | 128)};
  }
  return b;
}

// The encoding and data of one listpack entry (without its back-length).
std::string ListpackEntryBody(std::string_view s) {
  std::string e;
  int64_t v = 0;
  if (StrictInt64(s, &v)) {
    const uint64_t u = static_cast<uint64_t>(v);
    if (v >= 0 && v <= 127) {
      e.push_back(static_cast<char>(v));
    } else if (v >= -4096 && v <= 4095) {
      const uint64_t w = v < 0 ? (uint64_t{1} << 13) + v : u;
      e = {static_cast<char>((w >> 8) | 0xC0), static_cast<char>(w & 0xff)};
    } else if (v >= -32768 && v <= 32767) {
      e.push_back(static_cast<char>(0xF1));
      AppendLE(&e, u, 2);
    } else if (v >= -8388608 && v <= 8388607) {
      e.push_back(static_cast<char>(0xF2));
      AppendLE(&e, u, 3);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      e.push_back(static_cast<char>(0xF3));
      AppendLE(&e, u, 4);
    } else {
      e.push_back(static_cast<char>(0xF4));
      AppendLE(&e, u, 8);
    }
    return e;
  }
  const size_t len = s.size();
  if (len < 64) {
    e.push_back(static_cast<char>(0x80 | len));
  } else if (len < 4096) {
    e = {static_cast<char>(0xE0 | (len >> 8)), static_cast<char>(len & 0xff)};
  } else {
    e.push_back(static_cast<char>(0xF0));
    AppendLE(&e, len, 4);
  }
  e.append(s);
  return e;
}

}  // namespace

uint64_t Crc64(uint64_t crc, std::string_view data) {
  for (unsigned char c : data) crc = kCrcTable[(crc ^ c) & 0xff] ^ (crc >> 8);
  return crc;
}

bool StrictInt64(std::string_view s, int64_t* v) {
  if (s.empty() || s.size() > 20) return false;
  if (s == "0") {
    *v = 0;
    return true;
  }
  size_t i = 0;
  const bool neg = s[0] == '-';
  if (neg) ++i;
  if (i >= s.size() || s[i] < '1' || s[i] > '9') return false;
  uint64_t u = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (u > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    u = u * 10 + d;
  }
  if (neg) {
    if (u > uint64_t{1} << 63) return false;
    *v = static_cast<int64_t>(0 - u);
  } else {
    if (u > static_cast<uint64_t>(INT64_MAX)) return false;
    *v = static_cast<int64_t>(u);
  }
  return true;
}

void Writer::Len(uint64_t len) {
  if (len < (1 << 6)) {
    Byte(static_cast<uint8_t>(len));
  } else if (len < (1 << 14)) {
    Byte(static_cast<uint8_t>((len >> 8) | 0x40));
    Byte(static_cast<uint8_t>(len & 0xff));
  } else if (len <= UINT32_MAX) {
    Byte(0x80);
    for (int i = 3; i >= 0; --i) Byte(static_cast<uint8_t>(len >> (8 * i)));
  } else {
    Byte(0x81);
    for (int i = 7; i >= 0; --i) Byte(static_cast<uint8_t>(len >> (8 * i)));
  }
}

void Writer::String(std::string_view s, bool compress) {
  int64_t v = 0;
  if (s.size() <= 11 && StrictInt64(s, &v)) {
    if (v >= -128 && v <= 127) {
      Byte(0xC0);
      AppendLE(&out_, static_cast<uint64_t>(v), 1);
      return;
    }
    if (v >= -32768 && v <= 32767) {
      Byte(0xC1);
      AppendLE(&out_, static_cast<uint64_t>(v), 2);
      return;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
      Byte(0xC2);
      AppendLE(&out_, static_cast<uint64_t>(v), 4);
      return;
    }
  }
  if (compress && s.size() > 20 && s.size() <= UINT32_MAX) {
    // rdbSaveLzfStringObject: worth it only when it saves at least 4 bytes.
    std::string out(s.size() - 4 + 1, '\0');
    const unsigned int n = lzf_compress(s.data(), static_cast<unsigned int>(s.size()), out.data(),
                                        static_cast<unsigned int>(s.size() - 4));
    if (n > 0) {
      Byte(0xC3);
      Len(n);
      Len(s.size());
      out_.append(out.data(), n);
      return;
    }
  }
  Len(s.size());
  out_.append(s);
}

void Writer::BinaryDouble(double d) {
  char b[8];
  std::memcpy(b, &d, 8);  // little-endian hosts only, as kvlab's other encodings
  out_.append(b, 8);
}

bool Reader::Byte(uint8_t* b) {
  if (pos_ >= in_.size()) return false;
  *b = static_cast<uint8_t>(in_[pos_++]);
  return true;
}

bool Reader::Len(uint64_t* len, bool* encoded) {
  uint8_t b = 0;
  if (!Byte(&b)) return false;
  if (encoded) *encoded = false;
  const int kind = (b & 0xC0) >> 6;
  if (kind == 3) {
    if (!encoded) return false;
    *encoded = true;
    *len = b & 0x3F;
    return true;
  }
  if (kind == 0) {
    *len = b & 0x3F;
    return true;
  }
  if (kind == 1) {
    uint8_t c = 0;
    if (!Byte(&c)) return false;
    *len = (static_cast<uint64_t>(b & 0x3F) << 8) | c;
    return true;
  }
  int n = 0;
  if (b == 0x80) {
    n = 4;
  } else if (b == 0x81) {
    n = 8;
  } else {
    return false;
  }
  if (remaining() < static_cast<size_t>(n)) return false;
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
  *len = v;
  return true;
}

bool Reader::String(std::string* s) {
  uint64_t len = 0;
  bool encoded = false;
  if (!Len(&len, &encoded)) return false;
  if (encoded) {
    if (len <= 2) {
      const int n = 1 << len;  // INT8, INT16, INT32
      if (remaining() < static_cast<size_t>(n)) return false;
      const auto* p = reinterpret_cast<const unsigned char*>(in_.data() + pos_);
      pos_ += n;
      *s = std::to_string(SignExtend(LoadLE(p, n), 8 * n));
      return true;
    }
    if (len != 3) return false;  // "Unknown RDB string encoding type"
    uint64_t clen = 0, ulen = 0;
    if (!Len(&clen) || !Len(&ulen)) return false;
    if (clen > remaining() || clen > UINT32_MAX || ulen > UINT32_MAX) return false;
    // The uncompressed size is the client's claim: LZF's output of clen bytes is at most
    // about 256 times its input, so a larger claim cannot be met and is refused unallocated.
    if (ulen > clen * 264 + 64) return false;
    s->assign(ulen, '\0');
    const unsigned int got = lzf_decompress(in_.data() + pos_, static_cast<unsigned int>(clen),
                                            s->data(), static_cast<unsigned int>(ulen));
    pos_ += clen;
    return got == ulen;
  }
  if (len > remaining()) return false;
  s->assign(in_.substr(pos_, len));
  pos_ += len;
  return true;
}

bool Reader::BinaryDouble(double* d) {
  if (remaining() < 8) return false;
  std::memcpy(d, in_.data() + pos_, 8);
  pos_ += 8;
  return true;
}

bool Reader::TextDouble(double* d) {
  uint8_t len = 0;
  if (!Byte(&len)) return false;
  switch (len) {
    case 255:
      *d = -std::numeric_limits<double>::infinity();
      return true;
    case 254:
      *d = std::numeric_limits<double>::infinity();
      return true;
    case 253:
      *d = std::numeric_limits<double>::quiet_NaN();
      return true;
    default:
      break;
  }
  if (remaining() < len) return false;
  const std::string text(in_.substr(pos_, len));
  pos_ += len;
  return std::sscanf(text.c_str(), "%lg", d) == 1;
}

size_t ListpackEntrySize(std::string_view entry) {
  const size_t body = ListpackEntryBody(entry).size();
  return body + Backlen(body).size();
}

std::string ListpackEncode(const std::vector<std::string_view>& entries) {
  std::string lp(6, '\0');
  for (std::string_view e : entries) {
    const std::string body = ListpackEntryBody(e);
    lp.append(body);
    lp.append(Backlen(body.size()));
  }
  lp.push_back(static_cast<char>(0xFF));
  std::string header;
  AppendLE(&header, lp.size(), 4);
  AppendLE(&header, entries.size() < 65535 ? entries.size() : 65535, 2);
  lp.replace(0, 6, header);
  return lp;
}

bool ListpackDecode(std::string_view blob, std::vector<std::string>* entries) {
  entries->clear();
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  const size_t n = blob.size();
  if (n < 7 || LoadLE(p, 4) != n || p[n - 1] != 0xFF) return false;
  const uint64_t count = LoadLE(p + 4, 2);
  size_t pos = 6;
  while (pos < n - 1) {
    const unsigned char b = p[pos];
    size_t head = 1, len = 0;
    bool is_int = true;
    int64_t v = 0;
    const size_t avail = n - 1 - pos;
    if ((b & 0x80) == 0) {
      v = b & 0x7F;
    } else if ((b & 0xC0) == 0x80) {
      is_int = false;
      len = b & 0x3F;
    } else if ((b & 0xE0) == 0xC0) {
      if (avail < 2) return false;
      head = 2;
      v = SignExtend((static_cast<uint64_t>(b & 0x1F) << 8) | p[pos + 1], 13);
    } else if ((b & 0xF0) == 0xE0) {
      if (avail < 2) return false;
      is_int = false;
      head = 2;
      len = (static_cast<size_t>(b & 0x0F) << 8) | p[pos + 1];
    } else if (b >= 0xF1 && b <= 0xF4) {
      const int w = b == 0xF1 ? 2 : b == 0xF2 ? 3 : b == 0xF3 ? 4 : 8;
      if (avail < static_cast<size_t>(1 + w)) return false;
      head = 1 + w;
      v = SignExtend(LoadLE(p + pos + 1, w), 8 * w);
    } else if (b == 0xF0) {
      if (avail < 5) return false;
      is_int = false;
      head = 5;
      len = LoadLE(p + pos + 1, 4);
    } else {
      return false;
    }
    if (len > avail - head) return false;
    const size_t body = head + len;
    const std::string back = Backlen(body);
    if (back.size() > avail - body || blob.substr(pos + body, back.size()) != back) return false;
    entries->push_back(is_int ? std::to_string(v) : std::string(blob.substr(pos + head, len)));
    pos += body + back.size();
  }
  if (pos != n - 1) return false;
  return count == 65535 || count == entries->size();
}

bool ZiplistDecode(std::string_view blob, std::vector<std::string>* entries) {
  entries->clear();
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  const size_t n = blob.size();
  if (n < 11 || LoadLE(p, 4) != n || p[n - 1] != 0xFF || LoadLE(p + 4, 4) > n - 1) return false;
  const uint64_t count = LoadLE(p + 8, 2);
  size_t pos = 10, prev_size = 0;
  while (pos < n - 1) {
    const size_t start = pos;
    // prevlen: one byte below 254, else 254 and four bytes.
    uint64_t prevlen = p[pos];
    if (prevlen == 254) {
      if (n - 1 - pos < 5) return false;
      prevlen = LoadLE(p + pos + 1, 4);
      pos += 5;
    } else {
      pos += 1;
    }
    if (prevlen != prev_size) return false;
    if (pos >= n - 1) return false;
    const unsigned char b = p[pos];
    size_t avail = n - 1 - pos;
    std::string value;
    if ((b >> 6) < 3) {
      size_t head = 0, len = 0;
      if ((b >> 6) == 0) {
        head = 1;
        len = b & 0x3F;
      } else if ((b >> 6) == 1) {
        if (avail < 2) return false;
        head = 2;
        len = (static_cast<size_t>(b & 0x3F) << 8) | p[pos + 1];
      } else {
        if (b != 0x80 || avail < 5) return false;
        head = 5;
        len = (static_cast<size_t>(p[pos + 1]) << 24) | (static_cast<size_t>(p[pos + 2]) << 16) |
              (static_cast<size_t>(p[pos + 3]) << 8) | p[pos + 4];
      }
      if (len > avail - head) return false;
      value.assign(blob.substr(pos + head, len));
      pos += head + len;
    } else {
      int w = 0;
      int64_t v = 0;
      if (b == 0xC0) {
        w = 2;
      } else if (b == 0xD0) {
        w = 4;
      } else if (b == 0xE0) {
        w = 8;
      } else if (b == 0xF0) {
        w = 3;
      } else if (b == 0xFE) {
        w = 1;
      } else if (b >= 0xF1 && b <= 0xFD) {
        v = (b & 0x0F) - 1;
      } else {
        return false;
      }
      if (avail < static_cast<size_t>(1 + w)) return false;
      if (w > 0) v = SignExtend(LoadLE(p + pos + 1, w), 8 * w);
      value = std::to_string(v);
      pos += 1 + w;
    }
    entries->push_back(std::move(value));
    prev_size = pos - start;
  }
  if (pos != n - 1) return false;
  return count == 65535 || count == entries->size();
}

std::string IntsetEncode(const std::vector<int64_t>& values) {
  int w = 2;
  for (int64_t v : values) {
    if (v < INT32_MIN || v > INT32_MAX) {
      w = 8;
    } else if ((v < INT16_MIN || v > INT16_MAX) && w < 4) {
      w = 4;
    }
  }
  std::string out;
  AppendLE(&out, static_cast<uint64_t>(w), 4);
  AppendLE(&out, values.size(), 4);
  for (int64_t v : values) AppendLE(&out, static_cast<uint64_t>(v), w);
  return out;
}

bool IntsetDecode(std::string_view blob, std::vector<int64_t>* values) {
  values->clear();
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  if (blob.size() < 8) return false;
  const uint64_t w = LoadLE(p, 4), count = LoadLE(p + 4, 4);
  if (w != 2 && w != 4 && w != 8) return false;
  if (count == 0 || 8 + count * w != blob.size()) return false;
  for (uint64_t i = 0; i < count; ++i) {
    const int64_t v =
        SignExtend(LoadLE(p + 8 + i * w, static_cast<int>(w)), static_cast<int>(8 * w));
    if (!values->empty() && v <= values->back()) return false;  // sorted and distinct
    values->push_back(v);
  }
  return true;
}

bool ZipmapDecode(std::string_view blob, std::vector<std::pair<std::string, std::string>>* pairs) {
  pairs->clear();
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  const size_t n = blob.size();
  if (n < 2 || p[n - 1] != 0xFF) return false;
  size_t pos = 1;  // zmlen
  auto read_len = [&](uint64_t* len) {
    if (pos >= n - 1) return false;
    if (p[pos] < 254) {
      *len = p[pos++];
      return true;
    }
    if (p[pos] != 254 || n - 1 - pos < 5) return false;
    *len = LoadLE(p + pos + 1, 4);
    pos += 5;
    return true;
  };
  while (pos < n - 1) {
    uint64_t klen = 0, vlen = 0;
    if (!read_len(&klen) || klen > n - 1 - pos) return false;
    std::string key(blob.substr(pos, klen));
    pos += klen;
    if (!read_len(&vlen) || pos >= n - 1) return false;
    const uint64_t free = p[pos++];
    if (vlen > n - 1 - pos || free > n - 1 - pos - vlen) return false;
    pairs->emplace_back(std::move(key), std::string(blob.substr(pos, vlen)));
    pos += vlen + free;
  }
  return pos == n - 1;
}

std::string ScoreText(double score) {
  char buf[128];
  if (std::isnan(score)) return "nan";
  if (std::isinf(score)) return score < 0 ? "-inf" : "inf";
  if (score == 0) return std::signbit(score) ? "-0" : "0";
  if (score > -4503599627370495.0 && score < 4503599627370496.0 &&
      score == static_cast<double>(static_cast<long long>(score))) {
    return std::to_string(static_cast<long long>(score));
  }
  std::snprintf(buf, sizeof(buf), "%.17g", score);
  return buf;
}

}  // namespace kvlab::engine::rdb
