// Request generators: which record (or element) an operation touches, as YCSB chooses them.
//
// - Uniform over [0, n).
// - Zipfian (Gray et al., "Quickly generating billion-record synthetic databases", SIGMOD 1994),
//   exactly YCSB's ZipfianGenerator: item 0 is the most popular, P(i) ~ 1 / (i+1)^theta.
// - Scrambled zipfian, YCSB's ScrambledZipfianGenerator: a zipfian draw over 10^10 items (with
//   YCSB's precomputed zeta for theta 0.99), hashed with YCSB's FNV-1a 64 and reduced modulo n,
//   so that the popular items are spread over the key space instead of clustered at its start.
// - Latest, YCSB's SkewedLatestGenerator: the most recently inserted record is the most popular.
// - Sequential: 0, 1, 2, ... (each thread takes every T-th value, so that T threads together
//   cover every value once).
//
// Every generator takes its randomness from a Rng owned by the calling thread, so runs with a
// fixed seed and one thread are reproducible bit for bit.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace kvlab::workloads {

// A seeded 64-bit generator. Deterministic across platforms (mt19937_64 is fully specified, and
// the conversions below are kvlab's own, not the standard library's distributions).
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // The seed of stream `stream` of a run with seed `seed` (SplitMix64 of both): gives every
  // thread and every purpose its own independent stream.
  static uint64_t StreamSeed(uint64_t seed, uint64_t stream);

  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1), 53 bits.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n). REQUIRES: n > 0.
  uint64_t Uniform(uint64_t n);

 private:
  std::mt19937_64 engine_;
};

// YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 little-endian bytes of v, then Math.abs.
uint64_t YcsbFnvHash64(uint64_t v);

class ZipfianGenerator {
 public:
  static constexpr double kYcsbConstant = 0.99;

  // Items [0, items) with the given theta. Computes zeta(items) (O(items) once).
  // REQUIRES: items >= 1, 0 < theta < 1.
  ZipfianGenerator(uint64_t items, double theta);
  // With a precomputed zeta(items, theta), as YCSB does for 10^10 items.
  ZipfianGenerator(uint64_t items, double theta, double zeta_items);

  uint64_t Next(Rng& rng) { return Draw(rng.NextDouble()); }
  // A draw over [0, items) for a larger item count than the current one (the latest
  // distribution grows with inserts): zeta is extended incrementally. REQUIRES: items >= the
  // current item count.
  uint64_t NextWithItems(Rng& rng, uint64_t items);

  uint64_t items() const { return items_; }
  double theta() const { return theta_; }
  double zeta() const { return zeta_n_; }

  // The exact probability that Next() returns v, for this generator's algorithm (which is
  // Gray's approximation of the zipfian law: exact for items 0 and 1, close for the rest).
  double Probability(uint64_t v) const;

  // sum_{i=1..n} 1 / i^theta.
  static double Zeta(uint64_t n, double theta);

 private:
  uint64_t Draw(double u) const;
  void Recompute();
  // The smallest u in the formula region for which the draw is >= k.
  double InverseForFormula(uint64_t k) const;

  uint64_t items_;
  double theta_;
  double zeta_n_;
  double zeta_2_;
  double alpha_;
  double eta_;
};

// YCSB's ScrambledZipfianGenerator over [0, items).
class ScrambledZipfianGenerator {
 public:
  static constexpr uint64_t kYcsbItemCount = 10000000000ull;
  static constexpr double kYcsbZetan = 26.46902820178302;

  // With theta 0.99 the underlying zipfian is YCSB's: 10^10 + 1 items and YCSB's constant zeta.
  // Another theta would need zeta over 10^10 items (minutes of work), so it draws over `items`
  // instead and only the scrambling is YCSB's. REQUIRES: items >= 1.
  ScrambledZipfianGenerator(uint64_t items, double theta = ZipfianGenerator::kYcsbConstant);

  uint64_t Next(Rng& rng) { return YcsbFnvHash64(inner_.Next(rng)) % items_; }
  const ZipfianGenerator& inner() const { return inner_; }
  uint64_t items() const { return items_; }

 private:
  uint64_t items_;
  ZipfianGenerator inner_;
};

