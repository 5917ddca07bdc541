#include "workloads/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace kvlab::workloads {
namespace {

constexpr uint64_t kSubBuckets = uint64_t{1} << LatencyHistogram::kSubBucketBits;
// Values below this each have their own bucket.
constexpr uint64_t kLinearLimit = 2 * kSubBuckets;

}  // namespace

size_t LatencyHistogram::BucketOf(uint64_t value) {
  if (value < kLinearLimit) return static_cast<size_t>(value);
  const int msb = 63 - std::countl_zero(value);  // >= kSubBucketBits + 1
  const int shift = msb - kSubBucketBits;
  // value >> shift is in [kSubBuckets, 2 * kSubBuckets).
  return static_cast<size_t>(static_cast<uint64_t>(shift) * kSubBuckets + (value >> shift));
}

uint64_t LatencyHistogram::BucketLower(size_t bucket) {
  if (bucket < kLinearLimit) return bucket;
  const uint64_t shift = bucket / kSubBuckets - 1;
  const uint64_t sub = bucket - shift * kSubBuckets;  // in [kSubBuckets, 2 * kSubBuckets)
  return sub << shift;
}

uint64_t LatencyHistogram::BucketUpper(size_t bucket) {
  if (bucket < kLinearLimit) return bucket;
  const uint64_t shift = bucket / kSubBuckets - 1;
  return BucketLower(bucket) + ((uint64_t{1} << shift) - 1);
}

void LatencyHistogram::Record(uint64_t value) {
  const size_t b = BucketOf(value);
  if (b >= counts_.size()) counts_.resize(b + 1, 0);
  ++counts_[b];
  ++count_;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  sum_ += static_cast<double>(value);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (size_t i = 0; i < other.counts_.size(); ++i) counts_[i] += other.counts_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
}

void LatencyHistogram::Clear() { *this = LatencyHistogram(); }

uint64_t LatencyHistogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const uint64_t rank =
      std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_))));
  uint64_t seen = 0;
  for (size_t b = 0; b < counts_.size(); ++b) {
    seen += counts_[b];
    if (seen >= rank) {
      // The middle of the bucket: at most half a bucket width from any value in it.
      const uint64_t lower = BucketLower(b);
      const uint64_t mid = lower + (BucketUpper(b) - lower) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

}  // namespace kvlab::workloads
