// Shrinking a failing command sequence to a minimal reproducer (delta debugging).
//
// ShrinkIndices implements Zeller's ddmin over the positions 0..n-1: it removes chunks, then
// single positions, as long as the test still fails, and returns a 1-minimal set: removing any
// one remaining position makes the test pass (if the test budget allowed it to finish; see
// ShrinkResult::complete).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace kvlab::conformance {

struct ShrinkResult {
  std::vector<size_t> kept;  // ascending positions
  size_t tests = 0;          // how many times `fails` ran
  bool complete = true;      // false when max_tests stopped the search early
};

// REQUIRES: fails(all positions) is true (the caller observed the failure). `fails` is given
// candidate position lists in ascending order. Runs `fails` at most max_tests times.
ShrinkResult ShrinkIndices(size_t n, const std::function<bool(const std::vector<size_t>&)>& fails,
                           size_t max_tests);

}  // namespace kvlab::conformance
