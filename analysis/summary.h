// Summary statistics of one sample of repeated measurements (a cell's latency or throughput over
// its repetitions).
//
// Everything here is robust: medians and quartiles rather than means and standard deviations,
// because the machines kvlab measures on are shared and noisy, and one slow repetition must not
// move the centre or inflate the spread much.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace kvlab::analysis {

struct Summary {
  std::size_t n = 0;
  double min = 0;
  double q1 = 0;  // first quartile
  double median = 0;
  double q3 = 0;  // third quartile
  double max = 0;
  // Interquartile range, q3 - q1.
  double iqr = 0;
  // Median absolute deviation from the median, unscaled (multiply by 1.4826 to estimate a
  // normal distribution's standard deviation). The robust spread to quote: it ignores up to half
  // of the sample being outliers.
  double mad = 0;

  // mad / median: the spread as a fraction of the centre, e.g. 0.04 = "±4%". 0 when the median
  // is 0 and the sample constant; +infinity when the median is 0 and the sample is not constant.
  double RelativeMad() const;
  // (max - min) / median, the same way: the whole range relative to the centre.
  double RelativeRange() const;
};

// Summarizes `sample`. Quartiles use linear interpolation between order statistics (Hyndman and
// Fan's type 7, the default of R's quantile() and of numpy): q(p) = x[h] + (h - floor h) *
// (x[h+1] - x[h]) with h = (n - 1) p on the sorted 0-based sample. With n = 1 every field is the
// value and the spreads are 0.
// REQUIRES: sample is not empty and every value is finite. Throws std::invalid_argument
// otherwise (the message says which).
Summary Summarize(std::span<const double> sample);

// The quantile p in [0, 1] of `sample`, with the same definition as Summarize's quartiles.
// REQUIRES: as Summarize, and 0 <= p <= 1 (std::invalid_argument otherwise).
double Quantile(std::span<const double> sample, double p);

// "median 1234 [min 1200, max 1300], MAD 2.1%, n=5": one line for logs and reports.
std::string FormatSummary(const Summary& s);

// Throws std::invalid_argument("<what>: ...") unless `sample` is non-empty and finite, and, when
// `positive`, every value is > 0. The functions of this module call it on their inputs; callers
// that prefer to check before calling can do the same.
void CheckSample(std::span<const double> sample, const char* what, bool positive = false);

}  // namespace kvlab::analysis
