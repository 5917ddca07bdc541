#include "workloads/bench_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace kvlab::workloads {

std::string FormatDuration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ldh%02ldm", s / 3600, (s % 3600) / 60);
  } else if (s >= 60) {
    std::snprintf(buf, sizeof(buf), "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%lds", s);
  }
  return buf;
}

ProgressPrinter::ProgressPrinter(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}

ProgressPrinter::ProgressPrinter() : ProgressPrinter(stderr, isatty(STDERR_FILENO) == 1) {}

void ProgressPrinter::Skip(size_t units) { total_ -= std::min(units, total_ - done_); }

std::string ProgressPrinter::Counter() const {
  const std::string total = std::to_string(std::max(total_, done_ + 1));
  std::string done = std::to_string(done_ + 1);
  if (done.size() < total.size()) done.insert(0, total.size() - done.size(), ' ');
  return "[" + done + "/" + total + "]";
}

std::string ProgressPrinter::Eta() const {
  if (done_ == 0 || !started_) return "";
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const size_t left = total_ > done_ ? total_ - done_ : 0;
  return "ETA " + FormatDuration(elapsed / static_cast<double>(done_) * static_cast<double>(left));
}

void ProgressPrinter::ClearLine() {
  if (!line_shown_) return;
  std::fputs("\r\033[K", out_);
  line_shown_ = false;
}

void ProgressPrinter::Begin(const std::string& label) {
  const Clock::time_point now = Clock::now();
  if (!started_) {
    started_ = true;
    start_ = now;
  }
  label_ = label;
  stage_.clear();
  unit_start_ = now;
  last_line_ = now;
  if (terminal_) {
    ClearLine();
    std::fprintf(out_, "%s %s", Counter().c_str(), label_.substr(0, 100).c_str());
    line_shown_ = true;
    std::fflush(out_);
  }
}

void ProgressPrinter::Update(const Progress& p) {
  const Clock::time_point now = Clock::now();
  std::string line = Counter() + " " + label_ + " | " + p.stage + " ";
  double fraction = -1;
  if (p.total > 0) fraction = static_cast<double>(p.done) / static_cast<double>(p.total);
  if (p.duration_s > 0) fraction = std::max(fraction, p.elapsed_s / p.duration_s);
  if (fraction >= 0) {
    fraction = std::min(1.0, fraction);
    const int filled = static_cast<int>(fraction * 20);
    line += "[" + std::string(filled, '#') + std::string(20 - filled, '.') + "] " +
            std::to_string(static_cast<int>(fraction * 100)) + "% ";
  }
  const double rate = p.elapsed_s > 0 ? static_cast<double>(p.done) / p.elapsed_s : 0;
  char tail[96];
  std::snprintf(tail, sizeof(tail), "%llu ops, %.0f ops/s", static_cast<unsigned long long>(p.done),
                rate);
  line += tail;
  const std::string eta = Eta();
  if (!eta.empty()) line += " | " + eta;
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s", line.substr(0, 160).c_str());
    line_shown_ = true;
    std::fflush(out_);
  } else if (p.stage != stage_ || now - last_line_ >= std::chrono::seconds(10)) {
    std::fprintf(out_, "%s\n", line.c_str());
    std::fflush(out_);
    last_line_ = now;
  }
  stage_ = p.stage;
}

void ProgressPrinter::End(const std::string& outcome) {
  if (!terminal_) {
    const std::string counter = Counter();
    ++done_;
    const std::string eta = Eta();
    std::fprintf(out_, "%s %s: %s%s%s\n", counter.c_str(), label_.c_str(), outcome.c_str(),
                 eta.empty() || done_ >= total_ ? "" : "; ", done_ >= total_ ? "" : eta.c_str());
    std::fflush(out_);
    return;
  }
  ++done_;
}

void ProgressPrinter::Note(const std::string& text) {
  ClearLine();
  std::fprintf(out_, "kvlab bench: %s\n", text.c_str());
  std::fflush(out_);
}

void ProgressPrinter::Finish() {
  ClearLine();
  const double elapsed =
      started_ ? std::chrono::duration<double>(Clock::now() - start_).count() : 0.0;
  std::fprintf(out_, "kvlab bench: %zu of %zu done in %s\n", done_, std::max(total_, done_),
               FormatDuration(elapsed).c_str());
  std::fflush(out_);
}

}  // namespace kvlab::workloads
