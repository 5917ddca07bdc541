#include "conformance/progress.h"

#include <unistd.h>

namespace kvlab::conformance {

StderrProgress::StderrProgress()
    : terminal_(::isatty(STDERR_FILENO) == 1), last_(std::chrono::steady_clock::now()) {}

StderrProgress::~StderrProgress() { ClearLine(); }

void StderrProgress::ClearLine() {
  if (!line_shown_) return;
  std::fputs("\r\033[K", stderr);
  line_shown_ = false;
}

void StderrProgress::Update(size_t done, size_t total, const std::string& what, uint64_t failures) {
  const auto now = std::chrono::steady_clock::now();
  const auto every = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(10000);
  if (now - last_ < every && done != total) return;
  last_ = now;
  std::string shown = what.size() > 60 ? what.substr(0, 57) + "..." : what;
  const int width = static_cast<int>(std::to_string(total).size());
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K[%*zu/%zu] %s  %llu failure%s", width, done, total, shown.c_str(),
                 static_cast<unsigned long long>(failures), failures == 1 ? "" : "s");
    line_shown_ = true;
  } else if (done != total) {
    std::fprintf(stderr, "conform: [%*zu/%zu] %s, %llu failures so far\n", width, done, total,
                 shown.c_str(), static_cast<unsigned long long>(failures));
  }
  std::fflush(stderr);
}

void StderrProgress::Message(const std::string& line) {
  ClearLine();
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace kvlab::conformance
