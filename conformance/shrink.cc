#include "conformance/shrink.h"

#include <algorithm>
#include <numeric>

namespace kvlab::conformance {

ShrinkResult ShrinkIndices(size_t n, const std::function<bool(const std::vector<size_t>&)>& fails,
                           size_t max_tests) {
  ShrinkResult result;
  result.kept.resize(n);
  std::iota(result.kept.begin(), result.kept.end(), size_t{0});
  auto test = [&](const std::vector<size_t>& candidate) {
    ++result.tests;
    return fails(candidate);
  };
  size_t granularity = 2;
  while (result.kept.size() >= 2) {
    if (result.tests >= max_tests) {
      result.complete = false;
      return result;
    }
    const std::vector<size_t>& cur = result.kept;
    const size_t chunk = (cur.size() + granularity - 1) / granularity;
    bool reduced = false;
    // Try each chunk alone ("reduce to subset"), then each complement ("reduce to complement").
    for (int pass = 0; pass < 2 && !reduced; ++pass) {
      for (size_t start = 0; start < cur.size() && !reduced; start += chunk) {
        if (result.tests >= max_tests) {
          result.complete = false;
          return result;
        }
        const size_t end = std::min(cur.size(), start + chunk);
        std::vector<size_t> candidate;
        if (pass == 0) {
          if (end - start == cur.size()) continue;  // the whole list: nothing to learn
          candidate.assign(cur.begin() + static_cast<ptrdiff_t>(start),
                           cur.begin() + static_cast<ptrdiff_t>(end));
        } else {
          candidate.assign(cur.begin(), cur.begin() + static_cast<ptrdiff_t>(start));
          candidate.insert(candidate.end(), cur.begin() + static_cast<ptrdiff_t>(end), cur.end());
          if (candidate.empty()) continue;
        }
        if (test(candidate)) {
          result.kept = std::move(candidate);
          granularity = pass == 0 ? 2 : std::max<size_t>(granularity - 1, 2);
          reduced = true;
        }
      }
    }
    if (reduced) continue;
    if (granularity >= result.kept.size()) break;  // every single position was tried
    granularity = std::min(result.kept.size(), granularity * 2);
  }
  return result;
}

}  // namespace kvlab::conformance
