// LatencyHistogram: a small HDR-style histogram of non-negative integer values (nanoseconds).
//
// Buckets are log-linear, as in HdrHistogram: values below 2^(kSubBucketBits+1) each have their
// own bucket; above that, every power-of-two range [2^m, 2^(m+1)) is split into 2^kSubBucketBits
// equal buckets. A bucket is therefore at most 2^-kSubBucketBits of its lower bound wide, and
// Percentile() answers with the middle of the bucket holding the sample of that rank:
//
//   |Percentile(q) - exact nearest-rank q-quantile| <= kRelativePrecision * exact value
//
// with kRelativePrecision = 2^-(kSubBucketBits+1) (0.39% for 7 sub-bucket bits). Count, min,
// max and mean are exact. The bucket array grows to the highest bucket used (at most 7,424
// counters for 64-bit values), so an idle histogram costs a few bytes.
//
// Not thread-safe: each thread records into its own histogram, and Merge() adds them up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kvlab::workloads {

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 7;
  static constexpr double kRelativePrecision = 1.0 / (2 << kSubBucketBits);

  void Record(uint64_t value);
  // Adds every sample of `other`.
  void Merge(const LatencyHistogram& other);
  void Clear();

  uint64_t count() const { return count_; }
  // Exact; 0 when empty.
  uint64_t min() const { return count_ == 0 ? 0 : min_; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ == 0 ? 0.0 : sum_ / static_cast<double>(count_); }

  // The nearest-rank q-quantile (the value of the sample of rank ceil(q * count), 1-based), to
  // within kRelativePrecision, clamped to [min, max]. q in [0, 1]; 0 when empty.
  uint64_t Percentile(double q) const;

  // The bucket index of a value and the range [lower, upper] of values a bucket holds. Public
  // so that tests can check the layout.
  static size_t BucketOf(uint64_t value);
  static uint64_t BucketLower(size_t bucket);
  static uint64_t BucketUpper(size_t bucket);

 private:
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  double sum_ = 0;
};

}  // namespace kvlab::workloads
