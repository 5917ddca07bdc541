#include "flags/conventions.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace kvlab::flags {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void OnInterrupt(int) { g_interrupted = 1; }

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

const volatile std::sig_atomic_t* InterruptFlag() { return &g_interrupted; }

std::string NotANumber(const std::string& text) {
  double d = 0;
  if (CLI::detail::lexical_cast(text, d)) return "";
  return "not a number (got " + text + ")";
}

const CLI::Validator& NonNegative() {
  static const CLI::Validator v(
      [](std::string& value) -> std::string {
        if (std::string e = NotANumber(value); !e.empty()) return e;
        const size_t first = value.find_first_not_of(" \t");
        if (first != std::string::npos && value[first] == '-') {
          return "must not be negative (got " + value + ")";
        }
        return "";
      },
      "NONNEGATIVE");
  return v;
}

const CLI::Validator& Positive() {
  static const CLI::Validator v(
      [](std::string& value) -> std::string {
        if (std::string e = NotANumber(value); !e.empty()) return e;
        double d = 0;
        if (!CLI::detail::lexical_cast(value, d) || !(d > 0)) {
          return "must be a number greater than 0 (got " + value + ")";
        }
        return "";
      },
      "POSITIVE");
  return v;
}

void CheckFreshStoreParent(const std::string& dir, const std::string& tool) {
  if (dir.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) throw UsageError("--dir " + dir + ": not a directory");
    if (fs::exists(fs::path(dir) / "KVLAB_STORE", ec)) {
      throw UsageError("--dir " + dir + ": is a kvlab store; " + tool +
                       " makes one fresh store per cell under --dir: give a new or empty "
                       "directory");
    }
    if (!fs::is_empty(dir, ec)) {
      throw UsageError("--dir " + dir + ": is not empty; " + tool +
                       " makes one fresh store per cell under --dir: give a new or empty "
                       "directory");
    }
  }
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("--dir " + dir + ": cannot create it: " + ec.message());
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UsageError("--dir " + dir + ": cannot write there: " + std::strerror(errno));
  }
}

}  // namespace kvlab::flags
