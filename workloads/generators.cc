#include "workloads/generators.h"

#include <algorithm>
#include <cmath>

namespace kvlab::workloads {
namespace {

uint64_t SplitMix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

uint64_t Rng::StreamSeed(uint64_t seed, uint64_t stream) {
  return SplitMix64(SplitMix64(seed) ^ SplitMix64(~stream));
}

uint64_t Rng::Uniform(uint64_t n) {
  // Rejection sampling: the values below `threshold` would make low results more likely.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t r = Next();
    if (r >= threshold) return r % n;
  }
}

uint64_t YcsbFnvHash64(uint64_t v) {
  constexpr uint64_t kOffsetBasis = 0xCBF29CE484222325ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t hash = kOffsetBasis;
  for (int i = 0; i < 8; ++i) {
    hash ^= v & 0xff;
    v >>= 8;
    hash *= kPrime;
  }
  // Java's Math.abs on a long: negates negative values; Long.MIN_VALUE stays itself, which Java
  // would then reduce to a negative remainder. Reading it as unsigned keeps the result in range.
  const auto as_signed = static_cast<int64_t>(hash);
  return as_signed < 0 && as_signed != INT64_MIN ? static_cast<uint64_t>(-as_signed) : hash;
}

// ZipfianGenerator -----------------------------------------------------------------------------

double ZipfianGenerator::Zeta(uint64_t n, double theta) {
  double sum = 0;
  for (uint64_t i = 1; i <= n; ++i) sum += 1.0 / std::pow(static_cast<double>(i), theta);
  return sum;
}

ZipfianGenerator::ZipfianGenerator(uint64_t items, double theta)
    : ZipfianGenerator(items, theta, Zeta(items, theta)) {}

ZipfianGenerator::ZipfianGenerator(uint64_t items, double theta, double zeta_items)
    : items_(items), theta_(theta), zeta_n_(zeta_items) {
  zeta_2_ = Zeta(2, theta_);
  alpha_ = 1.0 / (1.0 - theta_);
  Recompute();
}

void ZipfianGenerator::Recompute() {
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta_2_ / zeta_n_);
}

uint64_t ZipfianGenerator::Draw(double u) const {
  const double uz = u * zeta_n_;
  if (uz < 1.0) return 0;
  if (uz < 1.0 + std::pow(0.5, theta_)) return std::min<uint64_t>(1, items_ - 1);
  const double v = static_cast<double>(items_) * std::pow(eta_ * u - eta_ + 1, alpha_);
  return std::min(static_cast<uint64_t>(v), items_ - 1);
}

uint64_t ZipfianGenerator::NextWithItems(Rng& rng, uint64_t items) {
  if (items > items_) {
    for (uint64_t i = items_ + 1; i <= items; ++i) {
      zeta_n_ += 1.0 / std::pow(static_cast<double>(i), theta_);
    }
    items_ = items;
    Recompute();
  }
  return Next(rng);
}

double ZipfianGenerator::InverseForFormula(uint64_t k) const {
  // f(u) = items * (eta*u - eta + 1)^alpha = k  <=>  u = ((k/items)^(1/alpha) - 1) / eta + 1.
  return (std::pow(static_cast<double>(k) / static_cast<double>(items_), 1.0 / alpha_) - 1) / eta_ +
         1;
}

double ZipfianGenerator::Probability(uint64_t v) const {
  if (v >= items_) return 0;
  const double z0 = std::min(1.0, 1.0 / zeta_n_);
  const double z1 = std::min(1.0, (1.0 + std::pow(0.5, theta_)) / zeta_n_);
  double p = 0;
  if (v == 0) p += z0;
  if (v == std::min<uint64_t>(1, items_ - 1)) p += z1 - z0;
  if (z1 >= 1.0) return p;
  // The formula region u in [z1, 1): the draw is floor(f(u)), clamped to items-1.
  const double from = std::max(z1, InverseForFormula(v));
  const double to = v + 1 >= items_ ? 1.0 : std::min(1.0, InverseForFormula(v + 1));
  return p + std::max(0.0, to - from);
}

// ScrambledZipfianGenerator ---------------------------------------------------------------------

ScrambledZipfianGenerator::ScrambledZipfianGenerator(uint64_t items, double theta)
    : items_(items),
      inner_(theta == ZipfianGenerator::kYcsbConstant
                 ? ZipfianGenerator(kYcsbItemCount + 1, theta, kYcsbZetan)
                 : ZipfianGenerator(items, theta)) {}

// InsertCounter ---------------------------------------------------------------------------------

uint64_t InsertCounter::Claim() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t id = next_++;
  in_flight_.insert(id);
  return id;
}

void InsertCounter::Acknowledge(uint64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  in_flight_.erase(id);
  limit_.store(in_flight_.empty() ? next_ : *in_flight_.begin(), std::memory_order_release);
}

uint64_t InsertCounter::claimed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_;
}

