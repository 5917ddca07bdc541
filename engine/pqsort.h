// Redis's pqsort (src/pqsort.c, 7.0.15): the NetBSD quicksort of Bentley and McIlroy that
// recurses (or loops) only into the partitions overlapping the wanted ranks [lrange, rrange].
//
// Redis sorts with it when only part of the result is wanted (SORT BY with a LIMIT, GEOSEARCH
// and GEORADIUS with COUNT). It is not stable: elements that compare equal end up where Redis's
// leaves them, which a stable sort does not reproduce, so both commands port it step by step,
// element-wise instead of on bytes. Unlike the BSD qsort it comes from, Redis's has no
// switch to insertion sort after a partition that swapped nothing, and neither has this one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace kvlab::engine {

// Sorts v[base, base + n) so that ranks lrange..rrange (absolute indexes into v) hold what a
// full sort would put there, in Redis's order of ties. `cmp(a, b)` returns <0, 0 or >0.
// REQUIRES: base + n <= v.size().
template <typename T, typename Cmp>
void PartialQsort(std::vector<T>& v, int64_t base, int64_t n, const Cmp& cmp, int64_t lrange,
                  int64_t rrange) {
  auto med3 = [&](int64_t a, int64_t b, int64_t c) {
    return cmp(v[a], v[b]) < 0 ? (cmp(v[b], v[c]) < 0 ? b : (cmp(v[a], v[c]) < 0 ? c : a))
                               : (cmp(v[b], v[c]) > 0 ? b : (cmp(v[a], v[c]) < 0 ? a : c));
  };
  auto vecswap = [&](int64_t a, int64_t b, int64_t count) {
    for (int64_t i = 0; i < count; ++i) std::swap(v[a + i], v[b + i]);
  };
  // Whether the partition [lo, lo + count) holds a wanted rank (Redis's pointer test).
  auto wanted = [&](int64_t lo, int64_t count) {
    const int64_t hi = lo + count - 1;
    return !((lrange < lo && rrange < lo) || (lrange > hi && rrange > hi));
  };
  for (;;) {
    if (n < 7) {
      for (int64_t m = base + 1; m < base + n; ++m) {
        for (int64_t l = m; l > base && cmp(v[l - 1], v[l]) > 0; --l) std::swap(v[l], v[l - 1]);
      }
      return;
    }
    int64_t pm = base + n / 2;
    if (n > 7) {
      int64_t pl = base;
      int64_t pn = base + n - 1;
      if (n > 40) {
        const int64_t d = n / 8;
        pl = med3(pl, pl + d, pl + 2 * d);
        pm = med3(pm - d, pm, pm + d);
        pn = med3(pn - 2 * d, pn - d, pn);
      }
      pm = med3(pl, pm, pn);
    }
    std::swap(v[base], v[pm]);
    int64_t pa = base + 1, pb = base + 1;
    int64_t pc = base + n - 1, pd = base + n - 1;
    for (;;) {
      int c = 0;
      while (pb <= pc && (c = cmp(v[pb], v[base])) <= 0) {
        if (c == 0) std::swap(v[pa++], v[pb]);
        ++pb;
      }
      while (pb <= pc && (c = cmp(v[pc], v[base])) >= 0) {
        if (c == 0) std::swap(v[pc], v[pd--]);
        --pc;
      }
      if (pb > pc) break;
      std::swap(v[pb++], v[pc--]);
    }
    const int64_t pn = base + n;
    int64_t r = std::min(pa - base, pb - pa);
    vecswap(base, pb - r, r);
    r = std::min(pd - pc, pn - pd - 1);
    vecswap(pb, pn - r, r);
    if ((r = pb - pa) > 1 && wanted(base, r)) PartialQsort(v, base, r, cmp, lrange, rrange);
    if ((r = pd - pc) <= 1) return;
    // Iterate rather than recurse, as Redis does.
    base = pn - r;
    n = r;
    if (!wanted(base, n)) return;
  }
}

}  // namespace kvlab::engine
