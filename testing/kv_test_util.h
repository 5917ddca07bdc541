// Test helpers shared by the backend suites: the backend x decorator matrix and a scratch
// directory that is removed at the end of a test.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "backends/registry.h"

namespace kvlab::testing {

// One cell of the matrix: a backend and the decorators stacked on it.
// Key spaces over the shared suite's alphabet (0x00 0x01 'a' 'b' 0x7f 0x80 0xfe 0xff): a
// one-byte prefix that is also a key, a two-byte one, and one of 0xff bytes only (no key lies
// past its records); keys outside them stay in the default space, on both sides of each.
inline std::vector<std::string> TestKeySpaces() {
  return {"a", std::string("\x80\x01", 2), std::string("\xff\xff", 2)};
}

struct StoreVariant {
  std::string backend;
  bool no_reverse_scan = false;
  bool remote = false;
  // With StoreOptions::key_spaces chosen to cut through the suite's random keys (see
  // TestKeySpaces).
  bool key_spaces = false;

  std::string Name() const {
    return backend + (no_reverse_scan ? "_NoReverse" : "") + (remote ? "_Remote" : "") +
           (key_spaces ? "_KeySpaces" : "");
  }
  backends::StoreSpec Spec(const std::string& dir) const {
    backends::StoreSpec spec;
    spec.backend = backend;
    spec.options.dir = dir;
    spec.no_reverse_scan = no_reverse_scan;
    spec.remote_latency = remote;
    spec.remote.round_trip = std::chrono::microseconds(0);  // count round trips, do not sleep
    spec.remote.scan_page_rows = 7;                         // small, so paging is exercised
    if (key_spaces) spec.options.key_spaces = TestKeySpaces();
    return spec;
  }
};

// Every backend with every decorator combination.
inline std::vector<StoreVariant> AllStoreVariants() {
  std::vector<StoreVariant> out;
  for (const std::string& b : backends::EmbeddedBackendNames()) {
    for (bool no_reverse : {false, true}) {
      for (bool remote : {false, true}) out.push_back({b, no_reverse, remote});
    }
    out.push_back({b, false, false, /*key_spaces=*/true});
  }
  return out;
}

// A fresh directory under the system temporary directory, removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "kvlab-test-XXXXXX").string();
    if (::mkdtemp(templ.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = templ;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace kvlab::testing