// EmpiricalDistribution ---------------------------------------------------------------------------

Status EmpiricalDistribution::Make(std::vector<Point> points, EmpiricalDistribution* out) {
  if (points.size() < 2) {
    return Status::InvalidArgument("a quantiles distribution needs at least two points");
  }
  for (size_t i = 0; i < points.size(); ++i) {
    const Point& pt = points[i];
    const std::string where = "point " + std::to_string(i) + ": ";
    if (!std::isfinite(pt.p) || !std::isfinite(pt.value) || pt.value < 0) {
      return Status::InvalidArgument(where + "p and value must be finite, value >= 0");
    }
    if (i > 0 && pt.p <= points[i - 1].p) {
      return Status::InvalidArgument(where + "p must increase strictly");
    }
    if (i > 0 && pt.value < points[i - 1].value) {
      return Status::InvalidArgument(where + "values must not decrease");
    }
  }
  if (points.front().p != 0 || points.back().p != 1) {
    return Status::InvalidArgument("the first point's p must be 0 and the last one's 1");
  }
  out->points_ = std::move(points);
  return Status::OK();
}

uint64_t EmpiricalDistribution::Quantile(double u) const {
  // The first point whose p is above u; u lies between it and the one before.
  const auto it = std::upper_bound(points_.begin(), points_.end(), u,
                                   [](double x, const Point& pt) { return x < pt.p; });
  if (it == points_.end()) return static_cast<uint64_t>(std::llround(points_.back().value));
  if (it == points_.begin()) return static_cast<uint64_t>(std::llround(points_.front().value));
  const Point& a = *(it - 1);
  const Point& b = *it;
  const double v = a.value + (b.value - a.value) * (u - a.p) / (b.p - a.p);
  return static_cast<uint64_t>(std::llround(v));
}

double WeylPoint(uint64_t i, double offset) {
  constexpr double kGolden = 0.6180339887498949;  // (sqrt(5) - 1) / 2
  const double x = static_cast<double>(i % (uint64_t{1} << 40)) * kGolden + offset;
  return x - std::floor(x);
}

uint64_t MixHash(std::string_view bytes) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return SplitMix64(h);
}

// DistributionSpec and Chooser ------------------------------------------------------------------

Status DistributionSpec::Parse(const std::string& name, DistributionSpec* out) {
  *out = DistributionSpec();
  if (name == "uniform") {
    out->kind = Kind::kUniform;
  } else if (name == "zipfian") {
    out->kind = Kind::kZipfian;
  } else if (name == "latest") {
    out->kind = Kind::kLatest;
  } else if (name == "sequential") {
    out->kind = Kind::kSequential;
  } else {
    return Status::InvalidArgument("unknown distribution '" + name +
                                   "' (expected uniform, zipfian, latest or sequential)");
  }
  return Status::OK();
}

std::string DistributionSpec::Name() const {
  switch (kind) {
    case Kind::kUniform:
      return "uniform";
    case Kind::kZipfian:
      return "zipfian";
    case Kind::kLatest:
      return "latest";
    case Kind::kSequential:
      return "sequential";
  }
  return "?";
}

Chooser::Chooser(const DistributionSpec& spec, uint64_t initial_limit, uint64_t max_items,
                 int thread, int threads)
    : spec_(spec),
      max_items_(std::max<uint64_t>(1, max_items)),
      sequence_(static_cast<uint64_t>(thread)),
      stride_(static_cast<uint64_t>(std::max(1, threads))) {
  switch (spec_.kind) {
    case DistributionSpec::Kind::kZipfian:
      if (spec_.scrambled) {
        scrambled_ = std::make_unique<ScrambledZipfianGenerator>(max_items_, spec_.theta);
      } else {
        zipfian_ = std::make_unique<ZipfianGenerator>(max_items_, spec_.theta);
      }
      break;
    case DistributionSpec::Kind::kLatest:
      latest_ =
          std::make_unique<LatestGenerator>(std::max<uint64_t>(1, initial_limit), spec_.theta);
      break;
    case DistributionSpec::Kind::kUniform:
    case DistributionSpec::Kind::kSequential:
      break;
  }
}

uint64_t Chooser::Next(Rng& rng, uint64_t limit) {
  switch (spec_.kind) {
    case DistributionSpec::Kind::kUniform:
      return rng.Uniform(limit);
    case DistributionSpec::Kind::kZipfian:
      // Drawn over every record the phase may reach; YCSB redraws until the record exists.
      for (;;) {
        const uint64_t v = scrambled_ ? scrambled_->Next(rng) : zipfian_->Next(rng);
        if (v < limit) return v;
      }
    case DistributionSpec::Kind::kLatest:
      return latest_->Next(rng, limit);
    case DistributionSpec::Kind::kSequential: {
      const uint64_t v = sequence_ % limit;
      sequence_ += stride_;
      return v;
    }
  }
  return 0;
}

}  // namespace kvlab::workloads