// YCSB's SkewedLatestGenerator: given the number of records inserted so far (`limit`), returns
// limit - 1 - zipfian(limit), so record limit-1 is the most popular. (YCSB returns
// max - zipfian(max) with max the last inserted id, which never picks record 0; kvlab keeps the
// whole range.)
class LatestGenerator {
 public:
  explicit LatestGenerator(uint64_t initial_limit, double theta = ZipfianGenerator::kYcsbConstant)
      : zipfian_(initial_limit == 0 ? 1 : initial_limit, theta) {}
  // REQUIRES: limit >= 1 and never decreases between calls.
  uint64_t Next(Rng& rng, uint64_t limit) { return limit - 1 - zipfian_.NextWithItems(rng, limit); }

 private:
  ZipfianGenerator zipfian_;
};

// The ids of records as they are inserted while a workload runs, shared by all threads (YCSB's
// AcknowledgedCounterGenerator). Claim() hands out the next id; Acknowledge() marks its insert
// done. limit() is the number of ids below which every insert is complete, so readers only pick
// records that exist.
class InsertCounter {
 public:
  explicit InsertCounter(uint64_t first_id) : next_(first_id), limit_(first_id) {}

  uint64_t Claim();
  void Acknowledge(uint64_t id);
  uint64_t limit() const { return limit_.load(std::memory_order_acquire); }
  // Ids handed out so far, complete or not.
  uint64_t claimed() const;

 private:
  mutable std::mutex mu_;
  uint64_t next_;
  std::set<uint64_t> in_flight_;
  std::atomic<uint64_t> limit_;
};

// How a phase picks records or elements; parsed from a workload file.
struct DistributionSpec {
  enum class Kind { kUniform, kZipfian, kLatest, kSequential };
  Kind kind = Kind::kUniform;
  double theta = ZipfianGenerator::kYcsbConstant;  // zipfian and latest
  bool scrambled = true;                           // zipfian only

  static Status Parse(const std::string& name, DistributionSpec* out);
  std::string Name() const;
};

// An empirical distribution of non-negative integers (collection sizes, lengths, TTLs), given by
// its quantiles: points (p, value) with p strictly increasing from 0 to 1 and value
// non-decreasing; between two points the quantile function is linear. A workload file's
// "distributions" member holds them (`kvlab profile` writes the measured ones there).
class EmpiricalDistribution {
 public:
  struct Point {
    double p = 0;
    double value = 0;
  };
  // Checks the points: at least two, p from exactly 0 to exactly 1 and strictly increasing,
  // values finite, >= 0 and non-decreasing. The message names the offending point.
  static Status Make(std::vector<Point> points, EmpiricalDistribution* out);

  // The value at quantile u, rounded to the nearest integer. REQUIRES: 0 <= u <= 1.
  uint64_t Quantile(double u) const;
  uint64_t Next(Rng& rng) const { return Quantile(rng.NextDouble()); }
  const std::vector<Point>& points() const { return points_; }

 private:
  std::vector<Point> points_;
};

// A point of [0, 1) for draw number i of a sequence: the golden-ratio (Weyl) sequence, frac(i *
// (sqrt(5) - 1) / 2 + offset). Any run of consecutive i covers [0, 1) evenly (its discrepancy
// is O(log n / n)), so sizes drawn at these points for consecutive keys follow the distribution
// closely, not just on average; `offset` separates sequences (a key's members from its size).
double WeylPoint(uint64_t i, double offset = 0);
// A well-mixed 64-bit hash of bytes (FNV-1a, then SplitMix64's finalizer).
uint64_t MixHash(std::string_view bytes);

// A generator of one DistributionSpec, owned by one thread.
class Chooser {
 public:
  // Picks from [0, limit) where limit may grow up to `max_items` (records plus the inserts the
  // phase may make). `thread` and `threads` split sequential draws between threads.
  Chooser(const DistributionSpec& spec, uint64_t initial_limit, uint64_t max_items, int thread,
          int threads);

  // REQUIRES: 1 <= limit <= max_items, limit never decreasing.
  uint64_t Next(Rng& rng, uint64_t limit);

 private:
  DistributionSpec spec_;
  uint64_t max_items_;
  std::unique_ptr<ZipfianGenerator> zipfian_;
  std::unique_ptr<ScrambledZipfianGenerator> scrambled_;
  std::unique_ptr<LatestGenerator> latest_;
  uint64_t sequence_;
  uint64_t stride_;
};

}  // namespace kvlab::workloads
