#include "encodings/md5.h"

#include <openssl/evp.h>

namespace kvlab::encodings {

Md5Digest Md5(std::string_view data) {
  Md5Digest out{};
  unsigned int len = 0;
  // EVP_Digest with EVP_md5() is the non-deprecated OpenSSL 3 way; it cannot fail for MD5 on
  // in-memory input short of memory exhaustion.
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_md5(), nullptr);
  return out;
}

std::string Md5Hex(std::string_view data) {
  static constexpr char kHex[] = "0123456789abcdef";
  const Md5Digest d = Md5(data);
  std::string out(32, '0');
  for (size_t i = 0; i < d.size(); ++i) {
    out[2 * i] = kHex[d[i] >> 4];
    out[2 * i + 1] = kHex[d[i] & 15];
  }
  return out;
}

}  // namespace kvlab::encodings
