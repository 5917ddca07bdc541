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

double EstimateRemaining(double done_s, size_t done, size_t total, double unit_s,
                         double unit_fraction) {
  const size_t after = total > done + 1 ? total - done - 1 : 0;
  // The running unit's time left, as far as its phase tells: a lower bound, since later
  // phases of the unit are not known.
  double unit_left = -1;
  if (unit_fraction > 0) unit_left = unit_s * (1 - std::min(1.0, unit_fraction)) / unit_fraction;
  if (done == 0) {
    if (unit_left < 0) return -1;
    return unit_left + static_cast<double>(after) * (unit_s + unit_left);
  }
  const double mean = done_s / static_cast<double>(done);
  unit_left = std::max(unit_left, mean - unit_s);
  if (done >= total) return 0;
  return std::max(0.0, unit_left) + mean * static_cast<double>(after);
}

std::string ProgressPrinter::Eta() const {
  if (!started_) return "";
  const Clock::time_point now = Clock::now();
  const double done_s = std::chrono::duration<double>(unit_start_ - start_).count();
  const double unit_s = std::chrono::duration<double>(now - unit_start_).count();
  // Between units (after End, before the next Begin) every unit so far counts as done.
  const double left = in_unit_
                          ? EstimateRemaining(done_s, done_, total_, unit_s, unit_fraction_)
                          : EstimateRemaining(std::chrono::duration<double>(now - start_).count(),
                                              done_, total_, 0, -1);
  if (left < 0) return "";
  return "ETA " + FormatDuration(left);
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
  unit_fraction_ = -1;
  in_unit_ = true;
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
  unit_fraction_ = fraction;
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
    in_unit_ = false;
    const std::string eta = Eta();
    std::fprintf(out_, "%s %s: %s%s%s\n", counter.c_str(), label_.c_str(), outcome.c_str(),
                 eta.empty() || done_ >= total_ ? "" : "; ", done_ >= total_ ? "" : eta.c_str());
    std::fflush(out_);
    return;
  }
  ++done_;
  in_unit_ = false;
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
