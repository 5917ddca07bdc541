// How a backend recognises its own files in a store directory (its FilesIn function, which the
// registry checks a store's KVLAB_STORE marker against: registry.h). Each backend knows what it
// writes; this header only reads bytes.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace kvlab::backends {

// Whether the regular file at `path` holds `bytes` at `offset`. False when it is absent,
// unreadable, or too short: a file that may belong to a store is never opened for writing here.
inline bool FileHasBytesAt(const std::filesystem::path& path, uint64_t offset,
                           std::string_view bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in.seekg(static_cast<std::streamoff>(offset))) return false;
  std::string got(bytes.size(), '\0');
  return in.read(got.data(), static_cast<std::streamsize>(got.size())) && got == bytes;
}

// Whether a regular file (not a directory or a dangling link) is at `path`.
inline bool IsRegularFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

}  // namespace kvlab::backends
