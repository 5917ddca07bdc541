#include "base/data_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace kvlab {
namespace {

namespace fs = std::filesystem;

// The directory of the running binary, or empty when /proc does not say.
fs::path BinaryDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

std::vector<fs::path> Candidates() {
  std::vector<fs::path> out;
  if (const char* env = std::getenv("KVLAB_DATA_DIR"); env != nullptr && *env != '\0') {
    out.emplace_back(env);
  }
  const fs::path bin = BinaryDir();
  if (!bin.empty()) {
    out.push_back(bin / "share" / "kvlab");
    out.push_back((bin / ".." / "share" / "kvlab").lexically_normal());
  }
  return out;
}

}  // namespace

Status FindDataFile(std::string_view relative, std::string* path) {
  std::string looked;
  for (const fs::path& dir : Candidates()) {
    const fs::path candidate = dir / fs::path(relative);
    std::error_code ec;
    if (fs::exists(candidate, ec)) {
      *path = candidate.string();
      return Status::OK();
    }
    looked += (looked.empty() ? "" : ", ") + candidate.string();
  }
  return Status::NotFound("kvlab's data file " + std::string(relative) +
                          " is not where it looked (" + looked +
                          "); set KVLAB_DATA_DIR to the directory that holds it");
}

std::string DataFileHelp(std::string_view relative) { return "<data>/" + std::string(relative); }

}  // namespace kvlab
